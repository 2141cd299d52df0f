/*
 * telnet.c - a telnet console captured into a file; see telnet.h.
 *
 * One thread per capture reads the connection and appends the console's
 * text to the file; a pipe tells it to end.  The telnet filter is a small
 * state machine over RFC 854's commands: text is kept (IAC IAC as one
 * 0xff, CR NUL as CR), option requests are answered with a refusal, and
 * subnegotiations are skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lab/telnet.h"
#include "banned.h"

/* Telnet (RFC 854): the bytes of its commands. */
enum {
	TN_SE = 240,
	TN_SB = 250,
	TN_WILL = 251,
	TN_WONT = 252,
	TN_DO = 253,
	TN_DONT = 254,
	TN_IAC = 255,
};

/* Where the telnet filter is: in text, after IAC, after WILL/WONT/DO/
 * DONT (cmd says which), inside a subnegotiation, after IAC in one. */
enum tn_state { TN_TEXT, TN_AFTER_IAC, TN_OPTION, TN_SUB, TN_SUB_IAC };

struct telnet_capture {
	struct strbuf host, path;
	int port, timeout_ms;
	int sock, out; /* the connection, the console file */
	int stop[2]; /* a pipe: written to end the thread */
	pthread_t thread;
	int running; /* the thread was started and not joined */
	int dropped; /* the thread saw the connection end */
	pthread_mutex_t mu; /* dropped */
	enum tn_state st;
	unsigned char cmd;
	int after_cr;
};

/*
 * The text of n bytes from the console, telnet taken out, appended to
 * out; the answers to its option requests (all refused: WONT to DO,
 * DONT to WILL) appended to reply.  CR NUL is CR (RFC 854).
 */
static void telnet_filter(struct telnet_capture *cap, const unsigned char *in,
			  size_t n, struct strbuf *out, struct strbuf *reply)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char b = in[i];

		switch (cap->st) {
		case TN_TEXT:
			if (b == TN_IAC) {
				cap->st = TN_AFTER_IAC;
			} else if (!(b == 0 && cap->after_cr)) {
				strbuf_addch(out, b);
			}
			cap->after_cr = b == '\r';
			break;
		case TN_AFTER_IAC:
			cap->st = TN_TEXT;
			if (b == TN_IAC)
				strbuf_addch(out, b);
			else if (b >= TN_WILL && b <= TN_DONT) {
				cap->cmd = b;
				cap->st = TN_OPTION;
			} else if (b == TN_SB)
				cap->st = TN_SUB;
			break;
		case TN_OPTION:
			if (cap->cmd == TN_DO || cap->cmd == TN_WILL) {
				strbuf_addch(reply, TN_IAC);
				strbuf_addch(reply, cap->cmd == TN_DO
							    ? TN_WONT
							    : TN_DONT);
				strbuf_addch(reply, b);
			}
			cap->st = TN_TEXT;
			break;
		case TN_SUB:
			if (b == TN_IAC)
				cap->st = TN_SUB_IAC;
			break;
		case TN_SUB_IAC:
			cap->st = b == TN_SE ? TN_TEXT : TN_SUB;
			break;
		}
	}
}

/* Write all of buf to fd (a socket: no SIGPIPE when the console went
 * away); errors are the reader's to notice. */
static void write_all(int fd, int sock, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = sock ? send(fd, buf, len, MSG_NOSIGNAL)
				 : write(fd, buf, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		buf += w;
		len -= (size_t)w;
	}
}

static void *capture_main(void *arg)
{
	struct telnet_capture *cap = arg;
	struct strbuf text = STRBUF_INIT, reply = STRBUF_INIT;
	unsigned char buf[4096];

	for (;;) {
		struct pollfd p[2] = { { cap->sock, POLLIN, 0 },
				       { cap->stop[0], POLLIN, 0 } };
		ssize_t n;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			goto out;
		if (!p[0].revents)
			continue;
		n = read(cap->sock, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		strbuf_reset(&text);
		strbuf_reset(&reply);
		telnet_filter(cap, buf, (size_t)n, &text, &reply);
		write_all(cap->out, 0, text.buf, text.len);
		write_all(cap->sock, 1, reply.buf, reply.len);
	}
	pthread_mutex_lock(&cap->mu);
	cap->dropped = 1;
	pthread_mutex_unlock(&cap->mu);
out:
	strbuf_release(&text);
	strbuf_release(&reply);
	return NULL;
}

/*
 * A TCP connection to cap's console within its timeout into cap->sock.
 * 0, or -1 with err naming the console.
 */
static int capture_connect(struct telnet_capture *cap, struct strbuf *err)
{
	struct addrinfo hints = { 0 }, *ai = NULL;
	char port[16];
	int g, fd = -1, e = 0;

	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%d", cap->port);
	g = getaddrinfo(cap->host.buf, port, &hints, &ai);
	if (g) {
		strbuf_addf(err, "console %s:%d: %s", cap->host.buf, cap->port,
			    gai_strerror(g));
		return -1;
	}
	for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
		struct pollfd p;
		socklen_t len = sizeof(e);

		fd = socket(a->ai_family,
			    a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			    a->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		e = connect(fd, a->ai_addr, a->ai_addrlen) < 0 ? errno : 0;
		if (e == EINPROGRESS) {
			p.fd = fd;
			p.events = POLLOUT;
			if (poll(&p, 1, cap->timeout_ms) != 1)
				e = ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e,
					    &len) < 0)
				e = errno;
		}
		if (e) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		strbuf_addf(err, "console %s:%d: %s", cap->host.buf, cap->port,
			    strerror(e ? e : ECONNREFUSED));
		return -1;
	}
	cap->sock = fd;
	return 0;
}

/* Connect and start the thread (cap's files open). */
static int capture_run(struct telnet_capture *cap, struct strbuf *err)
{
	int e;

	if (capture_connect(cap, err) < 0)
		return -1;
	cap->st = TN_TEXT;
	cap->after_cr = 0;
	cap->dropped = 0;
	e = pthread_create(&cap->thread, NULL, capture_main, cap);
	if (e) {
		strbuf_addf(err, "console %s:%d: no thread: %s", cap->host.buf,
			    cap->port, strerror(e));
		close(cap->sock);
		cap->sock = -1;
		return -1;
	}
	cap->running = 1;
	return 0;
}

/* End the thread and the connection (the files stay open). */
static void capture_halt(struct telnet_capture *cap)
{
	char c;

	if (cap->running) {
		write_all(cap->stop[1], 0, "x", 1);
		pthread_join(cap->thread, NULL);
		cap->running = 0;
		/* Empty the pipe for the next thread. */
		while (read(cap->stop[0], &c, 1) == 1)
			;
	}
	if (cap->sock >= 0)
		close(cap->sock);
	cap->sock = -1;
}

int telnet_capture_start(const char *host, int port, const char *path,
			 int timeout_ms, struct telnet_capture **ret,
			 struct strbuf *err)
{
	struct telnet_capture *cap = xcalloc(1, sizeof(*cap));

	*ret = NULL;
	strbuf_init(&cap->host, 0);
	strbuf_init(&cap->path, 0);
	strbuf_addstr(&cap->host, host);
	strbuf_addstr(&cap->path, path);
	cap->port = port;
	cap->timeout_ms = timeout_ms > 0 ? timeout_ms : 10000;
	cap->sock = cap->stop[0] = cap->stop[1] = -1;
	pthread_mutex_init(&cap->mu, NULL);
	cap->out = open(path,
			O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY |
				O_NOFOLLOW,
			0600);
	if (cap->out < 0) {
		strbuf_addf(err, "cannot open the console file %s: %s", path,
			    strerror(errno));
		telnet_capture_stop(cap);
		return -1;
	}
	if (pipe2(cap->stop, O_CLOEXEC | O_NONBLOCK) < 0) {
		strbuf_addf(err, "console %s:%d: no pipe: %s", host, port,
			    strerror(errno));
		telnet_capture_stop(cap);
		return -1;
	}
	if (capture_run(cap, err) < 0) {
		telnet_capture_stop(cap);
		return -1;
	}
	*ret = cap;
	return 0;
}

int telnet_capture_check(struct telnet_capture *cap, int *ret_reopened,
			 struct strbuf *err)
{
	int dropped;

	if (ret_reopened)
		*ret_reopened = 0;
	pthread_mutex_lock(&cap->mu);
	dropped = cap->dropped || !cap->running;
	pthread_mutex_unlock(&cap->mu);
	if (!dropped)
		return 0;
	capture_halt(cap);
	if (capture_run(cap, err) < 0)
		return -1;
	if (ret_reopened)
		*ret_reopened = 1;
	return 0;
}

void telnet_capture_stop(struct telnet_capture *cap)
{
	if (!cap)
		return;
	capture_halt(cap);
	if (cap->out >= 0)
		close(cap->out);
	for (int i = 0; i < 2; i++)
		if (cap->stop[i] >= 0)
			close(cap->stop[i]);
	pthread_mutex_destroy(&cap->mu);
	strbuf_release(&cap->host);
	strbuf_release(&cap->path);
	free(cap);
}

/*
 * wl_chat.c - seed 001's volanomark shape without Java: rooms of clients on
 * loopback TCP, one server thread per connection, and every message a
 * client sends relayed by the server to every member of its room (the
 * sender included, as a chat room echoes).  Messages/s counts deliveries.
 *
 * Each client has a writer and a reader thread so a full socket buffer can
 * never deadlock the relay; messages have a fixed size, so framing is a
 * full read.  Everything lives in one worker process on 127.0.0.1: nothing
 * leaves the machine.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "banned.h"

struct chat;

struct conn {
	struct chat *chat;
	int room;
	int srv_fd; /* server side of the connection */
	int cli_fd; /* client side */
	pthread_mutex_t wlock; /* serialises relays into srv_fd */
	pthread_t srv_tid, rd_tid, wr_tid;
	int failed;
	uint64_t received;
};

struct chat {
	int rooms, users, messages;
	size_t size;
	struct conn *c; /* rooms * users, room-major */
};

static int read_full(int fd, char *buf, size_t n)
{
	while (n) {
		ssize_t r = read(fd, buf, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		buf += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Server thread: read this client's messages, relay each to the room. */
static void *server_main(void *arg)
{
	struct conn *me = arg;
	struct chat *ch = me->chat;
	char *buf = malloc(ch->size);

	if (!buf) {
		me->failed = 1;
		return NULL;
	}
	while (read_full(me->srv_fd, buf, ch->size) == 0) {
		for (int u = 0; u < ch->users; u++) {
			struct conn *to = &ch->c[me->room * ch->users + u];

			pthread_mutex_lock(&to->wlock);
			if (write_all(to->srv_fd, buf, ch->size) < 0)
				me->failed = 1;
			pthread_mutex_unlock(&to->wlock);
		}
	}
	free(buf);
	return NULL;
}

static void *writer_main(void *arg)
{
	struct conn *me = arg;
	char *buf = calloc(1, me->chat->size);

	if (!buf) {
		me->failed = 1;
		return NULL;
	}
	for (int i = 0; i < me->chat->messages; i++)
		if (write_all(me->cli_fd, buf, me->chat->size) < 0) {
			me->failed = 1;
			break;
		}
	shutdown(me->cli_fd, SHUT_WR);
	free(buf);
	return NULL;
}

static void *reader_main(void *arg)
{
	struct conn *me = arg;
	uint64_t want =
		(uint64_t)me->chat->users * (uint64_t)me->chat->messages;
	char *buf = malloc(me->chat->size);

	if (!buf) {
		me->failed = 1;
		return NULL;
	}
	while (me->received < want &&
	       read_full(me->cli_fd, buf, me->chat->size) == 0)
		me->received++;
	if (me->received < want)
		me->failed = 1;
	free(buf);
	return NULL;
}

static int chat_worker(void *arg, int fd)
{
	struct chat *ch = arg;
	int n = ch->rooms * ch->users, lfd, one = 1, failed = 0;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	struct timespec a, b;
	uint64_t total = 0;
	double el;
	pthread_attr_t attr;

	ch->c = calloc((size_t)n, sizeof(*ch->c));
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!ch->c || lfd < 0)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(lfd, 1024) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0)
		return 1;
	/* Connect every client first, then start the clock. */
	for (int i = 0; i < n; i++) {
		struct conn *c = &ch->c[i];

		c->chat = ch;
		c->room = i / ch->users;
		pthread_mutex_init(&c->wlock, NULL);
		c->cli_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c->cli_fd < 0 ||
		    connect(c->cli_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			return 1;
		c->srv_fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c->srv_fd < 0)
			return 1;
		setsockopt(c->cli_fd, IPPROTO_TCP, TCP_NODELAY, &one,
			   sizeof(one));
		setsockopt(c->srv_fd, IPPROTO_TCP, TCP_NODELAY, &one,
			   sizeof(one));
	}
	close(lfd);
	/* Small stacks: thousands of these threads must fit. */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		struct conn *c = &ch->c[i];

		if (pthread_create(&c->srv_tid, &attr, server_main, c) ||
		    pthread_create(&c->rd_tid, &attr, reader_main, c) ||
		    pthread_create(&c->wr_tid, &attr, writer_main, c)) {
			if (write(fd, "cannot create threads\n", 22) < 0)
				return 1;
			_exit(1);
		}
	}
	for (int i = 0; i < n; i++) {
		pthread_join(ch->c[i].wr_tid, NULL);
		pthread_join(ch->c[i].rd_tid, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	for (int i = 0; i < n; i++) {
		close(ch->c[i].cli_fd);
		pthread_join(ch->c[i].srv_tid, NULL);
		close(ch->c[i].srv_fd);
		total += ch->c[i].received;
		failed |= ch->c[i].failed;
	}
	if (failed) {
		if (write(fd, "a client lost messages\n", 23) < 0)
			return 1;
		return 1;
	}
	el = (double)(b.tv_sec - a.tv_sec) +
	     (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	worker_put(fd, "messages_per_s", (double)total / el, "1/s", "higher");
	worker_put(fd, "messages", (double)total, "count", "none");
	worker_put(fd, "elapsed_s", el, "s", "lower");
	return 0;
}

static int chat_check(const struct run_spec *s, struct strbuf *field,
		      struct strbuf *err)
{
	if (spec_param_i64(s, "rooms") * spec_param_i64(s, "users") > 5000) {
		strbuf_addstr(field, "params.users");
		strbuf_addstr(err, "\"params.users\": rooms x users must be at "
				   "most 5000 (three threads each)");
		return -1;
	}
	return 0;
}

static int chat_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct chat ch;

	memset(&ch, 0, sizeof(ch));
	ch.rooms = (int)spec_param_i64(ctx->spec, "rooms");
	ch.users = (int)spec_param_i64(ctx->spec, "users");
	ch.messages = (int)spec_param_i64(ctx->spec, "messages");
	ch.size = (size_t)spec_param_i64(ctx->spec, "message_size");
	return worker_run(ctx, "chat", chat_worker, &ch, err);
}

const struct wl_ops wl_chat = {
	.name = "chat",
	.check = chat_check,
	.run = chat_run,
};

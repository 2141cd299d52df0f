/*
 * ssh.c - SSH connections, remote commands and file copies (libssh); see
 * ssh.h.
 *
 * This is the only file that includes libssh.  The session never reads
 * ~/.ssh/config (a farm's behaviour must not depend on who runs it), sets
 * TCP_NODELAY (authentication drops from ~50 ms to ~7 ms), and checks the
 * host key against the host's own known_hosts file, which also serves as
 * the global file so no other file can vouch for a key.  Files are copied
 * by the SCP protocol over an exec channel: libssh's own scp API is
 * deprecated and its SFTP client blocks for ever on servers without
 * sftp-server.  Keepalives are keepalive@openssh.com global requests sent
 * while a command's output is awaited; that anything came back is read
 * off the session's socket byte counter (ssh_set_counters()), so the
 * reader never blocks waiting for an answer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh/libssh.h>
/* For ssh_send_keepalive() only: libssh declares it with the server API,
 * but it is a plain global request that a client sends as well. */
#include <libssh/server.h>

#include "lab/ssh.h"
#include "parse.h"
#include "time-util.h"
#include "banned.h"

#define STDERR_CAP (64u << 10)
#define DEFAULT_MAX_OUT (64u << 20)

struct ssh_conn {
	ssh_session s;
	char *where; /* "user@address:port", for messages */
	/* Bytes the socket received, kept up by libssh: any growth means
	 * the server said something. */
	struct ssh_counter_struct sock;
	uint64_t heard_bytes;
	int64_t heard_ms; /* mono_ms() when they last grew */
	int keepalive_ms; /* 0: no keepalives */
	int64_t keepalive_sent_ms; /* the last one sent */
	int64_t unanswered_since; /* first keepalive not answered; 0: none */
	int lost; /* ssh_mark_lost(): no goodbye on close */
};

struct ssh_exec {
	struct ssh_conn *c;
	ssh_channel ch;
	struct strbuf errout;
	int eof;
};

void ssh_quote(struct strbuf *sb, const char *word)
{
	strbuf_addch(sb, '\'');
	for (; *word; word++) {
		if (*word == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *word);
	}
	strbuf_addch(sb, '\'');
}

static void set_why(enum ssh_failure *ret_why, enum ssh_failure why)
{
	if (ret_why)
		*ret_why = why;
}

static void add_fingerprint(ssh_session s, struct strbuf *out)
{
	ssh_key key = NULL;
	unsigned char *hash = NULL;
	size_t hlen = 0;
	char *fp;

	if (ssh_get_server_publickey(s, &key) != SSH_OK) {
		strbuf_addstr(out, "unknown key");
		return;
	}
	strbuf_addstr(out, ssh_key_type_to_char(ssh_key_type(key)));
	if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash,
				   &hlen) == 0) {
		fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash,
					      hlen);
		if (fp) {
			strbuf_addf(out, " %s", fp);
			ssh_string_free_char(fp);
		}
		ssh_clean_pubkey_hash(&hash);
	}
	ssh_key_free(key);
}

int ssh_host_key_fingerprint(struct ssh_conn *c, struct strbuf *out)
{
	add_fingerprint(c->s, out);
	return 0;
}

/*
 * Check the server's key against the known_hosts file.  Anything but an
 * exact match is refused; the message names the key and the file so an
 * operator can decide, outside the farm, whether the change is legitimate.
 */
static int verify_host_key(struct ssh_conn *c, const char *known_hosts,
			   struct strbuf *err)
{
	struct strbuf fp = STRBUF_INIT;
	enum ssh_known_hosts_e st = ssh_session_is_known_server(c->s);
	int r = -1;

	add_fingerprint(c->s, &fp);
	switch (st) {
	case SSH_KNOWN_HOSTS_OK:
		r = 0;
		break;
	case SSH_KNOWN_HOSTS_CHANGED:
		strbuf_addf(err,
			    "host key mismatch for %s: the server offers %s, "
			    "which does not match %s (refused; if the change "
			    "is expected, fix that file)",
			    c->where, fp.buf, known_hosts);
		break;
	case SSH_KNOWN_HOSTS_OTHER:
		strbuf_addf(err,
			    "host key mismatch for %s: the server offers %s, "
			    "but %s holds a key of another type for it "
			    "(refused)",
			    c->where, fp.buf, known_hosts);
		break;
	case SSH_KNOWN_HOSTS_UNKNOWN:
		strbuf_addf(err,
			    "unknown host key for %s (%s): not in %s (refused; "
			    "add the key to that file after checking it)",
			    c->where, fp.buf, known_hosts);
		break;
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		strbuf_addf(err,
			    "cannot verify %s (%s): known_hosts file %s is "
			    "missing (refused)",
			    c->where, fp.buf, known_hosts);
		break;
	case SSH_KNOWN_HOSTS_ERROR:
	default:
		strbuf_addf(err, "cannot verify the host key of %s: %s",
			    c->where, ssh_get_error(c->s));
		break;
	}
	strbuf_release(&fp);
	return r;
}

static int authenticate(struct ssh_conn *c, const struct ssh_target *t,
			struct strbuf *err)
{
	int rc;

	if (t->key_file) {
		ssh_key key = NULL;

		if (access(t->key_file, R_OK) < 0) {
			strbuf_addf(err, "cannot read the key file %s: %s",
				    t->key_file, strerror(errno));
			return -1;
		}
		if (ssh_pki_import_privkey_file(t->key_file, NULL, NULL, NULL,
						&key) != SSH_OK) {
			strbuf_addf(
				err,
				"cannot load the key file %s (not a private "
				"key, or protected by a passphrase: use "
				"ssh-agent for those)",
				t->key_file);
			return -1;
		}
		rc = ssh_userauth_publickey(c->s, NULL, key);
		ssh_key_free(key);
		if (rc == SSH_AUTH_SUCCESS)
			return 0;
		if (rc == SSH_AUTH_ERROR)
			strbuf_addf(err, "authentication to %s failed: %s",
				    c->where, ssh_get_error(c->s));
		else
			strbuf_addf(err,
				    "authentication to %s refused the key %s",
				    c->where, t->key_file);
		return -1;
	}
	if (getenv("SSH_AUTH_SOCK")) {
		rc = ssh_userauth_agent(c->s, NULL);
		if (rc == SSH_AUTH_SUCCESS)
			return 0;
		if (rc == SSH_AUTH_ERROR) {
			strbuf_addf(err, "authentication to %s failed: %s",
				    c->where, ssh_get_error(c->s));
			return -1;
		}
	}
	rc = ssh_userauth_publickey_auto(c->s, NULL, NULL);
	if (rc == SSH_AUTH_SUCCESS)
		return 0;
	strbuf_addf(err,
		    "authentication to %s failed: no key file set, and "
		    "neither ssh-agent nor the default keys were accepted",
		    c->where);
	return -1;
}

int ssh_open(const struct ssh_target *t, struct ssh_conn **ret,
	     enum ssh_failure *ret_why, struct strbuf *err)
{
	struct ssh_conn *c;
	long timeout_s;
	unsigned port = t->port > 0 ? (unsigned)t->port : 22;
	bool no = false;
	int one = 1;

	*ret = NULL;
	set_why(ret_why, SSH_FAIL_CONNECT);
	if (!t->address || !*t->address) {
		strbuf_addstr(err, "ssh: the host has no address");
		return -1;
	}
	if (t->user && !ssh_user_name_ok(t->user)) {
		set_why(ret_why, SSH_FAIL_AUTH);
		strbuf_addstr(err, "ssh: bad user name '");
		for (const char *p = t->user; *p && p - t->user < 64; p++)
			strbuf_addch(err, (unsigned char)*p < 0x20 ? '?' : *p);
		strbuf_addf(err, "' for %s", t->address);
		return -1;
	}
	if (!t->known_hosts || !*t->known_hosts) {
		set_why(ret_why, SSH_FAIL_HOSTKEY);
		strbuf_addf(err,
			    "ssh: no known_hosts file for %s: host keys are "
			    "never accepted unverified",
			    t->address);
		return -1;
	}
	c = xcalloc(1, sizeof(*c));
	c->where = xstrfmt("%s%s%s:%u", t->user ? t->user : "",
			   t->user ? "@" : "", t->address, port);
	c->s = ssh_new();
	if (!c->s) {
		strbuf_addstr(err, "ssh: cannot create a session");
		goto fail;
	}
	ssh_set_counters(c->s, &c->sock, NULL);
	c->heard_ms = mono_ms();
	timeout_s = t->connect_timeout_ms > 0
			    ? (t->connect_timeout_ms + 999) / 1000
			    : 10;
	if (ssh_options_set(c->s, SSH_OPTIONS_PROCESS_CONFIG, &no) < 0 ||
	    ssh_options_set(c->s, SSH_OPTIONS_HOST, t->address) < 0 ||
	    ssh_options_set(c->s, SSH_OPTIONS_PORT, &port) < 0 ||
	    (t->user && ssh_options_set(c->s, SSH_OPTIONS_USER, t->user) < 0) ||
	    ssh_options_set(c->s, SSH_OPTIONS_KNOWNHOSTS, t->known_hosts) < 0 ||
	    ssh_options_set(c->s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS,
			    t->known_hosts) < 0 ||
	    ssh_options_set(c->s, SSH_OPTIONS_TIMEOUT, &timeout_s) < 0 ||
	    ssh_options_set(c->s, SSH_OPTIONS_NODELAY, &one) < 0) {
		strbuf_addf(err, "ssh: bad options for %s: %s", c->where,
			    ssh_get_error(c->s));
		goto fail;
	}
	if (ssh_connect(c->s) != SSH_OK) {
		strbuf_addf(err, "cannot connect to %s: %s", c->where,
			    ssh_get_error(c->s));
		goto fail;
	}
	if (verify_host_key(c, t->known_hosts, err) < 0) {
		set_why(ret_why, SSH_FAIL_HOSTKEY);
		goto fail;
	}
	if (authenticate(c, t, err) < 0) {
		set_why(ret_why, SSH_FAIL_AUTH);
		goto fail;
	}
	set_why(ret_why, SSH_FAIL_NONE);
	*ret = c;
	return 0;
fail:
	ssh_close(c);
	return -1;
}

void ssh_close(struct ssh_conn *c)
{
	if (!c)
		return;
	if (c->s) {
		if (!c->lost && ssh_is_connected(c->s))
			ssh_disconnect(c->s);
		ssh_free(c->s);
	}
	free(c->where);
	free(c);
}

int ssh_is_up(struct ssh_conn *c)
{
	return c && c->s && !c->lost && ssh_is_connected(c->s);
}

void ssh_mark_lost(struct ssh_conn *c)
{
	if (c)
		c->lost = 1;
}

void ssh_set_keepalive(struct ssh_conn *c, int interval_ms)
{
	c->keepalive_ms = interval_ms > 0 ? interval_ms : 0;
	c->unanswered_since = 0;
}

/* Note whether the server said anything since we last looked. */
static void heard_check(struct ssh_conn *c, int64_t now)
{
	if (c->sock.in_bytes != c->heard_bytes) {
		c->heard_bytes = c->sock.in_bytes;
		c->heard_ms = now;
		c->unanswered_since = 0;
	}
}

/*
 * Send a keepalive when the server has been silent for a keepalive
 * interval and none was sent in the last one.  The session is switched to
 * non-blocking around the call so that it only sends: libssh's blocking
 * global request would wait for the answer, holding up the reader, and
 * the answer is seen instead as bytes arriving (heard_check()).  libssh
 * sends a new request only when none is pending, and the call after an
 * answer only clears the answered one: the second call sends the next.
 */
static void keepalive_tick(struct ssh_conn *c, int64_t now)
{
	if (!c->keepalive_ms || !ssh_is_connected(c->s) ||
	    now - c->heard_ms < c->keepalive_ms ||
	    now - c->keepalive_sent_ms < c->keepalive_ms)
		return;
	ssh_set_blocking(c->s, 0);
	ssh_send_keepalive(c->s);
	ssh_send_keepalive(c->s);
	ssh_set_blocking(c->s, 1);
	c->keepalive_sent_ms = now;
	if (!c->unanswered_since)
		c->unanswered_since = now;
}

int64_t ssh_silence_ms(struct ssh_conn *c)
{
	int64_t now = mono_ms(), from;

	if (!c)
		return 0;
	heard_check(c, now);
	from = c->heard_ms;
	/* Time spent away from the connection is not the server's: count
	 * from one interval before the first unanswered keepalive. */
	if (c->keepalive_ms && c->unanswered_since &&
	    c->unanswered_since - c->keepalive_ms > from)
		from = c->unanswered_since - c->keepalive_ms;
	else if (c->keepalive_ms && !c->unanswered_since)
		return now - from < c->keepalive_ms ? now - from
						    : c->keepalive_ms;
	return now - from;
}

int ssh_exec_start(struct ssh_conn *c, const char *cmd, struct ssh_exec **ret,
		   struct strbuf *err)
{
	struct ssh_exec *e;
	ssh_channel ch = ssh_channel_new(c->s);

	*ret = NULL;
	if (!ch) {
		strbuf_addf(err, "ssh %s: cannot create a channel: %s",
			    c->where, ssh_get_error(c->s));
		return -1;
	}
	if (ssh_channel_open_session(ch) != SSH_OK) {
		strbuf_addf(err, "ssh %s: cannot open a session: %s", c->where,
			    ssh_get_error(c->s));
		ssh_channel_free(ch);
		return -1;
	}
	if (ssh_channel_request_exec(ch, cmd) != SSH_OK) {
		strbuf_addf(err, "ssh %s: cannot start a command: %s", c->where,
			    ssh_get_error(c->s));
		ssh_channel_close(ch);
		ssh_channel_free(ch);
		return -1;
	}
	e = xcalloc(1, sizeof(*e));
	e->c = c;
	e->ch = ch;
	strbuf_init(&e->errout, 0);
	*ret = e;
	return 0;
}

/* Collect what stderr has without waiting (so its window never fills). */
static int drain_stderr(struct ssh_exec *e)
{
	char buf[4096];
	int n;

	while ((n = ssh_channel_read_nonblocking(e->ch, buf, sizeof(buf), 1)) >
	       0) {
		if (e->errout.len < STDERR_CAP)
			strbuf_add(&e->errout, buf,
				   e->errout.len + (size_t)n > STDERR_CAP
					   ? STDERR_CAP - e->errout.len
					   : (size_t)n);
	}
	return n == SSH_ERROR ? -1 : 0;
}

int ssh_exec_read(struct ssh_exec *e, struct strbuf *out, int timeout_ms,
		  struct strbuf *err)
{
	char buf[65536];
	int n;

	if (e->eof)
		return 2;
	keepalive_tick(e->c, mono_ms());
	if (drain_stderr(e) < 0)
		goto lost;
	n = ssh_channel_read_timeout(e->ch, buf, sizeof(buf), 0,
				     timeout_ms > 0 ? timeout_ms : 1);
	heard_check(e->c, mono_ms());
	if (n > 0) {
		strbuf_add(out, buf, (size_t)n);
		return 1;
	}
	if (n == SSH_ERROR)
		goto lost;
	if (drain_stderr(e) < 0)
		goto lost;
	if (ssh_channel_is_eof(e->ch)) {
		e->eof = 1;
		return 2;
	}
	if (!ssh_is_connected(e->c->s) || !ssh_channel_is_open(e->ch))
		goto lost;
	return 0;
lost:
	strbuf_addf(err, "connection to %s lost: %s", e->c->where,
		    ssh_get_error(e->c->s));
	return -1;
}

const char *ssh_exec_stderr(const struct ssh_exec *e)
{
	return e->errout.buf;
}

int ssh_exec_end(struct ssh_exec *e, int *ret_status)
{
	int st = -1;

	if (!e)
		return -1;
	if (ssh_is_connected(e->c->s)) {
		drain_stderr(e);
		if (e->eof || ssh_channel_is_eof(e->ch))
			st = ssh_channel_get_exit_status(e->ch);
		ssh_channel_close(e->ch);
	}
	ssh_channel_free(e->ch);
	strbuf_release(&e->errout);
	free(e);
	if (ret_status)
		*ret_status = st;
	return 0;
}

/* Write all of data to the channel; -1 on failure. */
static int channel_write_all(ssh_channel ch, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		uint32_t chunk = len > 65536 ? 65536 : (uint32_t)len;
		int n = ssh_channel_write(ch, p, chunk);

		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ssh_run(struct ssh_conn *c, const char *cmd, const void *stdin_data,
	    size_t stdin_len, int timeout_ms, size_t max_out,
	    struct strbuf *out, struct strbuf *errout, int *ret_status,
	    enum ssh_failure *ret_why, struct strbuf *err)
{
	struct ssh_exec *e;
	int64_t deadline = deadline_in(timeout_ms > 0 ? timeout_ms : 60000);
	size_t cap = max_out ? max_out : DEFAULT_MAX_OUT;
	size_t start = out->len;
	int st = -1, r;

	set_why(ret_why, SSH_FAIL_LOST);
	if (ret_status)
		*ret_status = -1;
	if (ssh_exec_start(c, cmd, &e, err) < 0)
		return -1;
	if (stdin_len && channel_write_all(e->ch, stdin_data, stdin_len) < 0) {
		strbuf_addf(err, "ssh %s: writing to the command failed: %s",
			    c->where, ssh_get_error(c->s));
		ssh_exec_end(e, NULL);
		return -1;
	}
	ssh_channel_send_eof(e->ch);
	for (;;) {
		int64_t left = deadline_left(deadline);

		if (!left) {
			set_why(ret_why, SSH_FAIL_TIMEOUT);
			strbuf_addf(err,
				    "ssh %s: command timed out after %d ms",
				    c->where, timeout_ms);
			ssh_exec_end(e, NULL);
			return -1;
		}
		r = ssh_exec_read(e, out, left > 1000 ? 1000 : (int)left, err);
		if (r < 0) {
			ssh_exec_end(e, NULL);
			return -1;
		}
		if (r == 2)
			break;
		if (out->len - start > cap) {
			set_why(ret_why, SSH_FAIL_REMOTE);
			strbuf_addf(err,
				    "ssh %s: the command printed more than %zu "
				    "bytes",
				    c->where, cap);
			ssh_exec_end(e, NULL);
			return -1;
		}
	}
	if (errout)
		strbuf_addstr(errout, e->errout.buf);
	ssh_exec_end(e, &st);
	if (ret_status)
		*ret_status = st;
	if (st != 0) {
		set_why(ret_why, st < 0 ? SSH_FAIL_LOST : SSH_FAIL_REMOTE);
		if (st < 0)
			strbuf_addf(err, "ssh %s: no exit status from '%s'",
				    c->where, cmd);
		else
			strbuf_addf(err, "ssh %s: '%s' exited with status %d",
				    c->where, cmd, st);
		return -1;
	}
	set_why(ret_why, SSH_FAIL_NONE);
	return 0;
}

/* Read one SCP acknowledgement: 0 is fine, 1/2 carry a message. */
static int scp_ack(struct ssh_exec *e, int timeout_ms, struct strbuf *err)
{
	struct strbuf got = STRBUF_INIT;
	int64_t deadline = deadline_in(timeout_ms);
	int r = -1;

	while (!got.len ||
	       (got.buf[0] != 0 && !memchr(got.buf, '\n', got.len))) {
		int64_t left = deadline_left(deadline);
		int n;

		if (!left) {
			strbuf_addstr(err, "scp: no acknowledgement in time");
			goto out;
		}
		n = ssh_exec_read(e, &got, (int)left, err);
		if (n < 0)
			goto out;
		if (n == 2) {
			strbuf_addstr(err, "scp: the remote side ended");
			if (e->errout.len)
				strbuf_addf(err, ": %s", e->errout.buf);
			strbuf_rtrim(err);
			goto out;
		}
		if (got.len > 4096)
			break;
	}
	if (got.buf[0] == 0) {
		r = got.len == 1 ? 0 : -1;
		if (r < 0)
			strbuf_addstr(err, "scp: unexpected bytes after an "
					   "acknowledgement");
	} else {
		strbuf_addstr(err, "scp: ");
		strbuf_add(err, got.buf + 1, got.len - 1);
		strbuf_rtrim(err);
	}
out:
	strbuf_release(&got);
	return r;
}

static int scp_push(struct ssh_conn *c, const char *tmp_path, const void *data,
		    size_t len, unsigned mode, int timeout_ms, int *ret_no_scp,
		    struct strbuf *err)
{
	struct strbuf cmd = STRBUF_INIT, hdr = STRBUF_INIT;
	struct ssh_exec *e = NULL;
	const char *base = strrchr(tmp_path, '/');
	int r = -1, st = -1;

	*ret_no_scp = 0;
	base = base ? base + 1 : tmp_path;
	strbuf_addstr(&cmd, "scp -t ");
	ssh_quote(&cmd, tmp_path);
	if (ssh_exec_start(c, cmd.buf, &e, err) < 0)
		goto out;
	if (scp_ack(e, timeout_ms, err) < 0)
		goto end;
	strbuf_addf(&hdr, "C%04o %zu %s\n", mode & 07777, len, base);
	if (channel_write_all(e->ch, hdr.buf, hdr.len) < 0 ||
	    scp_ack(e, timeout_ms, err) < 0)
		goto end;
	if (channel_write_all(e->ch, data, len) < 0 ||
	    channel_write_all(e->ch, "", 1) < 0) {
		strbuf_addf(err, "scp to %s: write failed: %s", c->where,
			    ssh_get_error(c->s));
		goto end;
	}
	if (scp_ack(e, timeout_ms, err) < 0)
		goto end;
	ssh_channel_send_eof(e->ch);
	r = 0;
end:
	if (r < 0) {
		ssh_exec_end(e, &st);
		if (st == 127)
			*ret_no_scp = 1;
	} else {
		struct strbuf ignore = STRBUF_INIT;

		int64_t deadline = deadline_in(timeout_ms);
		int n;

		/* Wait for scp to exit so the file is complete. */
		do {
			strbuf_reset(&ignore);
			n = ssh_exec_read(e, &ignore, 1000, &ignore);
		} while (n >= 0 && n != 2 && deadline_left(deadline));
		strbuf_release(&ignore);
		ssh_exec_end(e, &st);
		if (st != 0) {
			strbuf_addf(err, "scp to %s exited with status %d",
				    c->where, st);
			r = -1;
		}
	}
out:
	strbuf_release(&cmd);
	strbuf_release(&hdr);
	return r;
}

int ssh_put_file(struct ssh_conn *c, const char *remote_path, const void *data,
		 size_t len, unsigned mode, int timeout_ms, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT, cmd = STRBUF_INIT, sub = STRBUF_INIT,
		      junk = STRBUF_INIT;
	int no_scp = 0, r;

	strbuf_addf(&tmp, "%s.tmp%ld", remote_path, (long)getpid());
	r = scp_push(c, tmp.buf, data, len, mode, timeout_ms, &no_scp, &sub);
	if (r < 0 && no_scp) {
		/* No scp on the host (a minimal image): plain cat. */
		strbuf_reset(&sub);
		strbuf_addstr(&cmd, "cat > ");
		ssh_quote(&cmd, tmp.buf);
		strbuf_addf(&cmd, " && chmod %o ", mode & 07777);
		ssh_quote(&cmd, tmp.buf);
		r = ssh_run(c, cmd.buf, data, len, timeout_ms, 4096, &junk,
			    NULL, NULL, NULL, &sub);
		strbuf_reset(&cmd);
	}
	if (r == 0) {
		strbuf_reset(&sub);
		strbuf_addstr(&cmd, "mv -f ");
		ssh_quote(&cmd, tmp.buf);
		strbuf_addch(&cmd, ' ');
		ssh_quote(&cmd, remote_path);
		r = ssh_run(c, cmd.buf, NULL, 0, timeout_ms, 4096, &junk, NULL,
			    NULL, NULL, &sub);
	}
	if (r < 0)
		strbuf_addf(err, "cannot copy %s to %s: %s", remote_path,
			    c->where, sub.buf);
	strbuf_release(&tmp);
	strbuf_release(&cmd);
	strbuf_release(&sub);
	strbuf_release(&junk);
	return r;
}

int ssh_run_once(const struct ssh_target *t, const char *cmd, int timeout_ms,
		 struct strbuf *out, enum ssh_failure *ret_why,
		 struct strbuf *err)
{
	struct ssh_target once = *t;
	struct strbuf errout = STRBUF_INIT;
	struct ssh_conn *c = NULL;
	int r;

	if (timeout_ms > 0 && (once.connect_timeout_ms <= 0 ||
			       once.connect_timeout_ms > timeout_ms))
		once.connect_timeout_ms =
			timeout_ms < 10000 ? timeout_ms : 10000;
	if (ssh_open(&once, &c, ret_why, err) < 0)
		return -1;
	r = ssh_run(c, cmd, NULL, 0, timeout_ms, 0, out, &errout, NULL, ret_why,
		    err);
	strbuf_addbuf(out, &errout);
	if (r < 0 && errout.len) {
		strbuf_rtrim(&errout);
		strbuf_addf(err, ": %.300s", errout.buf);
	}
	strbuf_release(&errout);
	ssh_close(c);
	return r;
}

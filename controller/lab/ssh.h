/*
 * ssh.h - the farm's only door to SSH (libssh).
 *
 * No other file includes libssh's headers.  A connection authenticates
 * with a private key file (referenced by path, never read into the
 * database or printed), else the ssh-agent, else the user's default keys.
 * The server's host key must match an entry of the host's known_hosts file:
 * an unknown key, a changed key or a missing file is refused, never
 * accepted.  Connect and authentication share one timeout; each command
 * has its own.  Files go to the host with the SCP protocol spoken over an
 * exec channel (`scp -t`), so no sftp-server is needed on the target.
 * Functions return 0 or a negative number and fill the caller's err.
 */
#ifndef SCHEDFARM_SSH_H
#define SCHEDFARM_SSH_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

struct ssh_target {
	const char *address; /* host name or address */
	int port; /* 0: 22 */
	const char *user; /* NULL: the local user's name; else a user name
			     as ssh_user_name_ok() accepts */
	const char *key_file; /* NULL: ssh-agent, then default keys */
	const char *known_hosts; /* required: the file host keys are checked
				    against */
	int connect_timeout_ms; /* connect + key exchange + auth; 0: 10 s */
};

struct ssh_conn;
struct ssh_exec;

/* Why a call failed, for callers that react differently. */
enum ssh_failure {
	SSH_FAIL_NONE = 0,
	SSH_FAIL_CONNECT, /* could not reach or talk to the server */
	SSH_FAIL_HOSTKEY, /* the host key is unknown or does not match */
	SSH_FAIL_AUTH, /* no key was accepted */
	SSH_FAIL_LOST, /* the connection dropped mid-command */
	SSH_FAIL_TIMEOUT, /* the command ran past its time */
	SSH_FAIL_REMOTE, /* the remote command failed (exit status != 0) */
};

/*
 * Connect to t, verify the host key against t->known_hosts and
 * authenticate.  On success *ret owns the connection (ssh_close()).  On
 * failure return -1 with a sentence in err and, when ret_why is not NULL,
 * the kind of failure.
 */
int ssh_open(const struct ssh_target *t, struct ssh_conn **ret,
	     enum ssh_failure *ret_why, struct strbuf *err);
void ssh_close(struct ssh_conn *c);
/* 1 while the transport is up as far as we know. */
int ssh_is_up(struct ssh_conn *c);

/*
 * Keepalives, as OpenSSH's ServerAliveInterval: whenever the server has
 * said nothing for interval_ms while a command's output is being read
 * (ssh_exec_read()), a keepalive@openssh.com global request is sent with
 * want-reply set, which every server must answer (RFC 4254 section 4).
 * 0 (the default) sends none.  A silent network drop shows as silence
 * that no answer breaks: ssh_silence_ms() measures it.
 */
void ssh_set_keepalive(struct ssh_conn *c, int interval_ms);

/*
 * Milliseconds for which nothing (output, a keepalive answer, any packet)
 * has come from the server while someone was listening: time the caller
 * spent elsewhere, without reading, is not counted against the server
 * (silence is measured from at most one keepalive interval before the
 * first keepalive left unanswered).  The caller decides how much silence
 * means the connection is lost (the runner's stall limit).
 */
int64_t ssh_silence_ms(struct ssh_conn *c);

/*
 * Give up on c: it counts as down from now (ssh_is_up() is 0), and
 * ssh_close() then frees it without trying to say goodbye over a link
 * that has stopped answering.
 */
void ssh_mark_lost(struct ssh_conn *c);

/*
 * Run cmd (a remote shell command line: build it with ssh_quote()) with
 * stdin_data (may be NULL) on its stdin, collecting stdout into out (up to
 * max_out bytes, 0 = 64 MiB; more fails) and stderr into errout (capped at
 * 64 KiB, may be NULL).  *ret_status (may be NULL) gets the exit status.
 * Return 0 when it exited 0, else -1 with err and *ret_why set.
 */
int ssh_run(struct ssh_conn *c, const char *cmd, const void *stdin_data,
	    size_t stdin_len, int timeout_ms, size_t max_out,
	    struct strbuf *out, struct strbuf *errout, int *ret_status,
	    enum ssh_failure *ret_why, struct strbuf *err);

/*
 * Start cmd and read its stdout as it comes.  ssh_exec_read() waits up to
 * timeout_ms and appends what arrived to out: it returns 1 when bytes
 * came, 0 on timeout, 2 at the end of stdout, or -1 when the connection
 * failed (err says how).  stderr is collected in the background (64 KiB
 * cap) and available from ssh_exec_stderr().  ssh_exec_end() waits briefly
 * for the exit status (-1 when none came) and frees e.
 */
int ssh_exec_start(struct ssh_conn *c, const char *cmd, struct ssh_exec **ret,
		   struct strbuf *err);
int ssh_exec_read(struct ssh_exec *e, struct strbuf *out, int timeout_ms,
		  struct strbuf *err);
const char *ssh_exec_stderr(const struct ssh_exec *e);
int ssh_exec_end(struct ssh_exec *e, int *ret_status);

/*
 * Copy len bytes to remote_path (a path the remote `scp -t` understands)
 * with permission bits mode, by the SCP protocol; falls back to `cat` when
 * the host has no scp.  The file is written under a temporary name and
 * renamed into place, so a reader never sees half of it.
 */
int ssh_put_file(struct ssh_conn *c, const char *remote_path, const void *data,
		 size_t len, unsigned mode, int timeout_ms, struct strbuf *err);

/*
 * One command on t, for callers that need no connection of their own
 * (the boot's `uname -r` check, its poweroff, `kernel boot --run`): connect
 * (the connect timeout is the smaller of t's and timeout_ms), run cmd as
 * ssh_run() does, disconnect.  Its stdout and then its stderr are appended
 * to out.  0 when it exited 0; else -1 with err (ending with the start of
 * what the command said on stderr) and *ret_why (may be NULL).
 */
int ssh_run_once(const struct ssh_target *t, const char *cmd, int timeout_ms,
		 struct strbuf *out, enum ssh_failure *ret_why,
		 struct strbuf *err);

/* Append word to sb quoted for a POSIX shell ('...' with ' as '\''). */
void ssh_quote(struct strbuf *sb, const char *word);

/* The server's host key as "ssh-ed25519 SHA256:..." (after ssh_open). */
int ssh_host_key_fingerprint(struct ssh_conn *c, struct strbuf *out);

#endif

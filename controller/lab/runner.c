/*
 * runner.c - the agent on local and SSH hosts; see runner.h.
 *
 * On an SSH host the agent lives in ~/.schedfarm/ (copied there when its
 * sha256 differs from ours) and each run has three files there named after
 * the run id and a random tag (two farms sharing a host never collide):
 * the spec, the results file, and a pid file the remote shell writes
 * before exec'ing the agent, so that after a dropped connection the runner
 * can tell whether the agent still runs, and stop it if need be.  The
 * agent runs with SIGPIPE ignored, so losing its stdout does not kill it:
 * it keeps appending to the results file.  Locally the same layout lives
 * in a private folder of its own in the state folder's run/ (home.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "fs.h"
#include "run-command.h"
#include "lab/host_kind.h"
#include "lab/runner.h"
#include "lab/sandbox.h"
#include "lab/ssh.h"
#include "time-util.h"
#include "banned.h"

#define AGENT_MAX_BYTES (64u << 20)
#define CMD_TIMEOUT_MS 30000
#define MAX_LINE_BUFFER (1u << 20) /* a line longer than this is cut */

struct runner {
	struct runner_host h; /* strings copied */
	int is_ssh;
	char *agent_local; /* the agent binary here */
	char *agent_remote; /* ssh: absolute path on the host */
	char *dir; /* folder of the run files (host side) */
	char tag[20]; /* random part of run file names */
	struct ssh_conn *ssh;
	struct strbuf path; /* runner_results_file()'s answer */
};

char *runner_default_agent_path(void)
{
	const char *env = getenv("SCHEDFARM_AGENT");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return xstrdup(env);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash, *p;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			p = xstrfmt("%s/schedfarm-agent", self);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
			p = xstrfmt("%s/../agent/schedfarm-agent", self);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	return xstrdup("schedfarm-agent");
}

static void copy_host(struct runner_host *dst, const struct runner_host *src)
{
#define DUP(f) dst->f = src->f ? xstrdup(src->f) : NULL
	DUP(name);
	DUP(kind);
	DUP(address);
	DUP(user);
	DUP(key_file);
	DUP(known_hosts);
	DUP(run_dir);
#undef DUP
	dst->port = src->port;
	dst->connect_timeout_ms = src->connect_timeout_ms;
	dst->stall_ms = src->stall_ms;
}

static void free_host(struct runner_host *h)
{
	free((char *)h->name);
	free((char *)h->kind);
	free((char *)h->address);
	free((char *)h->user);
	free((char *)h->key_file);
	free((char *)h->known_hosts);
	free((char *)h->run_dir);
}

/* The keepalive interval for a stall limit: a quarter of it, 1 s at least,
 * so that a few keepalives go unanswered before the limit is reached. */
static int keepalive_interval(int stall_ms)
{
	return stall_ms / 4 > 1000 ? stall_ms / 4 : 1000;
}

/*
 * (Re)connect to the SSH host, at most within_ms for connect and
 * authentication when within_ms > 0 (else the host's connect timeout),
 * and arm the keepalives of its stall limit.
 */
static int ssh_connect_within(struct runner *r, int64_t within_ms,
			      struct strbuf *err)
{
	struct ssh_target t = {
		.address = r->h.address,
		.port = r->h.port,
		.user = r->h.user,
		.key_file = r->h.key_file,
		.known_hosts = r->h.known_hosts,
		.connect_timeout_ms = r->h.connect_timeout_ms,
	};

	if (within_ms > 0 &&
	    (t.connect_timeout_ms <= 0 || t.connect_timeout_ms > within_ms))
		t.connect_timeout_ms =
			(int)(within_ms < 1000 ? 1000 : within_ms);
	ssh_close(r->ssh);
	r->ssh = NULL;
	if (ssh_open(&t, &r->ssh, NULL, err) < 0)
		return -1;
	if (r->h.stall_ms > 0)
		ssh_set_keepalive(r->ssh, keepalive_interval(r->h.stall_ms));
	return 0;
}

static int ssh_connect_host(struct runner *r, struct strbuf *err)
{
	return ssh_connect_within(r, 0, err);
}

/*
 * The last agent hashed: its path, identity (device, inode, size, mtime)
 * and sha256.  A controller hashes its agent once (runner_prepare_agent()
 * before it forks its jobs), not once per job: with a hundred hosts that
 * is a hundred sha256sum processes saved per round of jobs.
 */
static struct {
	char *path;
	struct stat st;
	char sha[65];
} agent_hash_cache;

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* sha256 of the local agent, as sha256sum prints it (cached). */
static int local_agent_hash(const char *path, struct strbuf *out,
			    struct strbuf *err)
{
	const char *argv[] = { "sha256sum", "--", path, NULL };
	struct strbuf o = STRBUF_INIT;
	struct stat st;
	int r, known = stat(path, &st) == 0;

	if (known && agent_hash_cache.path &&
	    !strcmp(agent_hash_cache.path, path) &&
	    same_file(&st, &agent_hash_cache.st)) {
		strbuf_addstr(out, agent_hash_cache.sha);
		return 0;
	}
	r = run_capture(argv, 30000, &o, err);
	if (r == 0 && o.len >= 64) {
		strbuf_add(out, o.buf, 64);
		if (known) {
			free(agent_hash_cache.path);
			agent_hash_cache.path = xstrdup(path);
			agent_hash_cache.st = st;
			memcpy(agent_hash_cache.sha, o.buf, 64);
			agent_hash_cache.sha[64] = '\0';
		}
	} else if (r == 0) {
		strbuf_addf(err, "sha256sum printed nothing for %s", path);
		r = -1;
	}
	strbuf_release(&o);
	return r;
}

int runner_prepare_agent(const char *agent_path, struct strbuf *err)
{
	struct strbuf sha = STRBUF_INIT;
	int r = local_agent_hash(agent_path, &sha, err);

	strbuf_release(&sha);
	return r;
}

/*
 * Make sure ~/.schedfarm/schedfarm-agent on the host is our agent: ask for
 * its sha256 and copy ours when it differs or is missing.
 */
static int ssh_install_agent(struct runner *r, struct strbuf *log,
			     struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT, mine = STRBUF_INIT, bin = STRBUF_INIT,
		      e = STRBUF_INIT;
	char *nl;
	int ret = -1;

	if (local_agent_hash(r->agent_local, &mine, err) < 0)
		goto out;
	if (ssh_run(r->ssh,
		    "mkdir -p .schedfarm && cd .schedfarm && pwd && "
		    "{ sha256sum schedfarm-agent 2>/dev/null || echo none; }",
		    NULL, 0, CMD_TIMEOUT_MS, 4096, &out, NULL, NULL, NULL,
		    &e) < 0) {
		strbuf_addf(err, "cannot prepare ~/.schedfarm on %s: %s",
			    r->h.name, e.buf);
		goto out;
	}
	nl = strchr(out.buf, '\n');
	if (!nl || out.buf[0] != '/') {
		strbuf_addf(err, "unexpected answer from %s: %s", r->h.name,
			    out.buf);
		goto out;
	}
	*nl = '\0';
	free(r->dir);
	r->dir = xstrdup(out.buf);
	free(r->agent_remote);
	r->agent_remote = xstrfmt("%s/schedfarm-agent", r->dir);
	if (strlen(nl + 1) >= 64 && !strncmp(nl + 1, mine.buf, 64)) {
		strbuf_addf(log, "agent on %s is current (sha256 %.12s)\n",
			    r->h.name, mine.buf);
		ret = 0;
		goto out;
	}
	if (strbuf_read_file(&bin, r->agent_local, AGENT_MAX_BYTES) < 0) {
		strbuf_addf(err, "cannot read the agent %s: %s", r->agent_local,
			    strerror(errno));
		goto out;
	}
	if (ssh_put_file(r->ssh, r->agent_remote, bin.buf, bin.len, 0755,
			 120000, err) < 0)
		goto out;
	strbuf_addf(log,
		    "copied the agent to %s:%s (%zu bytes, sha256 %.12s)\n",
		    r->h.name, r->agent_remote, bin.len, mine.buf);
	ret = 0;
out:
	strbuf_release(&out);
	strbuf_release(&mine);
	strbuf_release(&bin);
	strbuf_release(&e);
	return ret;
}

/*
 * A local runner's own folder for run files: a fresh mkdtemp() folder
 * (mode 0700) in h.run_dir, the state folder's run/, so two runners never
 * share one.  Without a run_dir (a caller that only asks for the agent's
 * info) there is none, and runs are refused.
 */
static int local_run_dir(struct runner *r, struct strbuf *err)
{
	char *t;

	if (!r->h.run_dir) {
		strbuf_addf(err, "no folder for the run files on %s",
			    r->h.name ? r->h.name : "this host");
		return -1;
	}
	t = xstrfmt("%s/XXXXXX", r->h.run_dir);
	if (!mkdtemp(t)) {
		strbuf_addf(err, "cannot make a folder for run files in %s: %s",
			    r->h.run_dir, strerror(errno));
		free(t);
		return -1;
	}
	r->dir = t;
	return 0;
}

int runner_open(const struct runner_host *h, const char *agent_path,
		struct runner **ret, struct strbuf *log, struct strbuf *err)
{
	struct runner *r = xcalloc(1, sizeof(*r));
	struct timespec ts;

	*ret = NULL;
	copy_host(&r->h, h);
	strbuf_init(&r->path, 0);
	r->agent_local = xstrdup(agent_path);
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(r->tag, sizeof(r->tag), "%lx%04lx",
		 (unsigned long)(ts.tv_nsec ^ getpid()),
		 (unsigned long)(ts.tv_sec & 0xffff));
	r->is_ssh = h->kind && !host_kind_is_local(h->kind);
	if (r->is_ssh) {
		if (ssh_connect_host(r, err) < 0 ||
		    ssh_install_agent(r, log, err) < 0)
			goto fail;
	} else {
		if (access(agent_path, X_OK) < 0 &&
		    !program_exists(agent_path)) {
			strbuf_addf(err, "cannot run the agent %s: %s",
				    agent_path, strerror(errno));
			goto fail;
		}
		if (h->run_dir && local_run_dir(r, err) < 0)
			goto fail;
	}
	*ret = r;
	return 0;
fail:
	runner_close(r);
	return -1;
}

void runner_close(struct runner *r)
{
	if (!r)
		return;
	if (!r->is_ssh && r->dir)
		rmdir(r->dir); /* only when empty: run files are forgotten */
	ssh_close(r->ssh);
	free_host(&r->h);
	free(r->agent_local);
	free(r->agent_remote);
	free(r->dir);
	strbuf_release(&r->path);
	free(r);
}

static void run_file(struct runner *r, int64_t run_id, const char *ext,
		     struct strbuf *out)
{
	/* A local runner without a run folder refuses runs (run_local). */
	strbuf_addf(out, "%s/run-%lld-%s.%s", r->dir ? r->dir : "(none)",
		    (long long)run_id, r->tag, ext);
}

const char *runner_results_file(struct runner *r, int64_t run_id)
{
	strbuf_reset(&r->path);
	run_file(r, run_id, "jsonl", &r->path);
	return r->path.buf;
}

/* Run a short remote command, reconnecting once if the link is down;
 * timeout_ms bounds each try (0: CMD_TIMEOUT_MS). */
static int remote_within(struct runner *r, const char *cmd, const void *in,
			 size_t in_len, size_t max_out, int timeout_ms,
			 struct strbuf *out, struct strbuf *err)
{
	enum ssh_failure why = SSH_FAIL_NONE;
	struct strbuf e = STRBUF_INIT;
	int ret;

	if (!ssh_is_up(r->ssh) && ssh_connect_host(r, err) < 0)
		return -1;
	if (timeout_ms <= 0)
		timeout_ms = CMD_TIMEOUT_MS;
	ret = ssh_run(r->ssh, cmd, in, in_len, timeout_ms, max_out, out, NULL,
		      NULL, &why, &e);
	if (ret < 0 && why == SSH_FAIL_LOST) {
		strbuf_reset(&e);
		if (ssh_connect_host(r, err) < 0) {
			strbuf_release(&e);
			return -1;
		}
		ret = ssh_run(r->ssh, cmd, in, in_len, timeout_ms, max_out, out,
			      NULL, NULL, &why, &e);
	}
	if (ret < 0)
		strbuf_addbuf(err, &e);
	strbuf_release(&e);
	return ret;
}

static int remote(struct runner *r, const char *cmd, const void *in,
		  size_t in_len, size_t max_out, struct strbuf *out,
		  struct strbuf *err)
{
	return remote_within(r, cmd, in, in_len, max_out, 0, out, err);
}

int runner_info(struct runner *r, struct strbuf *out, struct strbuf *err)
{
	if (r->is_ssh) {
		struct strbuf cmd = STRBUF_INIT;
		int ret;

		ssh_quote(&cmd, r->agent_remote);
		strbuf_addstr(&cmd, " info");
		ret = remote(r, cmd.buf, NULL, 0, 1u << 20, out, err);
		strbuf_release(&cmd);
		return ret;
	} else {
		const char *argv[] = { r->agent_local, "info", NULL };

		return run_capture(argv, CMD_TIMEOUT_MS, out, err);
	}
}

/* Split complete lines out of buf and hand them to cb->line. */
static int deliver_lines(struct strbuf *buf, const struct runner_callbacks *cb)
{
	size_t start = 0;
	int stop = 0;

	while (!stop) {
		char *nl = memchr(buf->buf + start, '\n', buf->len - start);

		if (!nl)
			break;
		if (cb->line(cb->ctx, buf->buf + start,
			     (size_t)(nl - (buf->buf + start))) < 0)
			stop = 1;
		start = (size_t)(nl - buf->buf) + 1;
	}
	if (!stop && buf->len - start > MAX_LINE_BUFFER) {
		/* Hand over what we have: the checker refuses it by size. */
		if (cb->line(cb->ctx, buf->buf + start, buf->len - start) < 0)
			stop = 1;
		start = buf->len;
	}
	if (start) {
		memmove(buf->buf, buf->buf + start, buf->len - start);
		strbuf_setlen(buf, buf->len - start);
	}
	return stop ? -1 : 0;
}

static void note(const struct runner_callbacks *cb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(const struct runner_callbacks *cb, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!cb->note)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	cb->note(cb->ctx, sb.buf);
	strbuf_release(&sb);
}

/*
 * The clock of a run, checked on each turn of its read loop: past the
 * deadline (*ret_end RUNNER_TIMEOUT), or the tick callback, called about
 * once a second (*last_tick is when it last ran), asks to stop
 * (RUNNER_STOPPED).  Returns 1 when the run must end, 0 to go on.
 */
static int time_to_end(int64_t deadline, int64_t *last_tick,
		       const struct runner_callbacks *cb,
		       enum runner_end *ret_end)
{
	int64_t now = mono_ms();

	if (now >= deadline) {
		*ret_end = RUNNER_TIMEOUT;
		return 1;
	}
	if (now - *last_tick >= 1000) {
		*last_tick = now;
		if (cb->tick && cb->tick(cb->ctx) < 0) {
			*ret_end = RUNNER_STOPPED;
			return 1;
		}
	}
	return 0;
}

/*
 * The local agent's environment: the allow-list of an untrusted child
 * (lab/sandbox.h; never a secret of the controller's: a plan's command
 * runs under it), $SCHEDFARM_AGENT_COST when set, and for a root
 * controller the farm's user that plan commands drop to
 * (SCHEDFARM_AGENT_USER=UID:GID; agent/wl_command.c).  -1 with err when
 * that user cannot be had: no command then runs as root by default.
 */
static int local_agent_env(struct strvec *env, struct strbuf *err)
{
	const char *cost = getenv("SCHEDFARM_AGENT_COST");
	uid_t uid;
	gid_t gid;

	if (geteuid() == 0) {
		if (sandbox_user(&uid, &gid, err) < 0)
			return -1;
		sandbox_env(env, "/root", "root");
		strvec_pushf(env, "SCHEDFARM_AGENT_USER=%u:%u", (unsigned)uid,
			     (unsigned)gid);
	} else {
		const char *home = getenv("HOME");
		const char *user = getenv("USER");

		sandbox_env(
			env, home && *home && !strchr(home, '\n') ? home : "/",
			user && *user && !strchr(user, '\n') ? user : "nobody");
	}
	if (cost)
		strvec_pushf(env, "SCHEDFARM_AGENT_COST=%s", cost);
	return 0;
}

static int run_local(struct runner *r, int64_t run_id, const char *spec,
		     int64_t deadline, const struct runner_callbacks *cb,
		     enum runner_end *ret_end, int *ret_status,
		     struct strbuf *err)
{
	struct strbuf specpath = STRBUF_INIT, buf = STRBUF_INIT,
		      e = STRBUF_INIT;
	struct child_process cp;
	int64_t last_tick = 0;
	enum runner_end end = RUNNER_ENDED;
	int ret = -1;

	if (!r->dir && local_run_dir(r, err) < 0)
		goto out;
	run_file(r, run_id, "json", &specpath);
	/* A fresh file renamed into place: a link planted at the spec's
	 * name is replaced, never followed (fs.h). */
	if (write_file_atomic(specpath.buf, spec, strlen(spec), 0600, 0, err) <
	    0)
		goto out;
	child_process_init(&cp);
	strvec_push(&cp.args, r->agent_local);
	strvec_push(&cp.args, "run");
	strvec_push(&cp.args, specpath.buf);
	cp.stream_out = 1;
	cp.clear_env = 1;
	if (local_agent_env(&cp.env, err) < 0 || start_command(&cp, err) < 0) {
		child_process_clear(&cp);
		goto out;
	}
	for (;;) {
		struct pollfd pfd = { cp.out_fd, POLLIN, 0 };
		int pr;

		if (time_to_end(deadline, &last_tick, cb, &end))
			break;
		pr = poll(&pfd, 1, 500);
		if (pr < 0 && errno != EINTR)
			break;
		if (pr > 0) {
			char chunk[65536];
			ssize_t n = read(cp.out_fd, chunk, sizeof(chunk));

			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				if (buf.len) /* a last line without newline */
					strbuf_addch(&buf, '\n');
				if (deliver_lines(&buf, cb) < 0)
					end = RUNNER_STOPPED;
				break;
			}
			strbuf_add(&buf, chunk, (size_t)n);
			if (deliver_lines(&buf, cb) < 0) {
				end = RUNNER_STOPPED;
				break;
			}
		}
	}
	if (end != RUNNER_ENDED) {
		/* The agent ends its run on SIGTERM with status interrupted. */
		kill(-cp.pid, SIGTERM);
		cp.timeout_ms = 10000;
	}
	finish_command(&cp, &e);
	*ret_status = cp.exit_code;
	child_process_clear(&cp);
	*ret_end = end;
	ret = 0;
out:
	strbuf_release(&specpath);
	strbuf_release(&buf);
	strbuf_release(&e);
	return ret;
}

/* Ask the host whether the run's agent still runs: 1 yes, 0 no, -1 ?. */
static int remote_alive(struct runner *r, int64_t run_id, struct strbuf *err)
{
	struct strbuf cmd = STRBUF_INIT, pid = STRBUF_INIT, out = STRBUF_INIT;
	int ret;

	run_file(r, run_id, "pid", &pid);
	strbuf_addstr(&cmd, "p=$(cat ");
	ssh_quote(&cmd, pid.buf);
	strbuf_addstr(&cmd, " 2>/dev/null) && kill -0 \"$p\" 2>/dev/null && "
			    "echo alive || echo gone");
	ret = remote(r, cmd.buf, NULL, 0, 4096, &out, err);
	if (ret == 0)
		ret = starts_with(out.buf, "alive") ? 1 : 0;
	strbuf_release(&cmd);
	strbuf_release(&pid);
	strbuf_release(&out);
	return ret;
}

static void remote_stop(struct runner *r, int64_t run_id)
{
	struct strbuf cmd = STRBUF_INIT, pid = STRBUF_INIT, out = STRBUF_INIT,
		      e = STRBUF_INIT;

	run_file(r, run_id, "pid", &pid);
	strbuf_addstr(&cmd, "p=$(cat ");
	ssh_quote(&cmd, pid.buf);
	strbuf_addstr(&cmd, " 2>/dev/null) && kill -TERM \"$p\" 2>/dev/null; "
			    "true");
	remote(r, cmd.buf, NULL, 0, 4096, &out, &e);
	strbuf_release(&cmd);
	strbuf_release(&pid);
	strbuf_release(&out);
	strbuf_release(&e);
}

/*
 * After a dropped or stalled connection: get back in and wait until the
 * agent has ended, stopping it at the deadline or when a callback says
 * so.  With a stall limit, getting back in is tried for that long (from
 * the loss, and again after each later loss); without one, until 30 s
 * past the deadline.  why says how the connection was lost, for the
 * error.  0 when the agent is known to have ended, -1 (err) when the host
 * could not be reached again.
 */
static int recover(struct runner *r, int64_t run_id, int64_t deadline,
		   const char *why, const struct runner_callbacks *cb,
		   enum runner_end *ret_end, struct strbuf *err)
{
	int64_t last_tick = mono_ms(), lost_at = mono_ms();
	int64_t window = r->h.stall_ms;
	int delay = 200, stopped = 0;
	struct strbuf last = STRBUF_INIT;

	for (;;) {
		struct strbuf e = STRBUF_INIT;
		int64_t give_up = window > 0 ? lost_at + window
					     : (deadline < INT64_MAX - 30000
							? deadline + 30000
							: INT64_MAX);
		int alive, was_up;

		if (mono_ms() - last_tick >= 1000) {
			last_tick = mono_ms();
			if (!stopped && cb->tick && cb->tick(cb->ctx) < 0) {
				stopped = 1;
				*ret_end = RUNNER_STOPPED;
			}
		}
		if (mono_ms() >= give_up) {
			struct strbuf tried = STRBUF_INIT;

			format_duration_ms(&tried, mono_ms() - lost_at);
			strbuf_addf(err,
				    "connection lost to %s (%s) and not "
				    "back after %s of trying",
				    r->h.name, why, tried.buf);
			if (last.len)
				strbuf_addf(err, ": %s", last.buf);
			strbuf_release(&tried);
			strbuf_release(&last);
			return -1;
		}
		was_up = ssh_is_up(r->ssh);
		alive = was_up || ssh_connect_within(r, give_up - mono_ms(),
						     &e) == 0
				? remote_alive(r, run_id, &e)
				: -1;
		if (alive >= 0 && !was_up)
			lost_at = mono_ms(); /* back in: a new window */
		if (alive == 0) {
			strbuf_release(&e);
			strbuf_release(&last);
			return 0;
		}
		if (alive > 0 && (stopped || mono_ms() >= deadline)) {
			if (!stopped)
				*ret_end = RUNNER_TIMEOUT;
			stopped = 1;
			remote_stop(r, run_id);
		}
		if (alive < 0 && stopped) {
			/* Stopped (e.g. the console showed the host crash)
			 * and not reachable: there is nothing to wait for. */
			strbuf_release(&e);
			strbuf_release(&last);
			return 0;
		}
		if (alive < 0) {
			note(cb, "reconnecting to %s: %s", r->h.name, e.buf);
			strbuf_reset(&last);
			strbuf_addbuf(&last, &e);
		}
		strbuf_release(&e);
		sleep_ms(delay);
		if (delay < 2000)
			delay *= 2;
	}
}

static int run_ssh(struct runner *r, int64_t run_id, const char *spec,
		   int64_t deadline, const struct runner_callbacks *cb,
		   enum runner_end *ret_end, int *ret_status,
		   struct strbuf *err)
{
	struct strbuf specpath = STRBUF_INIT, pidpath = STRBUF_INIT,
		      cmd = STRBUF_INIT, buf = STRBUF_INIT, e = STRBUF_INIT;
	struct ssh_exec *ex = NULL;
	int64_t last_tick = 0;
	enum runner_end end = RUNNER_ENDED;
	int ret = -1, lost = 0;

	*ret_status = -1;
	if (!ssh_is_up(r->ssh) && ssh_connect_host(r, err) < 0)
		goto out;
	run_file(r, run_id, "json", &specpath);
	run_file(r, run_id, "pid", &pidpath);
	if (ssh_put_file(r->ssh, specpath.buf, spec, strlen(spec), 0600,
			 CMD_TIMEOUT_MS, err) < 0)
		goto out;
	/* SIGPIPE ignored: the agent outlives a dropped connection. */
	strbuf_addstr(&cmd, "trap '' PIPE HUP; echo $$ > ");
	ssh_quote(&cmd, pidpath.buf);
	strbuf_addstr(&cmd, " && exec ");
	ssh_quote(&cmd, r->agent_remote);
	strbuf_addstr(&cmd, " run ");
	ssh_quote(&cmd, specpath.buf);
	if (ssh_exec_start(r->ssh, cmd.buf, &ex, err) < 0)
		goto out;
	for (;;) {
		int n;

		if (time_to_end(deadline, &last_tick, cb, &end))
			break;
		n = ssh_exec_read(ex, &buf, 500, &e);
		if (n < 0) {
			lost = 1;
			break;
		}
		if (n == 2) {
			if (buf.len)
				strbuf_addch(&buf, '\n');
			if (deliver_lines(&buf, cb) < 0)
				end = RUNNER_STOPPED;
			break;
		}
		if (n == 1 && deliver_lines(&buf, cb) < 0) {
			end = RUNNER_STOPPED;
			break;
		}
		if (r->h.stall_ms > 0 &&
		    ssh_silence_ms(r->ssh) >= r->h.stall_ms) {
			/* A silent drop: TCP would say nothing for many
			 * minutes.  The agent keeps running over there. */
			struct strbuf d = STRBUF_INIT;

			format_duration_ms(&d, ssh_silence_ms(r->ssh));
			strbuf_addf(&e,
				    "no line and no keepalive answer for %s",
				    d.buf);
			strbuf_release(&d);
			ssh_mark_lost(r->ssh);
			lost = 1;
			break;
		}
	}
	if (!lost) {
		/* Our channel ends first: stopping the agent may have to
		 * reconnect (a host that crashed and came back), which frees
		 * the session the channel belongs to. */
		ssh_exec_end(ex, ret_status);
		ex = NULL;
		if (end != RUNNER_ENDED)
			remote_stop(r, run_id);
		/* No exit status after the end of stdout: the link died
		 * between the agent's last line and its exit. */
		if (end == RUNNER_ENDED && *ret_status < 0 &&
		    !ssh_is_up(r->ssh)) {
			lost = 1;
			strbuf_addstr(&e, "no exit status after the output");
		}
	}
	if (lost) {
		note(cb,
		     "connection to %s lost during run %lld (%s); "
		     "reconnecting to collect the results file",
		     r->h.name, (long long)run_id, e.buf);
		ssh_exec_end(ex, NULL);
		ex = NULL;
		end = RUNNER_LOST;
		if (recover(r, run_id, deadline, e.buf, cb, &end, err) < 0)
			goto out;
		if (end == RUNNER_ENDED)
			end = RUNNER_LOST;
	}
	*ret_end = end;
	ret = 0;
out:
	ssh_exec_end(ex, NULL);
	strbuf_release(&specpath);
	strbuf_release(&pidpath);
	strbuf_release(&cmd);
	strbuf_release(&buf);
	strbuf_release(&e);
	return ret;
}

int runner_run(struct runner *r, int64_t run_id, const char *spec,
	       const struct budget *b, const struct runner_callbacks *cb,
	       enum runner_end *ret_end, int *ret_status, struct strbuf *err)
{
	int64_t deadline = budget_end(b);

	*ret_end = RUNNER_ENDED;
	*ret_status = -1;
	if (r->is_ssh)
		return run_ssh(r, run_id, spec, deadline, cb, ret_end,
			       ret_status, err);
	return run_local(r, run_id, spec, deadline, cb, ret_end, ret_status,
			 err);
}

int runner_fetch(struct runner *r, int64_t run_id, size_t max, int timeout_ms,
		 struct strbuf *out, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	run_file(r, run_id, "jsonl", &path);
	if (r->is_ssh) {
		struct strbuf cmd = STRBUF_INIT;

		ssh_quote(&cmd, r->agent_remote);
		strbuf_addstr(&cmd, " cat ");
		ssh_quote(&cmd, path.buf);
		ret = remote_within(r, cmd.buf, NULL, 0, max, timeout_ms, out,
				    err);
		strbuf_release(&cmd);
	} else {
		ret = strbuf_read_file(out, path.buf, max);
		if (ret < 0)
			strbuf_addf(err, "cannot read %s: %s", path.buf,
				    strerror(-ret));
	}
	strbuf_release(&path);
	return ret < 0 ? -1 : 0;
}

void runner_forget(struct runner *r, int64_t run_id)
{
	static const char *const exts[] = { "json", "jsonl", "pid" };
	struct strbuf path = STRBUF_INIT, cmd = STRBUF_INIT, out = STRBUF_INIT,
		      e = STRBUF_INIT;

	if (r->is_ssh)
		strbuf_addstr(&cmd, "rm -f");
	for (size_t i = 0; i < ARRAY_SIZE(exts); i++) {
		strbuf_reset(&path);
		run_file(r, run_id, exts[i], &path);
		if (r->is_ssh) {
			strbuf_addch(&cmd, ' ');
			ssh_quote(&cmd, path.buf);
		} else {
			unlink(path.buf);
		}
	}
	if (r->is_ssh)
		remote(r, cmd.buf, NULL, 0, 4096, &out, &e);
	strbuf_release(&path);
	strbuf_release(&cmd);
	strbuf_release(&out);
	strbuf_release(&e);
}

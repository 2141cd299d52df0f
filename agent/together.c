/*
 * together.c - several workloads in one run, at the same time, each in its
 * own cgroup (seed 001's two kernel compiles in /a and /b; a measured
 * workload beside a noisy neighbour), and a single workload the agent
 * samples (sample_ms).
 *
 * Each member runs in a thread of its own in the agent, which runs the
 * member's workload exactly as the agent runs a lone one (setup once,
 * then prepare and run per iteration, teardown at the end) and writes its
 * lines, named "MEMBER.metric", into a pipe.  The run's main thread
 * drives the members with one-line commands over another pipe:
 *
 *   P IT WARMUP   prepare iteration IT (kernbench's make clean)
 *   G             go: run the iteration (sent to every member at once,
 *                 after all are prepared: the barrier)
 *   Q             tear down and exit
 *
 * and the members answer with control lines the main thread consumes
 * ({"type":"member-ready"}, {"type":"member-done"}, {"type":"member-exit"});
 * every other line is relayed as is.  While the members run, the main
 * thread only sleeps until the next sample, reads each member group's
 * CPU usage (one pread per group) and relays lines.  When every measured
 * member is done, background members (neighbours) get SIGUSR1, which ends
 * their current iteration, not their thread; SIGUSR2 tells a member the
 * run is being stopped.
 *
 * Threads, not processes: a forked member cost the agent a fork, the
 * copy-on-write faults of two address spaces and an exit (7-9 ms of a
 * 10 s pair, a third of the agent's cost), where a thread costs a stack.
 * What a process gave a member for free, each member thread has of its
 * own: its interruption flag (agent_stop is thread-local), the children
 * it tracks and kills, and what its reaped children cost
 * (agent_children_usage(), where a process read RUSAGE_CHILDREN).
 *
 * The cross-group figures are computed over the contention window, from
 * the barrier to the end of the first measured member (when all still
 * competed): each member group's share of what the groups used together,
 * its CPU in percent of one CPU, Jain's index and the max/min ratio over
 * weight-normalised usage, and the ratio of the measured members' elapsed
 * times.  The member threads' own CPU (not their workloads') is the
 * agent's, so agent_cpu_s stays the whole cost of measuring.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "parse.h"
#include "banned.h"

#define MEMBER_LINE_MAX (1u << 20) /* a member line the run accepts */
#define MEMBER_EXIT_WAIT_MS 60000 /* teardown of a member (a PG cluster) */
#define MEMBER_STOP_WAIT_MS 5000 /* the same when the run is being stopped */

enum mstate {
	M_IDLE, /* between iterations */
	M_BUSY, /* asked to prepare or run, no answer yet */
	M_DONE, /* answered for this step */
	M_GONE, /* its pipe is closed */
};

struct member {
	const struct run_spec *spec;
	const char *label; /* name, or NULL for a lone sampled workload */
	const char *cgroup; /* its cgroup parameter */
	const struct agent_ctx *run_ctx; /* the run's, which it copies */
	pthread_t thread;
	int started; /* thread is running or not yet joined */
	struct agent_tracked *tracked; /* the children of its thread */
	int ctl_fd, out_fd; /* the main thread's ends */
	int ctl_rd, out_wr; /* the member thread's ends */
	struct strbuf in; /* a partial line from it */
	enum mstate state;
	int ok; /* the last answer said ok */
	char *message; /* the last failure */
	double elapsed_s;
	struct member_usage usage; /* its workload's, this iteration */
	double cpu_s; /* its thread's own, from member-exit */
	int exited; /* member-exit seen */
	int signalled; /* SIGUSR1 sent this iteration */
	int usage_fd; /* its group's usage file, or -1 */
	int weight;
	uint64_t u0, uprev, uwin; /* usage at the barrier, last tick, window */
	int uwin_set;
};

/* ---- the member thread ----------------------------------------------- */

static void send_control(int fd, const struct strbuf *line)
{
	/* A pipe to the run; it may be gone, and then nothing is lost. */
	(void)write_all(fd, line->buf, line->len);
}

/* Read one command line from fd into sb (without newline); -1 at EOF. */
static int read_command(int fd, struct strbuf *sb)
{
	char c;

	strbuf_reset(sb);
	for (;;) {
		ssize_t n = read(fd, &c, 1);

		if (n < 0 && errno == EINTR) {
			if (agent_stop == STOP_SIGNAL ||
			    agent_stop == STOP_DEADLINE)
				return -1;
			continue;
		}
		if (n <= 0)
			return -1;
		if (c == '\n')
			return 0;
		if (sb->len < 64)
			strbuf_addch(sb, c);
	}
}

/*
 * One "G": run the iteration (a background member: again and again until
 * stopped, its results not reported), then answer member-done.
 */
static void member_go(struct agent_ctx *ctx, const struct wl_ops *ops, int fd,
		      int background)
{
	struct emitter *em = ctx->em;
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
	struct rusage a, b;
	struct rt_wake rt = { 0 };
	int64_t t0;
	int r = 0, passes = 0, out_fd = em->out_fd;

	rt_wake_begin(&rt); /* its end timed when it comes */
	t0 = mono_ms();
	agent_children_usage(&a);
	if (background)
		em->out_fd = -1; /* a neighbour's own figures are not kept */
	do {
		strbuf_reset(&err);
		r = ops->run(ctx, &err);
		emit_flush(em);
		if (r == 0)
			passes++;
		agent_kill_all();
	} while (background && r == 0 && !agent_stop);
	em->out_fd = out_fd;
	agent_children_usage(&b);
	rt_wake_end(&rt);
	if (agent_stop == STOP_ITERATION) {
		/* cut short by the run: a background member is fine */
		r = background ? 0 : -1;
		if (!background)
			strbuf_addstr(&err, "stopped");
		agent_stop = STOP_NONE;
	}
	if (background && r == 0)
		emit_result(em, "passes", passes, "count", "none");
	emit_flush(em); /* the member's lines before its answer */
	line_begin(&line, "member-done", em->run_id);
	line_int(&line, "iteration", em->iteration);
	line_bool(&line, "ok", r == 0);
	if (r < 0)
		line_str(&line, "message", err.len ? err.buf : "failed");
	line_num(&line, "elapsed_s", (double)(mono_ms() - t0) / 1000.0);
	line_num(&line, "user_s",
		 timeval_s(b.ru_utime) - timeval_s(a.ru_utime));
	line_num(&line, "system_s",
		 timeval_s(b.ru_stime) - timeval_s(a.ru_stime));
	line_num(&line, "vol", (double)(b.ru_nvcsw - a.ru_nvcsw));
	line_num(&line, "invol", (double)(b.ru_nivcsw - a.ru_nivcsw));
	line_end(&line);
	send_control(fd, &line);
	strbuf_release(&err);
	strbuf_release(&line);
}

/* Answer a setup or a prepare: member-ready, ok or with why not. */
static void member_ready(int fd, int64_t run_id, int ok,
			 const struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT;

	line_begin(&line, "member-ready", run_id);
	line_bool(&line, "ok", ok);
	if (!ok)
		line_str(&line, "message", err->len ? err->buf : "failed");
	line_end(&line);
	send_control(fd, &line);
	strbuf_release(&line);
}

/*
 * The member thread: the member's workload driven by the run's commands,
 * then its teardown; it closes its ends of the pipes when it is done.
 */
static void *member_main(void *arg)
{
	struct member *m = arg;
	const struct run_spec *ms = m->spec;
	struct emitter em;
	struct agent_ctx ctx = *m->run_ctx;
	const struct wl_ops *ops = wl_ops_of(ms);
	struct strbuf cmd = STRBUF_INIT, err = STRBUF_INIT, line = STRBUF_INIT;
	struct rusage ru;
	int ctl_fd = m->ctl_rd, out_fd = m->out_wr, setup_ok;

	agent_thread_adopt(m->tracked);
	emitter_init(&em, ms->run_id, out_fd);
	em.member = ms->name;
	em.iteration = -1;
	ctx.spec = ms;
	ctx.em = &em;
	ctx.wl_state = NULL;
	setup_ok = !ops->setup || ops->setup(&ctx, &err) == 0;
	emit_flush(&em);
	member_ready(out_fd, ms->run_id, setup_ok, &err);
	while (setup_ok && read_command(ctl_fd, &cmd) == 0) {
		struct strvec w = STRVEC_INIT;
		int it = 0, warm = 0, is_prepare;

		if (cmd.buf[0] == 'Q')
			break;
		strvec_split(&w, cmd.buf, ' ');
		is_prepare = w.nr == 3 && !strcmp(w.v[0], "P") &&
			     parse_int(w.v[1], 0, 1000000, &it, NULL) == 0 &&
			     parse_int(w.v[2], 0, 1, &warm, NULL) == 0;
		strvec_clear(&w);
		if (is_prepare) {
			if (agent_stop == STOP_ITERATION)
				agent_stop = STOP_NONE;
			em.iteration = ctx.iteration = it;
			em.warmup = ctx.warmup = warm;
			int ok;

			strbuf_reset(&err);
			ok = !ops->prepare || ops->prepare(&ctx, &err) == 0;
			emit_flush(&em);
			member_ready(out_fd, ms->run_id, ok, &err);
		} else if (cmd.buf[0] == 'G') {
			member_go(&ctx, ops, out_fd, ms->background);
		}
	}
	emit_flush(&em);
	agent_kill_all();
	if (ops->teardown && (setup_ok || ctx.wl_state))
		ops->teardown(&ctx);
	agent_kill_all();
	getrusage(RUSAGE_THREAD, &ru);
	line_begin(&line, "member-exit", ms->run_id);
	line_num(&line, "cpu_s",
		 timeval_s(ru.ru_utime) + timeval_s(ru.ru_stime));
	line_end(&line);
	send_control(out_fd, &line);
	emitter_release(&em);
	strbuf_release(&cmd);
	strbuf_release(&err);
	strbuf_release(&line);
	close(ctl_fd);
	close(out_fd);
	return NULL;
}

/* ---- the main thread ------------------------------------------------- */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* "member a (kernbench)" for messages. */
static void describe(const struct member *m, struct strbuf *sb)
{
	if (m->label)
		strbuf_addf(sb, "member %s (%s)", m->label,
			    m->spec->cmd ? m->spec->cmd->name
					 : m->spec->wl->name);
	else
		strbuf_addstr(sb, m->spec->cmd ? m->spec->cmd->name
					       : m->spec->wl->name);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Start the member thread of m with its two pipes; 0, or -1 with err.
 * The thread starts with every signal blocked (it lets SIGUSR1 and
 * SIGUSR2 in once its own tracked set is in place).
 */
static int member_start(struct agent_ctx *ctx, struct member *m,
			struct strbuf *err)
{
	int ctl[2], out[2], e;
	sigset_t all, old;

	if (pipe2(ctl, O_CLOEXEC) < 0) {
		strbuf_addf(err, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(out, O_CLOEXEC) < 0) {
		strbuf_addf(err, "cannot make a pipe: %s", strerror(errno));
		close(ctl[0]);
		close(ctl[1]);
		return -1;
	}
	m->run_ctx = ctx;
	m->tracked = agent_tracked_new();
	m->ctl_fd = ctl[1];
	m->ctl_rd = ctl[0];
	m->out_fd = out[0];
	m->out_wr = out[1];
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&m->thread, NULL, member_main, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		strbuf_addf(err, "cannot start a member thread: %s",
			    strerror(e));
		close_fd(&m->ctl_fd);
		close_fd(&m->out_fd);
		close(ctl[0]);
		close(out[1]);
		return -1;
	}
	m->started = 1;
	return 0;
}

static void member_send(struct member *m, const char *cmd)
{
	if (m->ctl_fd >= 0 && m->state != M_GONE)
		(void)write_all(m->ctl_fd, cmd, strlen(cmd));
}

/* Take a control line from m; 0, or -1 when it is not one we know. */
static int member_control(struct member *m, const char *line, size_t len)
{
	const struct json_limits lim = { 4, 4096, 64 };
	struct json_value *doc = NULL;
	struct strbuf why = STRBUF_INIT;
	const char *type, *msg;
	int ok = 0, rc = -1;

	if (json_parse(line, len, &lim, &doc, &why) < 0)
		goto out;
	type = json_string(json_get(doc, "type"));
	if (!type)
		goto out;
	if (!strcmp(type, "member-exit")) {
		json_get_double(doc, "cpu_s", 0, 1e9, &m->cpu_s, &why);
		m->exited = 1;
		rc = 0;
		goto out;
	}
	if (json_get_bool(doc, "ok", &ok, &why) < 0)
		goto out;
	m->ok = ok;
	free(m->message);
	msg = json_string(json_get(doc, "message"));
	m->message = msg ? xstrdup(msg) : NULL;
	if (!strcmp(type, "member-done")) {
		json_get_double(doc, "elapsed_s", 0, 1e9, &m->elapsed_s, &why);
		json_get_double(doc, "user_s", 0, 1e9, &m->usage.user_s, &why);
		json_get_double(doc, "system_s", 0, 1e9, &m->usage.system_s,
				&why);
		json_get_double(doc, "vol", 0, 1e18, &m->usage.vol, &why);
		json_get_double(doc, "invol", 0, 1e18, &m->usage.invol, &why);
	} else if (strcmp(type, "member-ready")) {
		goto out;
	}
	m->state = M_DONE;
	rc = 0;
out:
	json_free(doc);
	strbuf_release(&why);
	return rc;
}

/*
 * Read what m wrote: relay its lines, take its control lines.  At EOF the
 * member is gone.  Return -1 when it broke the protocol (err says).
 */
static int member_read(struct emitter *em, struct member *m, struct strbuf *err)
{
	char buf[65536];
	ssize_t n;
	size_t start = 0;

	do
		n = read(m->out_fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		close_fd(&m->out_fd);
		close_fd(&m->ctl_fd);
		m->state = M_GONE;
		return 0;
	}
	strbuf_add(&m->in, buf, (size_t)n);
	for (;;) {
		char *nl = memchr(m->in.buf + start, '\n', m->in.len - start);
		size_t len;

		if (!nl)
			break;
		len = (size_t)(nl - (m->in.buf + start));
		if (starts_with(m->in.buf + start, "{\"type\":\"member-")) {
			if (member_control(m, m->in.buf + start, len) < 0) {
				describe(m, err);
				strbuf_addstr(err, ": a bad control line");
				return -1;
			}
		} else if (len) {
			emit_raw_line(em, m->in.buf + start, len + 1);
		}
		start += len + 1;
	}
	if (start) {
		memmove(m->in.buf, m->in.buf + start, m->in.len - start);
		strbuf_setlen(&m->in, m->in.len - start);
	}
	if (m->in.len > MEMBER_LINE_MAX) {
		describe(m, err);
		strbuf_addf(err, ": a line longer than %u bytes",
			    MEMBER_LINE_MAX);
		return -1;
	}
	return 0;
}

struct tg {
	struct agent_ctx *ctx;
	struct member *m;
	size_t n;
	int sample_ms;
	int64_t t0; /* the barrier, ns */
	int64_t tprev; /* the last sample, ns */
	int64_t twin; /* the end of the contention window, ns; 0: open */
	struct member *first_bad; /* the first to fail in this step */
	struct strvec series; /* cpu_pct.NAME per member */
};

/* Read each member group's usage into *field (offset in struct member). */
static void read_usage(struct tg *t, int which)
{
	for (size_t i = 0; i < t->n; i++) {
		struct member *m = &t->m[i];
		uint64_t v;

		if (m->usage_fd < 0 ||
		    cg_usage_read(t->ctx->cg, m->usage_fd, &v))
			continue;
		if (which == 0)
			m->u0 = m->uprev = v;
		else if (which == 1) {
			m->uwin = v;
			m->uwin_set = 1;
		} else {
			m->uprev = v;
		}
	}
}

/* One sample: each group's CPU since the last, in percent of one CPU. */
static void sample_tick(struct tg *t)
{
	int64_t now = now_ns();
	double dt = (double)(now - t->tprev), ts = (double)(now - t->t0) / 1e9;

	for (size_t i = 0; i < t->n; i++) {
		struct member *m = &t->m[i];
		uint64_t v;

		if (m->usage_fd < 0 ||
		    cg_usage_read(t->ctx->cg, m->usage_fd, &v) < 0)
			continue;
		if (dt > 0)
			emit_sample(t->ctx->em, t->series.v[i], ts,
				    100.0 * (double)(v - m->uprev) / dt);
		m->uprev = v;
	}
	t->tprev = now;
}

/*
 * Wait until every member in state M_BUSY has answered (or is gone),
 * relaying their lines and, while running (sampling), taking samples and
 * closing the contention window at the first measured member's end.
 * Return 0, or -1 on a protocol error or when the run is stopped.
 */
static int wait_members(struct tg *t, int running, struct strbuf *err)
{
	struct pollfd *pfd = xcalloc(t->n, sizeof(*pfd));
	int64_t next = t->tprev / 1000000 + t->sample_ms;
	int rc = 0;

	for (;;) {
		size_t busy = 0, np = 0, measured_busy = 0;
		int timeout = -1, r;

		for (size_t i = 0; i < t->n; i++) {
			struct member *m = &t->m[i];

			if (m->state == M_BUSY) {
				busy++;
				measured_busy += !m->spec->background;
			}
		}
		if (running && !t->twin) {
			/* the window closes when a measured member ends */
			size_t measured = 0, open = 0;

			for (size_t i = 0; i < t->n; i++)
				if (!t->m[i].spec->background) {
					measured++;
					open += t->m[i].state == M_BUSY;
				}
			if (open < measured) {
				t->twin = now_ns();
				read_usage(t, 1);
			}
		}
		/* A failure ends the step for everyone, as does the end of
		 * the measured members for the background ones. */
		if (running && (!measured_busy || t->first_bad))
			for (size_t i = 0; i < t->n; i++) {
				struct member *m = &t->m[i];

				if (m->state == M_BUSY && !m->signalled &&
				    m->started) {
					pthread_kill(m->thread, SIGUSR1);
					m->signalled = 1;
				}
			}
		if (!busy)
			break;
		if (agent_stop && agent_stop != STOP_ITERATION) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < t->n; i++)
			if (t->m[i].out_fd >= 0) {
				pfd[np].fd = t->m[i].out_fd;
				pfd[np].events = POLLIN;
				pfd[np].revents = 0;
				np++;
			}
		if (running && t->sample_ms) {
			int64_t now = mono_ms();

			if (now >= next) {
				sample_tick(t);
				if (t->ctx->em->pending.len > 32768)
					emit_flush(t->ctx->em);
				next += t->sample_ms;
				if (next <= now)
					next = now + t->sample_ms;
				continue;
			}
			timeout = (int)(next - now);
		}
		r = poll(pfd, np, timeout);
		if (r < 0 && errno != EINTR) {
			strbuf_addf(err, "poll: %s", strerror(errno));
			rc = -1;
			break;
		}
		for (size_t i = 0, k = 0; r > 0 && i < t->n; i++) {
			struct member *m = &t->m[i];

			if (m->out_fd < 0)
				continue;
			if (pfd[k++].revents &&
			    member_read(t->ctx->em, m, err) < 0) {
				rc = -1;
				goto out;
			}
		}
		for (size_t i = 0; i < t->n; i++) {
			struct member *m = &t->m[i];

			if (m->state == M_GONE && !m->exited && m->ok) {
				m->ok = 0;
				free(m->message);
				m->message = xstrdup(
					"its thread ended unexpectedly");
			}
			if (!m->ok && !t->first_bad)
				t->first_bad = m;
		}
	}
out:
	free(pfd);
	return rc;
}

/* Ask every member that is not gone to do cmd; they are then busy. */
static void send_all(struct tg *t, const char *cmd)
{
	t->first_bad = NULL;
	for (size_t i = 0; i < t->n; i++) {
		struct member *m = &t->m[i];

		if (m->state == M_GONE)
			continue;
		m->state = M_BUSY;
		m->signalled = 0;
		member_send(m, cmd);
	}
}

/* The first member that failed its last step, or NULL. */
static struct member *failed_member(struct tg *t)
{
	if (t->first_bad)
		return t->first_bad;
	for (size_t i = 0; i < t->n; i++)
		if (!t->m[i].ok)
			return &t->m[i];
	return NULL;
}

static void report_failure(struct tg *t, const struct member *m,
			   const char *what)
{
	struct strbuf msg = STRBUF_INIT;

	describe(m, &msg);
	strbuf_addf(&msg, " %s: %s", what, m->message ? m->message : "failed");
	emit_error(t->ctx->em, msg.buf, NULL);
	strbuf_release(&msg);
}

/* The cross-group figures of one iteration (doc/PROTOCOL.md). */
static void emit_cross(struct tg *t)
{
	struct emitter *em = t->ctx->em;
	double window = (double)(t->twin - t->t0) / 1e9, total = 0;
	double emin = INFINITY, emax = 0, sum = 0, sumsq = 0, xmin = INFINITY,
	       xmax = 0;
	size_t ng = 0, nmeasured = 0;
	struct strbuf name = STRBUF_INIT;

	if (!t->m[0].label)
		return; /* a lone sampled workload: samples only */
	for (size_t i = 0; i < t->n; i++) {
		struct member *m = &t->m[i];

		if (m->spec->background)
			continue;
		strbuf_reset(&name);
		strbuf_addf(&name, "elapsed_s.%s", m->label);
		emit_result(em, name.buf, m->elapsed_s, "s", "lower");
		nmeasured++;
		emin = fmin(emin, m->elapsed_s);
		emax = fmax(emax, m->elapsed_s);
	}
	if (nmeasured >= 2 && emin > 0)
		emit_result(em, "elapsed_ratio", emax / emin, "ratio", "lower");
	if (window <= 0)
		goto out;
	emit_result(em, "window_s", window, "s", "none");
	for (size_t i = 0; i < t->n; i++)
		if (t->m[i].usage_fd >= 0 && t->m[i].uwin_set)
			total += (double)(t->m[i].uwin - t->m[i].u0);
	for (size_t i = 0; i < t->n; i++) {
		struct member *m = &t->m[i];
		double used, x;

		if (m->usage_fd < 0 || !m->uwin_set)
			continue;
		used = (double)(m->uwin - m->u0);
		strbuf_reset(&name);
		strbuf_addf(&name, "cpu_pct.%s", m->label);
		emit_result(em, name.buf, 100.0 * used / 1e9 / window, "%cpu",
			    "none");
		if (total > 0) {
			strbuf_reset(&name);
			strbuf_addf(&name, "share.%s", m->label);
			emit_result(em, name.buf, 100.0 * used / total, "%",
				    "none");
		}
		x = used / (m->weight > 0 ? m->weight : 100);
		sum += x;
		sumsq += x * x;
		xmin = fmin(xmin, x);
		xmax = fmax(xmax, x);
		ng++;
	}
	if (ng >= 2 && sumsq > 0)
		emit_result(em, "jain_index", sum * sum / ((double)ng * sumsq),
			    "ratio", "higher");
	if (ng >= 2 && xmin > 0)
		emit_result(em, "max_min_ratio", xmax / xmin, "ratio", "lower");
out:
	strbuf_release(&name);
}

/*
 * One iteration: prepare, counters, barrier, run with samples, the
 * figures, counters.  Return 0, or -1 when it failed (error lines said
 * why) or the run is stopped.
 */
static int together_iteration(struct tg *t, int it, struct strbuf *err)
{
	struct agent_ctx *ctx = t->ctx;
	struct emitter *em = ctx->em;
	struct strbuf cmd = STRBUF_INIT, note = STRBUF_INIT;
	struct snap before, after;
	struct rt_wake rt = { 0 };
	struct member *bad;
	int rc = -1;

	em->iteration = ctx->iteration = it;
	em->warmup = ctx->warmup = it < ctx->spec->warmup;
	strbuf_addf(&cmd, "P %d %d\n", it, em->warmup);
	send_all(t, cmd.buf);
	if (wait_members(t, 0, err) < 0)
		goto out_nosnap;
	if ((bad = failed_member(t))) {
		report_failure(t, bad, "could not prepare");
		goto out_nosnap;
	}
	snap_take(ctx, &before, 1, &note);
	read_usage(t, 0);
	t->t0 = t->tprev = now_ns();
	t->twin = 0;
	if (t->sample_ms)
		rt_wake_begin(&rt);
	send_all(t, "G\n");
	rc = wait_members(t, 1, err);
	rt_wake_end(&rt);
	if (!t->twin) {
		t->twin = now_ns();
		read_usage(t, 1);
	}
	emit_flush(em);
	if (rc == 0 && (bad = failed_member(t))) {
		/* stop the others before saying so */
		report_failure(t, bad, "failed");
		rc = -1;
	}
	if (rc == 0)
		emit_cross(t);
	snap_take(ctx, &after, 0, &note);
	/* The members' workloads' children were reaped by the member
	 * threads, so RUSAGE_CHILDREN grew by what the members report:
	 * count it once, from them. */
	after.children = before.children;
	memset(&after.members, 0, sizeof(after.members));
	for (size_t i = 0; i < t->n; i++) {
		after.members.user_s += t->m[i].usage.user_s;
		after.members.system_s += t->m[i].usage.system_s;
		after.members.vol += t->m[i].usage.vol;
		after.members.invol += t->m[i].usage.invol;
		memset(&t->m[i].usage, 0, sizeof(t->m[i].usage));
	}
	if (!agent_stop)
		snap_emit(ctx, &before, &after, note.buf);
	emit_flush(em);
	snap_release(&before);
	snap_release(&after);
out_nosnap:
	strbuf_release(&cmd);
	strbuf_release(&note);
	return rc;
}

/* Weight of the group at path in the run's layout (100 if not there). */
static int group_weight(const struct cg_run *cg, const char *path)
{
	for (size_t i = 0; i < cg->ngroups; i++)
		if (!strcmp(cg->groups[i].path, path))
			return cg->groups[i].weight;
	return 100;
}

/*
 * Tell every member to quit (when the run is being stopped, SIGUSR2
 * first: a member busy in its workload ends it), collect their exits (a
 * minute for a teardown, five seconds when the run is being stopped),
 * then kill the children of any member that has not said member-exit,
 * tell it again, stop reading it (a write of its into a full pipe fails)
 * and wait for its thread.
 */
static void members_stop(struct tg *t, double *ret_cpu)
{
	int stopping = agent_stop && agent_stop != STOP_ITERATION;
	int64_t deadline = mono_ms() + (stopping ? MEMBER_STOP_WAIT_MS
						 : MEMBER_EXIT_WAIT_MS);
	struct strbuf ignore = STRBUF_INIT;

	for (size_t i = 0; i < t->n; i++) {
		if (stopping && t->m[i].started)
			pthread_kill(t->m[i].thread, SIGUSR2);
		member_send(&t->m[i], "Q\n");
		close_fd(&t->m[i].ctl_fd);
	}
	for (;;) {
		struct pollfd pfd[SPEC_MAX_MEMBERS];
		size_t np = 0;
		int64_t left = deadline - mono_ms();

		for (size_t i = 0; i < t->n; i++)
			if (t->m[i].out_fd >= 0 && !t->m[i].exited) {
				pfd[np].fd = t->m[i].out_fd;
				pfd[np].events = POLLIN;
				np++;
			}
		if (!np || left <= 0)
			break;
		if (poll(pfd, np, (int)left) < 0 && errno != EINTR)
			break;
		for (size_t i = 0, k = 0; i < t->n; i++) {
			if (t->m[i].out_fd < 0 || t->m[i].exited)
				continue;
			if (pfd[k++].revents &&
			    member_read(t->ctx->em, &t->m[i], &ignore) < 0)
				close_fd(&t->m[i].out_fd);
		}
	}
	for (size_t i = 0; i < t->n; i++) {
		struct member *m = &t->m[i];

		close_fd(&m->out_fd);
		if (m->started) {
			if (!m->exited) {
				agent_tracked_kill(m->tracked);
				pthread_kill(m->thread, SIGUSR2);
			}
			pthread_join(m->thread, NULL);
			m->started = 0;
		}
		agent_tracked_free(m->tracked);
		m->tracked = NULL;
		*ret_cpu += m->cpu_s;
	}
	strbuf_release(&ignore);
}

int together_run(struct agent_ctx *ctx, const char **ret_status,
		 double *ret_member_cpu_s, struct strbuf *err)
{
	const struct run_spec *spec = ctx->spec;
	struct tg t;
	struct member *bad;
	int rc = -1;

	/* One malloc arena for all: a thread's first malloc would otherwise
	 * make an arena of its own (a 64 MiB reservation and its first
	 * pages, 0.4-0.7 ms of a member's ~1.5 ms); members allocate little
	 * and seldom, so the shared lock costs nothing. */
	mallopt(M_ARENA_MAX, 1);
	memset(&t, 0, sizeof(t));
	t.ctx = ctx;
	t.n = spec->nmembers ? spec->nmembers : 1;
	t.m = xcalloc(t.n, sizeof(*t.m));
	t.sample_ms = spec->sample_ms;
	strvec_init(&t.series);
	*ret_member_cpu_s = 0;
	for (size_t i = 0; i < t.n; i++) {
		struct member *m = &t.m[i];

		m->spec = spec->nmembers ? &spec->members[i] : spec;
		m->label = m->spec->name;
		m->cgroup = spec_param(m->spec, "cgroup");
		m->ctl_fd = m->out_fd = m->usage_fd = -1;
		m->ctl_rd = m->out_wr = -1;
		m->ok = 1;
		strbuf_init(&m->in, 0);
		m->weight = group_weight(ctx->cg, m->cgroup);
		if (m->label)
			strvec_pushf(&t.series, "cpu_pct.%s", m->label);
		else
			strvec_push(&t.series, "cpu_pct");
	}
	for (size_t i = 0; i < t.n; i++) {
		struct member *m = &t.m[i];
		struct strbuf ignore = STRBUF_INIT;

		if (strcmp(m->cgroup, "/"))
			m->usage_fd =
				cg_run_usage_open(ctx->cg, m->cgroup, &ignore);
		strbuf_release(&ignore);
		if (member_start(ctx, m, err) < 0) {
			*ret_status = "failed";
			goto out;
		}
		m->state = M_BUSY; /* its setup answers */
	}
	if (wait_members(&t, 0, err) < 0)
		goto stopped;
	if ((bad = failed_member(&t))) {
		report_failure(&t, bad, "could not be set up");
		*ret_status = "failed";
		goto out;
	}
	for (int it = 0; it < spec->warmup + spec->iterations && !agent_stop;
	     it++)
		if (together_iteration(&t, it, err) < 0) {
			if (!agent_stop)
				*ret_status = "failed";
			goto out;
		}
	rc = 0;
	goto out;
stopped:
	if (!agent_stop)
		*ret_status = "failed";
out:
	ctx->em->iteration = -1;
	emit_flush(ctx->em);
	members_stop(&t, ret_member_cpu_s);
	for (size_t i = 0; i < t.n; i++) {
		close_fd(&t.m[i].usage_fd);
		strbuf_release(&t.m[i].in);
		free(t.m[i].message);
	}
	free(t.m);
	strvec_clear(&t.series);
	return rc;
}

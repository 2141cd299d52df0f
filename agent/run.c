/*
 * run.c - one `schedfarm-agent run SPEC`: check the spec, say hello, make
 * the cgroups, run warm-up and measured iterations with the counters
 * around each, and always end with a `done` line after killing every child
 * and removing every cgroup it made.
 *
 * Interruption is by flags: SIGTERM, SIGINT and SIGHUP set agent_stop, the
 * spec's deadline arrives as SIGALRM (setitimer) and does the same.  The
 * handlers also send SIGTERM to every tracked child (a process group for
 * wrapped programs), so a blocking wait in the main flow returns promptly;
 * everything else happens in normal context.  The agent's own threads do
 * nothing during the measured window but sleep until the next sample, so
 * its rusage (in the done line) is the cost of measuring.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "parse.h"
#include "run-command.h"
#include "banned.h"

_Thread_local volatile sig_atomic_t agent_stop;
_Thread_local volatile sig_atomic_t agent_stop_signo;

/*
 * The children a thread started and kills on a stop: the run's main
 * thread uses main_tracked, each together member thread a set of its own
 * (agent_thread_adopt), so a member's stop touches only its children.
 * reaped adds up what the thread's reaped children cost (wait4), which a
 * member thread reports instead of RUSAGE_CHILDREN (the process's, every
 * member's children at once).
 */
#define MAX_TRACKED 8192
struct agent_tracked {
	pid_t pid[MAX_TRACKED];
	volatile sig_atomic_t pgrp[MAX_TRACKED];
	volatile sig_atomic_t n;
	struct rusage reaped;
};
static struct agent_tracked main_tracked;
static _Thread_local struct agent_tracked *tracked = &main_tracked;

static void kill_tracked(struct agent_tracked *t, int sig)
{
	for (int i = 0; i < t->n; i++)
		if (t->pid[i] > 0)
			kill(t->pgrp[i] ? -t->pid[i] : t->pid[i], sig);
}

static void on_signal(int sig)
{
	int e = errno;

	if (!agent_stop || agent_stop == STOP_ITERATION) {
		agent_stop = sig == SIGALRM ? STOP_DEADLINE : STOP_SIGNAL;
		agent_stop_signo = sig;
	}
	kill_tracked(tracked, SIGTERM);
	errno = e;
}

/* A together member's SIGUSR1: end the current iteration, not the run. */
static void on_stop_iteration(int sig)
{
	int e = errno;

	(void)sig;
	if (!agent_stop)
		agent_stop = STOP_ITERATION;
	kill_tracked(tracked, SIGTERM);
	errno = e;
}

/*
 * Handlers are the process's: SIGTERM, SIGINT, SIGHUP and SIGALRM stop
 * the run (member threads block them, so the main thread takes them);
 * SIGUSR1 and SIGUSR2 are what the main thread sends a member thread
 * (pthread_kill): end the iteration, stop the run.
 */
void agent_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: blocking calls see EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sa.sa_handler = on_stop_iteration;
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

struct agent_tracked *agent_tracked_new(void)
{
	return xcalloc(1, sizeof(struct agent_tracked));
}

void agent_tracked_free(struct agent_tracked *t)
{
	free(t);
}

void agent_thread_adopt(struct agent_tracked *t)
{
	sigset_t set;

	tracked = t;
	agent_stop = STOP_NONE;
	sigfillset(&set);
	sigdelset(&set, SIGUSR1);
	sigdelset(&set, SIGUSR2);
	pthread_sigmask(SIG_SETMASK, &set, NULL);
}

void agent_tracked_kill(struct agent_tracked *t)
{
	kill_tracked(t, SIGKILL);
}

double timeval_s(struct timeval tv)
{
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static void ru_add(struct rusage *to, const struct rusage *ru)
{
	timeradd(&to->ru_utime, &ru->ru_utime, &to->ru_utime);
	timeradd(&to->ru_stime, &ru->ru_stime, &to->ru_stime);
	to->ru_nvcsw += ru->ru_nvcsw;
	to->ru_nivcsw += ru->ru_nivcsw;
}

void agent_count_reaped(const struct rusage *ru)
{
	ru_add(&tracked->reaped, ru);
}

void agent_children_usage(struct rusage *ru)
{
	if (tracked == &main_tracked)
		getrusage(RUSAGE_CHILDREN, ru);
	else
		*ru = tracked->reaped;
}

void agent_arm_deadline(int64_t seconds)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = (time_t)seconds;
	setitimer(ITIMER_REAL, &it, NULL);
}

void agent_track(pid_t pid, int pgrp)
{
	struct agent_tracked *t = tracked;

	if (t->n >= MAX_TRACKED)
		return;
	t->pid[t->n] = pid;
	t->pgrp[t->n] = pgrp;
	t->n++;
	if (agent_stop)
		kill(pgrp ? -pid : pid, SIGTERM);
}

void agent_untrack(pid_t pid)
{
	struct agent_tracked *t = tracked;

	for (int i = 0; i < t->n; i++)
		if (t->pid[i] == pid)
			t->pid[i] = 0;
	while (t->n > 0 && t->pid[t->n - 1] == 0)
		t->n--;
}

void agent_kill_all(void)
{
	struct agent_tracked *t = tracked;

	kill_tracked(t, SIGKILL);
	for (int i = 0; i < t->n; i++)
		if (t->pid[i] > 0) {
			struct rusage ru;
			pid_t r;

			do
				r = wait4(t->pid[i], NULL, 0, &ru);
			while (r < 0 && errno == EINTR);
			if (r > 0)
				agent_count_reaped(&ru);
			t->pid[i] = 0;
		}
	t->n = 0;
}

int agent_sleep_until(int64_t t_ms)
{
	struct timespec ts = { (time_t)(t_ms / 1000),
			       (long)(t_ms % 1000) * 1000000 };

	while (!agent_stop) {
		int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
					NULL);

		if (r == 0)
			return 0;
		if (r != EINTR)
			return -1;
	}
	return -1;
}

/*
 * A normal-priority thread beside a heavily weighted workload group waits
 * for the group's slices when it wakes: under EEVDF a task at 1/50 of a
 * group's weight runs about 150 ms after its wake-up (its virtual
 * deadline is 50 times further out), so a 10 Hz sampler took 5 samples a
 * second and a member that timed a 2 s loop said 2.5 s.  Between begin
 * and end the calling thread runs at SCHED_FIFO priority 1 (with
 * SCHED_RESET_ON_FORK: what it starts runs as normal), woken on time and
 * as cheap as before: it only sleeps, reads counters and writes lines.
 * It needs CAP_SYS_NICE (root) and real-time runtime in the agent's
 * cgroup; without them, or when the thread already runs under another
 * policy (chrt), nothing changes.
 */
void rt_wake_begin(struct rt_wake *p)
{
	struct sched_param sp = { .sched_priority = 1 };

	p->changed = 0;
	p->policy = sched_getscheduler(0);
	if (p->policy < 0 || sched_getparam(0, &p->param) < 0 ||
	    p->policy != SCHED_OTHER)
		return;
	p->changed = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK,
					&sp) == 0;
}

void rt_wake_end(struct rt_wake *p)
{
	if (p->changed)
		sched_setscheduler(0, p->policy, &p->param);
	p->changed = 0;
}

/* ---- workers ---------------------------------------------------------- */

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int worker_start(struct agent_ctx *ctx, struct worker *w, const char *cg_path,
		 int (*fn)(void *arg, int result_fd), void *arg,
		 struct strbuf *err)
{
	int gate[2], res[2];
	pid_t pid;

	memset(w, 0, sizeof(*w));
	w->pid = -1;
	w->gate_fd = w->result_fd = -1;
	strbuf_init(&w->result, 0);
	if (pipe2(gate, O_CLOEXEC) < 0)
		goto fail;
	if (pipe2(res, O_CLOEXEC) < 0) {
		close(gate[0]);
		close(gate[1]);
		goto fail;
	}
	pid = fork();
	if (pid < 0) {
		close(gate[0]);
		close(gate[1]);
		close(res[0]);
		close(res[1]);
		goto fail;
	}
	if (pid == 0) {
		char c;
		ssize_t n;
		sigset_t none;

		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGALRM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(gate[1]);
		close(res[0]);
		do
			n = read(gate[0], &c, 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(125);
		close(gate[0]);
		_exit(fn(arg, res[1]));
	}
	close(gate[0]);
	close(res[1]);
	w->pid = pid;
	w->gate_fd = gate[1];
	w->result_fd = res[0];
	agent_track(pid, 0);
	if (ctx->cg && cg_run_attach(ctx->cg, cg_path, pid, err) < 0) {
		worker_kill(w);
		return -1;
	}
	return 0;
fail:
	strbuf_addf(err, "cannot start a worker: %s", strerror(errno));
	return -1;
}

extern char **environ;

int spin_gate_open(struct spin_gate *g, struct strbuf *err)
{
	int fd[2];

	g->rd = g->wr = -1;
	g->n = 0;
	if (pipe2(fd, O_CLOEXEC) < 0) {
		strbuf_addf(err, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	g->rd = fd[0];
	g->wr = fd[1];
	return 0;
}

void spin_gate_release(struct spin_gate *g)
{
	char buf[256];

	memset(buf, 'g', sizeof(buf));
	while (g->n && g->wr >= 0) {
		size_t k = g->n < sizeof(buf) ? g->n : sizeof(buf);
		ssize_t n = write(g->wr, buf, k);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* every spinner is gone */
		g->n -= (size_t)n;
	}
	spin_gate_close(g);
}

void spin_gate_close(struct spin_gate *g)
{
	close_fd(&g->rd);
	close_fd(&g->wr);
}

/*
 * vfork + execve rather than posix_spawn: the child borrows our stack
 * until it execs (it only moves the gate to fd 3), so there is no stack
 * to map and unmap, no rlimit to read: the spawn costs the agent one
 * syscall.  Handlers become SIG_DFL at exec; the mask is empty (the agent
 * blocks nothing) and SIGPIPE, which the agent ignores, does not matter
 * to a loop that writes nothing.
 */
int worker_spawn_spin(struct agent_ctx *ctx, struct worker *w,
		      struct spin_gate *g, const char *cg_path,
		      struct strbuf *err)
{
	struct strvec argv = STRVEC_INIT;
	int rc = -1, gate_rd = g->rd;
	pid_t pid;

	memset(w, 0, sizeof(*w));
	w->pid = -1;
	w->gate_fd = w->result_fd = -1;
	strbuf_init(&w->result, 0);
	strvec_pushl(&argv, "schedfarm-agent", "__spin", (char *)NULL);
	if (ctx->cg && cg_path && strcmp(cg_path, "/") &&
	    cg_run_procs_files(ctx->cg, cg_path, &argv, err) < 0)
		goto out;
	pid = vfork();
	if (pid == 0) {
		/* dup2 onto itself keeps close-on-exec: clear it then */
		if (gate_rd == 3 ? fcntl(3, F_SETFD, 0) == 0
				 : dup2(gate_rd, 3) == 3)
			execve("/proc/self/exe", argv.v, environ);
		_exit(127);
	}
	if (pid < 0) {
		strbuf_addf(err, "cannot start a worker: %s", strerror(errno));
		goto out;
	}
	w->pid = pid;
	g->n++;
	agent_track(pid, 0);
	rc = 0;
out:
	strvec_clear(&argv);
	return rc;
}

int spin_check(const struct worker *w, struct strbuf *err)
{
	if (WIFEXITED(w->status)) {
		strbuf_addf(err,
			    "a busy loop ended by itself (status %d): it "
			    "could not join its cgroup or wait for the start",
			    WEXITSTATUS(w->status));
		return -1;
	}
	return 0;
}

int agent_spin_main(int argc, char **argv)
{
	volatile unsigned long x = 0;
	char c;
	ssize_t n;

	for (int i = 2; i < argc; i++) {
		int fd = open(argv[i], O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, "0", 1) != 1)
			return 127;
		close(fd);
	}
	do
		n = read(3, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		return 125;
	close(3);
	for (;;)
		x++;
	return 0;
}

void worker_release(struct worker *w)
{
	if (w->gate_fd >= 0) {
		if (write(w->gate_fd, "g", 1) != 1) {
			/* the worker is gone; finish will say so */
		}
		close_fd(&w->gate_fd);
	}
}

/* Read the per-task counters of a child that has exited but is not reaped. */
static void read_task_stats(struct worker *w)
{
	struct strbuf p = STRBUF_INIT, c = STRBUF_INIT;

	strbuf_addf(&p, "/proc/%ld/schedstat", (long)w->pid);
	if (strbuf_read_file(&c, p.buf, 4096) >= 0 &&
	    task_schedstat_parse(c.buf, c.len, &w->ts) == 0)
		w->ts_ok = 1;
	strbuf_release(&p);
	strbuf_release(&c);
}

static void reap(struct worker *w)
{
	siginfo_t si;

	while (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOWAIT) < 0 &&
	       errno == EINTR)
		;
	read_task_stats(w);
	while (wait4(w->pid, &w->status, 0, &w->ru) < 0 && errno == EINTR)
		;
	agent_count_reaped(&w->ru);
	w->vol = (uint64_t)w->ru.ru_nvcsw;
	w->invol = (uint64_t)w->ru.ru_nivcsw;
	agent_untrack(w->pid);
	w->pid = -1;
}

int worker_finish(struct worker *w, struct strbuf *err)
{
	char buf[4096];

	while (w->result_fd >= 0) {
		ssize_t n = read(w->result_fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR) {
			if (agent_stop) {
				strbuf_addstr(err, "stopped");
				return -1;
			}
			continue;
		}
		if (n <= 0)
			close_fd(&w->result_fd);
		else if (w->result.len < (1u << 20))
			strbuf_add(&w->result, buf, (size_t)n);
	}
	if (w->pid > 0)
		reap(w);
	if (agent_stop) {
		strbuf_addstr(err, "stopped");
		return -1;
	}
	if (!WIFEXITED(w->status) || WEXITSTATUS(w->status)) {
		if (WIFSIGNALED(w->status))
			strbuf_addf(err, "worker killed by signal %d",
				    WTERMSIG(w->status));
		else
			strbuf_addf(err, "worker failed (status %d)%s%.200s",
				    WEXITSTATUS(w->status),
				    w->result.len ? ": " : "", w->result.buf);
		return -1;
	}
	return 0;
}

void worker_kill(struct worker *w)
{
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		reap(w);
	}
	close_fd(&w->gate_fd);
	close_fd(&w->result_fd);
}

void worker_clear(struct worker *w)
{
	worker_kill(w);
	strbuf_release(&w->result);
}

void worker_put(int fd, const char *metric, double value, const char *unit,
		const char *direction)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s %.17g %s %s\n", metric, value, unit, direction);
	if (write(fd, sb.buf, sb.len) != (ssize_t)sb.len) {
		/* the parent is gone; nothing to tell */
	}
	strbuf_release(&sb);
}

int worker_emit_results(struct agent_ctx *ctx, struct worker *w,
			struct strbuf *err)
{
	struct strvec lines = STRVEC_INIT;
	int rc = 0;

	strvec_split(&lines, w->result.buf, '\n');
	for (size_t i = 0; i < lines.nr && !rc; i++) {
		struct strvec f = STRVEC_INIT;
		double v;

		if (!*lines.v[i]) {
			strvec_clear(&f);
			continue;
		}
		strvec_split(&f, lines.v[i], ' ');
		if (f.nr != 4 ||
		    parse_double(f.v[1], -1e300, 1e300, &v, NULL) < 0) {
			strbuf_addf(err, "worker said \"%.100s\"", lines.v[i]);
			rc = -1;
		} else {
			emit_result(ctx->em, f.v[0], v, f.v[2], f.v[3]);
		}
		strvec_clear(&f);
	}
	strvec_clear(&lines);
	return rc;
}

int worker_run(struct agent_ctx *ctx, const char *task,
	       int (*fn)(void *arg, int result_fd), void *arg,
	       struct strbuf *err)
{
	struct worker w;
	int rc;

	if (worker_start(ctx, &w, spec_param(ctx->spec, "cgroup"), fn, arg,
			 err) < 0)
		return -1;
	worker_release(&w);
	rc = worker_finish(&w, err);
	if (rc == 0)
		rc = worker_emit_results(ctx, &w, err);
	if (rc == 0) {
		emit_counter(ctx->em, "task", task, "voluntary_switches",
			     (double)w.vol);
		emit_counter(ctx->em, "task", task, "involuntary_switches",
			     (double)w.invol);
	}
	worker_clear(&w);
	return rc;
}

int agent_run_program(struct agent_ctx *ctx, struct child_process *cp,
		      struct strbuf *err)
{
	(void)ctx;
	if (agent_stop) {
		strbuf_addstr(err, "stopped");
		return -1;
	}
	if (start_command(cp, err) < 0)
		return -1;
	agent_track(cp->pid, 1);
	{
		pid_t pid = cp->pid;
		int r = finish_command(cp, err);

		agent_untrack(pid);
		agent_count_reaped(&cp->ru);
		return r;
	}
}

/* ---- the run ------------------------------------------------------------ */

static void emit_hello(struct emitter *em, const struct cg_system *cgsys)
{
	struct strbuf sb = STRBUF_INIT, info = STRBUF_INIT;

	agent_info_json(&info, cgsys);
	line_begin(&sb, "hello", em->run_id);
	line_str(&sb, "agent_version", AGENT_VERSION);
	line_raw(&sb, "info", info.buf);
	line_end(&sb);
	emit_line(em, &sb);
	strbuf_release(&sb);
	strbuf_release(&info);
}

/*
 * The done line.  agent_cpu_s is the agent's own rusage, every thread's
 * (together members run in threads of the agent; their workloads'
 * processes are children, not counted), so the figure is the whole cost
 * of measuring.
 */
static void emit_done(struct emitter *em, const char *status, int64_t t0,
		      int signo)
{
	struct strbuf sb = STRBUF_INIT;
	struct rusage ru;
	double cpu = 0;

	if (getrusage(RUSAGE_SELF, &ru) == 0)
		cpu = timeval_s(ru.ru_utime) + timeval_s(ru.ru_stime);
	line_begin(&sb, "done", em->run_id);
	line_str(&sb, "status", status);
	line_num(&sb, "elapsed_s", (double)(mono_ms() - t0) / 1000.0);
	line_num(&sb, "agent_cpu_s", cpu);
	if (signo)
		line_int(&sb, "signal", signo);
	line_end(&sb);
	emit_line(em, &sb);
	strbuf_release(&sb);
}

void snap_take(struct agent_ctx *ctx, struct snap *s, int first,
	       struct strbuf *note)
{
	struct strbuf c = STRBUF_INIT, err = STRBUF_INIT;

	memset(s, 0, sizeof(*s));
	if (strbuf_read_file(&c, "/proc/schedstat", 16 << 20) >= 0) {
		if (schedstat_parse(c.buf, c.len, &s->ss, &err) == 0)
			s->have_schedstat = 1;
		else if (first)
			strbuf_addf(note, "/proc/schedstat unreadable: %s",
				    err.buf);
	} else if (first) {
		strbuf_addstr(note, "/proc/schedstat is absent: the kernel was "
				    "built without CONFIG_SCHEDSTATS");
	}
	strbuf_reset(&c);
	if (strbuf_read_file(&c, "/proc/stat", 16 << 20) >= 0 &&
	    procstat_parse(c.buf, c.len, &s->st, &err) == 0)
		s->have_stat = 1;
	agent_children_usage(&s->children);
	if (ctx->cg && ctx->cg->ngroups) {
		s->cg_usage = xcalloc(ctx->cg->ngroups, sizeof(*s->cg_usage));
		s->cg_ok = xcalloc(ctx->cg->ngroups, sizeof(*s->cg_ok));
		for (size_t i = 0; i < ctx->cg->ngroups; i++) {
			strbuf_reset(&err);
			s->cg_ok[i] =
				cg_run_usage(ctx->cg, ctx->cg->groups[i].path,
					     &s->cg_usage[i], &err) == 0;
		}
	}
	strbuf_release(&c);
	strbuf_release(&err);
}

void snap_release(struct snap *s)
{
	schedstat_release(&s->ss);
	free(s->cg_usage);
	free(s->cg_ok);
}

void snap_emit(struct agent_ctx *ctx, const struct snap *a,
	       const struct snap *b, const char *schedstat_note)
{
	struct emitter *em = ctx->em;

	if (a->have_schedstat && b->have_schedstat)
		schedstat_emit_delta(em, &a->ss, &b->ss);
	else
		emit_counter_unavailable(
			em, "schedstat", "all", "schedstat",
			schedstat_note && *schedstat_note
				? schedstat_note
				: "/proc/schedstat could not be read");
	if (a->have_stat && b->have_stat)
		procstat_emit_delta(em, &a->st, &b->st);
	emit_counter(em, "task", "children", "user_s",
		     timeval_s(b->children.ru_utime) -
			     timeval_s(a->children.ru_utime) +
			     b->members.user_s);
	emit_counter(em, "task", "children", "system_s",
		     timeval_s(b->children.ru_stime) -
			     timeval_s(a->children.ru_stime) +
			     b->members.system_s);
	emit_counter(em, "task", "children", "voluntary_switches",
		     (double)(b->children.ru_nvcsw - a->children.ru_nvcsw) +
			     b->members.vol);
	emit_counter(em, "task", "children", "involuntary_switches",
		     (double)(b->children.ru_nivcsw - a->children.ru_nivcsw) +
			     b->members.invol);
	if (ctx->cg)
		for (size_t i = 0; i < ctx->cg->ngroups; i++) {
			if (a->cg_ok && a->cg_ok[i] && b->cg_ok[i])
				emit_counter(em, "cgroup",
					     ctx->cg->groups[i].path,
					     "usage_ns",
					     (double)(b->cg_usage[i] -
						      a->cg_usage[i]));
			else
				emit_counter_unavailable(
					em, "cgroup", ctx->cg->groups[i].path,
					"usage_ns",
					"no cpuacct (v1) or cpu.stat "
					"usage_usec (v2) for this group");
		}
}

#define SCHEDSTATS_SYSCTL "/proc/sys/kernel/sched_schedstats"

/*
 * The load-balancer counters of /proc/schedstat only grow while
 * kernel.sched_schedstats is 1.  Turn it on for the run when it is off;
 * return 1 when the caller must turn it off again afterwards.
 * When it cannot be turned on, *note says why the domain counters are
 * flat.
 */
static int schedstats_on(struct strbuf *note)
{
	struct strbuf v = STRBUF_INIT;
	int fd, changed = 0;

	if (strbuf_read_file(&v, SCHEDSTATS_SYSCTL, 64) < 0)
		goto out; /* no sysctl: nothing to switch */
	strbuf_trim(&v);
	if (strcmp(v.buf, "0"))
		goto out;
	fd = open(SCHEDSTATS_SYSCTL, O_WRONLY | O_CLOEXEC);
	if (fd >= 0 && write(fd, "1", 1) == 1)
		changed = 1;
	else
		strbuf_addf(
			note,
			"kernel.sched_schedstats is 0 and cannot be set (%s): "
			"the load-balancer (domain) counters do not grow",
			strerror(errno));
	if (fd >= 0)
		close(fd);
out:
	strbuf_release(&v);
	return changed;
}

static void schedstats_off(void)
{
	int fd = open(SCHEDSTATS_SYSCTL, O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, "0", 1) != 1) {
			/* nothing more to do: it stays on */
		}
		close(fd);
	}
}

/*
 * Add the cgroups spec s's workload runs in and makes (its cgroup
 * parameter and what the workload adds) to cg.
 */
static void add_workload_cgroups(const struct run_spec *s, struct cg_run *cg)
{
	const struct wl_ops *ops = wl_ops_of(s);

	cg_run_add(cg, spec_param(s, "cgroup"), 0, 0, NULL);
	if (ops && ops->add_cgroups)
		ops->add_cgroups(s, cg);
}

/*
 * The run's groups into cg (spec's layout and what its workloads add),
 * and, where they find nothing usable mounted in cg->sys, a hierarchy of
 * our own (cgpriv; what a dead agent left mounted goes first); then the
 * hello line with the cgroups as they are now.  0, or -1 after an error
 * line blaming the host (no cgroups to be had here; hello said first).
 */
static int run_cgroups(const struct run_spec *spec, struct cg_run *cg,
		       struct cg_private *cgpriv, struct emitter *em)
{
	struct strbuf err = STRBUF_INIT;
	int rc = 0;

	cg->base_weight = spec->parent_weight;
	for (size_t i = 0; i < spec->ncgroups; i++)
		cg_run_add(cg, spec->cgroups[i].path, spec->cgroups[i].weight,
			   spec->cgroups[i].cpu_max_pct, spec->cgroups[i].cpus);
	if (spec->nmembers)
		for (size_t i = 0; i < spec->nmembers; i++)
			add_workload_cgroups(&spec->members[i], cg);
	else
		add_workload_cgroups(spec, cg);
	if (cg->ngroups)
		cg_private_sweep();
	if (cg->ngroups && !cg->sys->use &&
	    cg_private_start(cg->sys, cgpriv, &err) < 0) {
		free(cg->sys->unusable);
		cg->sys->unusable = xstrdup(err.buf);
		rc = -1;
	}
	emit_hello(em, cg->sys); /* the cgroups as detected, read once */
	if (rc < 0)
		emit_host_error(em, err.buf, "cgroups", 1);
	strbuf_release(&err);
	return rc;
}

/*
 * The iterations of a single workload in the agent's own process: prepare,
 * counters, the iteration, counters.  Return 0, or -1 after an error line
 * (status "failed"); a stop leaves the status to the caller.
 */
static int run_iterations(struct agent_ctx *ctx, const struct wl_ops *ops,
			  const char **status)
{
	const struct run_spec *spec = ctx->spec;
	struct emitter *em = ctx->em;
	struct strbuf err = STRBUF_INIT, note = STRBUF_INIT;
	int rc = 0;

	for (int it = 0; it < spec->warmup + spec->iterations && !agent_stop;
	     it++) {
		struct snap before, after;
		int r = 0;

		em->iteration = ctx->iteration = it;
		em->warmup = ctx->warmup = it < spec->warmup;
		strbuf_reset(&err);
		if (ops->prepare && ops->prepare(ctx, &err) < 0) {
			if (!agent_stop) {
				emit_error(em, err.buf, NULL);
				*status = "failed";
			}
			rc = -1;
			break;
		}
		strbuf_reset(&note);
		snap_take(ctx, &before, 1, &note);
		r = ops->run(ctx, &err);
		snap_take(ctx, &after, 0, &note);
		emit_flush(em);
		if (r < 0 && !agent_stop) {
			emit_error(em, err.buf, NULL);
			*status = "failed";
		}
		if (!agent_stop)
			snap_emit(ctx, &before, &after, note.buf);
		snap_release(&before);
		snap_release(&after);
		if (r < 0) {
			rc = -1;
			break;
		}
	}
	strbuf_release(&err);
	strbuf_release(&note);
	return rc;
}

/*
 * Where the agent's own CPU goes, for bench/agent-overhead: with
 * SCHEDFARM_AGENT_COST set in its environment, a run ends by writing to
 * stderr the process CPU time (CLOCK_PROCESS_CPUTIME_ID) each phase took:
 * start-up (exec, libc, reading the spec: everything before agent_run),
 * detect (hello, cgroup mounts), setup (cgroups made, the workload's
 * setup), run (iterations, or the members driven and sampled, their
 * threads included), end (teardown, cgroups removed), and how much of run
 * the together members' threads took.  Nothing changes on stdout.
 */
struct cost {
	int on;
	double last;
	struct strbuf text;
};

static void cost_mark(struct cost *c, const char *phase)
{
	double now;

	if (!c->on)
		return;
	now = (double)task_cpu_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e9;
	strbuf_addf(&c->text, "%s%s %.3f ms", c->text.len ? ", " : "", phase,
		    (now - c->last) * 1e3);
	c->last = now;
}

static void cost_end(struct cost *c, double member_cpu_s)
{
	if (!c->on)
		return;
	fprintf(stderr,
		"agent cost: %s; total %.3f ms (members' threads %.3f ms of "
		"run)\n",
		c->text.buf,
		(double)task_cpu_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e6,
		member_cpu_s * 1e3);
}

int agent_run(const char *spec_text, size_t len, int out_fd)
{
	struct run_spec spec;
	struct emitter em;
	struct strbuf field = STRBUF_INIT, err = STRBUF_INIT;
	struct cg_system cgsys;
	struct cg_run cg;
	struct cg_private cgpriv = { 0 };
	struct agent_ctx ctx;
	const struct wl_ops *ops = NULL;
	const char *status = "ok";
	int64_t t0 = mono_ms();
	int rc = 0, setup_done = 0, cg_inited = 0, schedstats_changed = 0;
	int sampled;
	double member_cpu = 0;
	struct strbuf ss_note = STRBUF_INIT;
	struct cost cost = { getenv("SCHEDFARM_AGENT_COST") != NULL, 0,
			     STRBUF_INIT };

	cost_mark(&cost, "start-up");
	run_spec_init(&spec);
	memset(&cgsys, 0, sizeof(cgsys));
	if (spec_parse(spec_text, len, &spec, &field, &err) < 0) {
		emitter_init(&em, spec.run_id > 0 ? spec.run_id : 0, out_fd);
		em.iteration = -1;
		emit_error(&em, err.buf, field.buf);
		emit_done(&em, "bad-spec", t0, 0);
		emitter_release(&em);
		rc = 2;
		goto out;
	}
	emitter_init(&em, spec.run_id, out_fd);
	em.iteration = -1;
	if (spec.results_file &&
	    emitter_open_file(&em, spec.results_file, &err) < 0) {
		emit_error(&em, err.buf, "results_file");
		emit_done(&em, "failed", t0, 0);
		emitter_release(&em);
		rc = 1;
		goto out;
	}
	/* Members, or one workload the agent samples, run in processes of
	 * their own (together.c); otherwise the workload runs here. */
	sampled = spec.nmembers > 0 || spec.sample_ms > 0;
	if (!sampled)
		ops = wl_ops_of(&spec);
	agent_install_signals();
	agent_arm_deadline(spec.deadline_s);
	cg_detect_here(&cgsys, &err);

	memset(&ctx, 0, sizeof(ctx));
	ctx.spec = &spec;
	ctx.em = &em;
	ctx.ncpus = agent_ncpus();
	ctx.cgsys = &cgsys;
	cost_mark(&cost, "detect");
	cg_run_init(&cg, &cgsys, spec.run_id);
	cg_inited = 1;
	ctx.cg = &cg;
	if (run_cgroups(&spec, &cg, &cgpriv, &em) < 0) {
		status = "failed";
		goto finish;
	}
	for (size_t i = 0; i < (spec.nmembers ? spec.nmembers : 1); i++) {
		const struct run_spec *m =
			spec.nmembers ? &spec.members[i] : &spec;

		strbuf_reset(&err);
		if (wl_spec_available(m, &err) < 0) {
			if (m->name) {
				char *why = strbuf_detach(&err, NULL);

				strbuf_addf(&err, "member %s: %s", m->name,
					    why);
				free(why);
			}
			emit_host_error(&em, err.buf, "workload", 1);
			status = "failed";
			goto finish;
		}
	}
	if (cg_run_create(&cg, &err) < 0) {
		emit_error(&em, err.buf, "cgroups");
		status = "failed";
		goto finish;
	}
	if (!sampled && ops->setup && ops->setup(&ctx, &err) < 0) {
		emit_error(&em, err.buf, NULL);
		status = agent_stop ? "interrupted" : "failed";
		goto finish;
	}
	setup_done = 1;
	schedstats_changed = schedstats_on(&ss_note);
	cost_mark(&cost, "setup");
	if (ss_note.len)
		emit_counter_unavailable(&em, "schedstat", "all", "domain",
					 ss_note.buf);
	if (sampled) {
		strbuf_reset(&err);
		if (together_run(&ctx, &status, &member_cpu, &err) < 0 &&
		    err.len && !agent_stop)
			emit_error(&em, err.buf, NULL);
	} else {
		run_iterations(&ctx, ops, &status);
	}
finish:
	cost_mark(&cost, "run");
	em.iteration = -1;
	emit_flush(&em);
	if (agent_stop)
		status =
			agent_stop == STOP_DEADLINE ? "timeout" : "interrupted";
	agent_kill_all();
	if (schedstats_changed)
		schedstats_off();
	if (ops && ops->teardown && (setup_done || ctx.wl_state))
		ops->teardown(&ctx);
	agent_kill_all();
	strbuf_reset(&err);
	if (cg_inited && cg_run_remove(&cg, &err) < 0) {
		emit_error(&em, err.buf, "cgroups");
		if (!strcmp(status, "ok"))
			status = "failed";
	}
	strbuf_reset(&err);
	if (cg_private_unmount(&cgpriv, &err) < 0)
		emit_error(&em, err.buf, "cgroups");
	cost_mark(&cost, "end");
	emit_done(&em, status, t0,
		  agent_stop == STOP_SIGNAL ? (int)agent_stop_signo : 0);
	cost_end(&cost, member_cpu);
	rc = strcmp(status, "ok") ? 1 : 0;
	emitter_release(&em);
out:
	if (cg_inited)
		cg_run_release(&cg);
	cg_system_release(&cgsys);
	run_spec_release(&spec);
	strbuf_release(&field);
	strbuf_release(&err);
	strbuf_release(&ss_note);
	strbuf_release(&cost.text);
	return rc;
}

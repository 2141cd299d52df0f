/*
 * wl_schbench.c - schbench's shape, written here: message threads wake
 * worker threads through futexes, each wake-up a request, and each worker
 * does a fixed unit of work per request (a busy loop calibrated once per
 * run to take work_us of CPU time) and hands the request back.
 * Reported: wake-up latency (from the message thread's futex wake to the
 * worker running) and request latency (from the request's enqueue to its
 * completion) at p50, p90, p99 and p99.9, in microseconds, and requests
 * completed per second.
 *
 * Open loop (rps 0): a message thread gives each of its idle workers a new
 * request at once.  With an rps target the requests arrive on a fixed
 * schedule, spread over the message threads; one that finds all its
 * workers busy keeps it waiting, and its request latency counts from when
 * it was due, so an overloaded machine shows in the tail.  pipe > 0 makes
 * the message thread write that many bytes into a worker's buffer per
 * request and the worker copy them out, as data passed through a pipe
 * would be.  test_sleep_us replaces the work with a sleep of known length
 * so the tests can check the percentiles against a known distribution.
 *
 * Everything runs in one worker process placed in the spec's cgroup.
 * Each worker thread has its own two histograms (agent/hist.c), merged
 * after the threads are joined: nothing in the hot path takes a lock.
 * The first `warmup` of `duration` is run but not counted.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "hist.h"
#include "banned.h"

/* A worker's futex word: bits set by the message thread and the run. */
#define SB_POSTED 1u /* a request waits for the worker */
#define SB_STOP 2u /* the run is over */

/* At most this many workers in all (two histograms of 30 KiB each). */

struct sb_params {
	int nmsg, nwork;
	int64_t duration_ms, warmup_ms;
	int64_t rps, work_us, sleep_us;
	size_t pipe;
};

struct sb_run;
struct sb_msg;

struct sb_worker {
	_Atomic uint32_t state; /* futex word: SB_POSTED, SB_STOP */
	/* Written by the message thread before it posts a request. */
	uint64_t enqueue_ns, wake_ns;
	char *pipe_in; /* pipe bytes the message thread fills */
	char *pipe_out; /* the worker's own copy */
	struct sb_msg *msg;
	struct hist wake, req; /* ns, the measured window only */
	uint64_t done; /* requests completed in the measured window */
	volatile uint64_t sink; /* the work's result, so it is done */
	pthread_t tid;
	int started;
};

struct sb_msg {
	_Atomic uint32_t done_seq; /* futex word: bumped at each completion */
	struct sb_run *run;
	struct sb_worker *w; /* nwork */
	int index;
	pthread_t tid;
	int started;
};

struct sb_run {
	const struct sb_params *p;
	atomic_int stop;
	uint64_t start_ns, measure_ns, end_ns;
	double loops_per_us;
	struct sb_msg *msg; /* nmsg */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void futex_wait(_Atomic uint32_t *addr, uint32_t val,
		       const struct timespec *timeout)
{
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, timeout,
		NULL, 0);
}

static void futex_wake(_Atomic uint32_t *addr, int n)
{
	syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL,
		0);
}

/*
 * The unit of work: a xorshift chain the compiler cannot shorten.  Each
 * call starts from the last one's result, read back from a volatile, so
 * that no two calls are the same computation a compiler may merge (a
 * calibration timing one computed before its clock was read would find
 * the machine endlessly fast).  The caller stores the result in memory of
 * its own thread, so the work shares no cache line with another thread's.
 */
static uint64_t spin_loops(uint64_t loops, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (uint64_t i = 0; i < loops; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/* This thread's CPU time in ns: what the calibration counts. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Loops of spin_loops() per microsecond of this thread's CPU time: double
 * the count until a run takes 10 ms, then take the fastest of three runs
 * of it.  CPU time, not the clock on the wall, so that a machine busy
 * with others while calibrating does not make the unit of work smaller.
 */
static double calibrate(void)
{
	uint64_t loops = 1024, best = UINT64_MAX;
	volatile uint64_t sink = 0x9E3779B97F4A7C15ull;

	for (;;) {
		uint64_t a = cpu_ns();

		sink = spin_loops(loops, sink);
		if (cpu_ns() - a >= 10000000u || loops >= (1ull << 40))
			break;
		loops *= 2;
	}
	for (int i = 0; i < 3; i++) {
		uint64_t a = cpu_ns(), t;

		sink = spin_loops(loops, sink);
		t = cpu_ns() - a;
		if (t < best)
			best = t;
	}
	return (double)loops / ((double)(best ? best : 1) / 1000.0);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u),
			       (long)(ns % 1000000000u) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* One request: the pipe's bytes copied, then the work (or the sleep). */
static void serve(struct sb_worker *w, const struct sb_run *r)
{
	const struct sb_params *p = r->p;

	if (p->pipe)
		memcpy(w->pipe_out, w->pipe_in, p->pipe);
	if (p->sleep_us)
		sleep_ns((uint64_t)p->sleep_us * 1000u);
	else if (p->work_us)
		w->sink = spin_loops(
			(uint64_t)((double)p->work_us * r->loops_per_us),
			w->sink);
}

/*
 * A worker thread: wait on its futex word for a request, count the
 * wake-up, serve it, count the request, hand it back (clear SB_POSTED,
 * bump the message thread's word and wake it).  Only samples inside the
 * measured window [measure_ns, end_ns) are counted.
 */
static void *worker_main(void *arg)
{
	struct sb_worker *w = arg;
	struct sb_msg *m = w->msg;
	const struct sb_run *r = m->run;

	for (;;) {
		uint32_t s;
		uint64_t t_run, t_done, enq;

		while ((s = atomic_load_explicit(&w->state,
						 memory_order_acquire)) == 0)
			futex_wait(&w->state, 0, NULL);
		if (s & SB_STOP)
			break;
		t_run = now_ns();
		enq = w->enqueue_ns;
		if (t_run >= r->measure_ns && t_run < r->end_ns)
			hist_add(&w->wake,
				 t_run > w->wake_ns ? t_run - w->wake_ns : 0);
		serve(w, r);
		t_done = now_ns();
		if (t_done >= r->measure_ns && t_done < r->end_ns) {
			hist_add(&w->req, t_done > enq ? t_done - enq : 0);
			w->done++;
		}
		atomic_fetch_and_explicit(&w->state, ~SB_POSTED,
					  memory_order_release);
		atomic_fetch_add_explicit(&m->done_seq, 1,
					  memory_order_release);
		futex_wake(&m->done_seq, 1);
	}
	return NULL;
}

/* Give idle worker w a request enqueued at enq (ns). */
static void post(struct sb_worker *w, const struct sb_params *p, uint64_t enq,
		 uint64_t seq)
{
	w->enqueue_ns = enq;
	if (p->pipe)
		memset(w->pipe_in, (int)(seq & 0xff), p->pipe);
	w->wake_ns = now_ns();
	atomic_fetch_or_explicit(&w->state, SB_POSTED, memory_order_release);
	futex_wake(&w->state, 1);
}

/*
 * A message thread.  Open loop: every idle worker gets a request now.
 * With a target, request k of this thread is due at t0 + k * interval
 * (the threads' schedules staggered by interval / nmsg) and goes to the
 * first idle worker; it then waits for a completion or the next due
 * time.  The word is read before the workers are looked at, so a
 * completion after the look makes the wait return at once.
 */
static void *msg_main(void *arg)
{
	struct sb_msg *m = arg;
	struct sb_run *r = m->run;
	const struct sb_params *p = r->p;
	uint64_t interval = 0, t0 = r->start_ns, sent = 0;

	if (p->rps) {
		interval = (uint64_t)(1e9 * p->nmsg / (double)p->rps);
		if (!interval)
			interval = 1;
		t0 += interval * (uint64_t)m->index / (uint64_t)p->nmsg;
	}
	for (;;) {
		uint32_t seq = atomic_load(&m->done_seq);
		uint64_t now = now_ns(), due = UINT64_MAX;
		struct timespec ts, *tmo = NULL;

		if (atomic_load(&r->stop))
			break;
		if (interval)
			due = now >= t0 ? (now - t0) / interval + 1 : 0;
		for (int i = 0; i < p->nwork && sent < due; i++) {
			struct sb_worker *w = &m->w[i];

			if (atomic_load_explicit(&w->state,
						 memory_order_acquire))
				continue;
			post(w, p, interval ? t0 + sent * interval : now, sent);
			sent++;
		}
		if (interval && sent >= due) {
			uint64_t next = t0 + due * interval;

			now = now_ns();
			if (next <= now)
				continue;
			ts.tv_sec = (time_t)((next - now) / 1000000000u);
			ts.tv_nsec = (long)((next - now) % 1000000000u);
			tmo = &ts;
		}
		futex_wait(&m->done_seq, seq, tmo);
	}
	return NULL;
}

/* End the run: every thread sees stop, and every futex word changes. */
static void stop_all(struct sb_run *r)
{
	atomic_store(&r->stop, 1);
	for (int i = 0; i < r->p->nmsg; i++) {
		struct sb_msg *m = &r->msg[i];

		atomic_fetch_add(&m->done_seq, 1);
		futex_wake(&m->done_seq, INT_MAX);
		for (int j = 0; j < r->p->nwork; j++) {
			atomic_fetch_or(&m->w[j].state, SB_STOP);
			futex_wake(&m->w[j].state, INT_MAX);
		}
	}
}

/* Allocate the threads' state; 0, or -1 (what was made is freed by
 * free_run()). */
static int alloc_run(struct sb_run *r)
{
	const struct sb_params *p = r->p;

	r->msg = calloc((size_t)p->nmsg, sizeof(*r->msg));
	if (!r->msg)
		return -1;
	for (int i = 0; i < p->nmsg; i++) {
		struct sb_msg *m = &r->msg[i];

		m->run = r;
		m->index = i;
		m->w = calloc((size_t)p->nwork, sizeof(*m->w));
		if (!m->w)
			return -1;
		for (int j = 0; j < p->nwork; j++) {
			struct sb_worker *w = &m->w[j];

			w->msg = m;
			hist_init(&w->wake);
			hist_init(&w->req);
			if (p->pipe) {
				w->pipe_in = calloc(1, p->pipe);
				w->pipe_out = calloc(1, p->pipe);
				if (!w->pipe_in || !w->pipe_out)
					return -1;
			}
		}
	}
	return 0;
}

static void free_run(struct sb_run *r)
{
	for (int i = 0; r->msg && i < r->p->nmsg; i++) {
		for (int j = 0; r->msg[i].w && j < r->p->nwork; j++) {
			free(r->msg[i].w[j].pipe_in);
			free(r->msg[i].w[j].pipe_out);
		}
		free(r->msg[i].w);
	}
	free(r->msg);
}

/*
 * Start every worker, then every message thread (which post at once),
 * sleep to the end of the run, stop and join them all.  Return 0, or -1
 * when a thread could not be created (those that were are joined).
 */
static int run_threads(struct sb_run *r)
{
	const struct sb_params *p = r->p;
	pthread_attr_t attr;
	struct timespec end;
	int failed = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	for (int i = 0; i < p->nmsg && !failed; i++)
		for (int j = 0; j < p->nwork && !failed; j++) {
			struct sb_worker *w = &r->msg[i].w[j];

			failed = pthread_create(&w->tid, &attr, worker_main, w);
			w->started = !failed;
		}
	r->start_ns = now_ns();
	r->measure_ns = r->start_ns + (uint64_t)p->warmup_ms * 1000000u;
	r->end_ns = r->start_ns + (uint64_t)p->duration_ms * 1000000u;
	for (int i = 0; i < p->nmsg && !failed; i++) {
		struct sb_msg *m = &r->msg[i];

		failed = pthread_create(&m->tid, &attr, msg_main, m);
		m->started = !failed;
	}
	pthread_attr_destroy(&attr);
	end.tv_sec = (time_t)(r->end_ns / 1000000000u);
	end.tv_nsec = (long)(r->end_ns % 1000000000u);
	while (!failed && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end,
					  NULL) == EINTR)
		;
	stop_all(r);
	for (int i = 0; i < p->nmsg; i++) {
		if (r->msg[i].started)
			pthread_join(r->msg[i].tid, NULL);
		for (int j = 0; j < p->nwork; j++)
			if (r->msg[i].w[j].started)
				pthread_join(r->msg[i].w[j].tid, NULL);
	}
	return failed ? -1 : 0;
}

static void put_percentiles(int fd, const char *what, const struct hist *h)
{
	static const struct {
		const char *name;
		double pct;
	} ps[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p999", 99.9 }
	};
	struct strbuf name = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "%s_%s_us", what, ps[i].name);
		worker_put(fd, name.buf,
			   (double)hist_percentile(h, ps[i].pct) / 1000.0, "us",
			   "lower");
	}
	strbuf_release(&name);
}

/* The worker process: run the threads, merge, write the results to fd. */
static int sb_worker(void *arg, int fd)
{
	const struct sb_params *p = arg;
	struct sb_run r;
	struct hist *wake = malloc(sizeof(*wake)), *req = malloc(sizeof(*req));
	uint64_t done = 0;
	const char *fail = NULL;

	memset(&r, 0, sizeof(r));
	r.p = p;
	if (!wake || !req || alloc_run(&r) < 0)
		fail = "out of memory\n";
	if (!fail && p->work_us && !p->sleep_us)
		r.loops_per_us = calibrate();
	if (!fail && run_threads(&r) < 0)
		fail = "cannot create threads\n";
	if (!fail) {
		hist_init(wake);
		hist_init(req);
		for (int i = 0; i < p->nmsg; i++)
			for (int j = 0; j < p->nwork; j++) {
				hist_merge(wake, &r.msg[i].w[j].wake);
				hist_merge(req, &r.msg[i].w[j].req);
				done += r.msg[i].w[j].done;
			}
		if (!done)
			fail = "no request completed in the measured window\n";
	}
	if (!fail) {
		put_percentiles(fd, "wakeup", wake);
		put_percentiles(fd, "request", req);
		worker_put(fd, "rps",
			   (double)done /
				   ((double)(p->duration_ms - p->warmup_ms) /
				    1000.0),
			   "1/s", "higher");
	}
	free_run(&r);
	free(wake);
	free(req);
	if (fail) {
		if (write_all(fd, fail, strlen(fail)) < 0)
			return 1;
		return 1;
	}
	return 0;
}

static int sb_check(const struct run_spec *s, struct strbuf *field,
		    struct strbuf *err)
{
	return spec_check_params(s, "schbench", field, err);
}

static int sb_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct sb_params p;

	p.nmsg = (int)spec_param_i64(ctx->spec, "message_threads");
	p.nwork = (int)spec_param_i64(ctx->spec, "workers");
	p.duration_ms = spec_param_ms(ctx->spec, "duration");
	p.warmup_ms = spec_param_ms(ctx->spec, "warmup");
	p.rps = spec_param_i64(ctx->spec, "rps");
	p.work_us = spec_param_i64(ctx->spec, "work_us");
	p.sleep_us = spec_param_i64(ctx->spec, "test_sleep_us");
	p.pipe = (size_t)spec_param_i64(ctx->spec, "pipe");
	return worker_run(ctx, "schbench", sb_worker, &p, err);
}

const struct wl_ops wl_schbench = {
	.name = "schbench",
	.check = sb_check,
	.run = sb_run,
};

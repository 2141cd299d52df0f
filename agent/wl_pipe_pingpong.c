/*
 * wl_pipe_pingpong.c - seed 004's pipe-test-100k: two tasks bounce one byte
 * over a pair of pipes round_trips times, optionally both pinned to one CPU
 * (the seed ran it under `taskset 1`).  Reported: time per round trip,
 * context switches per round trip (from the worker's rusage, which includes
 * its reaped partner), and the perf counters asked for, opened with
 * perf_event_open on the worker before it starts and inherited by the
 * partner it forks.  A counter the machine cannot count is reported as
 * unavailable with the reason, never as 0.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "banned.h"

struct pp_params {
	int64_t round_trips;
	int pin;
};

static void pin_to(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int pp_worker(void *arg, int fd)
{
	const struct pp_params *p = arg;
	int ab[2], ba[2], st;
	pid_t partner;
	struct timespec a, b;
	char c = 'x';
	double ns;

	if (pipe(ab) < 0 || pipe(ba) < 0)
		return 1;
	pin_to(p->pin);
	partner = fork();
	if (partner < 0)
		return 1;
	if (partner == 0) {
		close(ab[1]);
		close(ba[0]);
		close(fd);
		for (;;) {
			if (read(ab[0], &c, 1) != 1)
				_exit(0);
			if (write(ba[1], &c, 1) != 1)
				_exit(1);
		}
	}
	close(ab[0]);
	close(ba[1]);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int64_t i = 0; i < p->round_trips; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			kill(partner, SIGKILL);
			waitpid(partner, &st, 0);
			return 1;
		}
	clock_gettime(CLOCK_MONOTONIC, &b);
	close(ab[1]);
	waitpid(partner, &st, 0);
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 +
	     (double)(b.tv_nsec - a.tv_nsec);
	worker_put(fd, "round_trip_us", ns / 1000.0 / (double)p->round_trips,
		   "us", "lower");
	worker_put(fd, "round_trips_per_s", (double)p->round_trips / (ns / 1e9),
		   "1/s", "higher");
	worker_put(fd, "elapsed_s", ns / 1e9, "s", "lower");
	return 0;
}

static int pp_check(const struct run_spec *s, struct strbuf *field,
		    struct strbuf *err)
{
	struct strvec v = STRVEC_INIT;
	int rc = 0;

	if (*spec_param(s, "counters"))
		strvec_split(&v, spec_param(s, "counters"), ',');
	for (size_t i = 0; i < v.nr && !rc; i++)
		if (!perf_known(v.v[i])) {
			strbuf_addstr(field, "params.counters");
			strbuf_addf(
				err,
				"\"params.counters\": unknown counter \"%s\" "
				"(expected instructions, cycles, branches, "
				"branch-misses, cache-references, "
				"cache-misses, task-clock, context-switches, "
				"cpu-migrations, page-faults)",
				v.v[i]);
			rc = -1;
		}
	strvec_clear(&v);
	return rc;
}

static int pp_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct pp_params p;
	struct worker w;
	struct perf_set ps;
	int rc;

	p.round_trips = spec_param_i64(ctx->spec, "round_trips");
	p.pin = (int)spec_param_i64(ctx->spec, "pin_cpu");
	if (p.pin >= ctx->ncpus) {
		strbuf_addf(err, "pin_cpu %d: this machine has CPUs 0..%d",
			    p.pin, ctx->ncpus - 1);
		return -1;
	}
	if (worker_start(ctx, &w, spec_param(ctx->spec, "cgroup"), pp_worker,
			 &p, err) < 0)
		return -1;
	if (perf_open(&ps, spec_param(ctx->spec, "counters"), w.pid, err) < 0) {
		worker_clear(&w);
		return -1;
	}
	perf_enable(&ps);
	worker_release(&w);
	rc = worker_finish(&w, err);
	perf_read(&ps);
	if (rc == 0)
		rc = worker_emit_results(ctx, &w, err);
	if (rc == 0) {
		double sw = (double)(w.ru.ru_nvcsw + w.ru.ru_nivcsw);

		emit_result(ctx->em, "context_switches_per_round_trip",
			    sw / (double)p.round_trips, "count", "lower");
		for (size_t i = 0; i < ps.n; i++) {
			struct strbuf m = STRBUF_INIT;

			if (ps.c[i].supported) {
				strbuf_addf(&m, "perf.%s", ps.c[i].name);
				emit_result(ctx->em, m.buf,
					    (double)ps.c[i].value,
					    !strcmp(ps.c[i].name, "task-clock")
						    ? "ns"
						    : "count",
					    "lower");
				emit_counter(ctx->em, "perf", "pipe-pingpong",
					     ps.c[i].name,
					     (double)ps.c[i].value);
			} else {
				emit_counter_unavailable(
					ctx->em, "perf", "pipe-pingpong",
					ps.c[i].name, ps.c[i].why);
			}
			strbuf_release(&m);
		}
	}
	perf_close(&ps);
	worker_clear(&w);
	return rc;
}

const struct wl_ops wl_pipe_pingpong = {
	.name = "pipe-pingpong",
	.check = pp_check,
	.run = pp_run,
};

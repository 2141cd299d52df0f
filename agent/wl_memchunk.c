/*
 * wl_memchunk.c - seed 000's workload, written fresh from its description:
 * a mix of short-running threads (which sleep sleep_us after every
 * sleep_every records: about a 10% duty cycle with the defaults) and
 * long-running ones that never sleep.  A record is one malloc of a chunk of
 * chunk_slots 8-byte slots, a write of every slot, and a free.  Throughput
 * is records per second over the run, in total and per kind of thread.
 *
 * The threads live in one worker process placed in the spec's cgroup, so
 * the agent itself only waits.  Counts are per thread and summed at the end,
 * so no lock or shared cache line is touched while measuring.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "banned.h"

struct mc_params {
	int nshort, nlong;
	int64_t duration_ms;
	size_t slots;
	int64_t sleep_every, sleep_us;
};

struct mc_thread {
	const struct mc_params *p;
	int is_short;
	atomic_int *run;
	uint64_t records;
	int failed;
	pthread_t tid;
};

static void *mc_thread_main(void *arg)
{
	struct mc_thread *t = arg;
	const struct mc_params *p = t->p;
	uint64_t n = 0;

	while (atomic_load_explicit(t->run, memory_order_relaxed) == 0)
		; /* wait for the start, as the seed does */
	while (atomic_load_explicit(t->run, memory_order_relaxed) == 1) {
		volatile size_t *chunk = malloc(p->slots * sizeof(size_t));

		if (!chunk) {
			t->failed = 1;
			break;
		}
		for (size_t i = 0; i < p->slots; i++)
			chunk[i] = i;
		free((void *)chunk);
		n++;
		if (t->is_short && p->sleep_us &&
		    n % (uint64_t)p->sleep_every == 0) {
			struct timespec ts = { (time_t)(p->sleep_us / 1000000),
					       (long)(p->sleep_us % 1000000) *
						       1000 };

			nanosleep(&ts, NULL);
		}
	}
	t->records = n;
	return NULL;
}

static int mc_worker(void *arg, int fd)
{
	const struct mc_params *p = arg;
	int n = p->nshort + p->nlong;
	struct mc_thread *t = calloc((size_t)n, sizeof(*t));
	atomic_int run = 0;
	struct timespec a, b,
		d = { (time_t)(p->duration_ms / 1000),
		      (long)(p->duration_ms % 1000) * 1000000 };
	uint64_t rs = 0, rl = 0;
	double el;
	int failed = 0, started = 0;

	if (!t)
		return 1;
	for (int i = 0; i < n; i++) {
		t[i].p = p;
		t[i].is_short = i < p->nshort;
		t[i].run = &run;
		if (pthread_create(&t[i].tid, NULL, mc_thread_main, &t[i])) {
			atomic_store(&run, 2);
			failed = 1;
			break;
		}
		started++;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (!failed) {
		atomic_store(&run, 1);
		while (nanosleep(&d, &d) < 0)
			;
		atomic_store(&run, 2);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	for (int i = 0; i < started; i++) {
		pthread_join(t[i].tid, NULL);
		failed |= t[i].failed;
		if (t[i].is_short)
			rs += t[i].records;
		else
			rl += t[i].records;
	}
	free(t);
	if (failed) {
		if (write(fd, "cannot start threads or allocate\n", 33) < 0)
			return 1;
		return 1;
	}
	el = (double)(b.tv_sec - a.tv_sec) +
	     (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	worker_put(fd, "records_per_s", (double)(rs + rl) / el, "1/s",
		   "higher");
	worker_put(fd, "records_per_s.short", (double)rs / el, "1/s", "higher");
	worker_put(fd, "records_per_s.long", (double)rl / el, "1/s", "higher");
	worker_put(fd, "elapsed_s", el, "s", "none");
	return 0;
}

static int mc_check(const struct run_spec *s, struct strbuf *field,
		    struct strbuf *err)
{
	if (spec_param_i64(s, "short_threads") +
		    spec_param_i64(s, "long_threads") <
	    1) {
		strbuf_addstr(field, "params.short_threads");
		strbuf_addstr(err, "\"params.short_threads\": short_threads + "
				   "long_threads must be at least 1");
		return -1;
	}
	return 0;
}

static int mc_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct mc_params p;

	p.nshort = (int)spec_param_i64(ctx->spec, "short_threads");
	p.nlong = (int)spec_param_i64(ctx->spec, "long_threads");
	p.duration_ms = spec_param_ms(ctx->spec, "duration");
	p.slots = (size_t)spec_param_i64(ctx->spec, "chunk_slots");
	p.sleep_every = spec_param_i64(ctx->spec, "sleep_every");
	p.sleep_us = spec_param_i64(ctx->spec, "sleep_us");
	return worker_run(ctx, "memchunk", mc_worker, &p, err);
}

const struct wl_ops wl_memchunk = {
	.name = "memchunk",
	.check = mc_check,
	.run = mc_run,
};

/*
 * wl_numa_bw.c - seed 002's numa_test / schedbench shape: N jobs, each a
 * process streaming read-modify-write passes over its own mem_mb of memory,
 * all started together.  Reported like the seed's tables: elapsed time of
 * the whole set, total user and system time, average user time per job,
 * and per job its user time, its own elapsed time and the NUMA node it ran
 * on most (sampled with getcpu() between chunks of work), which shows
 * whether the scheduler kept jobs near their memory.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "parse.h"
#include "banned.h"

#define MAX_NODES 64

struct nb_params {
	size_t bytes;
	int64_t passes;
};

static int current_node(void)
{
	unsigned cpu = 0, node = 0;

	if (syscall(SYS_getcpu, &cpu, &node, NULL) < 0)
		return -1;
	return (int)node;
}

static int nb_job(void *arg, int fd)
{
	const struct nb_params *p = arg;
	size_t n = p->bytes / sizeof(uint64_t), chunk = 1 << 16;
	uint64_t *mem = malloc(p->bytes), sum = 0;
	uint64_t seen[MAX_NODES] = { 0 };
	struct timespec a, b;
	int best = 0;

	if (!mem)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	memset(mem, 1, p->bytes);
	for (int64_t pass = 0; pass < p->passes; pass++) {
		for (size_t i = 0; i < n; i += chunk) {
			size_t end = i + chunk < n ? i + chunk : n;
			int node = current_node();

			for (size_t j = i; j < end; j++) {
				sum += mem[j];
				mem[j] = sum;
			}
			if (node >= 0 && node < MAX_NODES)
				seen[node]++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	for (int i = 1; i < MAX_NODES; i++)
		if (seen[i] > seen[best])
			best = i;
	free(mem);
	worker_put(fd, "elapsed_s",
		   (double)(b.tv_sec - a.tv_sec) +
			   (double)(b.tv_nsec - a.tv_nsec) / 1e9,
		   "s", "lower");
	worker_put(fd, "node", best, "node", "none");
	/* keep the work from being optimised away */
	worker_put(fd, "checksum", (double)(sum & 0xffff), "count", "none");
	return 0;
}

static int nb_run(struct agent_ctx *ctx, struct strbuf *err)
{
	int jobs = (int)spec_param_i64(ctx->spec, "jobs");
	struct nb_params p;
	struct worker *w = xcalloc((size_t)jobs, sizeof(*w));
	struct strbuf m = STRBUF_INIT;
	double tuser = 0, tsys = 0;
	int64_t t0;
	int rc = -1, i;

	p.bytes = (size_t)spec_param_i64(ctx->spec, "mem_mb") << 20;
	p.passes = spec_param_i64(ctx->spec, "passes");
	for (i = 0; i < jobs; i++) {
		w[i].pid = -1;
		w[i].gate_fd = w[i].result_fd = -1;
		strbuf_init(&w[i].result, 0);
	}
	for (i = 0; i < jobs; i++)
		if (worker_start(ctx, &w[i], spec_param(ctx->spec, "cgroup"),
				 nb_job, &p, err) < 0)
			goto out;
	t0 = mono_ms();
	for (i = 0; i < jobs; i++)
		worker_release(&w[i]);
	for (i = 0; i < jobs; i++)
		if (worker_finish(&w[i], err) < 0)
			goto out;
	emit_result(ctx->em, "elapsed_s", (double)(mono_ms() - t0) / 1000.0,
		    "s", "lower");
	for (i = 0; i < jobs; i++) {
		double u = timeval_s(w[i].ru.ru_utime);
		double s = timeval_s(w[i].ru.ru_stime);
		struct strvec lines = STRVEC_INIT;

		tuser += u;
		tsys += s;
		strbuf_reset(&m);
		strbuf_addf(&m, "job%d.user_s", i);
		emit_result(ctx->em, m.buf, u, "s", "lower");
		strvec_split(&lines, w[i].result.buf, '\n');
		for (size_t k = 0; k < lines.nr; k++) {
			struct strvec f = STRVEC_INIT;

			strvec_split(&f, lines.v[k], ' ');
			if (f.nr == 4 && strcmp(f.v[0], "checksum")) {
				double v;

				strbuf_reset(&m);
				strbuf_addf(&m, "job%d.%s", i, f.v[0]);
				if (parse_double(f.v[1], -1e300, 1e300, &v,
						 NULL) == 0)
					emit_result(ctx->em, m.buf, v, f.v[2],
						    f.v[3]);
			}
			strvec_clear(&f);
		}
		strvec_clear(&lines);
	}
	emit_result(ctx->em, "total_user_s", tuser, "s", "lower");
	emit_result(ctx->em, "total_sys_s", tsys, "s", "lower");
	emit_result(ctx->em, "avg_user_s", tuser / jobs, "s", "lower");
	rc = 0;
out:
	for (i = 0; i < jobs; i++)
		worker_clear(&w[i]);
	free(w);
	strbuf_release(&m);
	return rc;
}

const struct wl_ops wl_numa_bw = {
	.name = "numa-bw",
	.run = nb_run,
};

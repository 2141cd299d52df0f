/*
 * wl_table.c - the one table of workload implementations, matched by name
 * to the shared parameter table of common/workloads.c.  A unit test checks
 * that the two tables name the same workloads.  A spec's plan-defined
 * "command" runs as wl_command, which is not in the shared table: its
 * parameters were substituted by the controller.
 */
#include <string.h>

#include "agent.h"
#include "run-command.h"
#include "banned.h"

static const struct wl_ops *const ops_table[] = {
	&wl_chat,	   &wl_cpu_hog,
	&wl_crash,	   &wl_cyclictest,
	&wl_fairness_loop, &wl_hackbench,
	&wl_kernbench,	   &wl_memchunk,
	&wl_numa_bw,	   &wl_perf_bench_sched,
	&wl_perf_stat,	   &wl_pipe_pingpong,
	&wl_reaim,	   &wl_rt_app,
	&wl_schbench,	   &wl_stress_ng,
	&wl_sysbench,	   &wl_tbench,
	&wl_volanomark,
};

const struct wl_ops *wl_ops_find(const char *name)
{
	for (size_t i = 0; i < sizeof(ops_table) / sizeof(ops_table[0]); i++)
		if (!strcmp(ops_table[i]->name, name))
			return ops_table[i];
	return NULL;
}

const struct wl_ops *wl_ops_of(const struct run_spec *s)
{
	if (s->cmd)
		return &wl_command;
	return s->wl ? wl_ops_find(s->wl->name) : NULL;
}

/* Is d's program (or the spec's command) installed, and is it built? */
static int available(const struct wl_desc *d, const struct run_spec *s,
		     struct strbuf *why)
{
	const struct wl_ops *ops = s ? wl_ops_of(s) : wl_ops_find(d->name);

	if (!ops) {
		strbuf_addstr(why, "not implemented by this agent");
		return -1;
	}
	if (ops->available)
		return ops->available(s, why);
	if (d->kind == WL_WRAPPED && d->program &&
	    !program_exists(d->program)) {
		strbuf_addf(why, "%s is not installed (not found in PATH)",
			    d->program);
		return -1;
	}
	return 0;
}

int wl_available(const struct wl_desc *d, struct strbuf *why)
{
	return available(d, NULL, why);
}

int wl_spec_available(const struct run_spec *s, struct strbuf *why)
{
	/* Workloads naming their own program check it in setup. */
	if (!s->cmd && workload_param(s->wl, "program"))
		return 0;
	return available(s->wl, s, why);
}

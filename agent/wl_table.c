/*
 * wl_table.c - the one table of workload implementations, matched by name
 * to the shared parameter table of common/workloads.c.  A unit test checks
 * that the two tables name the same workloads.
 */
#include <string.h>

#include "agent.h"
#include "run-command.h"
#include "banned.h"

static const struct wl_ops *const ops_table[] = {
	&wl_chat,	   &wl_crash,	 &wl_fairness_loop, &wl_hackbench,
	&wl_kernbench,	   &wl_memchunk, &wl_numa_bw,	    &wl_perf_stat,
	&wl_pipe_pingpong, &wl_reaim,	 &wl_sysbench,	    &wl_volanomark,
};

const struct wl_ops *wl_ops_find(const char *name)
{
	for (size_t i = 0; i < sizeof(ops_table) / sizeof(ops_table[0]); i++)
		if (!strcmp(ops_table[i]->name, name))
			return ops_table[i];
	return NULL;
}

int wl_available(const struct wl_desc *d, struct strbuf *why)
{
	const struct wl_ops *ops = wl_ops_find(d->name);

	if (!ops) {
		strbuf_addstr(why, "not implemented by this agent");
		return -1;
	}
	if (ops->available)
		return ops->available(why);
	if (d->kind == WL_WRAPPED && d->program &&
	    !program_exists(d->program)) {
		strbuf_addf(why, "%s is not installed (not found in PATH)",
			    d->program);
		return -1;
	}
	return 0;
}

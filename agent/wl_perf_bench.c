/*
 * wl_perf_bench.c - `perf bench sched messaging` (perf's hackbench: groups
 * of senders and receivers over sockets or pipes) and `perf bench sched
 * pipe` (two tasks ping-ponging over a pipe), from linux-perf: a second
 * source for hackbench-style numbers beside rt-tests' hackbench.
 */
#include <string.h>

#include "agent.h"
#include "run-command.h"
#include "banned.h"

static int pb_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct child_process cp;
	int thread = !strcmp(spec_param(ctx->spec, "mode"), "thread");
	int rc;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "perf", "bench", "sched",
		     spec_param(ctx->spec, "bench"), (char *)NULL);
	if (!strcmp(spec_param(ctx->spec, "bench"), "messaging")) {
		strvec_pushl(&cp.args, "-g", spec_param(ctx->spec, "groups"),
			     "-l", spec_param(ctx->spec, "loops"),
			     (char *)NULL);
		if (thread)
			strvec_push(&cp.args, "-t");
		if (spec_param_bool(ctx->spec, "pipe"))
			strvec_push(&cp.args, "-p");
	} else {
		strvec_pushl(&cp.args, "-l", spec_param(ctx->spec, "loops"),
			     (char *)NULL);
		if (thread)
			strvec_push(&cp.args, "-T");
	}
	rc = wrapped_run(ctx, &cp, parse_perf_bench, "perf-bench", err);
	child_process_clear(&cp);
	return rc;
}

const struct wl_ops wl_perf_bench_sched = {
	.name = "perf-bench-sched",
	.run = pb_run,
};

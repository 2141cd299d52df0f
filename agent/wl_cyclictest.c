/*
 * wl_cyclictest.c - wake-up latency with rt-tests' cyclictest: threads
 * that sleep for an interval and measure how late they wake, in the fair
 * class by default (priority 0), so what is measured is the scheduler's
 * wake-up path under whatever else runs (a together: neighbour).
 *
 * Run as `cyclictest -q -m -t N -i US -D S -h MAX --policy=other` (or -p
 * PRIO for SCHED_FIFO; a cgroup v1 cpu group needs rt_runtime_us for
 * that); the histogram it prints at the end gives p50, p99 and
 * p99.9 over every thread's samples, its summary lines the minimum,
 * average and maximum.  Latencies are microseconds.
 */
#include <string.h>

#include "agent.h"
#include "run-command.h"
#include "banned.h"

static int ct_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct child_process cp;
	int64_t threads = spec_param_i64(ctx->spec, "threads");
	int64_t dur_s = (spec_param_ms(ctx->spec, "duration") + 999) / 1000;
	int64_t prio = spec_param_i64(ctx->spec, "priority");
	int rc;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "cyclictest", "-q", "-m", "--default-system",
		     (char *)NULL);
	if (threads)
		strvec_pushf(&cp.args, "--threads=%lld", (long long)threads);
	else
		strvec_push(&cp.args, "-t");
	strvec_pushf(&cp.args, "--interval=%s",
		     spec_param(ctx->spec, "interval_us"));
	strvec_pushf(&cp.args, "--duration=%lld", (long long)dur_s);
	strvec_pushf(&cp.args, "--histogram=%s",
		     spec_param(ctx->spec, "histogram_us"));
	/* -h alone makes cyclictest pick SCHED_FIFO priority 2 by itself */
	if (prio)
		strvec_pushf(&cp.args, "--priority=%lld", (long long)prio);
	else
		strvec_push(&cp.args, "--policy=other");
	/* The histogram goes to stdout; cyclictest's warnings to stderr. */
	cp.capture_out = 1;
	cp.capture_err = 1;
	rc = wrapped_run(ctx, &cp, parse_cyclictest, "cyclictest", err);
	child_process_clear(&cp);
	return rc;
}

/*
 * cyclictest's main thread raises itself to SCHED_FIFO 1 even when the
 * measuring threads stay in the fair class; a cgroup v1 group without RT
 * time refuses that, so its group gets some (5% of the period, more than
 * the measuring threads use at priority > 0 and 1 kHz).
 */
static void ct_add_cgroups(const struct run_spec *s, struct cg_run *cg)
{
	cg_run_need_rt(cg, spec_param(s, "cgroup"), 50000);
}

const struct wl_ops wl_cyclictest = {
	.name = "cyclictest",
	.add_cgroups = ct_add_cgroups,
	.run = ct_run,
};

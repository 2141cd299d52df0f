/*
 * wl_perf_stat.c - any command under `perf stat -x, --repeat N -e EVENTS`
 * (seed 004's method), optionally pinned with taskset.  Each counter becomes
 * a result with its "+-" column as <event>.stderr_pct: perf's repeat
 * column is the standard error of the mean in percent, not the standard
 * deviation.  Counters perf reports as not supported become unavailable
 * counter lines, never zeros.
 */
#include <string.h>

#include "agent.h"
#include "run-command.h"
#include "banned.h"

static int ps_check(const struct run_spec *s, struct strbuf *field,
		    struct strbuf *err)
{
	struct strvec v = STRVEC_INIT;

	split_command(&v, spec_param(s, "command"));
	if (!v.nr) {
		strbuf_addstr(field, "params.command");
		strbuf_addstr(err, "\"params.command\": expected a program and "
				   "its arguments");
		strvec_clear(&v);
		return -1;
	}
	strvec_clear(&v);
	return 0;
}

static int ps_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct child_process cp;
	int64_t pin = spec_param_i64(ctx->spec, "pin_cpu");
	int rc;

	if (pin >= ctx->ncpus) {
		strbuf_addf(err, "pin_cpu %lld: this machine has CPUs 0..%d",
			    (long long)pin, ctx->ncpus - 1);
		return -1;
	}
	child_process_init(&cp);
	strvec_pushl(&cp.args, "perf", "stat", "-x,", "--repeat",
		     spec_param(ctx->spec, "repeat"), (char *)NULL);
	if (*spec_param(ctx->spec, "events"))
		strvec_pushl(&cp.args, "-e", spec_param(ctx->spec, "events"),
			     (char *)NULL);
	strvec_push(&cp.args, "--");
	if (pin >= 0)
		strvec_pushl(&cp.args, "taskset", "-c",
			     spec_param(ctx->spec, "pin_cpu"), (char *)NULL);
	split_command(&cp.args, spec_param(ctx->spec, "command"));
	rc = wrapped_run_stderr(ctx, &cp, parse_perf_stat_csv, "perf-stat",
				err);
	child_process_clear(&cp);
	return rc;
}

const struct wl_ops wl_perf_stat = {
	.name = "perf-stat",
	.check = ps_check,
	.run = ps_run,
};

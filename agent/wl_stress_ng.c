/*
 * wl_stress_ng.c - stress-ng's scheduler stressors: switch, yield, futex,
 * pipe, affinity, and sched, which runs stress-ng's schedpolicy stressor
 * (stress-ng's own --sched is an option, the policy of the others).  Run
 * as `stress-ng --STRESSOR N --timeout S --metrics --yaml FILE`, whose
 * YAML file gives the bogo operations per second of real time
 * (bogo_ops_per_s, the headline) and of user + system time
 * (bogo_ops_per_s_cpu).  Other stressors are refused by the workload
 * table at plan check: this workload is about the scheduler.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "run-command.h"
#include "banned.h"

static int sng_run(struct agent_ctx *ctx, struct strbuf *err)
{
	char dir[] = "/tmp/schedfarm-stress-ng-XXXXXX";
	struct child_process cp;
	struct strbuf yaml = STRBUF_INIT, text = STRBUF_INIT;
	struct metrics ms;
	const char *stressor = spec_param(ctx->spec, "stressor");
	int64_t workers = spec_param_i64(ctx->spec, "workers");
	int64_t dur_s = (spec_param_ms(ctx->spec, "duration") + 999) / 1000;
	int rc = -1, made = 0;

	metrics_init(&ms);
	child_process_init(&cp);
	if (!mkdtemp(dir)) {
		strbuf_addf(err, "cannot make a folder for stress-ng: %s",
			    strerror(errno));
		goto out;
	}
	made = 1;
	strbuf_addf(&yaml, "%s/metrics.yaml", dir);
	strvec_push(&cp.args, "stress-ng");
	/* stress-ng's --sched is the policy option, not a stressor: the
	 * scheduler-policy stressor is schedpolicy */
	if (!strcmp(stressor, "sched"))
		stressor = "schedpolicy";
	strvec_pushf(&cp.args, "--%s", stressor);
	strvec_pushf(&cp.args, "%lld", (long long)workers);
	strvec_pushf(&cp.args, "--timeout=%llds", (long long)dur_s);
	strvec_pushl(&cp.args, "--metrics", "--yaml", yaml.buf, (char *)NULL);
	cp.dir = dir; /* stress-ng may leave temporary files in its cwd */
	cp.capture_out = 1;
	cp.merge_err = 1;
	if (wrapped_prepare(ctx, &cp, err) < 0)
		goto out;
	if (wrapped_exec(ctx, &cp, err) < 0) {
		strbuf_addf(err, "; output ends: %s",
			    cp.out.len > 600 ? cp.out.buf + cp.out.len - 600
					     : cp.out.buf);
		goto out;
	}
	if (strbuf_read_file(&text, yaml.buf, 1 << 20) < 0) {
		strbuf_addf(err, "stress-ng wrote no %s", yaml.buf);
		goto out;
	}
	if (parse_stress_ng_yaml(text.buf, text.len, &ms, err) < 0)
		goto out;
	wrapped_emit_metrics(ctx, &ms);
	rc = 0;
out:
	if (made) {
		struct strbuf ignore = STRBUF_INIT;

		remove_tree(dir, &ignore);
		strbuf_release(&ignore);
	}
	metrics_release(&ms);
	child_process_clear(&cp);
	strbuf_release(&yaml);
	strbuf_release(&text);
	return rc;
}

const struct wl_ops wl_stress_ng = {
	.name = "stress-ng",
	.run = sng_run,
};

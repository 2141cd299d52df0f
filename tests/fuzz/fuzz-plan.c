/*
 * fuzz-plan.c - libFuzzer target for the plan language (controller/plan:
 * libyaml, the checker, sweeps): any text must parse into a checked plan
 * or be refused with file:line:col errors, never crash, leak or read out
 * of bounds; what parses is walked with every reader the job path uses
 * (labels, parameters as JSON, cgroups, settings, the job's budget).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct plan *p = NULL;

	if (plan_parse("fuzz.yaml", (const char *)data, size, &p, &err) == 0) {
		for (size_t i = 0; i < p->nr_runs && i < 64; i++) {
			plan_run_label(&p->runs[i], &out);
			plan_run_params_json(p, &p->runs[i],
					     PLAN_SECRETS_MASKED, &out);
			plan_run_spec_json(p, &p->runs[i], PLAN_SECRETS_CLEAR,
					   &out);
			plan_run_json(p, &p->runs[i], &out);
			plan_run_param(&p->runs[i], "duration");
			strbuf_reset(&out);
		}
		plan_cgroups_json(p, &out);
		plan_settings_json(p, &out);
		(void)plan_job_budget_ms(p, p->boots);
		plan_free(p);
	}
	strbuf_release(&err);
	strbuf_release(&out);
	return 0;
}

/*
 * names.c - the metric names each run of a plan reports, from what its
 * workloads declare (common/workloads.c, a command's metrics:, and for a
 * together run each member's under "MEMBER." plus the cross-group
 * figures), and the check that every key of the plan's metrics: section
 * names one of them: a typo there would otherwise be a rule that never
 * applies, and nobody would notice.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/plan-int.h"
#include "banned.h"

/* Append the names (or globs) run r reports to out, without duplicates. */
static void add(struct strvec *out, const char *name)
{
	for (size_t i = 0; i < out->nr; i++)
		if (!strcmp(out->v[i], name))
			return;
	strvec_push(out, name);
}

static void run_names(const struct plan_run *r, struct strvec *out)
{
	if (r->wl) {
		for (size_t i = 0; r->wl->metrics && r->wl->metrics[i]; i++)
			add(out, r->wl->metrics[i]);
		return;
	}
	for (size_t m = 0; m < r->nr_members; m++) {
		const struct plan_member *pm = &r->members[m];
		struct strbuf n = STRBUF_INIT;

		if (pm->background) {
			strbuf_addf(&n, "%s.passes", pm->name);
			add(out, n.buf);
		} else {
			for (size_t i = 0;
			     pm->wl->metrics && pm->wl->metrics[i]; i++) {
				strbuf_reset(&n);
				strbuf_addf(&n, "%s.%s", pm->name,
					    pm->wl->metrics[i]);
				add(out, n.buf);
			}
			strbuf_reset(&n);
			strbuf_addf(&n, "elapsed_s.%s", pm->name);
			add(out, n.buf);
		}
		strbuf_reset(&n);
		strbuf_addf(&n, "cpu_pct.%s", pm->name);
		add(out, n.buf);
		strbuf_reset(&n);
		strbuf_addf(&n, "share.%s", pm->name);
		add(out, n.buf);
		strbuf_release(&n);
	}
	add(out, "elapsed_ratio");
	add(out, "window_s");
	add(out, "jain_index");
	add(out, "max_min_ratio");
}

/* Could a run reporting the names in decl report one matching key? */
static int matches(const struct strvec *decl, const char *key)
{
	const char **v = (const char **)decl->v;

	return workload_metric_declared(v, key);
}

/*
 * Each key of metrics (the plan's metrics: node, NULL when absent) must
 * match a metric some run of p reports; report the others at their key
 * with what the plan's workloads do report.
 */
void check_metric_names(struct ctx *c, const struct plan *p,
			const struct ynode *metrics)
{
	struct strvec all = STRVEC_INIT;
	struct strbuf list = STRBUF_INIT;

	if (!metrics || metrics->kind != Y_MAP)
		return;
	for (size_t i = 0; i < p->nr_runs; i++)
		run_names(&p->runs[i], &all);
	for (size_t i = 0; i < ymap_len(metrics); i++) {
		const struct ynode *k = metrics->kids[2 * i];

		if (k->kind != Y_SCALAR || matches(&all, k->text))
			continue;
		if (!list.len)
			for (size_t j = 0; j < all.nr; j++) {
				if (j == 24) {
					strbuf_addf(&list, ", ... (%zu in all)",
						    all.nr);
					break;
				}
				strbuf_addf(&list, "%s%s", j ? ", " : "",
					    all.v[j]);
			}
		nerror(c, k,
		       "metrics.%s: no workload of this plan reports a metric "
		       "'%s' (they report: %s)",
		       k->text, k->text, list.buf);
	}
	strvec_clear(&all);
	strbuf_release(&list);
}

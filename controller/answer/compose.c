/*
 * compose.c - the text of the farm's mails: an answer, a bisection's
 * result.  Plain text for a mailing list, the way 0-day's reports read:
 * the verdict first, then the numbers (each deciding metric's %change,
 * 95% CI and p; the PLM table of compare.c), then what ran, the
 * bisection, and the page.  Rendering only: the caller has the data.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "answer/answer.h"
#include "json.h"
#include "shquote.h"
#include "store/answers.h"
#include "banned.h"

/* Subjects stay on one line and short enough for a list's digest. */
#define SUBJECT_NAME_MAX 72

static void add_name(struct strbuf *out, const char *name)
{
	size_t n = strlen(name);

	strbuf_addch(out, '"');
	if (n > SUBJECT_NAME_MAX) {
		size_t cut = SUBJECT_NAME_MAX;

		while (cut > 1 && ((unsigned char)name[cut] & 0xc0) == 0x80)
			cut--;
		strbuf_add(out, name, cut);
		strbuf_addstr(out, "...");
	} else {
		strbuf_addstr(out, name);
	}
	strbuf_addch(out, '"');
}

void answer_mail_subject(const struct answer_sub *s, const char *headline,
			 struct strbuf *out)
{
	strbuf_addf(out, "[schedfarm] PLM#%lld ", (long long)s->patch_id);
	add_name(out, s->name);
	strbuf_addf(out, ": %s", headline ? headline : "no answer");
}

static void add_pct(struct strbuf *out, double v)
{
	if (isfinite(v))
		strbuf_addf(out, "%+.1f%%", v);
	else
		strbuf_addstr(out, "-");
}

/* "-19.9% [-21.0%, -18.7%] p=0.0004" */
static void add_stats(struct strbuf *out, const struct compare_stats *s)
{
	add_pct(out, s->pct_change);
	if (s->ci_unbounded)
		strbuf_addstr(out, " [unbounded: the base mean is not away "
				   "from 0]");
	else if (isfinite(s->ci_low) && isfinite(s->ci_high))
		strbuf_addf(out, " [%+.1f%%, %+.1f%%]", s->ci_low, s->ci_high);
	if (isfinite(s->p_value))
		strbuf_addf(out, " p=%.2g", s->p_value);
}

void answer_mail_body(const struct answer_sub *s, const struct compare_set *set,
		      const struct answer_text *t, struct strbuf *out)
{
	int any_flag = 0;

	strbuf_addf(out, "PLM#%lld ", (long long)s->patch_id);
	add_name(out, s->name);
	strbuf_addf(out, ": %d patch%s on %s, submitted by %s\n", s->n_patches,
		    s->n_patches == 1 ? "" : "es", s->base, s->submitter);
	strbuf_addf(out, "plan %s on %s, kernels %s (base) and %s\n\n",
		    s->plan_name ? s->plan_name : "-",
		    s->host_name ? s->host_name : "-",
		    s->base_name ? s->base_name : s->base,
		    s->kernel_name ? s->kernel_name : "-");
	if (t->verdict)
		strbuf_addf(out, "Verdict: %s\n  %s\n", t->verdict,
			    t->headline);
	else
		strbuf_addf(out, "No verdict: %s\n",
			    t->headline ? t->headline : "nothing compared");
	if (t->note)
		strbuf_addf(out, "  note: %s\n", t->note);
	if (t->base_reused)
		strbuf_addf(out, "  %s\n", t->base_reused);

	if (set && set->nr) {
		for (size_t i = 0; i < set->nr; i++)
			any_flag |= set->rows[i].decides;
		strbuf_addstr(out, "\nDeciding metrics (%change of the mean, "
				   "its 95% CI, p):\n");
		for (size_t i = 0; i < set->nr; i++) {
			const struct compare_row *r = &set->rows[i];

			if (any_flag && !r->decides)
				continue;
			strbuf_addf(out, "  %-24s %-14s ", r->metric,
				    compare_verdict_name(r->verdict));
			add_stats(out, &r->s);
			strbuf_addf(out, "  (n %zu+%zu%s%s)\n", r->s.n_base,
				    r->s.n_new, r->params_text[0] ? ", " : "",
				    r->params_text);
		}
		strbuf_addstr(out, "\nThe PLM table:\n\n");
		compare_format_text(set, out);
	}

	strbuf_addstr(out, "\nJobs:\n");
	for (size_t i = 0; i < s->nr_jobs; i++) {
		const struct answer_job *j = &s->jobs[i];

		strbuf_addf(out, "  STP#%lld  %-5s  %d boot%s  %s%s%s\n",
			    (long long)j->id,
			    j->side == ANSWER_PATCH ? "patch" : "base",
			    j->boots, j->boots == 1 ? "" : "s", j->state,
			    j->error ? ": " : "", j->error ? j->error : "");
	}
	if (t->bisection_id)
		strbuf_addf(out,
			    "\nBisection #%lld started to find the patch of "
			    "the series that causes this (a mail follows "
			    "when it ends):\n  %s\n",
			    (long long)t->bisection_id,
			    t->bisection_url ? t->bisection_url : "");
	else if (t->bisection_note)
		strbuf_addf(out, "\nBisection: %s\n", t->bisection_note);
	strbuf_addf(out, "\nThe page: %s\n", t->page_url ? t->page_url : "-");
	strbuf_addstr(out, "\n-- \nschedfarm, the scheduler test farm\n");
}

void answer_base_command(const struct answer_sub *s, const char *plan_path,
			 struct strbuf *out)
{
	const char *argv[] = { "schedfarm",  "run",	 plan_path, "--host",
			       s->host_name, "--kernel", s->base,   NULL };

	strbuf_add_sh_argv(out, argv);
	/* with the submission's overrides: only base results of the same
	 * settings count */
	for (size_t i = 0; i < s->plan_set.nr; i++) {
		strbuf_addstr(out, " --set ");
		strbuf_add_sh_quoted(out, s->plan_set.v[i]);
	}
}

int answer_bisect_mail(const char *bisection_json, struct strbuf *subject,
		       struct strbuf *body, struct strbuf *err)
{
	struct json_value *b = NULL;
	const struct json_value *steps;
	const char *name, *label, *metric, *host, *state;
	double culprit, patch;
	int r = -1;

	if (json_parse(bisection_json, strlen(bisection_json), NULL, &b, err) <
	    0)
		return -1;
	name = json_member_string(b, "patch_name");
	label = json_member_string(b, "culprit_label");
	metric = json_member_string(b, "metric");
	host = json_member_string(b, "host");
	state = json_member_string(b, "state");
	culprit = json_member_number(b, "culprit");
	patch = json_member_number(b, "patch");
	if (!metric || !host || !state) {
		strbuf_addstr(err, "a bisection without metric, host or state");
		goto out;
	}
	strbuf_addstr(subject, "[schedfarm] ");
	if (isfinite(patch)) {
		strbuf_addf(subject, "PLM#%.0f ", patch);
		add_name(subject, name ? name : "");
		strbuf_addstr(subject, ": ");
	}
	strbuf_addf(subject,
		    "bisect #%.0f: ", json_member_number(b, "bisection"));
	if (isfinite(culprit)) {
		strbuf_addf(subject, "%s %.0f/%.0f ",
			    isfinite(patch) ? "patch" : "commit", culprit,
			    json_member_number(b, "n"));
		add_name(subject, label ? label : "");
		strbuf_addf(subject, " %s", metric);
		if (isfinite(json_member_number(b, "pct_change")))
			strbuf_addf(subject, " %+.1f%%",
				    json_member_number(b, "pct_change"));
		strbuf_addf(subject, " %s on %s",
			    json_member_string(b, "direction")
				    ? json_member_string(b, "direction")
				    : "change",
			    host);
	} else {
		strbuf_addf(subject, "%s (%s on %s)", state, metric, host);
	}

	strbuf_addf(body, "Bisection #%.0f of ",
		    json_member_number(b, "bisection"));
	if (isfinite(patch)) {
		strbuf_addf(body, "PLM#%.0f ", patch);
		add_name(body, name ? name : "");
	} else {
		strbuf_addf(body, "%s %s..%s", json_member_string(b, "tree"),
			    json_member_string(b, "good"),
			    json_member_string(b, "bad"));
	}
	strbuf_addf(body, "\n%s of %s (%s) on %s, plan %s: %s\n\n",
		    json_member_string(b, "direction")
			    ? json_member_string(b, "direction")
			    : "change",
		    metric,
		    json_member_string(b, "workload")
			    ? json_member_string(b, "workload")
			    : "-",
		    host, json_member_string(b, "plan"), state);
	strbuf_addf(body, "Result: %s\n",
		    json_member_string(b, "result")
			    ? json_member_string(b, "result")
			    : "-");
	if (isfinite(culprit)) {
		strbuf_addf(body, "The culprit: %.0f/%.0f %s (kernel %s)\n",
			    culprit, json_member_number(b, "n"),
			    label ? label : "",
			    json_member_string(b, "culprit_kernel")
				    ? json_member_string(b, "culprit_kernel")
				    : "-");
		strbuf_addf(body, "  %s ", metric);
		add_pct(body, json_member_number(b, "pct_change"));
		if (isfinite(json_member_number(b, "ci_low")))
			strbuf_addf(body, " [%+.1f%%, %+.1f%%]",
				    json_member_number(b, "ci_low"),
				    json_member_number(b, "ci_high"));
		if (isfinite(json_member_number(b, "p_value")))
			strbuf_addf(body, " p=%.2g",
				    json_member_number(b, "p_value"));
		strbuf_addstr(body, " against the good point before it\n");
	}
	steps = json_get(b, "steps");
	strbuf_addstr(body, "\nSteps (the point against the good end):\n");
	strbuf_addf(body, "  %-4s %-32s %4s %12s %9s  %-12s %s\n", "step",
		    "kernel", "n", "mean", "%change", "verdict", "build s");
	for (size_t i = 0; steps && i < json_len(steps); i++) {
		const struct json_value *s = json_at(steps, i);
		double n = json_member_number(s, "n"),
		       mean = json_member_number(s, "mean"),
		       bs = json_member_number(s, "build_seconds");

		strbuf_addf(body, "  %-4.0f %-32s ",
			    json_member_number(s, "step"),
			    json_member_string(s, "kernel")
				    ? json_member_string(s, "kernel")
				    : "-");
		if (isfinite(n))
			strbuf_addf(body, "%4.0f ", n);
		else
			strbuf_addstr(body, "   - ");
		if (isfinite(mean))
			strbuf_addf(body, "%12.4g ", mean);
		else
			strbuf_addf(body, "%12s ", "-");
		{
			struct strbuf p = STRBUF_INIT;

			add_pct(&p, json_member_number(s, "pct_vs_good"));
			strbuf_addf(body, "%9s  ", p.buf);
			strbuf_release(&p);
		}
		strbuf_addf(body, "%-12s ", json_member_string(s, "state"));
		if (isfinite(bs))
			strbuf_addf(body, "%.0f", bs);
		strbuf_addch(body, '\n');
	}
	strbuf_addf(body, "\nThe page: %s\n",
		    json_member_string(b, "page")
			    ? json_member_string(b, "page")
			    : "-");
	strbuf_addstr(body, "\n-- \nschedfarm, the scheduler test farm\n");
	r = 0;
out:
	json_free(b);
	return r;
}

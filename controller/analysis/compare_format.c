/*
 * compare_format.c - a comparison set as the LKP/PLM-style text table
 * and as JSON (see compare.h).  Pure: strings in, strings out.  A row on
 * the difference scale shows the difference in the metric's unit (no %
 * sign) and says so in its note; an unbounded interval reads "unbounded"
 * (JSON: ci_unbounded true), a missing one "-" (null, false).
 */
#include <math.h>
#include <string.h>

#include "analysis/compare.h"
#include "banned.h"

/* A number in a width-limited column: integers when large. */
static void add_num(struct strbuf *out, int width, double v)
{
	if (isnan(v))
		strbuf_addf(out, "%*s", width, "-");
	else if (fabs(v) >= 1e15)
		strbuf_addf(out, "%*.4g", width, v);
	else if (fabs(v) >= 1000)
		strbuf_addf(out, "%*.0f", width, v);
	else if (fabs(v) >= 1)
		strbuf_addf(out, "%*.2f", width, v);
	else
		strbuf_addf(out, "%*.4g", width, v);
}

/*
 * "± N%" when the relative sd is above 2% (as LKP prints it), else blank;
 * blank too on a row judged on the difference (its values cross 0 or its
 * base mean is 0: a percentage of such a mean means nothing, and one near
 * 0 printed ±5256139928207637504%), and above 999% (three digits).
 */
static void add_rsd(struct strbuf *out, const struct compare_row *r,
		    double mean, double sd)
{
	double rsd = mean != 0 ? 100 * sd / fabs(mean) : NAN;

	if (r->s.scale == CMP_SCALE_PERCENT && isfinite(rsd) && rsd > 2 &&
	    rsd < 999.5)
		strbuf_addf(out, " \xc2\xb1%3.0f%%", rsd);
	else
		strbuf_addstr(out, "      ");
}

static void add_pct(struct strbuf *out, double v)
{
	if (isnan(v))
		strbuf_addstr(out, "-");
	else
		strbuf_addf(out, "%+.1f%%", v);
}

/* A difference in the metric's unit: no % sign. */
static void add_diff(struct strbuf *out, double v)
{
	if (isnan(v))
		strbuf_addstr(out, "-");
	else
		strbuf_addf(out, "%+.3g", v);
}

/* The effect column and its 95% interval, on the row's scale. */
static void add_effect(const struct compare_row *r, struct strbuf *change,
		       struct strbuf *ci)
{
	int diff = r->s.scale == CMP_SCALE_DIFF;
	void (*add)(struct strbuf *, double) = diff ? add_diff : add_pct;
	double lo = diff ? r->s.diff_low : r->s.ci_low,
	       hi = diff ? r->s.diff_high : r->s.ci_high;

	add(change, diff ? r->s.diff : r->s.pct_change);
	if (!diff && r->s.ci_unbounded) {
		strbuf_addstr(ci, "unbounded");
	} else if (isnan(lo) || isnan(hi)) {
		strbuf_addstr(ci, "-");
	} else {
		strbuf_addch(ci, '[');
		add(ci, lo);
		strbuf_addstr(ci, ", ");
		add(ci, hi);
		strbuf_addch(ci, ']');
	}
}

/*
 * The lines under the table: the level the verdicts were tested at, and
 * once per host whose deciding metrics were corrected together, Holm's
 * correction (said here, not on every row).
 */
static void add_levels(const struct compare_set *set, struct strbuf *out)
{
	strbuf_addf(out, "\nverdicts at p < %.2g", set->alpha);
	if (set->look > 0)
		strbuf_addf(out,
			    " per look (look %d of %d of an adaptive "
			    "sequence; no-change interval %.1f%%)",
			    set->look, set->looks, 100 * set->nc_level);
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *r = &set->rows[i];
		size_t j;

		if (r->family <= 1)
			continue;
		for (j = 0; j < i; j++)
			if (set->rows[j].family > 1 &&
			    !strcmp(set->rows[j].host, r->host))
				break;
		if (j < i)
			continue;
		strbuf_addf(out,
			    "Holm's correction over the %d deciding metrics "
			    "on %s: p shown unadjusted, adj. the adjusted p\n",
			    r->family, r->host);
	}
	if (set->one_sided)
		strbuf_addf(out,
			    "%zu metric%s measured under one kernel only: "
			    "not compared\n",
			    set->one_sided, set->one_sided == 1 ? "" : "s");
	if (set->question && set->question[0])
		strbuf_addf(out, "question: %s%s\n", set->question,
			    set->planned ? " (the patch's own)" : "");
}

/* "metric (unit)  verdict (p=..., adj. ...)": the verdict only when it is
 * not no-change, as LKP marks. */
static void add_label(const struct compare_row *r, struct strbuf *out)
{
	strbuf_addstr(out, r->metric);
	if (r->unit[0])
		strbuf_addf(out, " (%s)", r->unit);
	if (r->verdict == CMP_NO_CHANGE)
		return;
	strbuf_addf(out, "  %s", compare_verdict_name(r->verdict));
	if (r->s.p_value < 1e-15)
		strbuf_addstr(out, " (p<1e-15");
	else if (!isnan(r->s.p_value))
		strbuf_addf(out, " (p=%.2g", r->s.p_value);
	else
		return;
	if (r->family > 1 && !isnan(r->p_adjusted))
		strbuf_addf(out, ", adj. %.3g", r->p_adjusted);
	strbuf_addch(out, ')');
}

/* A group's heading: host, workload and params, and the column names. */
static void add_heading(const struct compare_row *r, int wide,
			struct strbuf *out)
{
	strbuf_addf(out, "\nhost %s  workload %s", r->host, r->workload);
	if (r->params_text[0])
		strbuf_addf(out, "%sparams %s", wide ? "  " : "\n",
			    r->params_text);
	strbuf_addf(out, "\n%13s %6s %9s  %-18s %13s %6s  %s\n", "base", "%sd",
		    "%change", "95% CI", "new", "%sd",
		    wide ? "n      metric" : "n");
}

/* One row: its numbers, its label (after them when wide, else on a line
 * of its own above them), and its note without the Holm part. */
static void add_row(const struct compare_row *r, int wide, struct strbuf *out)
{
	struct strbuf ci = STRBUF_INIT, change = STRBUF_INIT;
	struct compare_row alone = *r;

	if (!wide) {
		add_label(r, out);
		strbuf_addch(out, '\n');
	}
	add_num(out, 13, r->s.mean_base);
	add_rsd(out, r, r->s.mean_base, r->s.sd_base);
	add_effect(r, &change, &ci);
	strbuf_addf(out, " %9s  ", change.buf);
	strbuf_addf(out, "%-18s ", ci.buf);
	add_num(out, 13, r->s.mean_new);
	add_rsd(out, r, r->s.mean_new, r->s.sd_new);
	strbuf_reset(&change);
	strbuf_addf(&change, "%zu/%zu", r->s.n_base, r->s.n_new);
	if (wide) {
		strbuf_addf(out, "  %-5s  ", change.buf);
		add_label(r, out);
	} else {
		strbuf_addf(out, "  %s", change.buf);
	}
	strbuf_addch(out, '\n');
	/* Holm's correction is said once under the table (add_levels()). */
	alone.family = 0;
	strbuf_reset(&ci);
	compare_row_note(&alone, &ci);
	if (ci.len)
		strbuf_addf(out, "%13s note: %s\n", "", ci.buf);
	strbuf_release(&ci);
	strbuf_release(&change);
}

void compare_format_table(const struct compare_set *set, int wide,
			  struct strbuf *out)
{
	const struct compare_row *prev = NULL;

	strbuf_addf(out, "base: %s    new: %s", set->base_name, set->new_name);
	if (set->patch_id > 0)
		strbuf_addf(out, "    PLM#%lld", (long long)set->patch_id);
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *r = &set->rows[i];

		if (!prev || strcmp(prev->host, r->host) ||
		    strcmp(prev->workload, r->workload) ||
		    strcmp(prev->params_json, r->params_json))
			add_heading(r, wide, out);
		prev = r;
		add_row(r, wide, out);
	}
	if (set->nr)
		add_levels(set, out);
}

void compare_format_text(const struct compare_set *set, struct strbuf *out)
{
	compare_format_table(set, 0, out);
}

void compare_row_json_name(const struct compare_row *r, struct strbuf *out)
{
	strbuf_addstr(out, "\"host\":");
	strbuf_add_json_str(out, r->host);
	strbuf_addstr(out, ",\"workload\":");
	strbuf_add_json_str(out, r->workload);
	/* params is jsonb text from the database: already JSON. */
	strbuf_addf(out, ",\"params\":%s", r->params_json);
	strbuf_addstr(out, ",\"metric\":");
	strbuf_add_json_str(out, r->metric);
	strbuf_addstr(out, ",\"unit\":");
	strbuf_add_json_str(out, r->unit);
}

void compare_row_json_numbers(const struct compare_row *r, int with_sd,
			      struct strbuf *out)
{
	strbuf_addf(out, ",\"n_base\":%zu,\"n_new\":%zu", r->s.n_base,
		    r->s.n_new);
	strbuf_addstr(out, ",\"mean_base\":");
	strbuf_add_json_double(out, r->s.mean_base);
	strbuf_addstr(out, ",\"mean_new\":");
	strbuf_add_json_double(out, r->s.mean_new);
	if (with_sd) {
		strbuf_addstr(out, ",\"stddev_base\":");
		strbuf_add_json_double(out, r->s.sd_base);
		strbuf_addstr(out, ",\"stddev_new\":");
		strbuf_add_json_double(out, r->s.sd_new);
	}
	strbuf_addstr(out, ",\"pct_change\":");
	strbuf_add_json_double(out, r->s.pct_change);
	strbuf_addstr(out, ",\"ci_low\":");
	strbuf_add_json_double(out, r->s.ci_low);
	strbuf_addstr(out, ",\"ci_high\":");
	strbuf_add_json_double(out, r->s.ci_high);
	strbuf_addstr(out, ",\"p_value\":");
	strbuf_add_json_double(out, r->s.p_value);
}

void compare_format_json(const struct compare_set *set, struct strbuf *out)
{
	struct strbuf note = STRBUF_INIT;

	strbuf_addch(out, '[');
	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *r = &set->rows[i];

		strbuf_addstr(out, i ? ",\n{" : "\n{");
		compare_row_json_name(r, out);
		strbuf_addstr(out, ",\"better\":");
		strbuf_add_json_str(out, compare_better_name(r->better));
		compare_row_json_numbers(r, 1, out);
		strbuf_addstr(out, ",\"verdict\":");
		strbuf_add_json_str(out, compare_verdict_name(r->verdict));
		strbuf_addstr(out, ",\"scale\":");
		strbuf_add_json_str(out, compare_scale_name(r->s.scale));
		strbuf_addstr(out, ",\"difference\":");
		strbuf_add_json_double(out, r->s.diff);
		strbuf_addstr(out, ",\"diff_ci_low\":");
		strbuf_add_json_double(out, r->s.diff_low);
		strbuf_addstr(out, ",\"diff_ci_high\":");
		strbuf_add_json_double(out, r->s.diff_high);
		strbuf_addf(out, ",\"ci_unbounded\":%s",
			    r->s.ci_unbounded ? "true" : "false");
		strbuf_addstr(out, ",\"ci_method\":");
		if (r->s.ci_method)
			strbuf_add_json_str(out, r->s.ci_method);
		else
			strbuf_addstr(out, "null");
		strbuf_addstr(out, ",\"p_method\":");
		if (r->s.p_method)
			strbuf_add_json_str(out, r->s.p_method);
		else
			strbuf_addstr(out, "null");
		strbuf_addstr(out, ",\"p_adjusted\":");
		strbuf_add_json_double(out, r->p_adjusted);
		strbuf_addf(out, ",\"family\":%d,\"question\":", r->family);
		strbuf_add_json_str(out, set->question ? set->question : "");
		strbuf_addf(out, ",\"planned\":%s",
			    set->planned ? "true" : "false");
		strbuf_addstr(out, ",\"alpha\":");
		strbuf_add_json_double(out, set->alpha);
		strbuf_addstr(out, ",\"tau\":");
		strbuf_add_json_double(out, r->tau);
		strbuf_addstr(out, ",\"note\":");
		strbuf_reset(&note);
		compare_row_note(r, &note);
		if (note.len)
			strbuf_add_json_str(out, note.buf);
		else
			strbuf_addstr(out, "null");
		strbuf_addch(out, '}');
	}
	strbuf_addstr(out, set->nr ? "\n]\n" : "]\n");
	strbuf_release(&note);
}

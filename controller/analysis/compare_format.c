/*
 * compare_format.c - a comparison set as the LKP/PLM-style text table
 * and as JSON (see compare.h).  Pure: strings in, strings out.
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

/* "± N%" when the relative sd is above 2% (as LKP prints it), else blank. */
static void add_rsd(struct strbuf *out, double mean, double sd)
{
	double rsd = mean != 0 ? 100 * sd / fabs(mean) : NAN;

	if (isfinite(rsd) && rsd > 2)
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

void compare_format_text(const struct compare_set *set, struct strbuf *out)
{
	const struct compare_row *prev = NULL;

	strbuf_addf(out, "base: %s    new: %s", set->base_name, set->new_name);
	if (set->patch_id > 0)
		strbuf_addf(out, "    PLM#%lld", (long long)set->patch_id);
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *r = &set->rows[i];
		struct strbuf ci = STRBUF_INIT, change = STRBUF_INIT;

		if (!prev || strcmp(prev->host, r->host) ||
		    strcmp(prev->workload, r->workload) ||
		    strcmp(prev->params_json, r->params_json)) {
			strbuf_addf(out, "\nhost %s  workload %s", r->host,
				    r->workload);
			if (r->params_text[0])
				strbuf_addf(out, "  params %s", r->params_text);
			strbuf_addf(
				out,
				"\n%13s %6s %9s  %-18s %13s %6s  %-5s  %s\n",
				"base", "%sd", "%change", "95% CI", "new",
				"%sd", "n", "metric");
		}
		prev = r;
		add_num(out, 13, r->s.mean_base);
		add_rsd(out, r->s.mean_base, r->s.sd_base);
		add_pct(&change, r->s.pct_change);
		strbuf_addf(out, " %9s  ", change.buf);
		if (r->s.ci_unbounded) {
			strbuf_addstr(&ci, "unbounded");
		} else if (isnan(r->s.ci_low)) {
			strbuf_addstr(&ci, "-");
		} else {
			strbuf_addch(&ci, '[');
			add_pct(&ci, r->s.ci_low);
			strbuf_addstr(&ci, ", ");
			add_pct(&ci, r->s.ci_high);
			strbuf_addch(&ci, ']');
		}
		strbuf_addf(out, "%-18s ", ci.buf);
		add_num(out, 13, r->s.mean_new);
		add_rsd(out, r->s.mean_new, r->s.sd_new);
		strbuf_reset(&change);
		strbuf_addf(&change, "%zu/%zu", r->s.n_base, r->s.n_new);
		strbuf_addf(out, "  %-5s  %s", change.buf, r->metric);
		if (r->unit[0])
			strbuf_addf(out, " (%s)", r->unit);
		/* Marked only when it is not no-change, as LKP marks. */
		if (r->verdict != CMP_NO_CHANGE) {
			strbuf_addf(out, "  %s",
				    compare_verdict_name(r->verdict));
			if (r->s.p_value < 1e-15)
				strbuf_addstr(out, " (p<1e-15)");
			else if (!isnan(r->s.p_value))
				strbuf_addf(out, " (p=%.2g)", r->s.p_value);
		}
		strbuf_addch(out, '\n');
		strbuf_release(&ci);
		strbuf_release(&change);
	}
}

void compare_format_json(const struct compare_set *set, struct strbuf *out)
{
	strbuf_addch(out, '[');
	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *r = &set->rows[i];

		strbuf_addstr(out, i ? ",\n{" : "\n{");
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
		strbuf_addstr(out, ",\"better\":");
		strbuf_add_json_str(out, compare_better_name(r->better));
		strbuf_addf(out, ",\"n_base\":%zu,\"n_new\":%zu", r->s.n_base,
			    r->s.n_new);
		strbuf_addstr(out, ",\"mean_base\":");
		strbuf_add_json_double(out, r->s.mean_base);
		strbuf_addstr(out, ",\"mean_new\":");
		strbuf_add_json_double(out, r->s.mean_new);
		strbuf_addstr(out, ",\"stddev_base\":");
		strbuf_add_json_double(out, r->s.sd_base);
		strbuf_addstr(out, ",\"stddev_new\":");
		strbuf_add_json_double(out, r->s.sd_new);
		strbuf_addstr(out, ",\"pct_change\":");
		strbuf_add_json_double(out, r->s.pct_change);
		strbuf_addstr(out, ",\"ci_low\":");
		strbuf_add_json_double(out, r->s.ci_low);
		strbuf_addstr(out, ",\"ci_high\":");
		strbuf_add_json_double(out, r->s.ci_high);
		strbuf_addstr(out, ",\"p_value\":");
		strbuf_add_json_double(out, r->s.p_value);
		strbuf_addstr(out, ",\"verdict\":");
		strbuf_add_json_str(out, compare_verdict_name(r->verdict));
		strbuf_addch(out, '}');
	}
	strbuf_addstr(out, set->nr ? "\n]\n" : "]\n");
}

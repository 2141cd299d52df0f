/*
 * cmd_compare.c - `schedfarm compare`: patch against baseline, per metric.
 *
 * Loads both kernels' observations, computes the method of compare.c
 * (doc/STATISTICS.md),
 * stores every row in comparisons (with the method's version, so a page
 * or a query reads what was decided instead of recomputing it) unless
 * --no-store, and prints the PLM/LKP-style table with a closing summary,
 * or JSON.  --delete removes stored comparisons made by mistake.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/builtin.h"
#include "cleanup.h"
#include "cli.h"
#include "analysis/compare.h"
#include "log.h"
#include "parse.h"
#include "plan/plan.h"
#include "store/queue.h"
#include "store/queue_list.h"
#include "banned.h"

const char cmd_compare_usage[] =
	"usage: schedfarm compare --base KERNEL --new KERNEL [OPTIONS] "
	"[--json]\n"
	"       schedfarm compare PLM# [OPTIONS] [--json]\n"
	"       schedfarm compare --delete (PLM# | --base KERNEL --new "
	"KERNEL)\n"
	"                         [--host H] [--workload W]\n"
	"\n"
	"For each (host, workload, params, metric) that either kernel has\n"
	"results for: n on each side, mean and standard deviation, %change =\n"
	"100 (mean_new - mean_base) / |mean_base| (the sign is the\n"
	"difference's: negative means keep their direction), its 95%\n"
	"confidence interval, a p-value and a verdict:\n"
	"\n"
	"  regression, improvement  p < 0.01, the 95% CI on one side of 0 and\n"
	"                           the estimate beyond tau, on the metric's\n"
	"                           worse / better side (below 5 a side: the\n"
	"                           whole 95% CI beyond tau)\n"
	"  changed                  the same, for a metric without a "
	"direction\n"
	"  no-change                the 90% CI inside +-tau\n"
	"  inconclusive             neither (or an unbounded CI): more boots\n"
	"                           would tell\n"
	"  insufficient-data        fewer than 3 observations on a side\n"
	"\n"
	"The interval, by measured coverage (94-96% of A/A truths from 3 to "
	"200\n"
	"per side, bench/calibration): when every value has one sign, the\n"
	"ratio of the means on the log scale (so %change never reaches\n"
	"-100%), t at n_base + n_new - 2 degrees of freedom when both sides\n"
	"have the same n (Welch's otherwise), at every n.  A base mean not\n"
	"distinguishable from 0 gives an unbounded interval and no verdict.\n"
	"Values that cross or include 0 are compared on the\n"
	"difference new - base in their unit (tau: a percentage of their\n"
	"root-mean-square).  The p-value: Mann-Whitney U from 5 per side\n"
	"(exact up to 20), Welch's t below 5 and for imported summaries (on\n"
	"logarithms when every value is positive).\n"
	"\n"
	"Several deciding metrics (the plan's `decides: true`, or all when it\n"
	"marks none) on one host are one family: Holm's correction keeps its\n"
	"family-wise error at 0.01, stated once under the table; a row shows\n"
	"its adjusted p as adj.\n"
	"A look of an `until: decided` sequence tests at a per-look level\n"
	"(Pocock's constant for its looks at 0.01 overall, about 0.0035 for\n"
	"4 looks) with its no-change interval widened to match (about 96%),\n"
	"on the sequence's own boots only; the first look comes at 6 boots\n"
	"per side.  doc/STATISTICS.md has the reasons and the figures.\n"
	"\n"
	"An observation is one boot's mean of its non-warm-up iterations\n"
	"(harmonic mean for rates); runs without boot grouping are one each.\n"
	"tau is --tau, else the plan's for that metric (--plan, or the one\n"
	"plan a PLM#'s jobs ran; the plan may also set the direction), else\n"
	"the metric's default: 2% for throughput and times, 5% for tail\n"
	"latency (p95, p99, max latency); `schedfarm changes --suggest-tau`\n"
	"suggests one from the history.  When the two kernels' results\n"
	"disagree on a direction, the metric is compared without one and its\n"
	"note says so.  PLM# compares a patch's kernel against its base\n"
	"kernel.  Rows come in numeric order of the swept parameters.  The\n"
	"table ends with a summary line (regressions, improvements, changed,\n"
	"inconclusive, no-change, insufficient-data).  A metric measured\n"
	"under one kernel only is no row (their count is said under it).\n"
	"\n"
	"A comparison answers a question: the kernels, host, workload,\n"
	"params and metric, and what decided it.  PLM# asks the patch's own:\n"
	"the plan its jobs ran (--plan must name one of them; a patch that\n"
	"ran several needs it), with its --set overrides and fresh base, as\n"
	"its answer does.  --base/--new asks the plain one (every stored run,\n"
	"the metric's default tau) or, with --plan, that plan's; --tau asks\n"
	"another.  --workload and --metric only filter what is shown of the\n"
	"decided set, never its Holm family.  Each result is stored in the\n"
	"comparisons table under its question (one latest row each); the\n"
	"latest_comparisons and regressions views, the pages and the mails\n"
	"show the patch's own question first, then the plain one.\n"
	"\n"
	"OPTIONS:\n"
	"  --base KERNEL, --new KERNEL  kernel names\n"
	"  --host H         only this host\n"
	"  --workload W     show only this workload's rows\n"
	"  --metric M       only metrics matching M (a shell glob: 'perf.*')\n"
	"  --plan P         only runs of this plan: a plan file (matched by\n"
	"                   its text, as rerun does), a name or a sha256\n"
	"  --tau PCT        noise band in percent (0..100, '2' or '2%') for\n"
	"                   every metric\n"
	"  --changes        print only the rows whose verdict is not "
	"no-change\n"
	"                   (all are still stored)\n"
	"  --exit-code      exit 1 when any row is a regression (as git diff\n"
	"                   --exit-code), else 0\n"
	"  --no-store       compute and print, store nothing\n"
	"  --wide           one line a row (by default the table fits 80\n"
	"                   columns: each metric on a line above its numbers,\n"
	"                   long labels and notes wrapped)\n"
	"  --delete         remove the stored comparisons of the pair (every\n"
	"                   look; narrowed by --host, --workload) and print\n"
	"                   how many rows went: for one made by mistake\n"
	"  --json           an array of objects: host, workload, params,\n"
	"                   metric, unit, better, n_base, n_new, mean_base,\n"
	"                   mean_new, stddev_base, stddev_new, pct_change,\n"
	"                   ci_low, ci_high, p_value, verdict, scale,\n"
	"                   difference, diff_ci_low, diff_ci_high,\n"
	"                   ci_unbounded, ci_method, p_method, p_adjusted,\n"
	"                   family (Holm's, 0 or 1: alone), question,\n"
	"                   planned, alpha, tau, note\n"
	"\n"
	"Exit status: 0, or 1 when nothing matched, a name does not exist, or\n"
	"(--exit-code) a regression was found; 2 for a usage error.\n"
	"\n"
	"Examples:\n"
	"  schedfarm compare --base v6.1 --new v6.1-eevdf --host box1\n"
	"  schedfarm compare 2042 --changes --exit-code\n"
	"  schedfarm compare --delete --base v6.1 --new v6.1-typo\n";

/* Keep only the rows whose metric matches glob (set's order kept). */
/* "5 regressions, 1 improvement, ..." over every row of set. */
static void summary_line(const struct compare_set *set, struct strbuf *out)
{
	static const struct {
		enum cmp_verdict v;
		const char *one, *many;
	} kinds[] = {
		{ CMP_REGRESSION, "regression", "regressions" },
		{ CMP_IMPROVEMENT, "improvement", "improvements" },
		{ CMP_CHANGED, "changed", "changed" },
		{ CMP_INCONCLUSIVE, "inconclusive", "inconclusive" },
		{ CMP_NO_CHANGE, "no-change", "no-change" },
		{ CMP_INSUFFICIENT, "insufficient-data", "insufficient-data" },
	};

	strbuf_addstr(out, "\nsummary: ");
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		size_t n = 0;

		for (size_t i = 0; i < set->nr; i++)
			n += set->rows[i].verdict == kinds[k].v;
		strbuf_addf(out, "%s%zu %s", k ? ", " : "", n,
			    n == 1 ? kinds[k].one : kinds[k].many);
	}
	strbuf_addf(out, " (%zu metric%s)\n", set->nr, set->nr == 1 ? "" : "s");
}

/* --plan: a file is matched by its text; anything else is a name or a
 * sha256 for compare.c. */
static const char *plan_arg(struct db *db, const char *arg, struct strbuf *sha)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct stat st;
	int r;

	if (stat(arg, &st) < 0 || !S_ISREG(st.st_mode))
		return arg;
	r = strbuf_read_file(&text, arg, PLAN_MAX_BYTES);
	if (r < 0)
		fatal("cannot read the plan %s: %s", arg, strerror(-r));
	r = queue_find_plan(db, text.buf, text.len, sha, &err);
	if (r < 0)
		cli_db_fatal("compare", &err);
	if (r > 0)
		fatal("no job ran the plan %s (no stored plan has its text)",
		      arg);
	strbuf_release(&text);
	strbuf_release(&err);
	return sha->buf;
}

/* --tau's value: "2%" as plans write it, or "2"; a bad one ends the verb. */
static double tau_arg(const char *arg)
{
	size_t l = strlen(arg);
	char *num = xstrndup(arg, l && arg[l - 1] == '%' ? l - 1 : l);
	const char *why;
	double tau;
	int r;

	r = parse_double(num, 0, 100, &tau, &why);
	free(num);
	if (r < 0)
		die_usage("--tau '%s' %s (a percentage, "
			  "0..100, like 2 or 2%%)",
			  arg, why);
	return tau;
}

/*
 * compare --delete: the stored comparison rows of q's pair (and its
 * --host, --workload) deleted, and said.  The exit status: 0, or 1 when
 * there was none; a database error ends the verb.
 */
static int delete_pair(struct db *db, const struct compare_query *q)
{
	struct strbuf err = STRBUF_INIT;
	int64_t rows = 0;

	if (compare_delete(db, q, &rows, &err) < 0)
		fatal("compare --delete: %s", err.buf);
	strbuf_release(&err);
	if (!rows) {
		log_error("no stored comparison of that pair%s",
			  q->host || q->workload ? " with these filters" : "");
		return 1;
	}
	printf("deleted %lld stored comparison row%s\n", (long long)rows,
	       rows == 1 ? "" : "s");
	return 0;
}

/*
 * The comparison set as compare prints it, into out: JSON, or the table
 * and its summary line; with changes (--changes) only the rows whose
 * verdict is not no-change.
 */
static void format_set(const struct compare_set *set, int changes, int json,
		       int wide, struct strbuf *out)
{
	struct compare_set view;
	struct strbuf text = STRBUF_INIT;

	if (changes) {
		/* A view of the rows to print; the strings stay set's. */
		view = *set;
		view.rows = xcalloc(set->nr, sizeof(*view.rows));
		view.nr = 0;
		for (size_t i = 0; i < set->nr; i++)
			if (set->rows[i].verdict != CMP_NO_CHANGE)
				view.rows[view.nr++] = set->rows[i];
	}
	if (json) {
		compare_format_json(changes ? &view : set, out);
	} else {
		compare_format_table(changes ? &view : set, wide, &text);
		if (changes && !view.nr)
			strbuf_addstr(&text, "\n(every metric is no-change)\n");
		summary_line(set, &text);
		if (wide)
			strbuf_addbuf(out, &text);
		else
			cli_wrap(out, text.buf, CLI_TEXT_WIDTH);
	}
	strbuf_release(&text);
	if (changes)
		free(view.rows);
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "new", required_argument, NULL, 'n' },
		{ "host", required_argument, NULL, 'H' },
		{ "workload", required_argument, NULL, 'w' },
		{ "metric", required_argument, NULL, 'm' },
		{ "plan", required_argument, NULL, 'p' },
		{ "tau", required_argument, NULL, 't' },
		{ "changes", no_argument, NULL, 'c' },
		{ "exit-code", no_argument, NULL, 'x' },
		{ "no-store", no_argument, NULL, 'N' },
		{ "delete", no_argument, NULL, 'D' },
		{ "json", no_argument, NULL, 'j' },
		{ "wide", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	struct compare_query q = { .tau_pct = NAN };
	struct compare_set set;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, sha = STRBUF_INIT;
	const char *why, *metric = NULL, *plan = NULL;
	int opt, json = cli.json, r, changes = 0, exit_code = 0, no_store = 0,
		 del = 0, ret = 0, wide = 0;
	struct db *db;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			q.base = optarg;
			break;
		case 'n':
			q.new_ = optarg;
			break;
		case 'H':
			q.host = optarg;
			break;
		case 'w':
			q.workload = optarg;
			break;
		case 'm':
			metric = optarg;
			break;
		case 'p':
			plan = optarg;
			break;
		case 't':
			q.tau_pct = tau_arg(optarg);
			break;
		case 'c':
			changes = 1;
			break;
		case 'x':
			exit_code = 1;
			break;
		case 'N':
			no_store = 1;
			break;
		case 'D':
			del = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'W':
			wide = 1;
			break;
		default:
			die_usage("see 'schedfarm compare --help'");
		}
	}
	if (optind < argc) {
		const char *plm = argv[optind];

		if (plm[0] == 'P' && !strncmp(plm, "PLM#", 4))
			plm += 4;
		if (q.base || q.new_)
			die_usage("give PLM# or --base/--new, not both");
		if (optind + 1 < argc)
			die_usage("compare takes one PLM#");
		if (parse_i64(plm, 1, INT64_MAX, &q.patch_id, &why) < 0)
			die_usage("PLM# '%s' %s", argv[optind], why);
	} else if (!q.base || !q.new_) {
		die_usage("compare needs --base and --new, or a PLM#");
	}
	if (del && (metric || plan || changes || exit_code || no_store ||
		    json || !isnan(q.tau_pct)))
		die_usage("--delete takes the pair and --host, --workload "
			  "only");

	db = cli_open_db();
	if (del) {
		ret = delete_pair(db, &q);
		db_close(db);
		return ret;
	}
	if (plan)
		q.plan = plan_arg(db, plan, &sha);
	r = compare_run(db, &q, &set, &err);
	if (r < 0)
		fatal("compare: %s", err.buf);
	if (set.nr == 0) {
		strbuf_reset(&err);
		if (compare_why_empty(db, &q, &set, &err) < 0)
			fatal("compare: %s", err.buf);
		log_error("nothing to compare: %s", err.buf);
		compare_set_release(&set);
		db_close(db);
		return 1;
	}
	if (metric) {
		compare_keep_rows(&set, metric, NULL);
		if (set.nr == 0) {
			log_error("no metric of %s or %s matches '%s'",
				  set.base_name, set.new_name, metric);
			compare_set_release(&set);
			db_close(db);
			return 1;
		}
	}
	if (!no_store && compare_store(db, &set, &err) < 0)
		fatal("cannot store the comparison: %s", err.buf);
	for (size_t i = 0; i < set.nr; i++)
		if (exit_code && set.rows[i].verdict == CMP_REGRESSION)
			ret = 1;
	format_set(&set, changes, json, wide, &out);
	cli_emit(&out);
	compare_set_release(&set);
	db_close(db);
	strbuf_release(&err);
	strbuf_release(&sha);
	return ret;
}

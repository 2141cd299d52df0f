/*
 * cmd_compare.c - `schedfarm compare`: patch against baseline, per metric.
 *
 * Loads both kernels' observations, computes the method of compare.c
 * (doc/STATISTICS.md),
 * stores every row in comparisons (with the method's version, so a page
 * or a query reads what was decided instead of recomputing it), and
 * prints the PLM/LKP-style table or JSON.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cli.h"
#include "analysis/compare.h"
#include "log.h"
#include "parse.h"
#include "banned.h"

const char cmd_compare_usage[] =
	"usage: schedfarm compare --base KERNEL --new KERNEL [--host H]\n"
	"                         [--workload W] [--plan P] [--tau PCT] "
	"[--json]\n"
	"       schedfarm compare PLM# [--host H] [--workload W] [--plan P]\n"
	"                         [--tau PCT] [--json]\n"
	"\n"
	"For each (host, workload, params, metric) that either kernel has\n"
	"results for: n on each side, mean and standard deviation, %change =\n"
	"100 (mean_new - mean_base) / |mean_base| (the sign is the\n"
	"difference's: negative means keep their direction), its 95%\n"
	"confidence interval, a p-value and a verdict:\n"
	"\n"
	"  regression, improvement  p < 0.01, the 95% CI on one side of 0 and\n"
	"                           the estimate beyond tau, on the metric's\n"
	"                           worse / better side\n"
	"  changed                  the same, for a metric without a direction\n"
	"  no-change                the 90% CI inside +-tau\n"
	"  inconclusive             neither (or an unbounded CI): more boots\n"
	"                           would tell\n"
	"  insufficient-data        fewer than 3 observations on a side\n"
	"\n"
	"The interval, by measured coverage (94-96% of A/A truths from 3 to 50\n"
	"per side, bench/calibration): Fieller's up to 50 observations per\n"
	"side and for summaries, t at n_base + n_new - 2 degrees of freedom\n"
	"when both sides have the same n (Welch's otherwise); a BCa bootstrap\n"
	"above 50.  A base mean not distinguishable from 0 gives an unbounded\n"
	"interval and no verdict.  Values that cross 0 are compared on the\n"
	"difference new - base in their unit (tau: a percentage of their\n"
	"root-mean-square).  The p-value: Mann-Whitney U from 5 per side\n"
	"(exact up to 20), Welch's t below 5 and for imported summaries (on\n"
	"logarithms when every value is positive).\n"
	"\n"
	"Several deciding metrics (the plan's `decides: true`, or all when it\n"
	"marks none) on one host are one family: Holm's correction keeps its\n"
	"family-wise error at 0.01, stated under the table and in each note.\n"
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
	"kernel.  Each result is stored in the comparisons table (see the\n"
	"latest_comparisons view).\n"
	"\n"
	"  --base KERNEL, --new KERNEL  kernel names\n"
	"  --host H         only this host\n"
	"  --workload W     only this workload\n"
	"  --plan P         only runs of this plan (name or sha256)\n"
	"  --tau PCT        noise band in percent (0..100) for every metric\n"
	"  --json           an array of objects: host, workload, params,\n"
	"                   metric, unit, better, n_base, n_new, mean_base,\n"
	"                   mean_new, stddev_base, stddev_new, pct_change,\n"
	"                   ci_low, ci_high, p_value, verdict, scale,\n"
	"                   difference, diff_ci_low, diff_ci_high,\n"
	"                   ci_unbounded, ci_method, p_method, p_adjusted,\n"
	"                   alpha, tau, note\n"
	"\n"
	"Examples:\n"
	"  schedfarm compare --base v6.1 --new v6.1-eevdf --host box1\n"
	"  schedfarm compare 2042 --json\n";

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "new", required_argument, NULL, 'n' },
		{ "host", required_argument, NULL, 'H' },
		{ "workload", required_argument, NULL, 'w' },
		{ "plan", required_argument, NULL, 'p' },
		{ "tau", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct compare_query q = { .tau_pct = NAN };
	struct compare_set set;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct db *db;
	const char *why;
	int opt, json = cli.json, r;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
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
		case 'p':
			q.plan = optarg;
			break;
		case 't':
			if (parse_double(optarg, 0, 100, &q.tau_pct, &why) < 0)
				die_usage(
					"--tau '%s' %s (a percentage, 0..100)",
					optarg, why);
			break;
		case 'j':
			json = 1;
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

	db = cli_open_db();
	r = compare_run(db, &q, &set, &err);
	if (r < 0)
		fatal("compare: %s", err.buf);
	if (set.nr == 0) {
		log_error("no results of %s or %s to compare%s", set.base_name,
			  set.new_name,
			  q.host || q.workload || q.plan ? " with these filters"
							 : "");
		compare_set_release(&set);
		db_close(db);
		return 1;
	}
	if (compare_store(db, &set, &err) < 0)
		fatal("cannot store the comparison: %s", err.buf);
	if (json)
		compare_format_json(&set, &out);
	else
		compare_format_text(&set, &out);
	cli_emit(&out);
	compare_set_release(&set);
	db_close(db);
	strbuf_release(&err);
	return 0;
}

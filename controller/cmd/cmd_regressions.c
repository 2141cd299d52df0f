/*
 * cmd_regressions.c - `schedfarm regressions`: what got worse, latest first.
 *
 * Reads the `regressions` view of schema 002: the latest comparison of
 * each (base, new, host, workload, params, metric) whose verdict is
 * regression.  The view sits on a partial index of latest regressions by
 * time, so the answer comes from indexes however large the table grows.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cli.h"
#include "log.h"
#include "parse.h"
#include "store/comparisons.h"
#include "store/hosts.h"
#include "banned.h"

const char cmd_regressions_usage[] =
	"usage: schedfarm regressions [--since DATE] [--host H]\n"
	"                             [--min-change PCT] [--limit N] [--wide]\n"
	"                             [--json]\n"
	"\n"
	"Every latest comparison whose verdict is regression, newest first:\n"
	"when it was computed, the patch (PLM#), base and new kernel, host,\n"
	"workload, params, metric, %change, its 95% CI and the p-value.  The\n"
	"same rows are the 'regressions' view for psql users.  Past 80\n"
	"columns, each row's metric, kernels, host, workload and params go on\n"
	"a line of their own under it; --wide keeps one line a row.\n"
	"\n"
	"  --since DATE       computed at or after DATE (anything PostgreSQL\n"
	"                     reads as a timestamp: 2026-11-01, yesterday)\n"
	"  --host H           only this host\n"
	"  --min-change PCT   only |%change| >= PCT\n"
	"  --limit N          at most N rows (default 1000)\n"
	"  --json             an array of objects: computed_at, patch,\n"
	"                     base_kernel, new_kernel, host, workload, "
	"params,\n"
	"                     metric, unit, pct_change, ci_low, ci_high,\n"
	"                     p_value\n"
	"\n"
	"Example:\n"
	"  schedfarm regressions --since 2026-11-01 --min-change 3\n";

static void add_cell_pct(struct strbuf *out, const char *v)
{
	double d;

	if (v && parse_double(v, -1e300, 1e300, &d, NULL) == 0)
		strbuf_addf(out, "%+.1f%%", d);
	else
		strbuf_addch(out, '-');
}

static void add_json_num(struct strbuf *out, const char *v)
{
	double d;

	if (v && parse_double(v, -1e300, 1e300, &d, NULL) == 0)
		strbuf_add_json_double(out, d);
	else
		strbuf_addstr(out, "null");
}

/*
 * The rows of res (comparisons_regressions()'s columns: computed, PLM#,
 * base, new, host, workload, params, metric, unit, %change, CI low and
 * high, p) as a table with a header, into out: when it passes 80 columns,
 * each row keeps when, PLM#, %change, CI and p on its line and says its
 * metric, kernels, host, workload and params on a line of its own under
 * it (cli_table_print()); wide: one line a row, always.
 */
static void print_table(struct db_result *res, int wide, struct strbuf *out)
{
	static const char *const head[] = { "computed", "PLM#",	 "%change",
					    "95% CI",	"p",	 "metric",
					    "base",	"new",	 "host",
					    "workload", "params" };
	struct cli_table t;

	cli_table_init(&t, head, "llrll", 11, 5);
	for (int i = 0; i < db_nrows(res); i++) {
		struct strbuf ci = STRBUF_INIT, ch = STRBUF_INIT,
			      pv = STRBUF_INIT;
		const char *p = db_get(res, i, 12), *cells[11];
		double v;

		add_cell_pct(&ch, db_get(res, i, 9));
		strbuf_addch(&ci, '[');
		add_cell_pct(&ci, db_get(res, i, 10));
		strbuf_addstr(&ci, ", ");
		add_cell_pct(&ci, db_get(res, i, 11));
		strbuf_addch(&ci, ']');
		if (p && parse_double(p, 0, 1, &v, NULL) == 0)
			strbuf_addf(&pv, "%.2g", v);
		cells[0] = db_get(res, i, 0);
		cells[1] = db_get(res, i, 1);
		cells[2] = ch.buf;
		cells[3] = ci.buf;
		cells[4] = pv.len ? pv.buf : "-";
		cells[5] = db_get(res, i, 7);
		cells[6] = db_get(res, i, 2);
		cells[7] = db_get(res, i, 3);
		cells[8] = db_get(res, i, 4);
		cells[9] = db_get(res, i, 5);
		cells[10] = strcmp(db_get(res, i, 6), "{}") ? db_get(res, i, 6)
							    : "-";
		cli_table_row(&t, cells);
		strbuf_release(&ci);
		strbuf_release(&ch);
		strbuf_release(&pv);
	}
	cli_table_print(&t, wide ? 0 : CLI_TEXT_WIDTH, out);
	cli_table_release(&t);
}

int cmd_regressions(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "host", required_argument, NULL, 'H' },
		{ "min-change", required_argument, NULL, 'm' },
		{ "limit", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "wide", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct db_result *res = NULL;
	const char *since = NULL, *host = NULL, *why;
	double min_change = NAN;
	int64_t limit = 1000;
	int opt, json = cli.json, n, wide = 0;
	struct db *db;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			since = optarg;
			break;
		case 'H':
			host = optarg;
			break;
		case 'm':
			if (parse_double(optarg, 0, 1e6, &min_change, &why) < 0)
				die_usage(
					"--min-change '%s' %s (percent, >= 0)",
					optarg, why);
			break;
		case 'l':
			if (parse_i64(optarg, 1, 10000000, &limit, &why) < 0)
				die_usage("--limit '%s' %s (1..10000000)",
					  optarg, why);
			break;
		case 'j':
			json = 1;
			break;
		case 'W':
			wide = 1;
			break;
		default:
			die_usage("see 'schedfarm regressions --help'");
		}
	}
	if (optind != argc)
		die_usage("regressions takes no arguments");

	db = cli_open_db();
	cli_check_since(db, since);
	cli_check_host(db, host);
	if (comparisons_regressions(db, since, host, min_change, limit, &res,
				    &err) < 0)
		fatal("regressions: %s", err.buf);
	n = db_nrows(res);
	if (json) {
		strbuf_addch(&out, '[');
		for (int i = 0; i < n; i++) {
			static const char *const keys[] = {
				"computed_at", "patch",	 "base_kernel",
				"new_kernel",  "host",	 "workload",
				"params",      "metric", "unit",
				"pct_change",  "ci_low", "ci_high",
				"p_value"
			};

			strbuf_addstr(&out, i ? ",\n{" : "\n{");
			for (int c = 0; c < 13; c++) {
				const char *v = db_get(res, i, c);

				if (c)
					strbuf_addch(&out, ',');
				strbuf_add_json_str(&out, keys[c]);
				strbuf_addch(&out, ':');
				if (c == 1 || c >= 9)
					add_json_num(&out, v);
				else if (c == 6)
					strbuf_addstr(&out, v ? v : "{}");
				else
					strbuf_add_json_str(&out, v);
			}
			strbuf_addch(&out, '}');
		}
		strbuf_addstr(&out, n ? "\n]\n" : "]\n");
	} else if (n == 0) {
		strbuf_addstr(&out, "no regressions\n");
	} else {
		print_table(res, wide, &out);
	}
	cli_emit(&out);
	db_result_free(res);
	db_close(db);
	strbuf_release(&err);
	return 0;
}

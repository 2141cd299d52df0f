/*
 * cmd_changes.c - `schedfarm changes`: the change points of each host's
 * history, and the noise band the history suggests per metric.
 *
 * First brings the stored change points up to date for the series that
 * have new points (analysis/changes.c, unless --no-update), then lists
 * them newest first with the kernels either side and the size of the
 * shift; or, with --suggest-tau, prints per metric the A/A spread of the
 * history and the tau it suggests.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cli.h"
#include "analysis/changes.h"
#include "log.h"
#include "parse.h"
#include "banned.h"

const char cmd_changes_usage[] =
	"usage: schedfarm changes [--host H] [--metric M] [--since DATE] "
	"[--limit N]\n"
	"                         [--no-update] [--json]\n"
	"       schedfarm changes --suggest-tau [--host H] [--metric M]\n"
	"                         [--boots N] [--json]\n"
	"\n"
	"Each host's history: per (host, workload, params, metric), the\n"
	"observations of the kernels that are not a patch's (the base and\n"
	"mainline kernels run there again and again), oldest first, one\n"
	"point per boot.  Its change points are found by E-divisive means\n"
	"(Matteson & James 2014) as Apache Otava and MongoDB use it: windows\n"
	"of 50 points overlapping by half, a split where the energy\n"
	"divergence is largest while Student's t test of the two sides,\n"
	"Bonferroni-adjusted for the positions the split could take, gives\n"
	"p < 0.01; then every candidate is kept only while p < 0.001 against\n"
	"its neighbours, and put where least squares says.  They are stored\n"
	"(history_changes), found again only for series with new points.\n"
	"\n"
	"Each change point: when the first point after the change ran\n"
	"(UTC), the host and workload; its params on a line of their own;\n"
	"the metric, the mean before and after, the shift (%, or in the unit\n"
	"when the mean before is 0), better or worse by the metric's\n"
	"direction, and p; the kernels either side.  Long lines wrap at 80\n"
	"columns.\n"
	"\n"
	"  --host H        only this host\n"
	"  --metric M      only metrics matching M (* and ? as in a glob)\n"
	"  --since DATE    change points measured at or after DATE\n"
	"                  (anything PostgreSQL reads as a timestamp)\n"
	"  --limit N       at most N lines (1..1000000; default 1000)\n"
	"  --no-update     list what is stored, without looking for new ones\n"
	"  --suggest-tau   per metric: the spread of A/A comparisons within\n"
	"                  the history (adjacent blocks of --boots points\n"
	"                  between change points) and the noise band tau it\n"
	"                  suggests: the 95th percentile of their |%change|,\n"
	"                  rounded up to 0.5%, beside today's default\n"
	"  --boots N       boots per side of those A/A blocks (1..100;\n"
	"                  default 5)\n"
	"  --json          one object: the update's counts and the change\n"
	"                  points (or the suggestions)\n"
	"\n"
	"Examples:\n"
	"  schedfarm changes --host box1 --since 2026-11-01\n"
	"  schedfarm changes --suggest-tau --metric 'hackbench*'\n";

/* A number for a table cell: 4 significant digits, "-" for none. */
static void cell(struct strbuf *out, double v)
{
	if (isnan(v))
		strbuf_addch(out, '-');
	else
		strbuf_addf(out, "%.4g", v);
}

static void print_changes(const struct changes_rows *rows,
			  const struct changes_update_stats *st, int updated,
			  int json, struct strbuf *out)
{
	if (json) {
		strbuf_addstr(out, "{");
		if (updated)
			strbuf_addf(out,
				    "\"series\":%zu,\"analysed\":%zu,"
				    "\"points\":%zu,\"found\":%zu,",
				    st->series, st->analysed, st->points,
				    st->changes);
		strbuf_addstr(out, "\"changes\":[");
		for (size_t i = 0; i < rows->nr; i++) {
			const struct changes_row *c = &rows->v[i];

			strbuf_addstr(out, i ? ",\n{" : "\n{");
			strbuf_addstr(out, "\"at\":");
			strbuf_add_json_str(out, c->at);
			strbuf_addstr(out, ",\"host\":");
			strbuf_add_json_str(out, c->host);
			strbuf_addstr(out, ",\"workload\":");
			strbuf_add_json_str(out, c->workload);
			strbuf_addstr(out, ",\"params\":");
			strbuf_add_json_str(out, c->params_text);
			strbuf_addstr(out, ",\"metric\":");
			strbuf_add_json_str(out, c->metric);
			strbuf_addstr(out, ",\"unit\":");
			strbuf_add_json_str(out, c->unit);
			strbuf_addstr(out, ",\"better\":");
			strbuf_add_json_str(out, c->better);
			strbuf_addstr(out, ",\"kernel_before\":");
			strbuf_add_json_str(out, c->kernel_before);
			strbuf_addstr(out, ",\"kernel_after\":");
			strbuf_add_json_str(out, c->kernel_after);
			strbuf_addf(out,
				    ",\"index\":%zu,\"points\":%zu,"
				    "\"n_before\":%zu,\"n_after\":%zu",
				    c->idx, c->n_points, c->n_before,
				    c->n_after);
			strbuf_addstr(out, ",\"mean_before\":");
			strbuf_add_json_double(out, c->mean_before);
			strbuf_addstr(out, ",\"mean_after\":");
			strbuf_add_json_double(out, c->mean_after);
			strbuf_addstr(out, ",\"shift\":");
			strbuf_add_json_double(out, c->shift);
			strbuf_addstr(out, ",\"pct_shift\":");
			strbuf_add_json_double(out, c->pct_shift);
			strbuf_addstr(out, ",\"p_value\":");
			strbuf_add_json_double(out, c->p);
			strbuf_addstr(out, ",\"direction\":");
			strbuf_add_json_str(out, c->direction);
			strbuf_addch(out, '}');
		}
		strbuf_addstr(out, rows->nr ? "\n]}\n" : "]}\n");
		return;
	}
	if (updated)
		strbuf_addf(out,
			    "history: %zu series; %zu with new points searched "
			    "(%zu points), %zu change points in them\n",
			    st->series, st->analysed, st->points, st->changes);
	if (!rows->nr) {
		strbuf_addstr(out, "no change points\n");
		return;
	}
	for (size_t i = 0; i < rows->nr; i++) {
		const struct changes_row *c = &rows->v[i];

		strbuf_addf(out, "%s  %s  %s\n", c->at, c->host, c->workload);
		if (c->params_text[0])
			strbuf_addf(out, "    params %s\n", c->params_text);
		strbuf_addf(out, "    %s", c->metric);
		if (c->unit[0])
			strbuf_addf(out, " (%s)", c->unit);
		strbuf_addstr(out, ": ");
		cell(out, c->mean_before);
		strbuf_addstr(out, " -> ");
		cell(out, c->mean_after);
		if (isfinite(c->pct_shift))
			strbuf_addf(out, " (%+.1f%%, %s)", c->pct_shift,
				    c->direction);
		else
			strbuf_addf(out, " (%+.4g%s%s, %s)", c->shift,
				    c->unit[0] ? " " : "", c->unit,
				    c->direction);
		strbuf_addf(out,
			    ", p %.2g\n    between %s and %s, point %zu of %zu "
			    "(%zu before, %zu after)\n",
			    c->p, c->kernel_before, c->kernel_after, c->idx + 1,
			    c->n_points, c->n_before, c->n_after);
	}
}

static void print_taus(const struct changes_taus *t, int boots, int json,
		       struct strbuf *out)
{
	/* The metric first; the others fit beside it, or move under a
	 * row with a long metric name (cli_table_print()). */
	static const char *const head[] = { "metric", "series",	 "pairs",
					    "CV",     "p95 |%|", "suggest",
					    "default" };
	struct cli_table tb;

	if (json) {
		strbuf_addf(out, "{\"boots\":%d,\"metrics\":[", boots);
		for (size_t i = 0; i < t->nr; i++) {
			const struct changes_tau *m = &t->v[i];

			strbuf_addstr(out, i ? ",\n{" : "\n{");
			strbuf_addstr(out, "\"metric\":");
			strbuf_add_json_str(out, m->metric);
			strbuf_addstr(out, ",\"unit\":");
			strbuf_add_json_str(out, m->unit);
			strbuf_addf(out, ",\"series\":%zu,\"pairs\":%zu",
				    m->series, m->pairs);
			strbuf_addstr(out, ",\"cv\":");
			strbuf_add_json_double(out, m->cv);
			strbuf_addstr(out, ",\"p95\":");
			strbuf_add_json_double(out, m->p95);
			strbuf_addstr(out, ",\"tau\":");
			strbuf_add_json_double(out, m->tau);
			strbuf_addstr(out, ",\"current\":");
			strbuf_add_json_double(out, m->current);
			strbuf_addch(out, '}');
		}
		strbuf_addstr(out, t->nr ? "\n]}\n" : "]}\n");
		return;
	}
	if (!t->nr) {
		strbuf_addstr(out, "no history to suggest tau from\n");
		return;
	}
	strbuf_addf(out,
		    "A/A spread of the history, %d boots per side "
		    "(blocks between change points):\n",
		    boots);
	cli_table_init(&tb, head, "lrrrrrr", 7, 1);
	for (size_t i = 0; i < t->nr; i++) {
		const struct changes_tau *m = &t->v[i];
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT,
			      n = STRBUF_INIT, p = STRBUF_INIT, d = STRBUF_INIT;
		const char *cells[7];

		if (isnan(m->cv))
			strbuf_addch(&a, '-');
		else
			strbuf_addf(&a, "%.2f%%", m->cv);
		if (isnan(m->p95)) {
			strbuf_addch(&b, '-');
			strbuf_addch(&c, '-');
		} else {
			strbuf_addf(&b, "%.2f%%", m->p95);
			strbuf_addf(&c, "tau %.1f%%", m->tau);
		}
		strbuf_addf(&n, "%zu", m->series);
		strbuf_addf(&p, "%zu", m->pairs);
		strbuf_addf(&d, "%.1f%%", m->current);
		cells[0] = m->metric;
		cells[1] = n.buf;
		cells[2] = p.buf;
		cells[3] = a.buf;
		cells[4] = b.buf;
		cells[5] = c.buf;
		cells[6] = d.buf;
		cli_table_row(&tb, cells);
		strbuf_release(&a);
		strbuf_release(&b);
		strbuf_release(&c);
		strbuf_release(&n);
		strbuf_release(&p);
		strbuf_release(&d);
	}
	cli_table_print(&tb, CLI_TEXT_WIDTH, out);
	cli_table_release(&tb);
	strbuf_addstr(out,
		      "(set it in the plan: metrics: {NAME: {tau: N%}})\n");
}

int cmd_changes(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "metric", required_argument, NULL, 'm' },
		{ "since", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'l' },
		{ "no-update", no_argument, NULL, 'n' },
		{ "suggest-tau", no_argument, NULL, 't' },
		{ "boots", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct changes_query q = { .limit = 1000 };
	struct changes_update_stats st;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	int opt, json = cli.json, update = 1, suggest = 0, boots = 5;
	const char *why;
	struct db *db;

	memset(&st, 0, sizeof(st));
	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			q.host = optarg;
			break;
		case 'm':
			q.metric = optarg;
			break;
		case 's':
			q.since = optarg;
			break;
		case 'l':
			if (parse_int(optarg, 1, 1000000, &q.limit, &why) < 0)
				die_usage("--limit '%s' %s (1..1000000)",
					  optarg, why);
			break;
		case 'n':
			update = 0;
			break;
		case 't':
			suggest = 1;
			break;
		case 'b':
			if (parse_int(optarg, 1, 100, &boots, &why) < 0)
				die_usage("--boots '%s' %s (1..100)", optarg,
					  why);
			break;
		case 'j':
			json = 1;
			break;
		default:
			die_usage("see 'schedfarm changes --help'");
		}
	}
	if (optind != argc)
		die_usage("changes takes no arguments");
	if (suggest && q.since)
		die_usage("--since lists change points; --suggest-tau reads "
			  "the whole history");

	db = cli_open_db();
	/* A --since PostgreSQL cannot read is the user's mistake, said as
	 * such, not the cast's raw error from deep in changes_list(). */
	cli_check_since(db, q.since);
	cli_check_host(db, q.host);
	if (suggest) {
		struct changes_taus t;

		if (changes_suggest_tau(db, &q, boots, &t, &err) < 0)
			cli_db_fatal("changes", &err);
		print_taus(&t, boots, json, &out);
		changes_taus_release(&t);
	} else {
		struct changes_rows rows;

		if (update && changes_update(db, q.host, &st, &err) < 0)
			cli_db_fatal("changes", &err);
		if (changes_list(db, &q, &rows, &err) < 0)
			cli_db_fatal("changes", &err);
		print_changes(&rows, &st, update, json, &out);
		changes_rows_release(&rows);
	}
	if (!json) {
		/* Long names and params wrap at word ends: 80 columns. */
		struct strbuf w = STRBUF_INIT;

		cli_wrap(&w, out.buf, CLI_TEXT_WIDTH);
		strbuf_release(&out);
		out = w;
	}
	cli_emit(&out);
	db_close(db);
	strbuf_release(&err);
	return 0;
}

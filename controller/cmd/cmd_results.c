/*
 * cmd_results.c - `schedfarm results`: the numbers stored for a job, a run
 * or a kernel, exactly as ingested (--json), or as a table for people:
 * each run's parameters that differ from the workload's defaults (what
 * tells the runs of a sweep apart), values rounded to the precision of
 * their metric, optionally only some workloads, metrics and parameter
 * values.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cleanup.h"
#include "cli.h"
#include "json.h"
#include "log.h"
#include "parse.h"
#include "store/ingest.h"
#include "strvec.h"
#include "workloads.h"
#include "banned.h"

const char cmd_results_usage[] =
	"usage: schedfarm results JOB [FILTERS] [--wide] [--json]\n"
	"       schedfarm results --run RUN [FILTERS] [--wide] [--json]\n"
	"       schedfarm results --kernel NAME [FILTERS] [--wide] [--json]\n"
	"\n"
	"Print every result stored for a job (STP id), one run, or every run\n"
	"under a kernel: job, run, host, kernel, workload, the run's\n"
	"parameters that differ from the workload's defaults, iteration,\n"
	"whether it was a warm-up (w), metric, value, unit and which "
	"direction\n"
	"is better.  Values are rounded to the precision of their metric: "
	"five\n"
	"significant digits at the metric's largest value, so that a column\n"
	"of one metric lines up; integers stay whole.\n"
	"\n"
	"FILTERS (all must hold):\n"
	"  --workload W     only runs of workload W\n"
	"  --metric M       only metrics matching M (a shell glob: 'perf.*')\n"
	"  --param K=V      only runs whose parameter K is V (as stored: 16,\n"
	"                   1s, /a); may be repeated\n"
	"\n"
	"The table fits 80 columns: each run's job, run, host, kernel,\n"
	"workload and params once above its rows (a long line wrapped);\n"
	"--wide prints one line a row with every column, for grep and sort.\n"
	"\n"
	"With --json, one array of objects with the keys job, run, host,\n"
	"kernel, workload, params (an object, every parameter), iteration,\n"
	"warmup, metric, value (full precision), unit and better.\n"
	"\n"
	"Examples:\n"
	"  schedfarm results 42 --metric round_trip_us\n"
	"  schedfarm results --kernel v6.1 --wide | sort -k9\n"
	"  schedfarm results --kernel v6.1-fix --param threads=16\n";

enum {
	R_JOB,
	R_RUN,
	R_HOST,
	R_KERNEL,
	R_WORKLOAD,
	R_PARAMS,
	R_ITER,
	R_WARMUP,
	R_METRIC,
	R_VALUE,
	R_UNIT,
	R_BETTER,
	R_NCOLS
};

/* Decimals that give 5 significant digits at the largest |value| of a
 * metric (0 when every value is whole). */
static int metric_decimals(double maxabs, int whole)
{
	int d;

	if (whole || !(maxabs > 0) || !isfinite(maxabs))
		return whole ? 0 : 4;
	d = 4 - (int)floor(log10(maxabs));
	return d < 0 ? 0 : d > 9 ? 9 : d;
}

/* Per metric: its largest |value| and whether all values are whole. */
struct metric_prec {
	char *metric;
	double maxabs;
	int whole;
};

static struct metric_prec *prec_find(struct metric_prec *v, size_t n,
				     const char *metric)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].metric, metric))
			return &v[i];
	return NULL;
}

static const char *const head[R_NCOLS] = { "JOB",    "RUN",	 "HOST",
					   "KERNEL", "WORKLOAD", "PARAMS",
					   "ITER",   "W",	 "METRIC",
					   "VALUE",  "UNIT",	 "BETTER" };

/* The rows of res that keep marks, one line each, every column padded to
 * w[] (the PARAMS column is label, the VALUE column value); for --wide. */
static void print_rows_wide(struct db_result *res, const int *keep, int n,
			    const int *w, const struct strvec *label,
			    const struct strvec *value, struct strbuf *out)
{
	strbuf_addf(out,
		    "%-*s %-*s %-*s %-*s %-*s %-*s %*s %-*s %-*s %*s %-*s %s\n",
		    w[R_JOB], head[R_JOB], w[R_RUN], head[R_RUN], w[R_HOST],
		    head[R_HOST], w[R_KERNEL], head[R_KERNEL], w[R_WORKLOAD],
		    head[R_WORKLOAD], w[R_PARAMS], head[R_PARAMS], w[R_ITER],
		    head[R_ITER], w[R_WARMUP], head[R_WARMUP], w[R_METRIC],
		    head[R_METRIC], w[R_VALUE], head[R_VALUE], w[R_UNIT],
		    head[R_UNIT], head[R_BETTER]);
	for (int i = 0; i < n; i++) {
		const char *job = db_get(res, i, R_JOB);

		if (!keep[i])
			continue;
		strbuf_addf(out,
			    "%-*s %-*s %-*s %-*s %-*s %-*s %*s %-*s %-*s %*s "
			    "%-*s %s\n",
			    w[R_JOB], job ? job : "-", w[R_RUN],
			    db_get(res, i, R_RUN), w[R_HOST],
			    db_get(res, i, R_HOST), w[R_KERNEL],
			    db_get(res, i, R_KERNEL), w[R_WORKLOAD],
			    db_get(res, i, R_WORKLOAD), w[R_PARAMS],
			    label->v[i], w[R_ITER], db_get(res, i, R_ITER),
			    w[R_WARMUP],
			    !strcmp(db_get(res, i, R_WARMUP), "t") ? "w" : "",
			    w[R_METRIC], db_get(res, i, R_METRIC), w[R_VALUE],
			    value->v[i], w[R_UNIT], db_get(res, i, R_UNIT),
			    db_get(res, i, R_BETTER));
	}
}

/*
 * The same rows to fit 80 columns: what is one run's (job, run, host,
 * kernel, workload, and its PARAMS on a line of their own) once as a
 * heading above its rows, each row only ITER W METRIC VALUE UNIT BETTER.
 * A heading longer than the width is wrapped by the caller (cli_wrap()).
 */
static void print_rows_fit(struct db_result *res, const int *keep, int n,
			   const int *w, const struct strvec *label,
			   const struct strvec *value, struct strbuf *out)
{
	const char *prev = NULL;

	for (int i = 0; i < n; i++) {
		const char *job = db_get(res, i, R_JOB);

		if (!keep[i])
			continue;
		if (!prev || strcmp(prev, db_get(res, i, R_RUN))) {
			strbuf_addf(out,
				    "%sJOB %s  RUN %s  HOST %s  KERNEL %s  "
				    "WORKLOAD %s\nPARAMS %s\n",
				    prev ? "\n" : "", job ? job : "-",
				    db_get(res, i, R_RUN),
				    db_get(res, i, R_HOST),
				    db_get(res, i, R_KERNEL),
				    db_get(res, i, R_WORKLOAD), label->v[i]);
			strbuf_addf(out, "  %*s %-*s %-*s %*s %-*s %s\n",
				    w[R_ITER], head[R_ITER], w[R_WARMUP],
				    head[R_WARMUP], w[R_METRIC], head[R_METRIC],
				    w[R_VALUE], head[R_VALUE], w[R_UNIT],
				    head[R_UNIT], head[R_BETTER]);
		}
		prev = db_get(res, i, R_RUN);
		strbuf_addf(out, "  %*s %-*s %-*s %*s %-*s %s\n", w[R_ITER],
			    db_get(res, i, R_ITER), w[R_WARMUP],
			    !strcmp(db_get(res, i, R_WARMUP), "t") ? "w" : "",
			    w[R_METRIC], db_get(res, i, R_METRIC), w[R_VALUE],
			    value->v[i], w[R_UNIT], db_get(res, i, R_UNIT),
			    db_get(res, i, R_BETTER));
	}
}

/*
 * The rows of res that keep marks as text into out: values rounded to
 * their metric's precision, each run's non-default params as its label;
 * wide: one line a row, else fitted to 80 columns (print_rows_fit()).
 */
static void print_table(struct db_result *res, const int *keep, int n, int wide,
			struct strbuf *out)
{
	struct strbuf text = STRBUF_INIT;
	struct metric_prec *prec = NULL;
	size_t nprec = 0, aprec = 0;
	struct strvec label = STRVEC_INIT, value = STRVEC_INIT;
	int w[R_NCOLS] = { 0 };

	for (int c = 0; c < R_NCOLS; c++)
		w[c] = (int)strlen(head[c]);
	/* First pass: each metric's precision, each run's label. */
	for (int i = 0; i < n; i++) {
		struct metric_prec *m;
		double v = 0;

		if (!keep[i])
			continue;
		m = prec_find(prec, nprec, db_get(res, i, R_METRIC));
		if (!m) {
			ALLOC_GROW(prec, nprec + 1, aprec);
			m = &prec[nprec++];
			m->metric = xstrdup(db_get(res, i, R_METRIC));
			m->maxabs = 0;
			m->whole = 1;
		}
		if (parse_double(db_get(res, i, R_VALUE), -HUGE_VAL, HUGE_VAL,
				 &v, NULL) == 0 &&
		    isfinite(v)) {
			if (fabs(v) > m->maxabs)
				m->maxabs = fabs(v);
			if (v != floor(v))
				m->whole = 0;
		}
	}
	for (int i = 0; i < n; i++) {
		struct strbuf sb = STRBUF_INIT;
		struct json_value *doc = NULL;
		const char *pj = db_get(res, i, R_PARAMS);
		const struct metric_prec *m;
		double v = 0;

		if (!keep[i]) {
			strvec_push(&label, "");
			strvec_push(&value, "");
			continue;
		}
		if (json_parse(pj, strlen(pj), NULL, &doc, &sb) == 0) {
			strbuf_reset(&sb);
			workload_params_label(db_get(res, i, R_WORKLOAD), doc,
					      &sb);
			json_free(doc);
		}
		strvec_push(&label, sb.len ? sb.buf : "-");
		strbuf_reset(&sb);
		m = prec_find(prec, nprec, db_get(res, i, R_METRIC));
		if (parse_double(db_get(res, i, R_VALUE), -HUGE_VAL, HUGE_VAL,
				 &v, NULL) == 0)
			strbuf_addf(&sb, "%.*f",
				    metric_decimals(m->maxabs, m->whole), v);
		else
			strbuf_addstr(&sb, db_get(res, i, R_VALUE));
		strvec_push(&value, sb.buf);
		strbuf_release(&sb);
		for (int c = 0; c < R_NCOLS; c++) {
			const char *t = c == R_PARAMS	? label.v[i]
					: c == R_VALUE	? value.v[i]
					: c == R_WARMUP ? ""
							: db_get(res, i, c);
			int l = t ? (int)strlen(t) : 1;

			if (l > w[c])
				w[c] = l;
		}
	}
	if (wide) {
		print_rows_wide(res, keep, n, w, &label, &value, out);
	} else {
		print_rows_fit(res, keep, n, w, &label, &value, &text);
		cli_wrap(out, text.buf, CLI_TEXT_WIDTH);
	}
	strbuf_release(&text);
	for (size_t i = 0; i < nprec; i++)
		free(prec[i].metric);
	free(prec);
	strvec_clear(&label);
	strvec_clear(&value);
}

static void print_json(struct db_result *res, const int *keep, int n,
		       struct strbuf *out)
{
	int first = 1;

	strbuf_addch(out, '[');
	for (int i = 0; i < n; i++) {
		const char *job = db_get(res, i, R_JOB);

		if (!keep[i])
			continue;
		strbuf_addstr(out, first ? "\n{" : ",\n{");
		first = 0;
		strbuf_addf(out, "\"job\":%s,\"run\":%s,\"host\":",
			    job ? job : "null", db_get(res, i, R_RUN));
		strbuf_add_json_str(out, db_get(res, i, R_HOST));
		strbuf_addstr(out, ",\"kernel\":");
		strbuf_add_json_str(out, db_get(res, i, R_KERNEL));
		strbuf_addstr(out, ",\"workload\":");
		strbuf_add_json_str(out, db_get(res, i, R_WORKLOAD));
		/* jsonb text from the database: already JSON. */
		strbuf_addf(out,
			    ",\"params\":%s,\"iteration\":%s,"
			    "\"warmup\":%s,\"metric\":",
			    db_get(res, i, R_PARAMS), db_get(res, i, R_ITER),
			    !strcmp(db_get(res, i, R_WARMUP), "t") ? "true"
								   : "false");
		strbuf_add_json_str(out, db_get(res, i, R_METRIC));
		strbuf_addf(out,
			    ",\"value\":%s,\"unit\":", db_get(res, i, R_VALUE));
		strbuf_add_json_str(out, db_get(res, i, R_UNIT));
		strbuf_addstr(out, ",\"better\":");
		strbuf_add_json_str(out, db_get(res, i, R_BETTER));
		strbuf_addch(out, '}');
	}
	strbuf_addstr(out, first ? "]\n" : "\n]\n");
}

int cmd_results(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "workload", required_argument, NULL, 'w' },
		{ "metric", required_argument, NULL, 'm' },
		{ "param", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "wide", no_argument, NULL, 'W' },
		{ NULL, 0, NULL, 0 },
	};
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct strvec keys = STRVEC_INIT, vals = STRVEC_INIT;
	const char *kernel = NULL, *workload = NULL, *metric = NULL, *why;
	int64_t job = 0, run = 0;
	int opt, json = cli.json, n = 0, rows, shown = 0, wide = 0;
	int *keep;
	struct db *db;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (parse_i64(optarg, 1, INT64_MAX, &run, &why) < 0)
				die_usage("--run '%s' %s", optarg, why);
			n++;
			break;
		case 'k':
			kernel = optarg;
			n++;
			break;
		case 'w':
			workload = optarg;
			break;
		case 'm':
			metric = optarg;
			break;
		case 'p': {
			const char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg)
				die_usage("--param '%s': expected KEY=VALUE",
					  optarg);
			strvec_pushf(&keys, "%.*s", (int)(eq - optarg), optarg);
			strvec_push(&vals, eq + 1);
			break;
		}
		case 'j':
			json = 1;
			break;
		case 'W':
			wide = 1;
			break;
		default:
			die_usage("see 'schedfarm results --help'");
		}
	}
	if (argc - optind == 1) {
		const char *s = argv[optind];

		if (starts_with(s, "STP#"))
			s += 4;
		if (parse_i64(s, 1, INT64_MAX, &job, &why) < 0)
			die_usage("job '%s' %s", argv[optind], why);
		n++;
	} else if (argc - optind > 1) {
		die_usage("results takes one JOB");
	}
	if (n != 1)
		die_usage("results needs one of JOB, --run RUN, --kernel NAME");
	db = cli_open_db();
	/* Nothing stored for something that is there is "(no results)";
	 * for something that is not, the name is wrong: say so. */
	if (ingest_results_target(db, job, run, kernel, &res, &err) < 0)
		cli_db_fatal("results", &err);
	if (strcmp(db_get(res, 0, 0), "t")) {
		if (job)
			fatal("no job STP#%lld", (long long)job);
		if (run)
			fatal("no run %lld", (long long)run);
		fatal("no kernel named '%s'", kernel);
	}
	db_result_free(res);
	res = NULL;
	if (ingest_results_rows(db, job, run, kernel, workload, &keys, &vals,
				&res, &err) < 0)
		cli_db_fatal("results", &err);
	rows = db_nrows(res);
	keep = xcalloc(rows ? (size_t)rows : 1, sizeof(*keep));
	for (int i = 0; i < rows; i++) {
		keep[i] = !metric ||
			  !fnmatch(metric, db_get(res, i, R_METRIC), 0);
		shown += keep[i];
	}
	if (json)
		print_json(res, keep, rows, &out);
	else if (shown)
		print_table(res, keep, rows, wide, &out);
	else
		strbuf_addstr(&out, "(no results)\n");
	cli_emit(&out);
	free(keep);
	strvec_clear(&keys);
	strvec_clear(&vals);
	db_close(db);
	return 0;
}

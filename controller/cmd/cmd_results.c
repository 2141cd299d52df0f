/*
 * cmd_results.c - `schedfarm results`: the numbers stored for a job, a run
 * or a kernel, exactly as ingested.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cleanup.h"
#include "cli.h"
#include "log.h"
#include "parse.h"
#include "banned.h"

const char cmd_results_usage[] =
	"usage: schedfarm results JOB [--json]\n"
	"       schedfarm results --run RUN [--json]\n"
	"       schedfarm results --kernel NAME [--json]\n"
	"\n"
	"Print every result stored for a job (STP id), one run, or every run\n"
	"under a kernel: job, run, host, kernel, workload, parameters,\n"
	"iteration, whether it was a warm-up, metric, value, unit and which\n"
	"direction is better.  With --json, one array of objects with the "
	"keys\n"
	"job, run, host, kernel, workload, params (an object), iteration,\n"
	"warmup, metric, value, unit and better.\n";

int cmd_results(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct db_args a = DB_ARGS_INIT;
	const char *kernel = NULL, *why;
	int64_t job = 0, run = 0;
	int opt, json = cli.json, n = 0;
	struct db *db;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
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
		case 'j':
			json = 1;
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
	db_args_i64(&a, job);
	db_args_i64(&a, run);
	db_args_str(&a, kernel);
	if (db_exec_args(
		    db, &res, &err,
		    "WITH x AS (SELECT r.job_id AS job, r.id AS run, "
		    "h.name AS host, k.name AS kernel, r.workload, "
		    "r.params, x.iteration, x.warmup, x.metric, x.value, "
		    "x.unit, x.direction AS better FROM results x JOIN "
		    "runs r ON r.id = x.run_id JOIN hosts h ON h.id = "
		    "r.host_id JOIN kernels k ON k.id = r.kernel_id WHERE "
		    "CASE WHEN $1 <> 0 THEN r.job_id = $1 WHEN $2 <> 0 "
		    "THEN r.id = $2 ELSE k.name = $3 END) "
		    "SELECT coalesce(jsonb_agg(jsonb_build_object('job', "
		    "job, 'run', run, 'host', host, 'kernel', kernel, "
		    "'workload', workload, 'params', params, 'iteration', "
		    "iteration, 'warmup', warmup, 'metric', metric, "
		    "'value', value, 'unit', unit, 'better', better) "
		    "ORDER BY run, metric, iteration), '[]'), "
		    "coalesce(string_agg(format('%-7s %-6s %-12s %-16s "
		    "%-14s %4s %-3s %-28s %16s %-8s %s', coalesce(job::text, "
		    "'-'), run, host, kernel, workload, iteration, CASE "
		    "WHEN warmup THEN 'w' ELSE '' END, metric, value, unit, "
		    "better), E'\\n' ORDER BY run, metric, iteration), ''), "
		    "count(*), CASE WHEN $1 <> 0 THEN EXISTS (SELECT 1 FROM "
		    "jobs WHERE id = $1) WHEN $2 <> 0 THEN EXISTS (SELECT 1 "
		    "FROM runs WHERE id = $2) ELSE EXISTS (SELECT 1 FROM "
		    "kernels WHERE name = $3) END FROM x",
		    &a) < 0)
		cli_db_fatal("results", &err);
	/* Nothing stored for something that is there is "(no results)";
	 * for something that is not, the name is wrong: say so. */
	if (strcmp(db_get(res, 0, 3), "t")) {
		if (job)
			fatal("no job STP#%lld", (long long)job);
		if (run)
			fatal("no run %lld", (long long)run);
		fatal("no kernel named '%s'", kernel);
	}
	if (json) {
		strbuf_addf(&out, "%s\n", db_get(res, 0, 0));
	} else {
		strbuf_addf(&out,
			    "%-7s %-6s %-12s %-16s %-14s %4s %-3s %-28s "
			    "%16s %-8s %s\n",
			    "JOB", "RUN", "HOST", "KERNEL", "WORKLOAD", "ITER",
			    "W", "METRIC", "VALUE", "UNIT", "BETTER");
		if (*db_get(res, 0, 1))
			strbuf_addf(&out, "%s\n", db_get(res, 0, 1));
		else
			strbuf_addstr(&out, "(no results)\n");
	}
	cli_emit(&out);
	db_args_clear(&a);
	db_close(db);
	return 0;
}

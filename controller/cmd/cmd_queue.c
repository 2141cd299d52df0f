/*
 * cmd_queue.c - `schedfarm queue`: the jobs and where they stand.
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

const char cmd_queue_usage[] =
	"usage: schedfarm queue [--state STATE|all] [--limit N] [--json]\n"
	"\n"
	"List jobs, newest first: the STP id, state, priority, patch (PLM#),\n"
	"kernel, plan, host, attempts and, for failed jobs, the phase and the\n"
	"error.  Without --state, the jobs not finished yet (queued, claimed,\n"
	"building, booting, running, collecting, ingesting).  STATE is one of\n"
	"those, or done, failed, cancelled, or all.\n";

static const char *const states[] = { "queued",	   "claimed", "building",
				      "booting",   "running", "collecting",
				      "ingesting", "done",    "failed",
				      "cancelled", "all",     NULL };

int cmd_queue(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "state", required_argument, NULL, 's' },
		{ "limit", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct db_args a = DB_ARGS_INIT;
	const char *state = NULL, *why;
	int json = cli.json, opt, limit = 100, ok;
	struct db *db;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			ok = 0;
			for (int i = 0; states[i]; i++)
				ok |= !strcmp(states[i], optarg);
			if (!ok)
				die_usage("--state: no state '%s'", optarg);
			state = optarg;
			break;
		case 'l':
			if (parse_int(optarg, 1, 1000000, &limit, &why) < 0)
				die_usage("--limit '%s' %s", optarg, why);
			break;
		case 'j':
			json = 1;
			break;
		default:
			die_usage("see 'schedfarm queue --help'");
		}
	}
	if (optind != argc)
		die_usage("queue takes no arguments");
	db = cli_open_db();
	db_args_str(&a, state);
	db_args_i64(&a, limit);
	if (db_exec_args(
		    db, &res, &err,
		    "WITH q AS (SELECT j.id, j.state, j.priority, "
		    "j.patch_id, k.name AS kernel, p.name AS plan, "
		    "coalesce(h.name, j.host_constraint) AS host, "
		    "j.attempts, j.created_at, j.error_phase, j.error, "
		    "j.name, j.nr_runs FROM jobs j JOIN kernels k ON k.id "
		    "= j.kernel_id JOIN plans p ON p.id = j.plan_id LEFT "
		    "JOIN hosts h ON h.id = j.host_id WHERE CASE WHEN $1::text "
		    "IS NULL THEN j.state NOT IN ('done', 'failed', "
		    "'cancelled') WHEN $1::text = 'all' THEN true ELSE j.state "
		    "= $1 END ORDER BY j.id DESC LIMIT $2) "
		    "SELECT coalesce(jsonb_agg(jsonb_build_object('job', "
		    "id, 'state', state, 'priority', priority, 'patch', "
		    "patch_id, 'kernel', kernel, 'plan', plan, 'host', "
		    "host, 'attempts', attempts, 'created_at', created_at, "
		    "'error_phase', error_phase, 'error', error, 'name', "
		    "name, 'runs', nr_runs) ORDER BY id DESC), '[]'), "
		    "coalesce(string_agg(format('%-7s %-10s %5s %-7s "
		    "%-20s %-16s %-14s %3s %s', id, state, priority, "
		    "coalesce('PLM#' || patch_id, '-'), kernel, plan, "
		    "coalesce(host, '(any)'), attempts, coalesce(error_phase "
		    "|| ': ' || left(error, 80), '')), E'\\n' ORDER BY id "
		    "DESC), '') FROM q",
		    &a) < 0)
		cli_db_fatal("queue", &err);
	if (json) {
		strbuf_addf(&out, "%s\n", db_get(res, 0, 0));
	} else {
		strbuf_addf(&out,
			    "%-7s %-10s %5s %-7s %-20s %-16s %-14s %3s %s\n",
			    "STP", "STATE", "PRIO", "PATCH", "KERNEL", "PLAN",
			    "HOST", "TRY", "ERROR");
		if (*db_get(res, 0, 1))
			strbuf_addf(&out, "%s\n", db_get(res, 0, 1));
	}
	cli_emit(&out);
	db_args_clear(&a);
	db_close(db);
	return 0;
}

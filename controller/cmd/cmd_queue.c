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
#include "store/queue.h"
#include "store/queue_list.h"
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
	if (queue_list(db, state, limit, &res, &err) < 0)
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
	db_close(db);
	return 0;
}

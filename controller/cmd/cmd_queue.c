/*
 * cmd_queue.c - `schedfarm queue`: the jobs and where they stand.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cleanup.h"
#include "cli.h"
#include "json.h"
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
	"those, or done, failed, cancelled, or all.  The columns are as wide\n"
	"as their longest entry; when a row would pass 80 columns, its\n"
	"kernel, plan and error go on a line of their own under it.\n";

/* Member key of job as text: a string as is, a number as written, else
 * NULL. */
static const char *member_text(const struct json_value *job, const char *key)
{
	const struct json_value *v = json_get(job, key);

	return json_string(v) ? json_string(v) : json_number_text(v);
}

/*
 * The queue's JSON array (as queue_list() gives it) as the text table,
 * into out: STP, state, priority, PLM#, host and attempts on the row's
 * line, kernel, plan and error after them or, when that passes 80
 * columns, under it (cli_table_print()).  0, or -1 when json is not the
 * array (err says why).
 */
static int format_queue(const char *json, struct strbuf *out,
			struct strbuf *err)
{
	static const char *const head[] = { "STP",    "STATE", "PRIO",
					    "PATCH",  "HOST",  "TRY",
					    "KERNEL", "PLAN",  "ERROR" };
	struct json_value *doc = NULL;
	struct cli_table t;

	if (json_parse(json, strlen(json), NULL, &doc, err) < 0)
		return -1;
	cli_table_init(&t, head, "llrllrlll", 9, 6);
	for (size_t i = 0; i < json_len(doc); i++) {
		const struct json_value *j = json_at(doc, i);
		struct strbuf patch = STRBUF_INIT, error = STRBUF_INIT;
		const char *host = member_text(j, "host"),
			   *phase = member_text(j, "error_phase");
		const char *cells[9];

		if (member_text(j, "patch"))
			strbuf_addf(&patch, "PLM#%s", member_text(j, "patch"));
		if (phase)
			strbuf_addf(&error, "%s: %s", phase,
				    member_text(j, "error")
					    ? member_text(j, "error")
					    : "");
		/* A program's error may hold lines: one line under the row. */
		for (size_t k = 0; k < error.len; k++)
			if (error.buf[k] == '\n' || error.buf[k] == '\t')
				error.buf[k] = ' ';
		cells[0] = member_text(j, "job");
		cells[1] = member_text(j, "state");
		cells[2] = member_text(j, "priority");
		cells[3] = patch.len ? patch.buf : "-";
		cells[4] = host ? host : "(any)";
		cells[5] = member_text(j, "attempts");
		cells[6] = member_text(j, "kernel");
		cells[7] = member_text(j, "plan");
		cells[8] = error.buf;
		cli_table_row(&t, cells);
		strbuf_release(&patch);
		strbuf_release(&error);
	}
	if (json_len(doc))
		cli_table_print(&t, CLI_TEXT_WIDTH, out);
	else
		strbuf_addf(out, "%s %s %s %s %s %s %s %s %s\n", head[0],
			    head[1], head[2], head[3], head[4], head[5],
			    head[6], head[7], head[8]);
	cli_table_release(&t);
	json_free(doc);
	return 0;
}

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
	} else if (format_queue(db_get(res, 0, 0), &out, &err) < 0) {
		fatal("queue: %s", err.buf);
	}
	cli_emit(&out);
	db_close(db);
	return 0;
}

/*
 * cmd_job.c - `schedfarm job show|cancel|ingest`: one job (STP id).
 *
 * show prints the job, its phases with their timestamps and logs, and its
 * runs; cancel stops a job that has not finished (a running job's process
 * notices at its next heartbeat, stops the agent and frees the host);
 * ingest stores a run from an agent results file by hand -- a run that
 * was ingested already is left as it is.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cleanup.h"
#include "cli.h"
#include "store/ingest.h"
#include "store/jobs.h"
#include "log.h"
#include "parse.h"
#include "store/queue.h"
#include "banned.h"

const char cmd_job_usage[] =
	"usage: schedfarm job show ID [--json]\n"
	"       schedfarm job cancel ID [--json]\n"
	"       schedfarm job ingest RUN FILE\n"
	"\n"
	"  show    the job (STP id): state, host, kernel, plan, each phase\n"
	"          (build, boot, run, collect, ingest) with its status, times\n"
	"          and log, its runs, and the job's log; for a plan with\n"
	"          `until: decided`, its block and why the sequence stopped\n"
	"  cancel  cancel a job that has not finished; a running job stops "
	"its\n"
	"          agent and frees its host within a heartbeat\n"
	"  ingest  store run RUN from FILE, an agent results file (JSON "
	"lines),\n"
	"          checked like a live run; a run already stored is left "
	"alone\n";

static int64_t parse_id(const char *s, const char *what)
{
	const char *why;
	int64_t v;

	if (starts_with(s, "STP#") || starts_with(s, "stp#"))
		s += 4;
	if (parse_i64(s, 1, INT64_MAX, &v, &why) < 0)
		die_usage("%s '%s' %s", what, s, why);
	return v;
}

static int job_show(int argc, char **argv)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	int json = cli.json;
	struct db *db;
	const char *j;

	json = cli_json_only(argc, argv, 1, "job show ID [--json]");
	db = cli_open_db();
	if (jobs_show_json(db, parse_id(argv[optind], "job"), &res, &err) < 0)
		cli_db_fatal("job show", &err);
	if (db_nrows(res) != 1)
		fatal("no job %s", argv[optind]);
	j = db_get(res, 0, 0);
	if (json) {
		strbuf_addf(&out, "%s\n", j);
	} else {
		_cleanup_db_result_ struct db_result *t = NULL;

		/* The text form is rendered by the server from the same
		 * object, so both always agree. */
		if (jobs_show_text(db, j, &t, &err) < 0)
			cli_db_fatal("job show", &err);
		/* Long labels and log lines wrap at word ends: 80 columns. */
		cli_wrap(&out, db_get(t, 0, 0), CLI_TEXT_WIDTH);
		if (out.len && out.buf[out.len - 1] != '\n')
			strbuf_addch(&out, '\n');
	}
	cli_emit(&out);
	db_close(db);
	return 0;
}

static int job_cancel(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct db *db;
	int64_t id;
	int r, json;

	json = cli_json_only(argc, argv, 1, "job cancel ID [--json]");
	id = parse_id(argv[optind], "job");
	db = cli_open_db();
	r = queue_cancel(db, id, &err);
	if (r < 0)
		fatal("%s", err.buf);
	/* A job that had finished was not cancelled: the request failed,
	 * said on stderr, exit 1 (the JSON says so too). */
	if (json)
		strbuf_addf(&out, "{\"job\":%lld,\"cancelled\":%s}\n",
			    (long long)id, r ? "true" : "false");
	else if (r == 0)
		log_error("job STP#%lld had already finished: nothing to "
			  "cancel",
			  (long long)id);
	else
		strbuf_addf(&out, "job STP#%lld cancelled\n", (long long)id);
	cli_emit(&out);
	db_close(db);
	strbuf_release(&err);
	return r == 0 ? 1 : 0;
}

static int job_ingest(int argc, char **argv)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct ingest_expect ex;
	struct ingest_summary sum;
	struct db *db;
	int r;

	if (argc != 3)
		die_usage("job ingest RUN FILE");
	ex.run_id = parse_id(argv[1], "run");
	r = strbuf_read_file(&text, argv[2], 1u << 30);
	if (r < 0)
		fatal("cannot read %s: %s", argv[2], strerror(-r));
	db = cli_open_db();
	if (ingest_run_shape(db, ex.run_id, &res, &err) < 0)
		cli_db_fatal("job ingest", &err);
	if (db_nrows(res) != 1)
		fatal("no run %lld", (long long)ex.run_id);
	parse_int(db_get(res, 0, 0), 1, 10000, &ex.iterations, NULL);
	parse_int(db_get(res, 0, 1), 0, 1000, &ex.warmup, NULL);
	r = ingest_run(db, &ex, text.buf, text.len, &sum, &err);
	if (r < 0)
		fatal("run %lld: %s", (long long)ex.run_id, err.buf);
	if (r == 1)
		printf("run %lld was ingested already: nothing changed\n",
		       (long long)ex.run_id);
	else
		printf("run %lld: stored %zu results, %zu samples, %zu "
		       "counters\n",
		       (long long)ex.run_id, sum.results, sum.samples,
		       sum.counters);
	ingest_summary_release(&sum);
	strbuf_release(&text);
	db_close(db);
	return 0;
}

int cmd_job(int argc, char **argv)
{
	const char *sub;

	if (argc < 2)
		die_usage("job needs a subcommand: show, cancel, ingest");
	sub = argv[1];
	argc--;
	argv++;
	if (!strcmp(sub, "show"))
		return job_show(argc, argv);
	if (!strcmp(sub, "cancel"))
		return job_cancel(argc, argv);
	if (!strcmp(sub, "ingest"))
		return job_ingest(argc, argv);
	die_usage("no job subcommand '%s'; try show, cancel, ingest", sub);
}

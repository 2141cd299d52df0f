/*
 * cmd_rerun.c - `schedfarm rerun (JOB|PLAN) --host NAME`: the same plan
 * again, on a named host.
 *
 * A JOB (an STP id) is copied: same patch, kernel and plan, a new job
 * bound to the host.  A PLAN file is matched by its sha256 to the latest
 * job that ran it, which is copied the same way; --kernel instead queues
 * the plan under that kernel label.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cleanup.h"
#include "cli.h"
#include "log.h"
#include "parse.h"
#include "plan/plan.h"
#include "store/hosts.h"
#include "store/jobs.h"
#include "store/queue.h"
#include "banned.h"

const char cmd_rerun_usage[] =
	"usage: schedfarm rerun JOB --host NAME [--priority N] [--json]\n"
	"                           [--set KEY=VALUE]...\n"
	"       schedfarm rerun PLAN --host NAME [--kernel NAME] [--priority "
	"N] [--json]\n"
	"                           [--set KEY=VALUE]...\n"
	"\n"
	"Queue the same plan again on host NAME.  JOB is an STP id: its "
	"patch,\n"
	"kernel and plan are reused.  PLAN is a plan file: the latest job "
	"that\n"
	"ran exactly this plan is reused, or, with --kernel, the plan is "
	"queued\n"
	"under that kernel label.  Prints the new STP id.  The job's --set\n"
	"overrides are repeated; --set adds more after them (a later one\n"
	"wins), checked with the plan before anything is queued.\n";

/*
 * Add sets after the job's own overrides in row and check the plan with
 * all of them; the row's run count follows the plan (--set boots=N).
 */
static int rerun_with_sets(struct db *db, struct job_row *row,
			   const struct strvec *sets, struct strbuf *err)
{
	struct plan *plan = NULL;
	int r;

	strvec_pushv(&row->plan_set, (const char *const *)sets->v);
	if (row->plan_set.nr > PLAN_MAX_SETS) {
		strbuf_addf(err, "at most %d --set in all", PLAN_MAX_SETS);
		return -1;
	}
	r = queue_plan_of_id(db, row->plan_id, &row->plan_set, &plan, err);
	if (r == 0)
		job_row_from_plan(row, plan, plan->boots);
	plan_free(plan);
	return r;
}

int cmd_rerun(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "priority", required_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "set", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strvec sets = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT, out = STRBUF_INIT;
	struct db_args a = DB_ARGS_INIT;
	const char *host = NULL, *kernel = NULL, *why, *arg;
	int opt, r, priority = 0, json = cli.json, have_prio = 0;
	int64_t job = 0, new_job = 0;
	struct db *db;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			host = optarg;
			break;
		case 'k':
			kernel = optarg;
			break;
		case 'P':
			if (parse_int(optarg, -1000, 1000, &priority, &why) < 0)
				die_usage("--priority '%s' %s", optarg, why);
			have_prio = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 's':
			cli_add_set(&sets, optarg);
			break;
		default:
			die_usage("see 'schedfarm rerun --help'");
		}
	}
	if (argc - optind != 1 || !host)
		die_usage("rerun (JOB|PLAN) --host NAME");
	arg = argv[optind];
	if (starts_with(arg, "STP#"))
		arg += 4;
	db = cli_open_db();
	if (parse_i64(arg, 1, INT64_MAX, &job, NULL) < 0) {
		struct plan *plan = NULL;

		job = 0;
		if (queue_load_plan(argv[optind], kernel ? &sets : NULL, &text,
				    &plan, &err) < 0) {
			fprintf(stderr, "%s\n", err.buf);
			fatal("%s is neither a job id nor a plan that checks",
			      argv[optind]);
		}
		if (kernel) {
			struct queue_submit s = { 0 };
			struct queue_submitted done;

			s.base = kernel;
			s.kernel = kernel;
			s.plan_name = plan->name;
			s.plan_text = text.buf;
			s.plan_len = text.len;
			s.plan = plan;
			s.host = host;
			s.priority = priority;
			s.plan_set = &sets;
			if (queue_submit(db, &s, &done, &err) < 0)
				fatal("%s", err.buf);
			new_job = done.job_id;
		} else {
			char *body = xstrndup(text.buf, text.len);

			db_args_str(&a, body);
			free(body);
			if (db_exec_args(
				    db, &res, &err,
				    "SELECT max(j.id) FROM jobs j JOIN plans "
				    "p ON p.id = j.plan_id WHERE p.sha256 = "
				    "encode(sha256(convert_to($1, 'UTF8')), "
				    "'hex')",
				    &a) < 0)
				cli_db_fatal("rerun", &err);
			db_args_clear(&a);
			if (!db_get(res, 0, 0))
				fatal("no job ran this plan yet: give --kernel "
				      "NAME to queue it under a kernel");
			parse_i64(db_get(res, 0, 0), 1, INT64_MAX, &job, NULL);
			db_result_free(res);
			res = NULL;
		}
		plan_free(plan);
	}
	if (!new_job) {
		struct job_row row;
		int64_t host_id;

		job_row_init(&row);
		r = jobs_load_row(db, job, &row, &err);
		if (r < 0)
			cli_db_fatal("rerun", &err);
		if (r > 0)
			fatal("no job %lld ('schedfarm queue' lists them)",
			      (long long)job);
		r = hosts_find(db, host, &host_id, &err);
		if (r < 0)
			cli_db_fatal("rerun", &err);
		if (r > 0)
			fatal("no host named '%s' ('schedfarm host list' "
			      "shows them)",
			      host);
		free(row.host_constraint);
		row.host_constraint = xstrdup(host);
		if (have_prio)
			row.priority = priority;
		row.rerun_of = job;
		row.block = 0;
		if (sets.nr && rerun_with_sets(db, &row, &sets, &err) < 0) {
			fprintf(stderr, "%s\n", err.buf);
			fatal("the plan of STP#%lld does not check with these "
			      "--set",
			      (long long)job);
		}
		if (jobs_insert(db, &row, &new_job, &err) < 0)
			cli_db_fatal("rerun", &err);
		job_row_release(&row);
	}
	if (json)
		strbuf_addf(&out, "{\"job\":%lld,\"rerun_of\":%lld,\"host\":",
			    (long long)new_job, (long long)job);
	if (json) {
		strbuf_add_json_str(&out, host);
		strbuf_addstr(&out, "}\n");
	} else if (job) {
		strbuf_addf(&out,
			    "STP#%lld: queued on %s (rerun of STP#%lld)\n",
			    (long long)new_job, host, (long long)job);
	} else {
		strbuf_addf(&out, "STP#%lld: queued on %s, kernel %s\n",
			    (long long)new_job, host, kernel);
	}
	cli_emit(&out);
	db_args_clear(&a);
	strbuf_release(&text);
	strvec_clear(&sets);
	db_close(db);
	return 0;
}

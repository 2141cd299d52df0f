/*
 * cmd_rerun.c - `schedfarm rerun (JOB|PLAN) [--host NAME]`: the same plan
 * again.
 *
 * A JOB (an STP id) is copied: same patch, kernel and plan, a new job
 * bound to the host it ran on, or to --host.  A PLAN file is matched by its
 * sha256 to the latest job that ran it, which is copied the same way; --kernel
 * instead queues the plan under that kernel label.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cleanup.h"
#include "cli.h"
#include "analysis/adaptive.h"
#include "log.h"
#include "parse.h"
#include "plan/plan.h"
#include "store/hosts.h"
#include "store/jobs.h"
#include "store/queue.h"
#include "store/queue_match.h"
#include "banned.h"

const char cmd_rerun_usage[] =
	"usage: schedfarm rerun JOB [--host NAME] [--priority N] [--json]\n"
	"                           [--set KEY=VALUE]...\n"
	"       schedfarm rerun PLAN --host NAME [--kernel NAME] [--priority "
	"N] [--json]\n"
	"                           [--set KEY=VALUE]...\n"
	"\n"
	"Queue the same plan again.  JOB is an STP id: its patch, kernel and\n"
	"plan are reused, on the host it ran on (or was bound to) unless\n"
	"--host names another.  PLAN is a plan file: the latest job that ran\n"
	"exactly this plan is reused, or, with --kernel, the plan is queued\n"
	"under that kernel label.  A host that cannot take the job (its kind,\n"
	"topology or tags against the plan, or a series to build on a host\n"
	"that does not boot kernels) is refused, naming why.  Prints the new\n"
	"STP id; --json prints {\"job\":N,\"rerun_of\":N or "
	"null,\"host\":H}.\n"
	"The job's --set overrides are repeated; --set adds more after them\n"
	"(a later one wins), checked with the plan before anything is\n"
	"queued.\n"
	"\n"
	"A rerun of a job of an `until: decided` sequence keeps its block: it\n"
	"joins the sequence on the same host (another host is refused) and\n"
	"never adds a look.  When the job had failed and ended the sequence,\n"
	"the rerun closes its block and the sequence goes on.\n";

/*
 * Add sets after the job's own overrides in row and check the plan with
 * all of them; the row's run count follows the plan (--set boots=N),
 * except that a block of an `until: decided` sequence keeps its own
 * number of boots, since the rerun joins that block.
 */
static int rerun_with_sets(struct db *db, struct job_row *row,
			   const struct strvec *sets, struct strbuf *err)
{
	struct plan *plan = NULL;
	int boots = 0, r;

	if (row->block > 0) {
		/* The block's boots: its run count over the runs per boot
		 * of the plan as the job itself was queued. */
		r = queue_plan_of_id(db, row->plan_id, &row->plan_set, &plan,
				     err);
		if (r < 0)
			return r;
		if (plan->nr_runs)
			boots = (int)(row->nr_runs / (int64_t)plan->nr_runs);
		plan_free(plan);
		plan = NULL;
	}
	strvec_pushv(&row->plan_set, (const char *const *)sets->v);
	if (row->plan_set.nr > PLAN_MAX_SETS) {
		strbuf_addf(err, "at most %d --set in all", PLAN_MAX_SETS);
		return -1;
	}
	r = queue_plan_of_id(db, row->plan_id, &row->plan_set, &plan, err);
	if (r == 0)
		job_row_from_plan(row, plan, boots > 0 ? boots : plan->boots);
	plan_free(plan);
	return r;
}

/*
 * rerun PLAN (its file at path) on host: with kernel, the plan queued
 * under that kernel label (returns the new job's id); without, the
 * latest job that ran exactly this text is found (*ret_job; 0 returned:
 * rerun_job() queues it again).  Failures end the verb.
 */
static int64_t rerun_plan(struct db *db, const char *path, const char *host,
			  const char *kernel, int priority,
			  const struct strvec *sets, int64_t *ret_job)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct plan *plan = NULL;
	int64_t new_job = 0;
	int r;

	if (queue_load_plan(path, kernel ? sets : NULL, &text, &plan, &err) <
	    0) {
		cli_put_text(stderr, err.buf);
		fputc('\n', stderr);
		fatal("%s is neither a job id nor a plan that checks", path);
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
		s.plan_set = sets;
		if (queue_submit(db, &s, &done, &err) < 0)
			fatal("%s", err.buf);
		new_job = done.job_id;
	} else {
		r = jobs_latest_with_plan(db, text.buf, text.len, ret_job,
					  &err);
		if (r < 0)
			cli_db_fatal("rerun", &err);
		if (r > 0)
			fatal("no job ran the plan %s yet: give "
			      "--kernel "
			      "NAME to queue it under a kernel",
			      path);
	}
	plan_free(plan);
	strbuf_release(&text);
	strbuf_release(&err);
	return new_job;
}

/*
 * rerun JOB: job's row queued again, with sets (--set) after its own
 * overrides, on *host (NULL: the host the job ran on or was bound to,
 * which *host then points at, in about), at *priority when given.  The
 * host must be able to take it.  Fills about (the caller releases it).
 * Returns the new job's id; failures end the verb.
 */
static int64_t rerun_job(struct db *db, int64_t job, const char **host,
			 const int *priority, const struct strvec *sets,
			 struct job_about *about)
{
	struct strbuf err = STRBUF_INIT;
	struct job_row row;
	int64_t new_job = 0;
	int r;

	job_row_init(&row);
	r = jobs_load_row(db, job, &row, &err);
	if (r == 0)
		r = jobs_about(db, job, about, &err);
	if (r < 0)
		cli_db_fatal("rerun", &err);
	if (r > 0)
		fatal("no job STP#%lld ('schedfarm queue --state all' "
		      "lists them)",
		      (long long)job);
	if (!*host)
		*host = about->host;
	if (!*host)
		fatal("job STP#%lld never had a host: give --host NAME",
		      (long long)job);
	/* The job's overrides and --set's, checked with the plan:
	 * they may change what the host must be. */
	if (sets->nr && rerun_with_sets(db, &row, sets, &err) < 0) {
		cli_put_text(stderr, err.buf);
		fputc('\n', stderr);
		fatal("the plan of STP#%lld does not check with these "
		      "--set",
		      (long long)job);
	}
	/* A job of a sequence says first that it stays on its
	 * sequence's host; then the host must be able to take it. */
	if (adaptive_rerun_check(db, job, *host, &err) < 0)
		fatal("%s", err.buf);
	if (queue_host_can_take(db, *host, &row, about->plan_name,
				about->kernel_has_series ? QUEUE_HOST_NEEDS_BOOT
							 : 0,
				about->kernel, &err) < 0)
		fatal("%s", err.buf);
	free(row.host_constraint);
	row.host_constraint = xstrdup(*host);
	if (priority)
		row.priority = *priority;
	row.rerun_of = job;
	/* row.block stays the job's: a rerun of a job of an
	 * `until: decided` sequence joins its block. */
	if (jobs_insert(db, &row, &new_job, &err) < 0)
		cli_db_fatal("rerun", &err);
	job_row_release(&row);
	strbuf_release(&err);
	return new_job;
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
	struct strvec sets = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *host = NULL, *kernel = NULL, *why, *arg;
	int opt, priority = 0, json = cli.json, have_prio = 0;
	int64_t job = 0, new_job = 0;
	struct job_about about = { 0 };
	struct db *db;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
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
	if (argc - optind != 1)
		die_usage("rerun takes one JOB or PLAN");
	arg = argv[optind];
	if (starts_with(arg, "STP#"))
		arg += 4;
	db = cli_open_db();
	if (parse_i64(arg, 1, INT64_MAX, &job, NULL) < 0) {
		job = 0;
		if (!host)
			die_usage("rerun PLAN needs --host NAME");
		new_job = rerun_plan(db, argv[optind], host, kernel, priority,
				     &sets, &job);
	} else if (kernel) {
		die_usage("--kernel goes with a PLAN, not a JOB");
	}
	if (!new_job)
		new_job =
			rerun_job(db, job, &host, have_prio ? &priority : NULL,
				  &sets, &about);
	if (json) {
		strbuf_addf(&out,
			    "{\"job\":%lld,\"rerun_of\":", (long long)new_job);
		if (job)
			strbuf_addf(&out, "%lld", (long long)job);
		else
			strbuf_addstr(&out, "null");
		strbuf_addstr(&out, ",\"host\":");
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
	job_about_release(&about);
	strvec_clear(&sets);
	db_close(db);
	return 0;
}

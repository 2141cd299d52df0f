/*
 * cmd_run.c - `schedfarm run`: run jobs in the foreground.
 *
 * Without a plan it drains the queue like one `serve` that runs one job at
 * a time and exits when no queued job is left; with a plan it queues that
 * plan on the named host under the named kernel and runs that one job at
 * once.  On a terminal, progress is one line rewritten in place (run i/N,
 * workload, parameters, host, elapsed, estimate left); otherwise each run
 * start and end is a plain line.  ^C stops the job and puts it back in
 * the queue.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "answer/answer.h"
#include "cmd/builtin.h"
#include "cli.h"
#include "job/jobexec.h"
#include "log.h"
#include "parse.h"
#include "plan/plan.h"
#include "store/queue.h"
#include "banned.h"

const char cmd_run_usage[] =
	"usage: schedfarm run [--lease SECONDS]\n"
	"       schedfarm run PLAN --host NAME --kernel NAME [--base NAME]\n"
	"                          [--priority N] [--lease SECONDS]\n"
	"\n"
	"Without PLAN: claim and run queued jobs one after another in the\n"
	"foreground, as 'serve' does, and exit when the queue is empty (exit "
	"1\n"
	"if jobs are left that no host can take).\n"
	"\n"
	"With PLAN: queue the plan on host NAME, labelling the running kernel\n"
	"NAME (--base defaults to it), and run that job at once (waiting for\n"
	"the host if another controller holds it).\n"
	"\n"
	"On a terminal one progress line shows run i/N, the workload and its\n"
	"parameters, the host, the time elapsed and an estimate of what is\n"
	"left; otherwise each run prints plain lines.  On hosts that boot\n"
	"(libvirt, ipmi) the build (percent of compile steps, or the cache\n"
	"hit) and each boot (console, agent beacon, SSH, power off) print\n"
	"their progress lines too.  ^C stops the job and puts it back in the\n"
	"queue.  Exit status 1 when a job failed.\n"
	"\n"
	"Between jobs, and once the queue is empty, it takes the answer step\n"
	"that serve takes: submissions whose jobs ended are answered (their\n"
	"base's next boots queued and run, verdicts stored, pages rewritten,\n"
	"mail queued), bisections move on, and due mails are sent; so 'run'\n"
	"after a 'submit' ends with the answer.\n";

static void on_int(int sig)
{
	(void)sig;
	job_stop_requested = 1;
}

struct run_view {
	int tty;
	int line_open;
};

static void fmt_secs(struct strbuf *sb, double s)
{
	if (s < 0)
		strbuf_addstr(sb, "?");
	else if (s < 120)
		strbuf_addf(sb, "%.0fs", s);
	else
		strbuf_addf(sb, "%dm%02ds", (int)s / 60, (int)s % 60);
}

static void show_progress(void *ctx, const struct job_progress *p)
{
	struct run_view *v = ctx;
	struct strbuf sb = STRBUF_INIT;

	if (v->tty) {
		strbuf_addf(&sb,
			    "\r\033[K[STP#%lld] run %zu/%zu %s %s on %s | ",
			    (long long)p->job_id, p->index + 1, p->nr_runs,
			    p->workload, p->params, p->host);
		fmt_secs(&sb, p->elapsed_s);
		strbuf_addstr(&sb, " elapsed, ~");
		fmt_secs(&sb, p->estimate_s);
		strbuf_addstr(&sb, " left");
		if (p->outcome && strcmp(p->outcome, "ok")) {
			strbuf_addf(&sb, " | %s\n", p->outcome);
			v->line_open = 0;
		} else {
			v->line_open = 1;
		}
	} else if (!p->outcome) {
		strbuf_addf(&sb, "STP#%lld run %zu/%zu: %s %s on %s\n",
			    (long long)p->job_id, p->index + 1, p->nr_runs,
			    p->workload, p->params, p->host);
	} else {
		strbuf_addf(&sb, "STP#%lld run %zu/%zu: %s (elapsed ",
			    (long long)p->job_id, p->index + 1, p->nr_runs,
			    p->outcome);
		fmt_secs(&sb, p->elapsed_s);
		strbuf_addstr(&sb, ", left ~");
		fmt_secs(&sb, p->estimate_s);
		strbuf_addstr(&sb, ")\n");
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	fflush(stdout);
	strbuf_release(&sb);
}

static void show_log(void *ctx, int level, const char *msg)
{
	struct run_view *v = ctx;

	if (!level && !cli.verbose)
		return;
	if (v->line_open) {
		fputc('\n', stdout);
		fflush(stdout);
		v->line_open = 0;
	}
	if (level)
		log_warn("%s", msg);
	else
		log_info("%s", msg);
}

static void show_phase(void *ctx, int64_t job_id, const char *msg)
{
	struct run_view *v = ctx;

	if (v->line_open) {
		fputc('\n', stdout);
		v->line_open = 0;
	}
	printf("STP#%lld %s\n", (long long)job_id, msg);
	fflush(stdout);
}

/* Run one claimed job here; return 0 done, 1 failed. */
static int run_claimed(struct db *db, const struct queue_claim *c,
		       const char *owner, int lease_s, struct run_view *v)
{
	struct job_hooks hooks = { show_progress, show_log, v, show_phase };
	struct strbuf err = STRBUF_INIT;
	int r;

	printf("STP#%lld: claimed (attempt %d)\n", (long long)c->job_id,
	       c->attempt);
	fflush(stdout);
	r = job_execute(db, c, owner, lease_s, cli_home(), &hooks, &err);
	if (v->line_open) {
		fputc('\n', stdout);
		v->line_open = 0;
	}
	if (r < 0)
		log_error("%s", err.buf);
	printf("STP#%lld: %s\n", (long long)c->job_id,
	       job_stop_requested ? "interrupted, back in the queue"
	       : r == 0		  ? "done"
				  : "failed ('schedfarm job show' says why)");
	fflush(stdout);
	strbuf_release(&err);
	return r == 0 ? 0 : 1;
}

static void answer_log(void *ctx, int level, const char *msg)
{
	struct run_view *v = ctx;

	if (v->line_open) {
		fputc('\n', stdout);
		v->line_open = 0;
	}
	if (level)
		log_warn("%s", msg);
	else
		printf("%s\n", msg);
	fflush(stdout);
}

/*
 * Between jobs, as serve does: answer the submissions whose jobs ended
 * (which may queue their next job), move bisections on, rewrite pages,
 * send due mails.
 */
static void answer_pass(struct db *db, const char *owner, struct run_view *v)
{
	struct answer_ctx ac = { .db = db,
				 .home = cli_home(),
				 .cfg = cli_config(),
				 .owner = owner,
				 .log = answer_log,
				 .log_ctx = v };
	struct answer_stats st;
	struct strbuf err = STRBUF_INIT;

	if (answer_tick(&ac, &st, &err) < 0)
		log_warn("the answer step failed: %s", err.buf);
	strbuf_release(&err);
}

/* Is any host busy, so that waiting could let a queued job run? */
static int hosts_busy(struct db *db)
{
	struct db_result *res = NULL;
	struct strbuf err = STRBUF_INIT;
	int busy = 0;

	if (db_exec(db, &res, &err,
		    "SELECT count(*) FROM hosts WHERE state <> 'idle'", 0,
		    NULL) == 0)
		busy = strcmp(db_get(res, 0, 0), "0") != 0;
	db_result_free(res);
	strbuf_release(&err);
	return busy;
}

static int drain(struct db *db, const char *owner, int lease_s,
		 int64_t only_job, struct run_view *v)
{
	struct strbuf err = STRBUF_INIT, payload = STRBUF_INIT;
	int failed = 0, ran = 0, waiting_said = 0;

	if (db_listen(db, "schedfarm_jobs", &err) < 0)
		fatal("cannot LISTEN: %s", err.buf);
	while (!job_stop_requested) {
		struct queue_claim c;
		int64_t queued = 0;
		int r;

		strbuf_reset(&err);
		if (queue_requeue_expired(db, NULL, NULL, &err) < 0)
			fatal("%s", err.buf);
		if (!only_job)
			answer_pass(db, owner, v);
		r = queue_claim_job(db, owner, lease_s, only_job, &c, &err);
		if (r < 0)
			fatal("claim failed: %s", err.buf);
		if (r == 1) {
			failed += run_claimed(db, &c, owner, lease_s, v);
			ran++;
			waiting_said = 0;
			if (only_job)
				break;
			continue;
		}
		if (only_job) {
			struct db_result *res = NULL;
			struct db_args a = DB_ARGS_INIT;

			db_args_i64(&a, only_job);
			if (db_exec_args(db, &res, &err,
					 "SELECT state FROM jobs WHERE id = $1",
					 &a) < 0)
				fatal("%s", err.buf);
			queued = !strcmp(db_get(res, 0, 0), "queued");
			db_result_free(res);
			db_args_clear(&a);
		} else if (queue_count_queued(db, &queued, &err) < 0) {
			fatal("%s", err.buf);
		}
		if (!queued)
			break;
		if (!hosts_busy(db)) {
			log_error("%lld queued job(s) have no matching idle "
				  "host (see 'schedfarm queue' and 'schedfarm "
				  "host list')",
				  (long long)queued);
			failed++;
			break;
		}
		if (!waiting_said) {
			printf("waiting for a host (%lld job(s) queued)\n",
			       (long long)queued);
			fflush(stdout);
			waiting_said = 1;
		}
		strbuf_reset(&payload);
		if (db_wait_notify(db, 2000, &payload, &err) < 0)
			fatal("%s", err.buf);
	}
	/* The last job's answer (a plan run under --kernel BASE may be the
	 * base results a waiting submission needs). */
	if (!job_stop_requested)
		answer_pass(db, owner, v);
	if (!ran && !failed && !only_job)
		printf("the queue is empty\n");
	else if (!ran && !failed && !job_stop_requested)
		printf("STP#%lld was taken by another controller: see "
		       "'schedfarm job show %lld'\n",
		       (long long)only_job, (long long)only_job);
	strbuf_release(&err);
	strbuf_release(&payload);
	return failed || job_stop_requested ? 1 : 0;
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "base", required_argument, NULL, 'b' },
		{ "priority", required_argument, NULL, 'P' },
		{ "lease", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_view v = { isatty(1), 0 };
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	const char *host = NULL, *kernel = NULL, *base = NULL, *why;
	struct sigaction sa = { 0 };
	int opt, lease_s = QUEUE_LEASE_S, priority = 0, r;
	int64_t only_job = 0;
	struct db *db;
	char *owner;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			host = optarg;
			break;
		case 'k':
			if (!*optarg || strlen(optarg) > 200)
				die_usage("--kernel is 1..200 characters");
			kernel = optarg;
			break;
		case 'b':
			if (!*optarg || strlen(optarg) > 200)
				die_usage("--base is 1..200 characters");
			base = optarg;
			break;
		case 'P':
			if (parse_int(optarg, -1000, 1000, &priority, &why) < 0)
				die_usage("--priority '%s' %s", optarg, why);
			break;
		case 'l':
			if (parse_int(optarg, 10, 3600, &lease_s, &why) < 0)
				die_usage("--lease '%s' %s", optarg, why);
			break;
		default:
			die_usage("see 'schedfarm run --help'");
		}
	}
	if (argc - optind > 1)
		die_usage("run takes at most one PLAN");
	if (argc - optind == 0 && (host || kernel || base))
		die_usage("--host, --kernel and --base go with a PLAN");
	db = cli_open_db();
	if (argc - optind == 1) {
		struct queue_submit s = { 0 };
		struct queue_submitted done;
		struct plan *plan = NULL;

		if (!host || !kernel)
			die_usage(
				"run PLAN needs --host NAME and --kernel NAME");
		if (queue_load_plan(argv[optind], &text, &plan, &err) < 0) {
			fprintf(stderr, "%s\n", err.buf);
			fatal("the plan %s does not check", argv[optind]);
		}
		s.base = base ? base : kernel;
		s.kernel = kernel;
		s.plan_name = plan->name;
		s.plan_text = text.buf;
		s.plan_len = text.len;
		s.plan = plan;
		s.host = host;
		s.priority = priority;
		if (queue_submit(db, &s, &done, &err) < 0)
			fatal("%s", err.buf);
		printf("STP#%lld: queued, plan %s (%zu runs) on %s, kernel "
		       "%s\n",
		       (long long)done.job_id, plan->name,
		       plan->nr_runs * (size_t)plan->boots, host, kernel);
		fflush(stdout);
		only_job = done.job_id;
		plan_free(plan);
	}
	sa.sa_handler = on_int;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	owner = queue_owner_new();
	r = drain(db, owner, lease_s, only_job, &v);
	free(owner);
	strbuf_release(&text);
	db_close(db);
	return r;
}

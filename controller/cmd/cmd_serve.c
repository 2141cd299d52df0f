/*
 * cmd_serve.c - `schedfarm serve`: the controller daemon.
 *
 * It stays in the foreground (a supervisor or the shell keeps it), logs
 * with timestamps on stderr, and prints one stable readiness line once it
 * listens for work:
 *
 *     schedfarm: serve ready: owner HOST:PID:TAG, up to N jobs
 *
 * It claims jobs (queue_claim: a job and a host in one transaction), runs
 * each in a process of its own -- a job that crashes is recorded as
 * failed and never takes the daemon with it -- and sleeps on LISTEN
 * schedfarm_jobs, woken by new jobs and freed hosts, with a slow timer
 * only for expiring leases of controllers that died.  SIGTERM or SIGINT:
 * claim nothing more, tell running jobs to stop (they go back to the
 * queue), wait for them, exit 0.  (After OpenBSD ntpd/relayd.)
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "answer/answer.h"
#include "cmd/builtin.h"
#include "cli.h"
#include "home.h"
#include "job/jobexec.h"
#include "log.h"
#include "parse.h"
#include "store/queue.h"
#include "run-command.h"
#include "lab/runner.h"
#include "banned.h"

const char cmd_serve_usage[] =
	"usage: schedfarm serve [-n] [--jobs N] [--lease SECONDS] [--wake "
	"SECONDS]\n"
	"\n"
	"Run the controller in the foreground: claim queued jobs with a\n"
	"matching idle host (good or unknown health), run each in its own\n"
	"process (build, boot, run, collect, ingest), release the host, and\n"
	"wait for more with LISTEN/NOTIFY.  Any number of serve processes may\n"
	"share one database; no job is claimed twice.  Logs go to stderr.\n"
	"\n"
	"  -n               check the configuration (database reachable and "
	"at\n"
	"                   the right schema, agent binary present, the\n"
	"                   settings file readable), print 'configuration OK'\n"
	"                   and exit\n"
	"  --jobs N         jobs at once (1..256, default 4)\n"
	"  --lease SECONDS  lease length, renewed every third (10..3600, "
	"default 60)\n"
	"  --wake SECONDS   also look for expired leases this often (1..3600,\n"
	"                   default 10)\n"
	"\n"
	"Between jobs it answers submissions whose jobs have ended (queues "
	"the\n"
	"base's next boots, compares, stores the verdicts, rewrites the "
	"report\n"
	"pages, mails the answer), moves bisections on, and sends the mails\n"
	"that are due (see 'schedfarm config').\n"
	"\n"
	"SIGTERM or SIGINT stops claiming, sends running jobs back to the "
	"queue\n"
	"and exits when they have stopped.\n";

static volatile sig_atomic_t stopping;
static volatile sig_atomic_t child_exited;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static void on_child(int sig)
{
	(void)sig;
	child_exited = 1;
}

static void on_job_stop(int sig)
{
	(void)sig;
	job_stop_requested = 1;
}

struct slot {
	pid_t pid;
	struct queue_claim claim;
};

static void job_log(void *ctx, int level, const char *msg)
{
	const struct queue_claim *c = ctx;

	if (level)
		log_warn("job %lld: %s", (long long)c->job_id, msg);
	else
		log_info("job %lld: %s", (long long)c->job_id, msg);
}

static void job_progress(void *ctx, const struct job_progress *p)
{
	(void)ctx;
	if (!p->outcome)
		log_info("job %lld: run %zu/%zu (run id %lld) %s %s on %s",
			 (long long)p->job_id, p->index + 1, p->nr_runs,
			 (long long)p->run_id, p->workload, p->params, p->host);
	else
		log_info("job %lld: run %zu/%zu %s (%.1f s elapsed)",
			 (long long)p->job_id, p->index + 1, p->nr_runs,
			 p->outcome, p->elapsed_s);
}

static void answer_log(void *ctx, int level, const char *msg)
{
	(void)ctx;
	if (level)
		log_warn("%s", msg);
	else
		log_info("%s", msg);
}

/*
 * Between jobs: answer the submissions whose jobs ended, move
 * bisections on, rewrite pages, send due mails (answer/answer.h).  A
 * failure is logged; the next pass tries again.
 */
static void answer_pass(struct db *db, const char *owner)
{
	struct answer_ctx ac = { .db = db,
				 .home = cli_home(),
				 .cfg = cli_config(),
				 .owner = owner,
				 .log = answer_log };
	struct answer_stats st;
	struct strbuf err = STRBUF_INIT;

	if (answer_tick(&ac, &st, &err) < 0)
		log_warn("the answer step failed: %s", err.buf);
	strbuf_release(&err);
}

/* The job's own process: its own connection, its own signals. */
static void __attribute__((noreturn))
job_child(const struct db_config *cfg, const struct queue_claim *c,
	  const char *owner, int lease_s)
{
	struct job_hooks hooks = { job_progress, job_log, (void *)c, NULL };
	struct strbuf err = STRBUF_INIT;
	struct sigaction sa = { 0 };
	struct db *db;
	int r;

	sa.sa_handler = on_job_stop;
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGINT, SIG_IGN); /* the parent forwards a terminal's ^C */
	signal(SIGCHLD, SIG_DFL);
	if (db_connect(cfg, &db, &err) < 0) {
		log_warn("job %lld: %s", (long long)c->job_id, err.buf);
		_exit(1);
	}
	r = job_execute(db, c, owner, lease_s, cli_home(), &hooks, &err);
	if (r < 0)
		log_warn("job %lld: %s", (long long)c->job_id, err.buf);
	db_close(db);
	fflush(NULL);
	_exit(r == 0 ? 0 : r == 1 ? 3 : 1);
}

/* A job process ended: note it, and record the job if the process died. */
static void job_exited(struct db *db, struct slot *slots, int nslots,
		       int *running, const char *owner, pid_t pid, int status)
{
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	int i;

	for (i = 0; i < nslots && slots[i].pid != pid; i++)
		;
	if (i == nslots)
		return;
	slots[i].pid = 0;
	(*running)--;
	if (WIFEXITED(status) &&
	    (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3)) {
		log_info("job %lld: process %ld ended (%s)",
			 (long long)slots[i].claim.job_id, (long)pid,
			 WEXITSTATUS(status) ? "job failed" : "job done");
		return;
	}
	if (WIFSIGNALED(status))
		strbuf_addf(&why, "the job's process was killed by signal %d",
			    WTERMSIG(status));
	else
		strbuf_addf(&why, "the job's process exited with status %d",
			    WEXITSTATUS(status));
	log_warn("job %lld: %s", (long long)slots[i].claim.job_id, why.buf);
	if (db && queue_finish(db, &slots[i].claim, owner, "failed", "infra",
			       why.buf, &err) < 0)
		log_warn("job %lld: cannot record it: %s",
			 (long long)slots[i].claim.job_id, err.buf);
	strbuf_release(&err);
	strbuf_release(&why);
}

/* Reap finished job processes without waiting. */
static void reap(struct db *db, struct slot *slots, int nslots, int *running,
		 const char *owner)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		job_exited(db, slots, nslots, running, owner, pid, status);
}

int cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "lease", required_argument, NULL, 'l' },
		{ "wake", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf err = STRBUF_INIT, payload = STRBUF_INIT;
	struct db_config cfg;
	struct sigaction sa = { 0 };
	struct slot *slots;
	struct db *db;
	char *owner, *agent;
	int check_only = 0, max_jobs = 4, lease_s = QUEUE_LEASE_S, wake_s = 10;
	int opt, running = 0, claimable = 1;
	const char *why;

	while ((opt = getopt_long(argc, argv, "n", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			check_only = 1;
			break;
		case 'j':
			if (parse_int(optarg, 1, 256, &max_jobs, &why) < 0)
				die_usage("--jobs '%s' %s", optarg, why);
			break;
		case 'l':
			if (parse_int(optarg, 10, 3600, &lease_s, &why) < 0)
				die_usage("--lease '%s' %s", optarg, why);
			break;
		case 'w':
			if (parse_int(optarg, 1, 3600, &wake_s, &why) < 0)
				die_usage("--wake '%s' %s", optarg, why);
			break;
		default:
			die_usage("see 'schedfarm serve --help'");
		}
	}
	if (optind != argc)
		die_usage("serve takes no arguments");

	db = cli_open_db_cfg(&cfg);
	cli_config(); /* a bad settings file fails now, not at an answer */
	/* Jobs keep their files there: a bad state folder fails now, not
	 * in every job. */
	if (home_ensure(cli_home(), &err) < 0)
		fatal("%s", err.buf);
	agent = runner_default_agent_path();
	if (access(agent, X_OK) < 0 && !program_exists(agent))
		fatal("the agent %s cannot be run: set SCHEDFARM_AGENT", agent);
	if (check_only) {
		printf("configuration OK\n");
		free(agent);
		db_close(db);
		db_config_release(&cfg);
		return 0;
	}
	log_set_timestamps(1);
	owner = queue_owner_new();
	slots = xcalloc((size_t)max_jobs, sizeof(*slots));

	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL); /* no SA_RESTART: wakes the poll */

	if (db_listen(db, "schedfarm_jobs", &err) < 0)
		fatal("cannot LISTEN: %s", err.buf);
	log_info("serve ready: owner %s, up to %d jobs, agent %s", owner,
		 max_jobs, agent);

	while (!stopping) {
		int jobs_back = 0, hosts_back = 0;

		child_exited = 0;
		reap(db, slots, max_jobs, &running, owner);
		strbuf_reset(&err);
		if (queue_requeue_expired(db, &jobs_back, &hosts_back, &err) <
		    0)
			log_warn("cannot expire leases: %s", err.buf);
		else if (jobs_back || hosts_back)
			log_warn("expired leases: %d job(s) back in the queue, "
				 "%d host(s) freed",
				 jobs_back, hosts_back);
		if (db)
			answer_pass(db, owner);
		claimable = 1;
		while (!stopping && running < max_jobs && claimable) {
			struct queue_claim c;
			int r, i;

			strbuf_reset(&err);
			r = queue_claim(db, owner, lease_s, &c, &err);
			if (r < 0) {
				log_warn("claim failed: %s", err.buf);
				claimable = 0;
				break;
			}
			if (r == 0) {
				claimable = 0;
				break;
			}
			for (i = 0; i < max_jobs && slots[i].pid; i++)
				;
			log_info("job %lld: claimed with host %lld (attempt "
				 "%d)",
				 (long long)c.job_id, (long long)c.host_id,
				 c.attempt);
			fflush(NULL);
			slots[i].claim = c;
			slots[i].pid = fork();
			if (slots[i].pid == 0)
				job_child(&cfg, &c, owner, lease_s);
			if (slots[i].pid < 0) {
				slots[i].pid = 0;
				strbuf_reset(&err);
				log_warn("job %lld: cannot fork: %s",
					 (long long)c.job_id, strerror(errno));
				queue_finish(db, &c, owner, "queued", NULL,
					     "the controller could not fork",
					     &err);
				break;
			}
			running++;
		}
		if (stopping)
			break;
		if (child_exited)
			continue;
		strbuf_reset(&payload);
		strbuf_reset(&err);
		if (db_wait_notify(db, wake_s * 1000, &payload, &err) < 0) {
			log_warn("lost the database: %s", err.buf);
			/* Reconnect; jobs run on their own connections. */
			db_close(db);
			db = NULL;
			while (!stopping && !db) {
				struct strbuf e = STRBUF_INIT;

				if (db_connect(&cfg, &db, &e) < 0 ||
				    db_listen(db, "schedfarm_jobs", &e) < 0) {
					db_close(db);
					db = NULL;
					sleep(1);
				}
				strbuf_release(&e);
			}
			if (!db)
				break;
		}
	}

	if (running)
		log_info("stopping: %d job(s) go back to the queue", running);
	for (int i = 0; i < max_jobs; i++)
		if (slots[i].pid > 0)
			kill(slots[i].pid, SIGTERM);
	while (running > 0) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		job_exited(db, slots, max_jobs, &running, owner, pid, status);
	}
	log_info("serve stopped");
	free(slots);
	free(owner);
	free(agent);
	db_close(db);
	db_config_release(&cfg);
	strbuf_release(&err);
	strbuf_release(&payload);
	return 0;
}

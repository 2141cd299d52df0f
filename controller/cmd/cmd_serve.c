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
 * queue), wait for them at most --stop-timeout seconds (then kill the
 * ones left and put their jobs back in the queue), exit 0.  (After
 * OpenBSD ntpd/relayd.)
 *
 * Under systemd (tools/systemd/schedfarm.service, Type=notify) it says
 * READY=1 once it has its database and listens for jobs, STOPPING=1 when
 * told to stop, and STATUS= lines between: sd_notify(3)'s protocol,
 * written here by hand (one datagram to $NOTIFY_SOCKET) rather than
 * linking libsystemd for three messages.
 *
 * It is a controller of the database's `controllers` (store/
 * controllers.h) under its lease owner id, renewing its lease on every
 * turn of its loop (its jobs renew it too), and it sweeps -- at start and
 * then every SWEEP_EVERY_S -- what controllers whose lease expired left
 * running: libvirt guests and IPMI machines left powered on, never a live
 * controller's (lab/sweep.h).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "answer/answer.h"
#include "cmd/builtin.h"
#include "cleanup.h"
#include "cli.h"
#include "config.h"
#include "home.h"
#include "job/jobexec.h"
#include "log.h"
#include "parse.h"
#include "store/queue.h"
#include "run-command.h"
#include "lab/runner.h"
#include "lab/sweep.h"
#include "answer/intake.h"
#include "report/kcidb.h"
#include "store/lists.h"
#include "store/controllers.h"
#include "time-util.h"
#include "banned.h"

const char cmd_serve_usage[] =
	"usage: schedfarm serve [-n] [--jobs N] [--lease SECONDS] [--wake "
	"SECONDS]\n"
	"                       [--stop-timeout SECONDS] [--poll-lists "
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
	"  --stop-timeout SECONDS\n"
	"                   on SIGTERM, wait this long for running jobs to\n"
	"                   stop (1..3600, default 60)\n"
	"  --poll-lists SECONDS\n"
	"                   read the mailing lists followed ('schedfarm "
	"list')\n"
	"                   this often, in a process of its own (0: never;\n"
	"                   default 300)\n"
	"\n"
	"Between jobs it answers submissions whose jobs have ended (queues "
	"the\n"
	"base's next boots, compares, stores the verdicts, rewrites the "
	"report\n"
	"pages, mails the answer), moves bisections on, and sends the mails\n"
	"that are due (see 'schedfarm config'), and with [kcidb] url set\n"
	"submits each answer to KernelCI ('schedfarm export --help').\n"
	"\n"
	"SIGTERM or SIGINT stops claiming, sends running jobs back to the "
	"queue\n"
	"and exits when they have stopped; a job still running after\n"
	"--stop-timeout is killed and put back in the queue.  Under systemd\n"
	"(Type=notify) it signals readiness once it has its database and\n"
	"listens for jobs, and logs with syslog priority prefixes.\n";

/* How often the sweep runs once started (the first is at start). */
#define SWEEP_EVERY_S 30

/* What the last sweep could not do, so that it is logged once. */
static struct strbuf last_sweep_error = STRBUF_INIT;

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
	int killed; /* killed by us at the stop timeout */
};

/* $NOTIFY_SOCKET, taken out of the environment (the job processes and
 * what they start must not talk to the service manager as us). */
static char *notify_socket;

/*
 * Send state ("READY=1", "STATUS=...") to the service manager, when there
 * is one: a datagram to the AF_UNIX socket NOTIFY_SOCKET named ("@..." is
 * in the abstract namespace).  A failure is logged, never fatal: the
 * manager then times the start out and says so itself.
 */
static void notify(const char *state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	int fd;

	if (!notify_socket)
		return;
	len = strlen(notify_socket);
	if ((notify_socket[0] != '/' && notify_socket[0] != '@') || len < 2 ||
	    len >= sizeof(sa.sun_path)) {
		log_warn("NOTIFY_SOCKET '%s' is not a socket path: the "
			 "service manager is not told '%s'",
			 notify_socket, state);
		return;
	}
	memcpy(sa.sun_path, notify_socket, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    sendto(fd, state, strlen(state), MSG_NOSIGNAL,
		   (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) <
		    0)
		log_warn("cannot tell the service manager '%s' through %s: %s",
			 state, notify_socket, strerror(errno));
	if (fd >= 0)
		close(fd);
}

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
	if (p->tick)
		return;
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

/*
 * Between jobs, when [kcidb] url is set: each new answer submitted to
 * KCIDB and the submissions sent polled once (report/kcidb.h); what
 * failed is recorded there and tried again by a later pass.
 */
static void kcidb_pass(struct db *db)
{
	struct strbuf err = STRBUF_INIT, notes = STRBUF_INIT;
	struct kcidb_submit_stats st;

	if (!cli_config()->kcidb_url)
		return;
	if (kcidb_submit_configured(db, cli_config(), NULL, NULL, 0, &st,
				    &notes, &err) < 0)
		log_warn("kcidb: %s", err.buf);
	else if (st.sent || st.processed || st.failed)
		log_info("kcidb: %d sent, %d processed, %d failed%s%s", st.sent,
			 st.processed, st.failed, notes.len ? ": " : "",
			 notes.buf);
	strbuf_release(&err);
	strbuf_release(&notes);
}

/* The job's own process: its own connection, its own signals. */
static void __attribute__((noreturn))
job_child(const struct db_config *cfg, const struct queue_claim *c,
	  const char *owner, int lease_s)
{
	struct job_hooks hooks = { job_progress, job_log, (void *)c, NULL, 0 };
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
	_exit(r == 0 ? 0 : r == 1 ? 3 : r == 2 ? 4 : 1);
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
	    (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3 ||
	     WEXITSTATUS(status) == 4)) {
		log_info("job %lld: process %ld ended (%s)",
			 (long long)slots[i].claim.job_id, (long)pid,
			 WEXITSTATUS(status) == 0 ? "job done"
			 : WEXITSTATUS(status) == 3
				 ? "job failed"
				 : "its host failed its check; "
				   "the job is queued again");
		return;
	}
	if (slots[i].killed)
		strbuf_addstr(&why, "the controller stopped and the job's "
				    "process did not stop in time: killed; "
				    "requeued");
	else if (WIFSIGNALED(status))
		strbuf_addf(&why, "the job's process was killed by signal %d",
			    WTERMSIG(status));
	else
		strbuf_addf(&why, "the job's process exited with status %d",
			    WEXITSTATUS(status));
	log_warn("job %lld: %s", (long long)slots[i].claim.job_id, why.buf);
	/* Killed at the stop timeout, the job is not at fault: it goes
	 * back to the queue, as one that stopped in time does. */
	if (db &&
	    queue_finish(db, &slots[i].claim, owner,
			 slots[i].killed ? "queued" : "failed",
			 slots[i].killed ? NULL : "infra", why.buf, &err) < 0)
		log_warn("job %lld: cannot record it: %s",
			 (long long)slots[i].claim.job_id, err.buf);
	strbuf_release(&err);
	strbuf_release(&why);
}

/* The lists' poll: one process at a time, its pid while it runs. */
static pid_t lists_pid;
static int64_t lists_last_ms;

/* The lists' poll process: every list read once (answer/intake.h). */
static void __attribute__((noreturn)) lists_child(const struct db_config *cfg)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct strvec names = STRVEC_INIT;
	struct intake_stats st;
	struct db *db;

	signal(SIGTERM, SIG_DFL); /* each message: one transaction */
	signal(SIGINT, SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	if (db_connect(cfg, &db, &err) < 0 ||
	    lists_names(db, &names, &err) < 0) {
		log_warn("lists: %s", err.buf);
		_exit(1);
	}
	for (size_t i = 0; i < names.nr; i++) {
		strbuf_reset(&err);
		strbuf_reset(&out);
		if (intake_poll(db, cli_home(), names.v[i], &out, &st, &err) <
		    0)
			log_warn("list %s: %s", names.v[i], err.buf);
		else if (st.read)
			log_info("list %s: read %d: %d patches, %d series "
				 "complete",
				 names.v[i], st.read, st.patches,
				 st.series_complete);
	}
	db_close(db);
	fflush(NULL);
	_exit(0);
}

/* Start the lists' poll when every_s has passed since the last one began,
 * none runs, and a list is followed (db NULL: not now). */
static void poll_lists(struct db *db, const struct db_config *cfg, int every_s)
{
	struct strbuf err = STRBUF_INIT;
	struct strvec names = STRVEC_INIT;

	if (!db || !every_s || lists_pid > 0 ||
	    (lists_last_ms && mono_ms() - lists_last_ms < every_s * 1000LL))
		return;
	lists_last_ms = mono_ms();
	if (lists_names(db, &names, &err) < 0)
		log_warn("lists: %s", err.buf);
	if (names.nr) {
		fflush(NULL);
		lists_pid = fork();
		if (lists_pid == 0) {
			db_drop_inherited(db);
			lists_child(cfg);
		}
		if (lists_pid < 0) {
			log_warn("lists: cannot fork: %s", strerror(errno));
			lists_pid = 0;
		}
	}
	strvec_clear(&names);
	strbuf_release(&err);
}

/*
 * Stop the running jobs: SIGTERM each (a job stops at its next heartbeat,
 * within a second or so, and puts itself back in the queue), wait up to
 * stop_s seconds, then SIGKILL what is left and requeue those jobs here.
 */
static void stop_jobs(struct db *db, struct slot *slots, int nslots,
		      int *running, const char *owner, int stop_s)
{
	int64_t deadline = deadline_in((int64_t)stop_s * 1000);
	int killed = 0;

	for (int i = 0; i < nslots; i++)
		if (slots[i].pid > 0)
			kill(slots[i].pid, SIGTERM);
	while (*running > 0) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid > 0) {
			job_exited(db, slots, nslots, running, owner, pid,
				   status);
			continue;
		}
		if (pid < 0 && errno != EINTR)
			break;
		if (!killed && !deadline_left(deadline)) {
			log_warn("stopping: %d job(s) still running after %d "
				 "s: killing them; they go back to the queue",
				 *running, stop_s);
			for (int i = 0; i < nslots; i++) {
				if (slots[i].pid <= 0)
					continue;
				slots[i].killed = 1;
				kill(slots[i].pid, SIGKILL);
			}
			killed = 1;
		}
		sleep_ms(50);
	}
}

/*
 * Take down what dead controllers left (sweep.h), sparing this one's
 * running jobs; what was taken down, or why it could not be, is logged.
 */
static void sweep(struct db *db, const char *owner, const struct slot *slots,
		  int nslots)
{
	struct strbuf names = STRBUF_INIT, err = STRBUF_INIT;
	_cleanup_free_ char *locks = NULL;
	int64_t *live = xcalloc((size_t)nslots + 1, sizeof(*live));
	size_t n_live = 0;
	int n = 0;

	for (int i = 0; i < nslots; i++)
		if (slots[i].pid > 0)
			live[n_live++] = slots[i].claim.job_id;
	/* A libvirtd that is down says so once, not every sweep. */
	if (home_subdir(cli_home(), HOME_LOCKS, &locks, &err) < 0 ||
	    sweep_all(db, owner, live, n_live, locks, &n, &names, &err) < 0) {
		if (strcmp(err.buf, last_sweep_error.buf))
			log_warn("sweep: %s", err.buf);
		strbuf_reset(&last_sweep_error);
		strbuf_addbuf(&last_sweep_error, &err);
	} else {
		strbuf_reset(&last_sweep_error);
	}
	if (n) {
		strbuf_rtrim(&names);
		for (char *l = names.buf, *nl; l && *l; l = nl) {
			nl = strchr(l, '\n');
			if (nl)
				*nl++ = '\0';
			log_warn("sweep: took down %s", l);
		}
	}
	free(live);
	strbuf_release(&names);
	strbuf_release(&err);
}

/*
 * --jobs N within what the machine and the database give: each job is a
 * process of its own with its own database connection (and serve keeps a
 * few descriptors per job: its pipe, the process), so N is clipped, with
 * a warning that says why, to the connections the server has free (less
 * one for serve itself) and to the open-file limit (raised to its hard
 * limit first).  Never below 1.
 */
static void fit_jobs(struct db *db, int *max_jobs)
{
	struct strbuf err = STRBUF_INIT;
	struct rlimit rl;
	int64_t free_conns;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
			getrlimit(RLIMIT_NOFILE, &rl);
		}
		if (rl.rlim_cur != RLIM_INFINITY &&
		    (rlim_t)*max_jobs * 8 + 64 > rl.rlim_cur) {
			int n = rl.rlim_cur > 72 ? (int)((rl.rlim_cur - 64) / 8)
						 : 1;

			log_warn("--jobs %d: the open-file limit is %llu; "
				 "running at most %d jobs (raise it with "
				 "ulimit -n or LimitNOFILE=)",
				 *max_jobs, (unsigned long long)rl.rlim_cur, n);
			*max_jobs = n;
		}
	}
	if (db_free_connections(db, &free_conns, &err) < 0) {
		log_warn("cannot ask the database for its free connections: %s",
			 err.buf);
	} else if (*max_jobs > (free_conns - 1) / 2) {
		/* Two per job: its own, and its lease keeper's (keeper.h). */
		int n = free_conns > 4 ? (int)(free_conns - 1) / 2 : 1;

		log_warn("--jobs %d: the database has %lld connections free "
			 "(max_connections less those reserved and open), two "
			 "per job; running at most %d jobs (raise "
			 "max_connections for more)",
			 *max_jobs, (long long)free_conns, n);
		*max_jobs = n;
	}
	strbuf_release(&err);
}

/* Reap finished job processes without waiting. */
static void reap(struct db *db, struct slot *slots, int nslots, int *running,
		 const char *owner)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		if (pid == lists_pid)
			lists_pid = 0;
		else
			job_exited(db, slots, nslots, running, owner, pid,
				   status);
}

/*
 * What serve does each time round before it claims: renew this
 * controller's lease, say when the connection was reset since the last
 * time (*reconnects: the count seen then), sweep what dead controllers
 * left every SWEEP_EVERY_S (*last_sweep: when it last did), and put
 * expired leases' jobs back in the queue.  Failures are logged; none is
 * fatal.
 */
static void housekeep(struct db *db, const char *owner, int lease_s,
		      const struct slot *slots, int nslots, int64_t *last_sweep,
		      unsigned *reconnects)
{
	struct strbuf err = STRBUF_INIT;
	int jobs_back = 0, hosts_back = 0;

	if (controllers_renew(db, owner, lease_s, &err) < 0)
		log_warn("cannot renew this controller's lease: %s", err.buf);
	if (db_reconnects(db) != *reconnects) {
		struct strbuf v = STRBUF_INIT;

		*reconnects = db_reconnects(db);
		log_warn("reconnected to the database (server %s)",
			 db_server_version(db, &v));
		strbuf_release(&v);
	}
	if (mono_ms() - *last_sweep >= SWEEP_EVERY_S * 1000) {
		sweep(db, owner, slots, nslots);
		*last_sweep = mono_ms();
	}
	strbuf_reset(&err);
	if (queue_requeue_expired(db, &jobs_back, &hosts_back, &err) < 0)
		log_warn("cannot expire leases: %s", err.buf);
	else if (jobs_back || hosts_back)
		log_warn("expired leases: %d job(s) back in the queue, "
			 "%d host(s) freed",
			 jobs_back, hosts_back);
	strbuf_release(&err);
}

/*
 * Claim jobs while a slot is free and the queue has one for an idle
 * host: each is forked into a process of its own (job_child(), on a
 * connection of its own to the database cfg names) and recorded in a
 * free slot of slots (nslots of them; *running counts the busy ones).  A
 * job that cannot be forked goes back to the queue.
 */
static void claim_jobs(struct db *db, const struct db_config *cfg,
		       struct slot *slots, int nslots, int *running,
		       const char *owner, int lease_s)
{
	struct strbuf err = STRBUF_INIT;

	while (!stopping && *running < nslots) {
		struct queue_claim c;
		int r, i;

		strbuf_reset(&err);
		r = queue_claim(db, owner, lease_s, &c, &err);
		if (r < 0) {
			log_warn("claim failed: %s", err.buf);
			break;
		}
		if (r == 0)
			break;
		for (i = 0; i < nslots && slots[i].pid; i++)
			;
		log_info("job %lld: claimed with host %lld (attempt "
			 "%d)",
			 (long long)c.job_id, (long long)c.host_id, c.attempt);
		fflush(NULL);
		slots[i].claim = c;
		slots[i].pid = fork();
		if (slots[i].pid == 0) {
			/* The job talks to the database on a
			 * connection of its own. */
			db_drop_inherited(db);
			job_child(cfg, &c, owner, lease_s);
		}
		if (slots[i].pid < 0) {
			slots[i].pid = 0;
			strbuf_reset(&err);
			log_warn("job %lld: cannot fork: %s",
				 (long long)c.job_id, strerror(errno));
			queue_finish(db, &c, owner, "queued", NULL,
				     "the controller could not fork", &err);
			break;
		}
		(*running)++;
	}
	strbuf_release(&err);
}

/*
 * A new connection to the database cfg names, listening for new jobs,
 * tried once a second until it works or serve is stopping: the
 * connection, or NULL when stopping came first.
 */
static struct db *reconnect(const struct db_config *cfg)
{
	struct db *db = NULL;

	while (!stopping && !db) {
		struct strbuf e = STRBUF_INIT;

		if (db_connect(cfg, &db, &e) < 0 ||
		    db_listen(db, "schedfarm_jobs", &e) < 0) {
			db_close(db);
			db = NULL;
			sleep(1);
		} else {
			log_warn("reconnected to the database");
		}
		strbuf_release(&e);
	}
	return db;
}

/*
 * serve's end: tell systemd, put the running jobs (*running of them in
 * slots) back in the queue, waiting at most stop_s for them, and end this
 * controller's lease (db may be NULL: the database was lost).
 */
static void serve_stop(struct db *db, struct slot *slots, int nslots,
		       int *running, const char *owner, int stop_s)
{
	struct strbuf err = STRBUF_INIT;

	if (lists_pid > 0) /* a message half-recorded rolls back */
		kill(lists_pid, SIGTERM);
	strbuf_addf(&err,
		    "STOPPING=1\nSTATUS=stopping: %d job(s) going back to "
		    "the queue (at most %d s)",
		    *running, stop_s);
	notify(err.buf);
	if (*running)
		log_info("stopping: %d job(s) go back to the queue (waiting "
			 "at most %d s)",
			 *running, stop_s);
	stop_jobs(db, slots, nslots, running, owner, stop_s);
	strbuf_reset(&err);
	if (db && controllers_stop(db, owner, &err) < 0)
		log_warn("cannot end this controller's lease: %s", err.buf);
	log_info("serve stopped");
	strbuf_release(&err);
}

int cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "jobs", required_argument, NULL, 'j' },
		{ "lease", required_argument, NULL, 'l' },
		{ "wake", required_argument, NULL, 'w' },
		{ "stop-timeout", required_argument, NULL, 's' },
		{ "poll-lists", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf err = STRBUF_INIT, payload = STRBUF_INIT;
	struct db_config cfg;
	struct sigaction sa = { 0 };
	struct slot *slots;
	struct db *db;
	char *owner, *agent;
	int check_only = 0, max_jobs = 4, lease_s = QUEUE_LEASE_S, wake_s = 10;
	int stop_s = 60, lists_s = 300;
	int opt, running = 0;
	int64_t last_sweep;
	unsigned reconnects = 0;
	const char *why;

	while ((opt = cli_getopt(argc, argv, "n", opts, NULL)) != -1) {
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
		case 's':
			if (parse_int(optarg, 1, 3600, &stop_s, &why) < 0)
				die_usage("--stop-timeout '%s' %s", optarg,
					  why);
			break;
		case 'L':
			if (parse_int(optarg, 0, 86400, &lists_s, &why) < 0)
				die_usage("--poll-lists '%s' %s", optarg, why);
			break;
		default:
			die_usage("see 'schedfarm serve --help'");
		}
	}
	if (optind != argc)
		die_usage("serve takes no arguments");

	if (getenv("NOTIFY_SOCKET")) {
		notify_socket = xstrdup(getenv("NOTIFY_SOCKET"));
		unsetenv("NOTIFY_SOCKET");
	}
	db = cli_open_db_cfg(&cfg);
	cli_config(); /* a bad settings file fails now, not at an answer */
	if (farm_config_check_secrets(cli_config(), &err) < 0)
		fatal("%s", err.buf);
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
	/* Hashed once here, the agent is not hashed again in each job. */
	if (runner_prepare_agent(agent, &err) < 0)
		log_warn("cannot hash the agent now: %s", err.buf);
	strbuf_reset(&err);
	owner = queue_owner_new();
	fit_jobs(db, &max_jobs);
	slots = xcalloc((size_t)max_jobs, sizeof(*slots));

	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL); /* no SA_RESTART: wakes the poll */

	if (db_listen(db, "schedfarm_jobs", &err) < 0)
		fatal("cannot LISTEN: %s", err.buf);
	if (controllers_register(db, owner, "serve", lease_s, &err) < 0)
		fatal("cannot register this controller: %s", err.buf);
	sweep(db, owner, slots, max_jobs);
	last_sweep = mono_ms();
	log_info("serve ready: owner %s, up to %d jobs, agent %s", owner,
		 max_jobs, agent);
	strbuf_reset(&err);
	strbuf_addf(&err, "READY=1\nSTATUS=ready: owner %s, up to %d jobs",
		    owner, max_jobs);
	notify(err.buf);

	while (!stopping) {
		child_exited = 0;
		reap(db, slots, max_jobs, &running, owner);
		housekeep(db, owner, lease_s, slots, max_jobs, &last_sweep,
			  &reconnects);
		if (db)
			answer_pass(db, owner);
		if (db)
			kcidb_pass(db);
		claim_jobs(db, &cfg, slots, max_jobs, &running, owner, lease_s);
		poll_lists(db, &cfg, lists_s);
		if (stopping)
			break;
		if (child_exited)
			continue;
		strbuf_reset(&payload);
		strbuf_reset(&err);
		/* Wake at least every third of the lease, to renew it. */
		if (db_wait_notify(db,
				   wake_s * 1000 < lease_s * 1000 / 3
					   ? wake_s * 1000
					   : lease_s * 1000 / 3,
				   &payload, &err) < 0) {
			log_warn("lost the database: %s", err.buf);
			/* Reconnect; jobs run on their own connections. */
			db_close(db);
			db = reconnect(&cfg);
			if (!db)
				break;
			reconnects = 0;
		}
	}

	serve_stop(db, slots, max_jobs, &running, owner, stop_s);
	free(slots);
	free(owner);
	free(agent);
	free(notify_socket);
	db_close(db);
	db_config_release(&cfg);
	strbuf_release(&err);
	strbuf_release(&payload);
	return 0;
}

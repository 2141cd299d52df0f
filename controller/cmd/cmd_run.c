/*
 * cmd_run.c - `schedfarm run`: run jobs in the foreground.
 *
 * Without a plan it drains the queue like one `serve` that runs one job at
 * a time and exits when no queued job is left; with a plan it queues that
 * plan on the named host under the named kernel and runs that one job at
 * once.  On a terminal, progress is one line redrawn in place, cut to the
 * terminal's width (run i/N, workload, parameters, host, elapsed,
 * estimate left); otherwise each run start and end is a plain line.  ^C
 * stops the job; every run that finished is already stored.  The job of
 * `run PLAN` is then cancelled (nobody else asked for it); a job taken
 * from the queue goes back there, and its next attempt runs only what is
 * not stored yet.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "answer/answer.h"
#include "cmd/builtin.h"
#include "cli.h"
#include "job/jobexec.h"
#include "lab/hostinfo.h"
#include "log.h"
#include "parse.h"
#include "plan/plan.h"
#include "store/hosts.h"
#include "store/kernels.h"
#include "store/controllers.h"
#include "store/queue.h"
#include "store/queue_list.h"
#include "banned.h"

const char cmd_run_usage[] =
	"usage: schedfarm run [--lease SECONDS]\n"
	"       schedfarm run PLAN [--host NAME] [--kernel NAME] [--base "
	"NAME]\n"
	"                          [--priority N] [--lease SECONDS]\n"
	"                          [--set KEY=VALUE]...\n"
	"\n"
	"Without PLAN: claim and run queued jobs one after another in the\n"
	"foreground, as 'serve' does, and exit when the queue is empty (exit "
	"1\n"
	"if jobs are left that no host can take).\n"
	"\n"
	"With PLAN: queue the plan on host NAME (without --host: on any host\n"
	"the plan's host requirements match), labelling the running kernel\n"
	"NAME (--base defaults to it), and run that job at once (waiting for\n"
	"the host if another controller holds it); without --host,\n"
	"--kernel is needed.  On a local host --kernel defaults to the\n"
	"running kernel's release (uname -r).  --host local,\n"
	"when no host of that name exists, adds this machine as the local\n"
	"host first, with its topology, and says so.  'kernel list' shows\n"
	"the label.  A host that can never take the plan (its kind, CPUs,\n"
	"sockets, memory or tags against the plan's host: section, or its\n"
	"health) is refused before anything is queued, naming what is "
	"missing.\n"
	"A new host (health unknown, with a known-good kernel) is checked\n"
	"first; one that fails its check never gets the job, which is claimed\n"
	"again for another.\n"
	"--set KEY=VALUE changes one setting of the plan\n"
	"(params.duration=20s, boots=1), checked like the file and kept with\n"
	"the job, so a rerun repeats it.\n"
	"\n"
	"On a terminal one progress line, redrawn in place and cut to the\n"
	"terminal's width, shows run i/N, the workload and its parameters,\n"
	"the host, the time elapsed and an estimate of what is left; "
	"otherwise\n"
	"each run prints plain lines.  On hosts that boot (libvirt, ipmi) the\n"
	"build (percent of compile steps, or the cache hit) and each boot\n"
	"(console, agent beacon, SSH, power off) print their progress lines\n"
	"too.\n"
	"\n"
	"Each run is stored the moment it finishes.  ^C (or SIGTERM) stops\n"
	"the job: with PLAN it is cancelled, keeping the runs that finished;\n"
	"without, it goes back to the queue, and its next attempt runs only\n"
	"the runs not stored yet.  Exit status 1 when a job failed or was\n"
	"interrupted.\n"
	"\n"
	"Between jobs, and once the queue is empty, it takes the answer step\n"
	"that serve takes: submissions whose jobs ended are answered (their\n"
	"base's next boots queued and run, verdicts stored, pages rewritten,\n"
	"mail queued), bisections move on, and due mails are sent; so 'run'\n"
	"after a 'submit' ends with the answer.\n";

/*
 * The host `run PLAN --host NAME` runs on: `local`, when no host has that
 * name, is this machine, added on first use (as `host add local --kind
 * local` would).  *ret_kernel defaults to the running kernel's release on
 * a host of kind local.  Dies with the reason when the host is unusable.
 */
static void run_host(struct db *db, const char *host, const char **ret_kernel)
{
	static struct utsname un;
	struct strbuf err = STRBUF_INIT, log = STRBUF_INIT;
	struct host_topology t;
	char *kind = NULL;
	int r = hosts_kind(db, host, &kind, &err);

	if (r < 0)
		cli_db_fatal("looking up the host", &err);
	if (r > 0 && !strcmp(host, "local")) {
		r = hostinfo_add_local(db, host, &t, &log, &err);
		strbuf_rtrim(&log);
		if (log.len)
			log_info("%s", log.buf);
		if (r < 0)
			fatal("cannot add this machine as host local: %s",
			      err.buf);
		if (r == 0)
			printf("host local added: this machine, %lld CPUs "
			       "(%lld "
			       "socket(s), %lld NUMA node(s)), %lld MiB; "
			       "first use of --host local\n",
			       (long long)t.cpus, (long long)t.sockets,
			       (long long)t.numa_nodes, (long long)t.memory_mb);
		kind = xstrdup("local");
	} else if (r > 0) {
		fatal("no host named '%s' (see 'schedfarm host list'; 'host "
		      "add' adds one)",
		      host);
	}
	if (!*ret_kernel) {
		if (strcmp(kind, "local"))
			die_usage("run PLAN on %s host %s needs --kernel NAME",
				  kind, host);
		if (uname(&un) < 0)
			fatal("uname: %s", strerror(errno));
		*ret_kernel = un.release;
		printf("kernel: %s, the running kernel (no --kernel given)\n",
		       un.release);
	}
	free(kind);
	strbuf_release(&err);
	strbuf_release(&log);
}

static void on_int(int sig)
{
	(void)sig;
	job_stop_requested = 1;
}

struct run_view {
	int tty;
	int line_open;
	int cancel_on_interrupt; /* run PLAN: ^C cancels the job */
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

/* One progress line, redrawn in place and cut to the terminal's width. */
static void draw_line(struct run_view *v, const struct job_progress *p)
{
	struct strbuf head = STRBUF_INIT, mid = STRBUF_INIT, tail = STRBUF_INIT,
		      sb = STRBUF_INIT;

	strbuf_addf(&head, "STP#%lld run %zu/%zu ", (long long)p->job_id,
		    p->index + 1, p->nr_runs);
	/* Written with fwrite, not cli_emit(): made printable here. */
	strbuf_add_printable(&mid, p->workload, 0);
	if (p->params[0]) {
		strbuf_addch(&mid, ' ');
		strbuf_add_printable(&mid, p->params, 0);
	}
	strbuf_addstr(&mid, " on ");
	strbuf_add_printable(&mid, p->host, 0);
	strbuf_addstr(&tail, " | ");
	fmt_secs(&tail, p->elapsed_s);
	strbuf_addstr(&tail, " elapsed, ~");
	fmt_secs(&tail, p->estimate_s);
	strbuf_addstr(&tail, " left");
	strbuf_addch(&sb, '\r');
	/* One column short of the width: a line that fills the last column
	 * leaves the cursor waiting to wrap, and the next \r redraws the
	 * line below. */
	cli_fit_line(&sb, head.buf, mid.buf, tail.buf, cli_term_width(1) - 1);
	strbuf_addstr(&sb, "\033[K");
	fwrite(sb.buf, 1, sb.len, stdout);
	v->line_open = 1;
	strbuf_release(&head);
	strbuf_release(&mid);
	strbuf_release(&tail);
	strbuf_release(&sb);
}

static void show_progress(void *ctx, const struct job_progress *p)
{
	struct run_view *v = ctx;
	struct strbuf sb = STRBUF_INIT;

	if (v->tty) {
		draw_line(v, p);
		if (p->outcome && strcmp(p->outcome, "ok")) {
			/* A failure stays on the screen, whole. */
			strbuf_addf(&sb, "\nSTP#%lld run %zu/%zu: %s\n",
				    (long long)p->job_id, p->index + 1,
				    p->nr_runs, p->outcome);
			v->line_open = 0;
		}
	} else if (p->tick) {
		return;
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
	/* The outcome may quote what the workload said.  A log's lines
	 * (not a terminal's redrawn one) fit 80 columns. */
	if (!v->tty && sb.len) {
		struct strbuf w = STRBUF_INIT;

		cli_wrap(&w, sb.buf, CLI_TEXT_WIDTH);
		cli_put_text(stdout, w.buf);
		strbuf_release(&w);
	} else {
		cli_put_text(stdout, sb.buf);
	}
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
	printf("STP#%lld ", (long long)job_id);
	cli_put_text(stdout, msg);
	fputc('\n', stdout);
	fflush(stdout);
}

/* Run one claimed job here; return 0 done, 1 failed or interrupted. */
static int run_claimed(struct db *db, const struct queue_claim *c,
		       const char *owner, int lease_s, struct run_view *v)
{
	struct job_hooks hooks = { show_progress, show_log, v, show_phase,
				   v->cancel_on_interrupt };
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
	if (job_stop_requested && r != 0)
		printf("STP#%lld: %s ('schedfarm job show %lld' lists the "
		       "runs stored)\n",
		       (long long)c->job_id,
		       v->cancel_on_interrupt
			       ? "interrupted: cancelled, the runs that "
				 "finished are kept"
			       : "interrupted: back in the queue, the runs "
				 "that finished are kept",
		       (long long)c->job_id);
	else
		printf("STP#%lld: %s\n", (long long)c->job_id,
		       r == 0	? "done"
		       : r == 2 ? "back in the queue: its host failed its check"
				: "failed ('schedfarm job show' says why)");
	fflush(stdout);
	strbuf_release(&err);
	return r == 0 ? 0 : r == 2 ? 2 : 1;
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
	else {
		cli_put_text(stdout, msg);
		fputc('\n', stdout);
	}
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
	struct strbuf err = STRBUF_INIT;
	int busy = 0;

	if (queue_hosts_busy(db, &busy, &err) < 0)
		log_warn("%s", err.buf);
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
			int done = run_claimed(db, &c, owner, lease_s, v);

			waiting_said = 0;
			/* Back in the queue (its host failed the check a new
			 * host gets first): claim it again, for another. */
			if (done == 2)
				continue;
			failed += done;
			ran++;
			if (only_job)
				break;
			continue;
		}
		if (only_job) {
			struct strbuf state = STRBUF_INIT;

			if (queue_job_state(db, only_job, &state, &err) < 0)
				fatal("%s", err.buf);
			queued = !strcmp(state.buf, "queued");
			strbuf_release(&state);
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
	if (only_job && !ran && job_stop_requested) {
		/* ^C while waiting for the host: the job was never started,
		 * and nobody else asked for it. */
		int r = queue_cancel(db, only_job, &err);

		if (r < 0)
			log_error("%s", err.buf);
		else if (r == 1)
			printf("STP#%lld: interrupted before it started: "
			       "cancelled\n",
			       (long long)only_job);
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
		{ "set", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct strvec sets = STRVEC_INIT;
	struct run_view v = { isatty(1), 0, 0 };
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	const char *host = NULL, *kernel = NULL, *base = NULL, *why;
	struct sigaction sa = { 0 };
	int opt, lease_s = QUEUE_LEASE_S, priority = 0, r;
	int64_t only_job = 0;
	struct db *db;
	char *owner;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			host = optarg;
			break;
		case 'k':
			kernel = cli_name("--kernel", optarg,
					  KERNEL_NAME_MAX_LEN);
			break;
		case 'b':
			base = cli_name("--base", optarg, KERNEL_NAME_MAX_LEN);
			break;
		case 'P':
			if (parse_int(optarg, -1000, 1000, &priority, &why) < 0)
				die_usage("--priority '%s' %s", optarg, why);
			break;
		case 'l':
			if (parse_int(optarg, 10, 3600, &lease_s, &why) < 0)
				die_usage("--lease '%s' %s", optarg, why);
			break;
		case 's':
			cli_add_set(&sets, optarg);
			break;
		default:
			die_usage("see 'schedfarm run --help'");
		}
	}
	if (argc - optind > 1)
		die_usage("run takes at most one PLAN");
	if (argc - optind == 0 && (host || kernel || base || sets.nr))
		die_usage("--host, --kernel, --base and --set go with a PLAN");
	sa.sa_handler = on_int;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* The settings now, as serve reads them: a bad file fails here, and
	 * the builds of the jobs get the compiler cache's cap. */
	(void)cli_config();
	db = cli_open_db();
	if (argc - optind == 1) {
		struct queue_submit s = { 0 };
		struct queue_submitted done;
		struct strbuf runs = STRBUF_INIT, line = STRBUF_INIT,
			      wrapped = STRBUF_INIT;
		struct plan *plan = NULL;

		if (!host && !kernel)
			die_usage(
				"run PLAN without --host needs --kernel NAME");
		if (queue_load_plan(argv[optind], &sets, &text, &plan, &err) <
		    0) {
			cli_put_text(stderr, err.buf);
			fputc('\n', stderr);
			fatal("the plan %s does not check", argv[optind]);
		}
		if (!kernel) {
			run_host(db, host, &kernel);
			s.kernel_release = kernel; /* a label, not a build */
		} else if (host) {
			run_host(db, host, &kernel);
		}
		s.base = base ? base : kernel;
		s.kernel = kernel;
		s.plan_name = plan->name;
		s.plan_text = text.buf;
		s.plan_len = text.len;
		s.plan = plan;
		s.host = host;
		s.priority = priority;
		s.now = 1;
		s.plan_set = &sets;
		if (queue_submit(db, &s, &done, &err) < 0)
			fatal("%s", err.buf);
		plan_describe_runs(plan, &runs);
		strbuf_addf(&line,
			    "STP#%lld: queued, plan %s (%s) on %s, "
			    "kernel %s\n",
			    (long long)done.job_id, plan->name, runs.buf,
			    host ? host : "any matching host", kernel);
		cli_wrap(&wrapped, line.buf, CLI_TEXT_WIDTH);
		cli_put_text(stdout, wrapped.buf);
		fflush(stdout);
		strbuf_release(&line);
		strbuf_release(&wrapped);
		only_job = done.job_id;
		v.cancel_on_interrupt = 1;
		plan_free(plan);
		strbuf_release(&runs);
	}
	/* A controller of its own while it runs (store/controllers.h): its
	 * guests and power operations are recorded under its id. */
	owner = queue_owner_new();
	if (controllers_register(db, owner, "run", lease_s, &err) < 0)
		cli_db_fatal("registering this controller", &err);
	r = drain(db, owner, lease_s, only_job, &v);
	strbuf_reset(&err);
	if (controllers_stop(db, owner, &err) < 0)
		log_warn("cannot end this controller's lease: %s", err.buf);
	free(owner);
	strbuf_release(&text);
	strvec_clear(&sets);
	db_close(db);
	return r;
}

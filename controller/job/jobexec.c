/*
 * jobexec.c - one job from claim to release; see jobexec.h.
 *
 * The phases in order: build (once), then per boot round: boot, and the
 * plan's runs; then collect (the results file of every run whose stream
 * was cut) and ingest (one transaction per run).  Each phase is a row of
 * job_phases with its timestamps, status and log, and the job's state
 * follows along (building, booting, running, collecting, ingesting).  On
 * hosts that do not boot, the boot rounds are repetitions: each is a
 * separate agent invocation recorded with its round in runs.boot.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/adaptive.h"
#include "job/boot_job.h"
#include "cleanup.h"
#include "store/ingest.h"
#include "home.h"
#include "lab/host_kind.h"
#include "job/host_check.h"
#include "job/jobexec.h"
#include "job/jobexec-int.h"
#include "job/jobguard.h"
#include "job/keeper.h"
#include "store/controllers.h"
#include "store/hosts.h"
#include "store/jobs.h"
#include "parse.h"
#include "plan/plan.h"
#include "time-util.h"
#include "banned.h"

#define RUN_LINES_CAP (256u << 20)

volatile sig_atomic_t job_stop_requested;

/*
 * Host kinds (lab/host_kind.h).  Those that run the kernel they have get
 * no hooks; every kind that boots kernels gets boot_job.c's (see job.h).
 */
static const struct job_kind_ops booting_kind_ops = {
	"boots",
	boot_job_build,
	boot_job_boot,
	boot_job_power_off,
	boot_job_boot_failed,
};

/* Kinds that must boot the job's kernel before running anything. */
static int kind_boots(const char *kind)
{
	const struct host_kind *hk = host_kind_find(kind);

	return hk && hk->boots;
}

static const struct job_kind_ops *kind_ops(const char *kind)
{
	return kind_boots(kind) ? &booting_kind_ops : NULL;
}

void jlog(struct job_ctx *jc, int level, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT, err = STRBUF_INIT;
	time_t now = time(NULL);
	struct tm tm;
	char ts[32];
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	strbuf_addf(&line, "%s %s%s\n", ts, level ? "warning: " : "", sb.buf);
	/* Lines the database could not take (it was away) go with this one:
	 * the log loses nothing to an outage shorter than its 1 MiB. */
	strbuf_addbuf(&jc->pending_log, &line);
	if (queue_log(jc->db, jc->claim.job_id, jc->pending_log.buf, &err) == 0)
		strbuf_reset(&jc->pending_log);
	else if (jc->pending_log.len > (1u << 20))
		strbuf_reset(&jc->pending_log);
	if (jc->hooks && jc->hooks->log)
		jc->hooks->log(jc->hooks->ctx, level, sb.buf);
	strbuf_release(&sb);
	strbuf_release(&line);
	strbuf_release(&err);
}

/* The job's lease is gone (found by a renewal that touched no row): the
 * job stops. */
static void lease_lost(struct job_ctx *jc)
{
	jc->lease_lost = 1;
	jlog(jc, 1, "job %lld: lease lost (cancelled, or expired): stopping",
	     (long long)jc->claim.job_id);
}

/* What the keeper (if any) did while the main thread was away, into the
 * job's log; a lease it found taken away is lost for the job too (but
 * at_end, when the job is ending and lets go of it anyway). */
static void keeper_heard(struct job_ctx *jc, int at_end)
{
	struct strbuf problems = STRBUF_INIT, d = STRBUF_INIT;
	int lost, renewed;
	int64_t waited;

	if (!jc->keeper || (jc->lease_lost && !at_end))
		return;
	keeper_news(jc->keeper, &lost, &renewed, &waited, &problems);
	strbuf_rtrim(&problems);
	if (problems.len)
		jlog(jc, 1, "heartbeat failed (the keeper's): %s",
		     problems.buf);
	if (renewed) {
		format_duration_ms(&d, waited);
		jlog(jc, 0,
		     "job %lld: one call took %s; the keeper renewed the "
		     "lease %d time(s) meanwhile",
		     (long long)jc->claim.job_id, d.buf, renewed);
	}
	if (lost && !at_end)
		lease_lost(jc);
	strbuf_release(&problems);
	strbuf_release(&d);
}

/* Renew the lease when a third of it has passed; -1 once it is lost. */
int job_beat(struct job_ctx *jc)
{
	struct strbuf err = STRBUF_INIT;
	int64_t now = mono_ms();
	int r;

	keeper_heard(jc, 0);
	if (jc->lease_lost)
		return -1;
	if (job_limit_check(jc) < 0)
		return -1;
	if (job_stop_requested) {
		jc->lease_lost = 1;
		jc->interrupted = 1;
		jlog(jc, 1, "job %lld: interrupted: stopping (%s)",
		     (long long)jc->claim.job_id,
		     jc->hooks && jc->hooks->interrupt_cancels
			     ? "the job is cancelled"
			     : "the job goes back to the queue");
		return -1;
	}
	/* Every third of the lease, and at least every 5 s so that a
	 * cancelled job lets go of its host soon. */
	if (now - jc->last_beat_ms <
	    (jc->lease_s * 1000 / 3 < 5000 ? jc->lease_s * 1000 / 3 : 5000))
		return 0;
	r = queue_heartbeat(jc->db, &jc->claim, jc->owner, jc->lease_s, &err);
	if (r == 0) {
		jc->last_beat_ms = now;
		/* The controller lives as long as one of its jobs does, even
		 * when its serve died: nobody sweeps this job's guest. */
		controllers_renew(jc->db, jc->owner, jc->lease_s, &err);
	} else if (r == -2) {
		lease_lost(jc);
	} else {
		/* A database hiccup: try again next tick; the lease has
		 * two more thirds to go. */
		jlog(jc, 1, "heartbeat failed: %s", err.buf);
	}
	strbuf_release(&err);
	return jc->lease_lost ? -1 : 0;
}

static int load_job(struct job_ctx *jc, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	struct strbuf perr = STRBUF_INIT;
	struct strvec sets = STRVEC_INIT;
	const char *body, *v;
	int r;

	db_args_i64(&a, jc->claim.job_id);
	db_args_i64(&a, jc->claim.host_id);
	r = db_exec_args(jc->db, &res, err,
			 "SELECT p.id, p.name, p.body, k.id, k.name, "
			 "coalesce(j.patch_id, 0), h.name, h.kind, h.address, "
			 "h.port, h.ssh_user, h.key_file, h.known_hosts, "
			 "j.block, k.series_sha256 IS NOT NULL, j.boots, "
			 "j.first_boot "
			 "FROM jobs j JOIN plans p ON p.id = j.plan_id "
			 "JOIN kernels k ON k.id = j.kernel_id, hosts h "
			 "WHERE j.id = $1 AND h.id = $2",
			 &a);
	db_args_clear(&a);
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "job %lld or host %lld vanished",
			    (long long)jc->claim.job_id,
			    (long long)jc->claim.host_id);
		return -1;
	}
	parse_i64(db_get(res, 0, 0), 1, INT64_MAX, &jc->plan_id, NULL);
	parse_i64(db_get(res, 0, 3), 1, INT64_MAX, &jc->kernel_id, NULL);
	parse_i64(db_get(res, 0, 5), 0, INT64_MAX, &jc->patch_id, NULL);
	jc->kernel_name = xstrdup(db_get(res, 0, 4));
	jc->host_name = xstrdup(db_get(res, 0, 6));
	jc->host_kind = xstrdup(db_get(res, 0, 7));
	jc->target.name = jc->host_name;
	jc->target.kind = jc->host_kind;
	jc->target.address = xstrdup_or_null(db_get(res, 0, 8));
	v = db_get(res, 0, 9);
	if (v)
		parse_int(v, 1, 65535, &jc->target.port, NULL);
	jc->target.user = xstrdup_or_null(db_get(res, 0, 10));
	jc->target.key_file = xstrdup_or_null(db_get(res, 0, 11));
	jc->target.known_hosts = xstrdup_or_null(db_get(res, 0, 12));
	/* A local host's run files live in the state folder. */
	if (!strcmp(jc->host_kind, "local")) {
		if (home_subdir(jc->home, HOME_RUN, &jc->run_dir, err) < 0)
			return -1;
		jc->target.run_dir = jc->run_dir;
	}
	parse_int(db_get(res, 0, 13), 0, INT32_MAX, &jc->block, NULL);
	jc->kernel_has_series = !strcmp(db_get(res, 0, 14), "t");
	body = db_get(res, 0, 2);
	if (jobs_load_plan_set(jc->db, jc->claim.job_id, &sets, err) < 0) {
		strvec_clear(&sets);
		return -1;
	}
	if (plan_parse_set(db_get(res, 0, 1), body, strlen(body), &sets,
			   &jc->plan, &perr) < 0) {
		strbuf_addf(err, "the job's plan no longer parses: %s",
			    perr.buf);
		strbuf_release(&perr);
		strvec_clear(&sets);
		return -1;
	}
	strbuf_release(&perr);
	strvec_clear(&sets);
	adaptive_job_boots(jc->plan, jc->patch_id, jc->block, &jc->boots,
			   &jc->first_boot);
	/* A job scheduled with its own boot count (a unit of a submission's
	 * ABBA order, a look of a bisection step: schema 007). */
	if (db_get(res, 0, 15)) {
		parse_int(db_get(res, 0, 15), 1, 1000, &jc->boots, NULL);
		parse_int(db_get(res, 0, 16), 0, INT32_MAX, &jc->first_boot,
			  NULL);
	}
	return 0;
}

static void job_ctx_release(struct job_ctx *jc)
{
	plan_free(jc->plan);
	free(jc->kernel_name);
	free(jc->host_name);
	free(jc->host_kind);
	free((char *)jc->target.address);
	free((char *)jc->target.user);
	free((char *)jc->target.key_file);
	free((char *)jc->target.known_hosts);
	free(jc->agent_path);
	free(jc->run_dir);
}

/*
 * A host that is new (or of unknown health) is checked before its first
 * job (job/host_check.h), recorded as a boot phase.  0 when the host may
 * take the job (checked now, or not due), 1 when it failed its check (the
 * job goes back to the queue for another host), -1 with err when the check
 * could not run.
 */
static int phase_check(struct job_ctx *jc, struct strbuf *err)
{
	struct strbuf log = STRBUF_INIT, e = STRBUF_INIT;
	int due = hosts_check_due(jc->db, jc->claim.host_id, err), r;
	int64_t pid;

	if (due <= 0)
		return due;
	jlog(jc, 0,
	     "host %s is new (health unknown): checking it with its "
	     "known-good kernel before the job",
	     jc->host_name);
	if (queue_set_state(jc->db, &jc->claim, jc->owner, "booting", err) <
		    0 ||
	    queue_phase_begin(jc->db, &jc->claim, "boot", &pid, err) < 0)
		return -1;
	r = host_check_for_job(jc, &log, err);
	jlog(jc, r ? 1 : 0, "%.*s", log.len ? (int)log.len - 1 : 0, log.buf);
	queue_phase_end(jc->db, pid, r ? "failed" : "ok", log.buf, &e);
	strbuf_release(&log);
	strbuf_release(&e);
	return r;
}

/* A phase that does nothing on this kind of host. */
static int phase_skip(struct job_ctx *jc, const char *phase, const char *why)
{
	struct strbuf err = STRBUF_INIT;
	int r = queue_phase_skip(jc->db, &jc->claim, phase, why, &err);

	if (r < 0)
		jlog(jc, 1, "cannot record phase %s: %s", phase, err.buf);
	strbuf_release(&err);
	return r;
}

/*
 * A phase that failed because its limit (or the job's budget) ran out
 * says so, whatever the hook saw ("the boot was stopped").
 */
static void limit_fired(struct job_ctx *jc, int r, struct strbuf *err)
{
	if (r < 0 && jc->timed_out) {
		strbuf_reset(err);
		strbuf_addbuf(err, &jc->timeout_msg);
	}
}

/*
 * Build the job's kernel, for kinds that boot one.  0 ok, -1 failed
 * (err says why).
 */
static int phase_build(struct job_ctx *jc, struct strbuf *err)
{
	const struct job_kind_ops *ops = kind_ops(jc->host_kind);
	struct strbuf log = STRBUF_INIT, e = STRBUF_INIT;
	int64_t pid;
	int r;

	if (!kind_boots(jc->host_kind)) {
		struct strbuf why = STRBUF_INIT;

		if (jc->kernel_has_series) {
			/* Running here would label the unpatched kernel with
			 * the patch's name (queue_submit refuses such jobs;
			 * this one was queued before it did). */
			strbuf_addf(err,
				    "this %s host runs its own kernel and "
				    "cannot build or boot %s, the series "
				    "applied to its base: nothing was run.  "
				    "Submit again with --kernel NAME (the "
				    "kernel it runs with the series applied) "
				    "or to a libvirt or ipmi host",
				    jc->host_kind, jc->kernel_name);
			if (queue_phase_begin(jc->db, &jc->claim, "build", &pid,
					      &e) == 0)
				queue_phase_end(jc->db, pid, "failed", err->buf,
						&e);
			strbuf_release(&e);
			return -1;
		}
		strbuf_addf(&why,
			    "this %s host runs its own kernel: %s is a label "
			    "for it, nothing was built or booted",
			    jc->host_kind, jc->kernel_name);
		phase_skip(jc, "build", why.buf);
		strbuf_release(&why);
		return 0;
	}
	if (queue_set_state(jc->db, &jc->claim, jc->owner, "building", err) <
		    0 ||
	    queue_phase_begin(jc->db, &jc->claim, "build", &pid, err) < 0)
		return -1;
	job_phase_limit(jc, "build", "timeouts.build",
			jc->plan->timeouts.build_ms, 1);
	if (!ops || !ops->build) {
		strbuf_addf(err,
			    "building kernels for %s hosts is not "
			    "available in this schedfarm",
			    jc->host_kind);
		r = -1;
	} else {
		r = ops->build(jc, &log, err);
	}
	limit_fired(jc, r, err);
	if (r < 0)
		strbuf_addf(&log, "%s\n", err->buf);
	queue_phase_end(jc->db, pid, r < 0 ? "failed" : "ok", log.buf, &e);
	strbuf_release(&log);
	strbuf_release(&e);
	return r;
}

/* Boot round b of the job's kernel on the host (kinds that boot). */
static int phase_boot(struct job_ctx *jc, int b, struct strbuf *err)
{
	const struct job_kind_ops *ops = kind_ops(jc->host_kind);
	struct strbuf log = STRBUF_INIT, e = STRBUF_INIT;
	int64_t pid;
	int r;

	if (!kind_boots(jc->host_kind)) {
		if (b == 0)
			phase_skip(jc, "boot",
				   "the host is already running: no boot");
		return 0;
	}
	if (queue_set_state(jc->db, &jc->claim, jc->owner, "booting", err) <
		    0 ||
	    queue_phase_begin(jc->db, &jc->claim, "boot", &pid, err) < 0)
		return -1;
	/* Power on, the kernel, the agent and SSH: the boot's own limit,
	 * plus one power operation. */
	job_phase_limit(
		jc, "boot", "timeouts.boot + timeouts.power",
		jc->plan->timeouts.boot_ms + jc->plan->timeouts.power_ms, 1);
	if (!ops || !ops->boot) {
		strbuf_addf(err,
			    "booting %s hosts is not available in this "
			    "schedfarm",
			    jc->host_kind);
		r = -1;
	} else {
		r = ops->boot(jc, b, &log, err);
		if (r == 0)
			jc->booted = 1;
	}
	limit_fired(jc, r, err);
	if (r < 0)
		strbuf_addf(&log, "%s\n", err->buf);
	queue_phase_end(jc->db, pid, r < 0 ? "failed" : "ok", log.buf, &e);
	strbuf_release(&log);
	strbuf_release(&e);
	return r;
}

/*
 * After a failed boot: the kind's check of whose fault it was (a boot of
 * the host's known-good kernel), logged to the job.  1 when the host is
 * quarantined and the job must go to another host.
 */
static int boot_failed_host_fault(struct job_ctx *jc)
{
	const struct job_kind_ops *ops = kind_ops(jc->host_kind);
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT;
	int r;

	if (!ops || !ops->boot_failed)
		return 0;
	r = ops->boot_failed(jc, &log, &err);
	if (log.len) {
		strbuf_rtrim(&log);
		jlog(jc, r > 0 ? 1 : 0, "%s", log.buf);
	}
	if (r < 0)
		jlog(jc, 1, "judging the failed boot: %s", err.buf);
	strbuf_release(&log);
	strbuf_release(&err);
	return r > 0;
}

/*
 * Power the host off after a boot round (kinds that boot; a no-op for the
 * others and when nothing is booted).  The failure is logged to the job;
 * return -1 so the job stops using the host.
 */
static int phase_power_off(struct job_ctx *jc)
{
	const struct job_kind_ops *ops = kind_ops(jc->host_kind);
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT;
	int r = 0;

	if (!jc->booted || !ops || !ops->power_off)
		return 0;
	jc->booted = 0;
	/* Power-off always runs, with a budget of its own. */
	job_phase_limit(jc, "power-off", "timeouts.power",
			jc->plan->timeouts.power_ms, 0);
	r = ops->power_off(jc, &log, &err);
	if (log.len) {
		strbuf_rtrim(&log);
		jlog(jc, 0, "%s", log.buf);
	}
	if (r < 0)
		jlog(jc, 1, "power off failed: %s", err.buf);
	strbuf_release(&log);
	strbuf_release(&err);
	return r;
}

/*
 * A job back in the queue after an interrupted attempt resumes: the runs
 * an earlier attempt stored (done, with their results) are kept and not
 * run again; the others are.  Mark them in rr (by boot round and
 * sequence number, which name a run of the plan within the job) and
 * return how many there are, or -1 with err.
 */
static int find_done_before(struct job_ctx *jc, struct run_rec *rr, size_t n,
			    struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	int r, found = 0;

	/* Called before this attempt inserts its runs: every done run of
	 * the job is an earlier attempt's (an interrupted attempt is not
	 * counted, so the numbers may repeat). */
	db_args_i64(&a, jc->claim.job_id);
	r = db_exec_args(jc->db, &res, err,
			 "SELECT id, boot, seq FROM runs WHERE job_id = $1 "
			 "AND status = 'done'",
			 &a);
	db_args_clear(&a);
	if (r < 0)
		return -1;
	for (int row = 0; row < db_nrows(res); row++) {
		int64_t id, boot, seq;

		if (db_get_i64(res, row, 0, 1, INT64_MAX, &id) < 0 ||
		    db_get_i64(res, row, 1, 0, INT32_MAX, &boot) < 0 ||
		    db_get_i64(res, row, 2, 0, INT64_MAX, &seq) < 0)
			return -1;
		if ((uint64_t)seq >= n || rr[seq].boot != boot ||
		    rr[seq].done_before)
			continue;
		rr[seq].done_before = 1;
		rr[seq].id = id;
		found++;
	}
	return found;
}

static int create_runs(struct job_ctx *jc, struct run_rec *rr, size_t n,
		       struct strbuf *err)
{
	const struct plan *p = jc->plan;
	struct strbuf params = STRBUF_INIT;
	int r = 0;

	if (db_begin(jc->db, err) < 0)
		return -1;
	for (size_t i = 0; i < n && r == 0; i++) {
		_cleanup_db_result_ struct db_result *res = NULL;
		struct db_args a = DB_ARGS_INIT;

		if (rr[i].done_before)
			continue;
		strbuf_reset(&params);
		plan_run_params_json(p, rr[i].pr, PLAN_SECRETS_MASKED, &params);
		db_args_i64(&a, jc->claim.job_id);
		db_args_i64(&a, jc->claim.host_id);
		db_args_i64(&a, jc->kernel_id);
		db_args_i64(&a, jc->plan_id);
		db_args_str(&a, rr[i].pr->workload);
		db_args_str(&a, params.buf);
		db_args_i64(&a, rr[i].boot);
		db_args_i64(&a, (int64_t)i);
		db_args_i64(&a, jc->claim.attempt);
		db_args_i64(&a, p->iterations);
		db_args_i64(&a, p->warmup);
		r = db_exec_args(
			jc->db, &res, err,
			"INSERT INTO runs (job_id, host_id, kernel_id, "
			"plan_id, workload, params, boot, seq, attempt, "
			"iterations, warmup) VALUES ($1, $2, $3, $4, $5, "
			"$6::jsonb, $7, $8, $9, $10, $11) RETURNING id",
			&a);
		db_args_clear(&a);
		if (r == 0 && parse_i64(db_get(res, 0, 0), 1, INT64_MAX,
					&rr[i].id, NULL) < 0)
			r = -1;
		rr[i].ex.run_id = rr[i].id;
		rr[i].ex.iterations = p->iterations;
		rr[i].ex.warmup = p->warmup;
	}
	strbuf_release(&params);
	if (r < 0) {
		db_rollback(jc->db);
		return -1;
	}
	return db_commit(jc->db, err);
}

void run_failed(struct run_rec *rr, const char *phase, const char *error)
{
	if (rr->error)
		return;
	rr->error = xstrdup(error);
	rr->phase = phase;
}

/* A run the job did not get to: it ran out of time, or lost its host. */
static void not_run(struct job_ctx *jc, struct run_rec *rr)
{
	struct strbuf why = STRBUF_INIT;

	if (jc->timed_out)
		strbuf_addf(&why, "not run: %s", jc->timeout_msg.buf);
	else
		strbuf_addf(&why,
			    "not run: the connection to %s was lost in an "
			    "earlier run",
			    jc->host_name);
	run_failed(rr, "run", why.buf);
	strbuf_release(&why);
}

/* The run phase's limit: a run's limit for each run of the round. */
static void run_phase_limit(struct job_ctx *jc)
{
	struct strbuf what = STRBUF_INIT;

	strbuf_addf(&what, "%zu runs of timeouts.run + 1m", jc->plan->nr_runs);
	job_phase_limit(jc, "run", what.buf,
			(int64_t)jc->plan->nr_runs *
				(jc->plan->timeouts.run_ms + 60000),
			1);
	strbuf_release(&what);
}

struct run_clock;

struct line_ctx {
	struct job_ctx *jc;
	struct run_rec *rr;
	/* For the progress display's clock while the run goes on. */
	size_t index, n;
	const struct run_clock *clk;
	int64_t last_tick_ms;
};

static void progress(struct job_ctx *jc, const struct run_rec *rr, size_t i,
		     size_t n, const struct run_clock *clk, const char *outcome,
		     int tick);

static int on_line(void *ctx, const char *line, size_t len)
{
	struct line_ctx *lc = ctx;
	struct run_rec *rr = lc->rr;
	struct agent_line al;
	struct strbuf err = STRBUF_INIT;

	if (rr->error)
		return -1;
	if (rr->stream_done) {
		strbuf_addstr(&err, "bad agent line (a line after \"done\"): ");
		ingest_quote_line(&err, line, len, 200);
		goto bad;
	}
	if (ingest_check_line(line, len, &rr->ex, &al, &err) < 0)
		goto bad;
	if (al.type == AGENT_DONE) {
		rr->stream_done = 1;
		rr->done_ok = al.status && !strcmp(al.status, "ok");
	}
	agent_line_release(&al);
	if (rr->lines.len + len + 1 > RUN_LINES_CAP) {
		strbuf_addf(&err, "the agent printed more than %u MiB",
			    RUN_LINES_CAP >> 20);
		goto bad;
	}
	strbuf_add(&rr->lines, line, len);
	strbuf_addch(&rr->lines, '\n');
	return 0;
bad:
	run_failed(rr, "run", err.buf);
	jlog(lc->jc, 1, "run %lld: %s", (long long)rr->id, err.buf);
	strbuf_release(&err);
	return -1;
}

/*
 * Once a second while a run goes on, a host that boots has its console
 * read (jc->watch): a fatal line stops the run at once -- the host is gone
 * -- and is kept in jc->console_fatal for console_round_end().
 */
static int watch_console(struct job_ctx *jc)
{
	struct strbuf hit = STRBUF_INIT;

	if (jc->console_fatal)
		return -1;
	if (!jc->watch || jc->watch(jc, &hit) != 1) {
		strbuf_release(&hit);
		return 0;
	}
	jc->console_fatal = strbuf_detach(&hit, NULL);
	jlog(jc, jc->plan->expect ? 0 : 1, "console: %s: %s",
	     jc->console_fatal_kind, jc->console_fatal);
	return -1;
}

static int on_tick(void *ctx)
{
	struct line_ctx *lc = ctx;
	int64_t now = mono_ms();

	if (lc->clk && now - lc->last_tick_ms >= 1000) {
		lc->last_tick_ms = now;
		progress(lc->jc, lc->rr, lc->index, lc->n, lc->clk, NULL, 1);
	}
	if (watch_console(lc->jc) < 0)
		return -1;
	return job_beat(lc->jc);
}

static void on_note(void *ctx, const char *msg)
{
	struct line_ctx *lc = ctx;

	jlog(lc->jc, 1, "%s", msg);
}

static void build_spec(struct job_ctx *jc, struct runner *runner,
		       const struct run_rec *rr, struct strbuf *spec)
{
	const struct plan *p = jc->plan;
	int64_t deadline_s = p->timeouts.run_ms / 1000;

	if (deadline_s < 1)
		deadline_s = 1;
	strbuf_addf(spec, "{\"run_id\":%lld,", (long long)rr->id);
	plan_run_spec_json(p, rr->pr, PLAN_SECRETS_CLEAR, spec);
	strbuf_addf(spec, ",\"iterations\":%d,\"warmup\":%d,\"cgroups\":",
		    p->iterations, p->warmup);
	plan_cgroups_json(p, spec);
	strbuf_addstr(spec, ",\"results_file\":");
	strbuf_add_json_str(spec, runner_results_file(runner, rr->id));
	strbuf_addf(spec, ",\"deadline_s\":%lld}\n", (long long)deadline_s);
}

static void mark_run_state(struct job_ctx *jc, const struct run_rec *rr,
			   const char *results_file)
{
	struct db_args a = DB_ARGS_INIT;
	struct strbuf err = STRBUF_INIT;

	db_args_i64(&a, rr->id);
	db_args_str(&a, results_file);
	if (db_exec_args(jc->db, NULL, &err,
			 "UPDATE runs SET status = 'running', started_at = "
			 "now(), results_file = $2 WHERE id = $1",
			 &a) < 0)
		jlog(jc, 1, "run %lld: %s", (long long)rr->id, err.buf);
	db_args_clear(&a);
	strbuf_release(&err);
}

/* Run rr (run i of n) on the host; its outcome goes into rr. */
static void run_one(struct job_ctx *jc, struct runner *runner,
		    struct run_rec *rr, size_t i, size_t n,
		    const struct run_clock *clk)
{
	struct strbuf spec = STRBUF_INIT, err = STRBUF_INIT, name = STRBUF_INIT;
	struct line_ctx lc = { jc, rr, i, n, clk, mono_ms() };
	struct runner_callbacks cb = { on_line, on_tick, on_note, &lc };
	struct budget rb;
	enum runner_end end;
	int status;

	build_spec(jc, runner, rr, &spec);
	mark_run_state(jc, rr, runner_results_file(runner, rr->id));
	/* The agent's own deadline is timeouts.run; the controller gives it
	 * a minute more to say so before stopping it. */
	strbuf_addf(&name, "run %lld's limit (timeouts.run ",
		    (long long)rr->id);
	format_duration_ms(&name, jc->plan->timeouts.run_ms);
	strbuf_addstr(&name, " + 1m)");
	job_command_limit(jc, &rb, &name, jc->plan->timeouts.run_ms + 60000);
	if (runner_run(runner, rr->id, spec.buf, &rb, &cb, &end, &status,
		       &err) < 0) {
		/* The host could not be reached again: so are the job's
		 * other runs, which are not tried. */
		run_failed(rr, "run", err.buf);
		if (starts_with(err.buf, "connection lost"))
			jc->connection_lost = 1;
		goto out;
	}
	switch (end) {
	case RUNNER_ENDED:
		if (!rr->error && !rr->stream_done) {
			/* The stream ended early: the file may know more. */
			rr->need_fetch = 1;
		}
		break;
	case RUNNER_LOST:
		rr->need_fetch = 1;
		break;
	case RUNNER_STOPPED:
		rr->stopped = !jc->timed_out;
		if (!rr->error)
			run_failed(rr, "run",
				   jc->timed_out ? jc->timeout_msg.buf
				   : jc->interrupted
					   ? "stopped: the controller was "
					     "interrupted (SIGINT or SIGTERM)"
				   : jc->lease_lost ? "stopped: the job was "
						      "cancelled or its lease "
						      "expired"
						    : "stopped");
		break;
	case RUNNER_TIMEOUT:
		budget_describe(&rb, &err);
		strbuf_addstr(&err, "; the agent was stopped");
		run_failed(rr, "run", err.buf);
		break;
	}
out:
	strbuf_release(&spec);
	strbuf_release(&err);
	strbuf_release(&name);
}

/* Whether this round's console shows what the plan's `expect:` says. */
static int console_as_expected(const struct job_ctx *jc)
{
	switch (jc->plan->expect) {
	case PLAN_EXPECT_NOTHING:
		return 0;
	case PLAN_EXPECT_PANIC:
		return jc->console_fatal &&
		       !strcmp(jc->console_fatal_kind, "panic");
	case PLAN_EXPECT_OOPS:
		return jc->console_oops;
	}
	return 0;
}

/*
 * After the runs of a round on a host that boots (rr[from..to)): what the
 * console showed decides how they ended.  A crash the plan expects
 * (`expect:`) is the expected outcome of every run it cut short (its
 * boots row says expected-panic, nobody is blamed); a fatal line it does
 * not expect fails them and the job, in `run`, blamed as the health rules
 * say (the kernel's, when it is new on a good host); a plan that expects a
 * crash that never came fails its runs.  The host is powered off after
 * the round as usual.  -1 with *ret_msg when the job must fail now.
 */
static int console_round_end(struct job_ctx *jc, struct run_rec *rr,
			     size_t from, size_t to, size_t *nfailed,
			     char **ret_msg)
{
	struct strbuf blame = STRBUF_INIT, e = STRBUF_INIT, m = STRBUF_INIT;
	int expected = console_as_expected(jc), r = 0;

	if (!jc->console_fatal && !jc->plan->expect)
		return 0;
	if (!jc->console_fatal && expected)
		return 0; /* an expected oops that did not kill the host */
	if (!jc->console_fatal) {
		strbuf_addf(&m,
			    "the plan expects %s, and the console showed none",
			    jc->plan->expect == PLAN_EXPECT_PANIC ? "a panic"
								  : "an oops");
		for (size_t i = from; i < to; i++) {
			if (!rr[i].error)
				(*nfailed)++;
			free(rr[i].error);
			rr[i].error = xstrdup(m.buf);
			rr[i].phase = "run";
			rr[i].need_fetch = 0;
		}
		jlog(jc, 1, "%s", m.buf);
		strbuf_release(&m);
		return 0;
	}
	if (jc->run_fatal &&
	    jc->run_fatal(jc, jc->console_fatal, expected, &blame, &e) < 0)
		jlog(jc, 1, "cannot record the console's verdict: %s", e.buf);
	for (size_t i = from; i < to; i++) {
		if (rr[i].stream_done && !rr[i].error)
			continue; /* it finished before the crash */
		rr[i].need_fetch = 0;
		if (expected) {
			if (rr[i].error)
				(*nfailed)--;
			free(rr[i].error);
			rr[i].error = NULL;
			rr[i].expected = xstrdup(jc->console_fatal);
		} else {
			if (!rr[i].error)
				(*nfailed)++;
			free(rr[i].error);
			rr[i].error = xstrfmt("the kernel crashed: %s",
					      jc->console_fatal);
			rr[i].phase = "run";
		}
	}
	if (expected) {
		jlog(jc, 0, "expected %s seen: %s", jc->console_fatal_kind,
		     jc->console_fatal);
	} else {
		*ret_msg = xstrfmt("%s on the console during the run: %s "
				   "(blame %s)",
				   jc->console_fatal_kind, jc->console_fatal,
				   blame.len ? blame.buf : "?");
		r = -1;
	}
	strbuf_release(&blame);
	strbuf_release(&e);
	return r;
}

/*
 * Fetch the results file of a run whose stream was cut, within the collect
 * phase's limit.  The run files stay on the host until the run is stored
 * (forget_runs()).
 */
static void collect_one(struct job_ctx *jc, struct runner *runner,
			struct run_rec *rr, struct strbuf *log)
{
	struct strbuf err = STRBUF_INIT, file = STRBUF_INIT;
	struct ingest_summary sum;

	if (rr->need_fetch && !rr->error && job_limit_check(jc) < 0) {
		run_failed(rr, "collect", jc->timeout_msg.buf);
	} else if (rr->need_fetch && !rr->error) {
		/* The fetch gets what is left of the collect phase's limit. */
		int64_t left = budget_left(&jc->phase_budget);
		int tmo = left > 30000 ? 30000 : left < 1000 ? 1000 : (int)left;

		if (runner_fetch(runner, rr->id, RUN_LINES_CAP, tmo, &file,
				 &err) < 0) {
			if (job_limit_check(jc) < 0)
				run_failed(rr, "collect", jc->timeout_msg.buf);
			else
				run_failed(rr, "collect", err.buf);
		} else if (ingest_check_all(file.buf, file.len, &rr->ex, &sum,
					    &err) < 0) {
			run_failed(rr, "collect", err.buf);
		} else {
			strbuf_addf(log,
				    "run %lld: the stream was cut after %zu "
				    "bytes; results file has %zu lines (%zu "
				    "results)\n",
				    (long long)rr->id, rr->lines.len, sum.lines,
				    sum.results);
			strbuf_release(&rr->lines);
			rr->lines = file;
			strbuf_init(&file, 0);
			ingest_summary_release(&sum);
		}
	} else if (!rr->error) {
		strbuf_addf(log, "run %lld: stream complete (%zu bytes)\n",
			    (long long)rr->id, rr->lines.len);
	}
	if (rr->error)
		strbuf_addf(log, "run %lld: failed: %s\n", (long long)rr->id,
			    rr->error);
	strbuf_release(&err);
	strbuf_release(&file);
}

/* Remove the run files of runs from..to-1 on the host. */
static void forget_runs(struct runner *runner, struct run_rec *rr, size_t from,
			size_t to)
{
	for (size_t i = from; runner && i < to; i++)
		runner_forget(runner, rr[i].id);
}

/*
 * Store a run the moment it has finished, so that whatever happens to the
 * job later (^C, a cancel, a crash of the controller) keeps what was
 * measured, as mmtests and LKP keep each iteration on disk.  A run whose
 * stream was cut waits for the collect phase (its file knows more); a run
 * the job itself stopped (an interrupt, a cancel) is left for
 * queue_finish() to mark aborted with the reason.  A database that is
 * away leaves the run to the job's final transaction (job_store()), which
 * waits for it.  What was done goes to log.
 */
static void record_finished(struct job_ctx *jc, struct run_rec *rr,
			    struct strbuf *log)
{
	if (rr->need_fetch || rr->stopped)
		return;
	/* A lost host may have crashed: the end of the round reads its
	 * console first (console_round_end()). */
	if (rr->error && jc->connection_lost)
		return;
	/* The agent got the same SIGINT as we did (one process group on a
	 * terminal): its "interrupted" end is the job's stop, not its own
	 * failure. */
	if ((job_stop_requested || jc->lease_lost) && rr->stream_done &&
	    !rr->done_ok) {
		rr->stopped = 1;
		return;
	}
	if (job_ingest_one(jc, rr, log) == 0)
		rr->recorded = 1;
}

/* What the estimate of the time left counts: the runs this attempt has
 * to do (an earlier attempt's stored runs are not done again). */
struct run_clock {
	int64_t t0;
	size_t todo, ran;
};

static void progress(struct job_ctx *jc, const struct run_rec *rr, size_t i,
		     size_t n, const struct run_clock *clk, const char *outcome,
		     int tick)
{
	struct job_progress p;
	double el = (double)(mono_ms() - clk->t0) / 1000.0;
	size_t finished = clk->ran + (outcome ? 1 : 0);

	if (!jc->hooks || !jc->hooks->progress)
		return;
	p.job_id = jc->claim.job_id;
	p.run_id = rr->id;
	p.index = i;
	p.nr_runs = n;
	p.workload = rr->pr->workload;
	p.params = rr->label.buf;
	p.host = jc->host_name;
	p.elapsed_s = el;
	p.estimate_s =
		finished && clk->todo >= finished
			? el / (double)finished * (double)(clk->todo - finished)
			: -1;
	p.outcome = outcome;
	p.tick = tick;
	jc->hooks->progress(jc->hooks->ctx, &p);
}

/*
 * The job's state and phase rows are its story, not its results: with the
 * database away for a moment they are skipped (a warning waits for the
 * log), and the job goes on; only a lost lease stops it.
 */
static int set_phase_state(struct job_ctx *jc, const char *state)
{
	struct strbuf err = STRBUF_INIT;
	int r = queue_set_state(jc->db, &jc->claim, jc->owner, state, &err);

	if (r == -2)
		jc->lease_lost = 1;
	else if (r < 0)
		jlog(jc, 1, "cannot set state %s: %s", state, err.buf);
	strbuf_release(&err);
	return jc->lease_lost ? -1 : 0;
}

/* A phase row (queue_phase_begin()); *ret_id 0 when the database was
 * away.  -1 only when it refused. */
static int phase_row(struct job_ctx *jc, const char *phase, int64_t *ret_id,
		     struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;
	int r;

	*ret_id = 0;
	r = queue_phase_begin(jc->db, &jc->claim, phase, ret_id, &e);
	/* A phase may begin with a long wait on the database. */
	keeper_heard(jc, 0);
	if (r == 0) {
		strbuf_release(&e);
		return 0;
	}
	if (db_lost(jc->db)) {
		jlog(jc, 1, "phase %s not recorded, the database is away: %s",
		     phase, e.buf);
		strbuf_release(&e);
		return 0;
	}
	strbuf_addbuf(err, &e);
	strbuf_release(&e);
	return -1;
}

int job_execute(struct db *db, const struct queue_claim *c, const char *owner,
		int lease_s, const char *home, const struct job_hooks *hooks,
		struct strbuf *err)
{
	struct job_ctx jc = { .db = db,
			      .claim = *c,
			      .owner = owner,
			      .lease_s = lease_s,
			      .home = home,
			      .hooks = hooks,
			      .beat = job_beat };
	struct strbuf e = STRBUF_INIT, log = STRBUF_INIT, rlog = STRBUF_INIT;
	struct run_rec *rr = NULL;
	struct runner *runner = NULL;
	const char *fail_phase = NULL;
	char *fail_msg = NULL;
	const int interrupt_cancels = hooks && hooks->interrupt_cancels;
	struct run_clock clk = { 0 };
	size_t n = 0, nfailed = 0, nkept = 0;
	int64_t pid = 0;
	int ret = 1, r, host_unreachable = 0, stored = 0, elsewhere = 0;
	int requeued = 0;

	job_guard_init(&jc);
	jc.last_beat_ms = mono_ms();
	if (keeper_start(db, c, owner, lease_s, &jc.last_beat_ms, &jc.keeper,
			 &e) < 0) {
		jlog(&jc, 1,
		     "job %lld: no lease keeper (%s): a call that "
		     "takes longer than the lease loses it",
		     (long long)c->job_id, e.buf);
		strbuf_reset(&e);
	}
	if (load_job(&jc, &e) < 0) {
		fail_phase = "infra";
		fail_msg = strbuf_detach(&e, NULL);
		goto finish;
	}
	job_budget_begin(&jc);
	jlog(&jc, 0,
	     "job %lld attempt %d on %s (%s), kernel %s, plan %s: "
	     "%zu runs x %d boots",
	     (long long)c->job_id, c->attempt, jc.host_name, jc.host_kind,
	     jc.kernel_name, jc.plan->name, jc.plan->nr_runs, jc.boots);
	if (adaptive_job_is_adaptive(jc.plan, jc.patch_id))
		jlog(&jc, 0,
		     "until decided: block %d of PLM#%lld, boots %d..%d of "
		     "%s (at most %d per kernel)",
		     jc.block, (long long)jc.patch_id, jc.first_boot,
		     jc.first_boot + jc.boots - 1, jc.kernel_name,
		     jc.plan->max_boots);

	/* a new host is checked first; one that fails never runs the job */
	r = phase_check(&jc, &e);
	if (r == 1) {
		requeued = 1;
		fail_phase = "boot";
		fail_msg = strbuf_detach(&e, NULL);
		goto finish;
	}
	if (r < 0) {
		fail_phase = "infra";
		fail_msg = strbuf_detach(&e, NULL);
		goto finish;
	}

	/* build */
	if (phase_build(&jc, &e) < 0) {
		fail_phase = "build";
		fail_msg = strbuf_detach(&e, NULL);
		goto finish;
	}

	n = jc.plan->nr_runs * (size_t)jc.boots;
	rr = xcalloc(n, sizeof(*rr));
	for (size_t i = 0; i < n; i++) {
		rr[i].pr = &jc.plan->runs[i % jc.plan->nr_runs];
		rr[i].boot = jc.first_boot + (int)(i / jc.plan->nr_runs);
		strbuf_init(&rr[i].lines, 0);
		strbuf_init(&rr[i].label, 0);
		plan_run_label(rr[i].pr, &rr[i].label);
		/* The label starts with the workload, shown on its own. */
		if (starts_with(rr[i].label.buf, rr[i].pr->workload) &&
		    rr[i].label.buf[strlen(rr[i].pr->workload)] == ' ') {
			size_t w = strlen(rr[i].pr->workload) + 1;

			memmove(rr[i].label.buf, rr[i].label.buf + w,
				rr[i].label.len - w + 1);
			strbuf_setlen(&rr[i].label, rr[i].label.len - w);
		}
	}
	r = find_done_before(&jc, rr, n, &e);
	if (r < 0 || create_runs(&jc, rr, n, &e) < 0) {
		fail_phase = "infra";
		fail_msg = strbuf_detach(&e, NULL);
		goto finish;
	}
	nkept = (size_t)r;
	if (nkept)
		jlog(&jc, 0,
		     "resuming: %zu of %zu runs were stored by an earlier "
		     "attempt and are kept; running the other %zu",
		     nkept, n, n - nkept);
	clk.t0 = mono_ms();
	clk.todo = n - nkept;
	for (int b = 0; b < jc.boots && !jc.lease_lost; b++) {
		if (jc.timed_out || jc.connection_lost) {
			/* Out of time, or the host is gone: the rounds left
			 * are not tried. */
			for (size_t k = 0; k < jc.plan->nr_runs; k++)
				if (!rr[(size_t)b * jc.plan->nr_runs + k]
					     .done_before)
					not_run(&jc,
						&rr[(size_t)b *
							    jc.plan->nr_runs +
						    k]);
			continue;
		}
		/* boot */
		if (phase_boot(&jc, b, &e) < 0) {
			fail_phase = "boot";
			fail_msg = strbuf_detach(&e, NULL);
			elsewhere = boot_failed_host_fault(&jc);
			goto finish;
		}
		/* run */
		if (set_phase_state(&jc, "running") < 0)
			goto finish;
		if (b == 0 || kind_boots(jc.host_kind)) {
			struct strbuf olog = STRBUF_INIT;

			if (phase_row(&jc, "run", &pid, &e) < 0) {
				fail_phase = "infra";
				fail_msg = strbuf_detach(&e, NULL);
				goto finish;
			}
			queue_set_host_state(db, &jc.claim, owner, "running",
					     &e);
			strbuf_reset(&e);
			if (!jc.agent_path)
				jc.agent_path = runner_default_agent_path();
			jc.target.stall_ms = (int)jc.plan->timeouts.stall_ms;
			runner_close(runner);
			runner = NULL;
			if (runner_open(&jc.target, jc.agent_path, &runner,
					&olog, &e) < 0) {
				queue_phase_end(db, pid, "failed", e.buf,
						&rlog);
				/* Unreachable is the host's fault, not the
				 * kernel's (REFERENCE.md section 3). */
				fail_phase = "infra";
				host_unreachable = 1;
				fail_msg = strbuf_detach(&e, NULL);
				strbuf_release(&olog);
				goto finish;
			}
			strbuf_addbuf(&rlog, &olog);
			if (olog.len) {
				strbuf_rtrim(&olog);
				jlog(&jc, 0, "%s", olog.buf);
			}
			strbuf_release(&olog);
		}
		run_phase_limit(&jc);
		for (size_t k = 0; k < jc.plan->nr_runs; k++) {
			size_t i = (size_t)b * jc.plan->nr_runs + k;

			if (rr[i].done_before)
				continue;
			if (jc.timed_out || jc.connection_lost) {
				not_run(&jc, &rr[i]);
				nfailed++;
				continue;
			}
			if (job_beat(&jc) < 0)
				break;
			progress(&jc, &rr[i], i, n, &clk, NULL, 0);
			run_one(&jc, runner, &rr[i], i, n, &clk);
			record_finished(&jc, &rr[i], &rlog);
			if (rr[i].error)
				nfailed++;
			progress(&jc, &rr[i], i, n, &clk,
				 rr[i].error	    ? rr[i].error
				 : rr[i].need_fetch ? "ok (stream cut: "
						      "collecting the file)"
						    : "ok",
				 0);
			clk.ran++;
			strbuf_addf(&rlog, "run %lld (%s %s): %s\n",
				    (long long)rr[i].id, rr[i].pr->workload,
				    rr[i].label.buf,
				    rr[i].error	       ? rr[i].error
				    : rr[i].need_fetch ? "stream cut"
						       : "ok");
		}
		if (kind_boots(jc.host_kind) &&
		    console_round_end(&jc, rr, (size_t)b * jc.plan->nr_runs,
				      (size_t)(b + 1) * jc.plan->nr_runs,
				      &nfailed, &fail_msg) < 0) {
			queue_phase_end(db, pid, "failed", rlog.buf, &e);
			/* The runs the crash cut short say so. */
			for (size_t i = (size_t)b * jc.plan->nr_runs;
			     i < (size_t)(b + 1) * jc.plan->nr_runs; i++)
				if (!rr[i].recorded && !rr[i].done_before &&
				    job_ingest_one(&jc, &rr[i], &log) == 0)
					rr[i].recorded = 1;
			fail_phase = "run";
			goto finish;
		}
		if (b == jc.boots - 1 || kind_boots(jc.host_kind)) {
			queue_phase_end(db, pid,
					jc.lease_lost ? "failed"
					: nfailed     ? "failed"
						      : "ok",
					rlog.buf, &e);
			strbuf_reset(&rlog);
			strbuf_reset(&e);
		}
		if (jc.lease_lost)
			break;
		/* collect: a booted host loses its files when it goes
		 * down, so kinds that boot collect each round before the
		 * power-off; the others once, after the last round. */
		if (b == jc.boots - 1 || kind_boots(jc.host_kind)) {
			size_t from = kind_boots(jc.host_kind)
					      ? (size_t)b * jc.plan->nr_runs
					      : 0;
			size_t to = (size_t)(b + 1) * jc.plan->nr_runs;

			if (set_phase_state(&jc, "collecting") < 0 ||
			    phase_row(&jc, "collect", &pid, &e) < 0)
				goto finish;
			job_phase_limit(&jc, "collect", "timeouts.collect",
					jc.plan->timeouts.collect_ms, 1);
			/* A host that crashed has nothing left to fetch. */
			for (size_t i = from; i < to && !jc.console_fatal; i++)
				if (!rr[i].done_before && !rr[i].stopped)
					collect_one(&jc, runner, &rr[i], &log);
			queue_phase_end(db, pid, "ok", log.buf, &e);
			strbuf_reset(&log);
			strbuf_reset(&e);
		}
		/* A booted host keeps nothing past its power-off: its run
		 * files go now, its lines are in memory.  The others keep
		 * theirs until the runs are stored. */
		if (kind_boots(jc.host_kind)) {
			forget_runs(runner, rr, (size_t)b * jc.plan->nr_runs,
				    (size_t)(b + 1) * jc.plan->nr_runs);
			runner_close(runner);
			runner = NULL;
		}
		free(jc.console_fatal);
		jc.console_fatal = NULL;
		jc.console_oops = 0;
		if (phase_power_off(&jc) < 0) {
			fail_phase = "infra";
			fail_msg = xstrdup("the host could not be powered off "
					   "(see the boot phase log)");
			goto finish;
		}
	}
	if (jc.lease_lost)
		goto finish;
	/* Runs cut short by the end of the job were not collected. */
	for (size_t i = 0; i < n; i++)
		if (rr[i].need_fetch && !rr[i].error &&
		    (jc.timed_out || jc.connection_lost))
			not_run(&jc, &rr[i]);

	/* ingest: with a limit of its own, so that what ran is stored even
	 * when the job ran out of time, and one transaction (job_store()). */
	if (set_phase_state(&jc, "ingesting") < 0 ||
	    phase_row(&jc, "ingest", &pid, &e) < 0)
		goto finish;
	job_phase_limit(&jc, "ingest", NULL, 10 * 60 * 1000, 0);
	{
		struct store_args sa = { rr, n, pid, STRBUF_INIT, NULL, NULL };

		if (job_db_retry(&jc, "storing the runs", job_store, &sa, &e) ==
		    0) {
			stored = 1;
			fail_phase = sa.fail_phase;
			fail_msg = sa.fail_msg;
			ret = fail_msg ? 1 : 0;
			/* Stored: the host may let go of the run files. */
			forget_runs(runner, rr, 0, n);
		} else {
			free(sa.fail_msg);
			if (!jc.lease_lost) {
				fail_phase = "ingest";
				fail_msg = strbuf_detach(&e, NULL);
			}
		}
		strbuf_release(&sa.log);
	}

finish:
	runner_close(runner);
	phase_power_off(&jc);
	/* Every way here without a message is a failed bookkeeping step
	 * (a phase row or state the database refused): the job did not
	 * finish, whatever its runs did, so it must not read "done". */
	if (ret != 0 && !fail_msg && !jc.interrupted && !jc.lease_lost) {
		fail_phase = "infra";
		fail_msg = xstrfmt(
			"the job stopped early: %s",
			e.len ? e.buf : "the database refused a phase update");
	}
	if (jc.interrupted && !stored) {
		size_t nstored = 0, finished = 0;

		for (size_t i = 0; rr && i < n; i++) {
			if (rr[i].done_before || rr[i].recorded)
				finished++;
			if (rr[i].done_before ||
			    (rr[i].recorded && !rr[i].error))
				nstored++;
		}
		free(fail_msg);
		fail_phase = NULL;
		if (interrupt_cancels)
			fail_msg = xstrfmt(
				"interrupted (SIGINT or SIGTERM) after %zu of "
				"%zu runs: cancelled; the %zu runs that "
				"finished ok are stored",
				finished, n, nstored);
		else
			fail_msg = xstrfmt(
				"interrupted: the controller stopped after "
				"%zu of %zu runs; back in the queue: the %zu "
				"runs stored are kept and the next attempt "
				"runs the other %zu",
				finished, n, nstored, n - nstored);
		jlog(&jc, 1, "job %lld %s", (long long)c->job_id, fail_msg);
	} else {
		if (jc.lease_lost && !fail_msg && !jc.interrupted) {
			fail_phase = "infra";
			fail_msg = xstrdup("the job's lease was lost "
					   "(cancelled, or expired)");
		}
		if (fail_msg && requeued)
			jlog(&jc, 1,
			     "job %lld goes back to the queue: host %s failed "
			     "its check: %s",
			     (long long)c->job_id, jc.host_name, fail_msg);
		else if (fail_msg && elsewhere)
			jlog(&jc, 1,
			     "job %lld failed in %s on %s, the host's fault: "
			     "back to the queue for another host: %s",
			     (long long)c->job_id, fail_phase, jc.host_name,
			     fail_msg);
		else if (fail_msg)
			jlog(&jc, 1, "job %lld failed in %s: %s",
			     (long long)c->job_id,
			     fail_phase ? fail_phase : "an unknown phase",
			     fail_msg);
		else
			jlog(&jc, 0, "job %lld done: %zu runs",
			     (long long)c->job_id, n);
		jc.interrupted = 0;
	}
	strbuf_reset(&e);
	if (jc.connection_lost)
		host_unreachable = 1;
	/* A failed check was observed by the check itself. */
	if (requeued)
		elsewhere = 1;
	if (!jc.interrupted && !requeued && (host_unreachable || !fail_msg)) {
		struct host_observation o = { 0 };
		struct host_verdict v;
		struct strbuf what = STRBUF_INIT;

		/* The host did its part, or could not be reached; the rules
		 * (store/hosts.c) say whose fault that is. */
		strbuf_addf(&what, "job %lld", (long long)c->job_id);
		o.host_id = c->host_id;
		o.kernel_id = kind_boots(jc.host_kind) ? jc.kernel_id : 0;
		o.outcome = host_unreachable ? HOST_FAILED : HOST_WORKED;
		o.what = what.buf;
		o.failure =
			jc.connection_lost ? "connection lost" : "unreachable";
		o.reason = host_unreachable ? fail_msg : NULL;
		if (hosts_observe(db, &o, &v, &e) < 0)
			jlog(&jc, 1, "cannot record the host's health: %s",
			     e.buf);
		else if (v.changed)
			jlog(&jc, 1, "host %s: %s (blame %s): health %s",
			     jc.host_name,
			     host_unreachable ? "unreachable" : "worked",
			     v.blame, v.after.health);
		else if (host_unreachable)
			jlog(&jc, 1, "host %s unreachable: blame %s, health %s",
			     jc.host_name, v.blame, v.after.health);
		strbuf_release(&what);
		strbuf_reset(&e);
	}
	/* Stored, the job ended in the same transaction.  Otherwise its end
	 * is recorded now, waiting for a database that went away. */
	if (stored) {
		r = 0;
	} else {
		struct finish_args fa = {
			jc.interrupted
				? (interrupt_cancels ? "cancelled" : "queued")
			: elsewhere ? "elsewhere"
			: fail_msg  ? "failed"
				    : "done",
			fail_msg ? fail_phase : NULL, fail_msg
		};

		keeper_heard(&jc, 1);
		job_phase_limit(&jc, "end", NULL, 2 * 60 * 1000, 0);
		r = job_db_retry(&jc, "recording the end of the job",
				 job_finish, &fa, &e);
	}
	if (r < 0) {
		strbuf_addf(err, "cannot record the end of job %lld: %s",
			    (long long)c->job_id, e.buf);
		ret = -1;
	} else if (fail_msg && !jc.interrupted && !elsewhere &&
		   adaptive_job_is_adaptive(jc.plan, jc.patch_id)) {
		/* A failed block ends its sequence: say so where the
		 * sequence's reasons are read. */
		strbuf_reset(&e);
		if (adaptive_job_failed(db, c->job_id, fail_phase, &e) < 0)
			jlog(&jc, 1, "cannot record the stop reason: %s",
			     e.buf);
	}
	if (fail_msg && ret == 0)
		ret = 1;
	if (requeued && ret == 1)
		ret = 2;
	keeper_stop(jc.keeper);
	jc.keeper = NULL;
	for (size_t i = 0; rr && i < n; i++) {
		strbuf_release(&rr[i].lines);
		strbuf_release(&rr[i].label);
		free(rr[i].error);
		free(rr[i].expected);
	}
	free(rr);
	free(jc.console_fatal);
	free(fail_msg);
	strbuf_release(&e);
	strbuf_release(&log);
	strbuf_release(&rlog);
	job_ctx_release(&jc);
	job_guard_release(&jc);
	return ret;
}

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
#include "job/jobexec.h"
#include "store/hosts.h"
#include "parse.h"
#include "plan/plan.h"
#include "time-util.h"
#include "banned.h"

#define RUN_LINES_CAP (256u << 20)

volatile sig_atomic_t job_stop_requested;

/*
 * Host kinds.  local and ssh run the kernel they have; the boot issue
 * fills .build/.boot for libvirt and ipmi (see job.h).
 */
static const struct job_kind_ops job_kinds[] = {
	{ "local", NULL, NULL, NULL },
	{ "ssh", NULL, NULL, NULL },
	{ "libvirt", boot_job_build, boot_job_boot, boot_job_power_off },
	{ "ipmi", boot_job_build, boot_job_boot, boot_job_power_off },
};

/* Kinds that must boot the job's kernel before running anything. */
static int kind_boots(const char *kind)
{
	return !strcmp(kind, "libvirt") || !strcmp(kind, "ipmi");
}

static const struct job_kind_ops *kind_ops(const char *kind)
{
	for (size_t i = 0; i < ARRAY_SIZE(job_kinds); i++)
		if (!strcmp(job_kinds[i].kind, kind))
			return &job_kinds[i];
	return NULL;
}

struct run_rec {
	int64_t id;
	const struct plan_run *pr;
	int boot;
	struct strbuf lines;
	struct strbuf label;
	char *error; /* set when the run failed */
	const char *phase; /* the phase it failed in */
	int need_fetch;
	int stream_done; /* a done line came through the stream */
	struct ingest_expect ex;
};

static void jlog(struct job_ctx *jc, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void jlog(struct job_ctx *jc, int level, const char *fmt, ...)
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
	queue_log(jc->db, jc->claim.job_id, line.buf, &err);
	if (jc->hooks && jc->hooks->log)
		jc->hooks->log(jc->hooks->ctx, level, sb.buf);
	strbuf_release(&sb);
	strbuf_release(&line);
	strbuf_release(&err);
}

/* Renew the lease when a third of it has passed; -1 once it is lost. */
int job_beat(struct job_ctx *jc)
{
	struct strbuf err = STRBUF_INIT;
	int64_t now = mono_ms();
	int r;

	if (jc->lease_lost)
		return -1;
	if (job_stop_requested) {
		jc->lease_lost = 1;
		jc->interrupted = 1;
		jlog(jc, 1,
		     "job %lld: the controller is stopping: the job "
		     "goes back to the queue",
		     (long long)jc->claim.job_id);
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
	} else if (r == -2) {
		jc->lease_lost = 1;
		jlog(jc, 1,
		     "job %lld: lease lost (cancelled, or expired): "
		     "stopping",
		     (long long)jc->claim.job_id);
	} else {
		/* A database hiccup: try again next tick; the lease has
		 * two more thirds to go. */
		jlog(jc, 1, "heartbeat failed: %s", err.buf);
	}
	strbuf_release(&err);
	return jc->lease_lost ? -1 : 0;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int load_job(struct job_ctx *jc, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	struct strbuf perr = STRBUF_INIT;
	const char *body, *v;
	int r;

	db_args_i64(&a, jc->claim.job_id);
	db_args_i64(&a, jc->claim.host_id);
	r = db_exec_args(jc->db, &res, err,
			 "SELECT p.id, p.name, p.body, k.id, k.name, "
			 "coalesce(j.patch_id, 0), h.name, h.kind, h.address, "
			 "h.port, h.ssh_user, h.key_file, h.known_hosts, "
			 "j.block, j.boots, j.first_boot "
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
	jc->target.address = dup_or_null(db_get(res, 0, 8));
	v = db_get(res, 0, 9);
	if (v)
		parse_int(v, 1, 65535, &jc->target.port, NULL);
	jc->target.user = dup_or_null(db_get(res, 0, 10));
	jc->target.key_file = dup_or_null(db_get(res, 0, 11));
	jc->target.known_hosts = dup_or_null(db_get(res, 0, 12));
	/* A local host's run files live in the state folder. */
	if (!strcmp(jc->host_kind, "local")) {
		if (home_subdir(jc->home, HOME_RUN, &jc->run_dir, err) < 0)
			return -1;
		jc->target.run_dir = jc->run_dir;
	}
	parse_int(db_get(res, 0, 13), 0, INT32_MAX, &jc->block, NULL);
	body = db_get(res, 0, 2);
	if (plan_parse(db_get(res, 0, 1), body, strlen(body), &jc->plan,
		       &perr) < 0) {
		strbuf_addf(err, "the job's plan no longer parses: %s",
			    perr.buf);
		strbuf_release(&perr);
		return -1;
	}
	strbuf_release(&perr);
	adaptive_job_boots(jc->plan, jc->patch_id, jc->block, &jc->boots,
			   &jc->first_boot);
	/* A job scheduled with its own boot count (a unit of a submission's
	 * ABBA order, a look of a bisection step: schema 007). */
	if (db_get(res, 0, 14)) {
		parse_int(db_get(res, 0, 14), 1, 1000, &jc->boots, NULL);
		parse_int(db_get(res, 0, 15), 0, INT32_MAX, &jc->first_boot,
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

		strbuf_addf(&why,
			    "this %s host runs its own kernel (labelled "
			    "%s): nothing to build",
			    jc->host_kind, jc->kernel_name);
		phase_skip(jc, "build", why.buf);
		strbuf_release(&why);
		return 0;
	}
	if (queue_set_state(jc->db, &jc->claim, jc->owner, "building", err) <
		    0 ||
	    queue_phase_begin(jc->db, &jc->claim, "build", &pid, err) < 0)
		return -1;
	if (!ops || !ops->build) {
		strbuf_addf(err,
			    "building kernels for %s hosts is not "
			    "available in this schedfarm",
			    jc->host_kind);
		r = -1;
	} else {
		r = ops->build(jc, &log, err);
	}
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
	if (r < 0)
		strbuf_addf(&log, "%s\n", err->buf);
	queue_phase_end(jc->db, pid, r < 0 ? "failed" : "ok", log.buf, &e);
	strbuf_release(&log);
	strbuf_release(&e);
	return r;
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

		strbuf_reset(&params);
		plan_run_params_json(p, rr[i].pr, &params);
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

static void run_failed(struct run_rec *rr, const char *phase, const char *error)
{
	if (rr->error)
		return;
	rr->error = xstrdup(error);
	rr->phase = phase;
}

struct line_ctx {
	struct job_ctx *jc;
	struct run_rec *rr;
};

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
	if (al.type == AGENT_DONE)
		rr->stream_done = 1;
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

static int on_tick(void *ctx)
{
	struct line_ctx *lc = ctx;

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
	strbuf_addf(spec, "{\"run_id\":%lld,\"workload\":", (long long)rr->id);
	strbuf_add_json_str(spec, rr->pr->workload);
	strbuf_addstr(spec, ",\"params\":");
	plan_run_params_json(p, rr->pr, spec);
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

/* Run rr on the host; its outcome goes into rr. */
static void run_one(struct job_ctx *jc, struct runner *runner,
		    struct run_rec *rr)
{
	struct strbuf spec = STRBUF_INIT, err = STRBUF_INIT;
	struct line_ctx lc = { jc, rr };
	struct runner_callbacks cb = { on_line, on_tick, on_note, &lc };
	enum runner_end end;
	int status, timeout_ms;

	build_spec(jc, runner, rr, &spec);
	mark_run_state(jc, rr, runner_results_file(runner, rr->id));
	timeout_ms = (int)(jc->plan->timeouts.run_ms > 3600000 * 24
				   ? 3600000 * 24
				   : jc->plan->timeouts.run_ms) +
		     60000;
	if (runner_run(runner, rr->id, spec.buf, timeout_ms, &cb, &end, &status,
		       &err) < 0) {
		run_failed(rr, "run", err.buf);
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
		if (!rr->error)
			run_failed(rr, "run",
				   jc->lease_lost ? "stopped: the job's lease "
						    "was lost"
						  : "stopped");
		break;
	case RUNNER_TIMEOUT:
		strbuf_addf(&err,
			    "the run took longer than %d s and was "
			    "stopped",
			    timeout_ms / 1000);
		run_failed(rr, "run", err.buf);
		break;
	}
out:
	strbuf_release(&spec);
	strbuf_release(&err);
}

/* Fetch results files where the stream was cut; remove run files. */
static void collect_one(struct runner *runner, struct run_rec *rr,
			struct strbuf *log)
{
	struct strbuf err = STRBUF_INIT, file = STRBUF_INIT;
	struct ingest_summary sum;

	if (rr->need_fetch && !rr->error) {
		if (runner_fetch(runner, rr->id, RUN_LINES_CAP, &file, &err) <
		    0) {
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
	runner_forget(runner, rr->id);
	strbuf_release(&err);
	strbuf_release(&file);
}

static void ingest_one(struct job_ctx *jc, struct run_rec *rr,
		       struct strbuf *log)
{
	struct strbuf err = STRBUF_INIT;
	struct ingest_summary sum;
	int r;

	if (rr->error) {
		if (ingest_mark_failed(jc->db, rr->id, rr->error, rr->lines.buf,
				       rr->lines.len, &err) < 0)
			jlog(jc, 1, "run %lld: %s", (long long)rr->id, err.buf);
		strbuf_release(&err);
		return;
	}
	r = ingest_run(jc->db, &rr->ex, rr->lines.buf, rr->lines.len, &sum,
		       &err);
	if (r < 0) {
		run_failed(rr, "ingest", err.buf);
		strbuf_reset(&err);
		ingest_mark_failed(jc->db, rr->id, rr->error, rr->lines.buf,
				   rr->lines.len, &err);
		strbuf_addf(log, "run %lld: failed: %s\n", (long long)rr->id,
			    rr->error);
	} else {
		strbuf_addf(log,
			    "run %lld: %s %zu results, %zu samples, %zu "
			    "counters\n",
			    (long long)rr->id,
			    r == 1 ? "already ingested:" : "stored",
			    sum.results, sum.samples, sum.counters);
	}
	ingest_summary_release(&sum);
	strbuf_release(&err);
}

static void progress(struct job_ctx *jc, const struct run_rec *rr, size_t i,
		     size_t n, int64_t t0, const char *outcome)
{
	struct job_progress p;
	double el = (double)(mono_ms() - t0) / 1000.0;
	size_t finished = outcome ? i + 1 : i;

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
		finished ? el / (double)finished * (double)(n - finished) : -1;
	p.outcome = outcome;
	jc->hooks->progress(jc->hooks->ctx, &p);
}

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

/*
 * A done job of an adaptive sequence: queue the other kernel's job of its
 * block, or compare and queue the next block, or record why the sequence
 * stopped (adaptive.c).  Runs while the job still holds its lease, so a
 * job cancelled by now queues nothing.  What happened goes to the job's
 * log; a failure here is a warning, never the job's (its runs are stored).
 */
static void adaptive_step(struct job_ctx *jc)
{
	struct adaptive_outcome o;
	struct strbuf err = STRBUF_INIT;

	if (!adaptive_job_is_adaptive(jc->plan, jc->patch_id) ||
	    job_beat(jc) < 0)
		return;
	adaptive_outcome_init(&o);
	if (adaptive_job_done(jc->db, jc->claim.job_id, &o, &err) < 0)
		jlog(jc, 1, "until decided: %s", err.buf);
	if (o.warn.len) {
		strbuf_rtrim(&o.warn);
		jlog(jc, 1, "until decided: %s", o.warn.buf);
	}
	/* One log line per line of the outcome, each with its time. */
	for (char *line = o.msg.buf, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		jlog(jc, 0, "until decided: %s", line);
	}
	adaptive_outcome_release(&o);
	strbuf_release(&err);
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
	size_t n = 0, nfailed = 0;
	int64_t pid = 0, t0;
	int ret = 1, r, host_unreachable = 0;

	jc.last_beat_ms = mono_ms();
	if (load_job(&jc, &e) < 0) {
		fail_phase = "infra";
		fail_msg = strbuf_detach(&e, NULL);
		goto finish;
	}
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
	if (create_runs(&jc, rr, n, &e) < 0) {
		fail_phase = "infra";
		fail_msg = strbuf_detach(&e, NULL);
		goto finish;
	}

	t0 = mono_ms();
	for (int b = 0; b < jc.boots && !jc.lease_lost; b++) {
		/* boot */
		if (phase_boot(&jc, b, &e) < 0) {
			fail_phase = "boot";
			fail_msg = strbuf_detach(&e, NULL);
			goto finish;
		}
		/* run */
		if (set_phase_state(&jc, "running") < 0)
			goto finish;
		if (b == 0 || kind_boots(jc.host_kind)) {
			struct strbuf olog = STRBUF_INIT;

			if (queue_phase_begin(db, &jc.claim, "run", &pid, &e) <
			    0) {
				fail_phase = "infra";
				fail_msg = strbuf_detach(&e, NULL);
				goto finish;
			}
			queue_set_host_state(db, &jc.claim, owner, "running",
					     &e);
			strbuf_reset(&e);
			if (!jc.agent_path)
				jc.agent_path = runner_default_agent_path();
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
		for (size_t k = 0; k < jc.plan->nr_runs; k++) {
			size_t i = (size_t)b * jc.plan->nr_runs + k;

			if (job_beat(&jc) < 0)
				break;
			progress(&jc, &rr[i], i, n, t0, NULL);
			run_one(&jc, runner, &rr[i]);
			if (rr[i].error)
				nfailed++;
			progress(&jc, &rr[i], i, n, t0,
				 rr[i].error	    ? rr[i].error
				 : rr[i].need_fetch ? "ok (stream cut: "
						      "collecting the file)"
						    : "ok");
			strbuf_addf(&rlog, "run %lld (%s %s): %s\n",
				    (long long)rr[i].id, rr[i].pr->workload,
				    rr[i].label.buf,
				    rr[i].error	       ? rr[i].error
				    : rr[i].need_fetch ? "stream cut"
						       : "ok");
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
			    queue_phase_begin(db, &jc.claim, "collect", &pid,
					      &e) < 0)
				goto finish;
			for (size_t i = from; i < to; i++)
				collect_one(runner, &rr[i], &log);
			queue_phase_end(db, pid, "ok", log.buf, &e);
			strbuf_reset(&log);
			strbuf_reset(&e);
		}
		if (b == jc.boots - 1 || kind_boots(jc.host_kind)) {
			runner_close(runner);
			runner = NULL;
		}
		if (phase_power_off(&jc) < 0) {
			fail_phase = "infra";
			fail_msg = xstrdup("the host could not be powered off "
					   "(see the boot phase log)");
			goto finish;
		}
	}
	if (jc.lease_lost)
		goto finish;

	/* ingest */
	if (set_phase_state(&jc, "ingesting") < 0 ||
	    queue_phase_begin(db, &jc.claim, "ingest", &pid, &e) < 0)
		goto finish;
	nfailed = 0;
	for (size_t i = 0; i < n; i++) {
		if (i % 16 == 0)
			job_beat(&jc);
		ingest_one(&jc, &rr[i], &log);
		if (rr[i].error)
			nfailed++;
	}
	queue_phase_end(db, pid, nfailed && nfailed == n ? "failed" : "ok",
			log.buf, &e);
	if (nfailed) {
		struct strbuf m = STRBUF_INIT;

		for (size_t i = 0; i < n; i++) {
			if (rr[i].error) {
				strbuf_addf(&m,
					    "%zu of %zu runs failed; first: "
					    "run %lld (%s): %s",
					    nfailed, n, (long long)rr[i].id,
					    rr[i].phase, rr[i].error);
				fail_phase = rr[i].phase;
				break;
			}
		}
		fail_msg = strbuf_detach(&m, NULL);
	} else {
		ret = 0;
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
	if (jc.interrupted) {
		free(fail_msg);
		fail_msg = xstrdup("interrupted: the controller stopped; "
				   "requeued");
		fail_phase = NULL;
	} else if (jc.lease_lost && !fail_msg) {
		fail_phase = "infra";
		fail_msg = xstrdup("the job's lease was lost (cancelled, or "
				   "expired)");
	}
	if (fail_msg)
		jlog(&jc, 1, "job %lld failed in %s: %s", (long long)c->job_id,
		     fail_phase, fail_msg);
	else
		jlog(&jc, 0, "job %lld done: %zu runs", (long long)c->job_id,
		     n);
	/* ret is 0 only when every run was ingested. */
	if (ret == 0 && !fail_msg)
		adaptive_step(&jc);
	strbuf_reset(&e);
	if (!jc.interrupted && (host_unreachable || !fail_msg)) {
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
		o.failure = "unreachable";
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
	r = queue_finish(db, &jc.claim, owner,
			 jc.interrupted ? "queued"
			 : fail_msg	? "failed"
					: "done",
			 fail_msg ? fail_phase : NULL, fail_msg, &e);
	if (r < 0) {
		strbuf_addf(err, "cannot record the end of job %lld: %s",
			    (long long)c->job_id, e.buf);
		ret = -1;
	} else if (fail_msg && !jc.interrupted &&
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
	for (size_t i = 0; rr && i < n; i++) {
		strbuf_release(&rr[i].lines);
		strbuf_release(&rr[i].label);
		free(rr[i].error);
	}
	free(rr);
	free(fail_msg);
	strbuf_release(&e);
	strbuf_release(&log);
	strbuf_release(&rlog);
	job_ctx_release(&jc);
	return ret;
}

/*
 * phase_run.c - the run phase: the job's runs rows (an earlier attempt's
 * stored runs kept), and the runs of a boot round on the agent, each
 * stored as it finishes, with what the console showed; see phase.h.
 */
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "job/jobend.h"
#include "job/jobguard.h"
#include "job/joblog.h"
#include "job/lease.h"
#include "job/phase.h"
#include "parse.h"
#include "plan/plan.h"
#include "store/queue.h"
#include "store/runs.h"
#include "time-util.h"
#include "banned.h"

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
	int found = 0;

	/* Called before this attempt inserts its runs: every done run of
	 * the job is an earlier attempt's (an interrupted attempt is not
	 * counted, so the numbers may repeat). */
	if (runs_done_of_job(jc->db, jc->claim.job_id, &res, err) < 0)
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
		struct runs_new row;

		if (rr[i].done_before)
			continue;
		strbuf_reset(&params);
		plan_run_params_json(p, rr[i].pr, PLAN_SECRETS_MASKED, &params);
		row = (struct runs_new){ .job_id = jc->claim.job_id,
					 .host_id = jc->claim.host_id,
					 .kernel_id = jc->kernel_id,
					 .plan_id = jc->plan_id,
					 .workload = rr[i].pr->workload,
					 .params = params.buf,
					 .boot = rr[i].boot,
					 .seq = (int64_t)i,
					 .attempt = jc->claim.attempt,
					 .iterations = p->iterations,
					 .warmup = p->warmup };
		r = runs_insert(jc->db, &row, &rr[i].id, err);
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

struct runs_step {
	struct run_rec *rr;
	size_t n;
	int kept;
};

/* job_db_retry()'s step: the runs an earlier attempt stored found, rows
 * made for the others (one transaction).  1 when the database went away
 * meanwhile: what was found is forgotten and looked up again. */
static int runs_step(struct job_ctx *jc, void *arg, struct strbuf *err)
{
	struct runs_step *st = arg;
	int r;

	for (size_t i = 0; i < st->n; i++) {
		st->rr[i].done_before = 0;
		st->rr[i].id = 0;
	}
	r = find_done_before(jc, st->rr, st->n, err);
	if (r >= 0) {
		st->kept = r;
		if (create_runs(jc, st->rr, st->n, err) == 0)
			return 0;
	}
	return db_lost(jc->db) ? 1 : -1;
}

/*
 * The job's runs: one per run of the plan and boot round, labelled, with
 * those an earlier attempt stored kept, and a runs row for each of the
 * others.
 */
int exec_runs(struct job_exec *x)
{
	struct job_ctx *jc = &x->jc;
	struct run_rec *rr;
	size_t n;
	int r;

	n = x->n = jc->plan->nr_runs * (size_t)jc->boots;
	rr = x->rr = xcalloc(n, sizeof(*rr));
	for (size_t i = 0; i < n; i++) {
		rr[i].pr = &jc->plan->runs[i % jc->plan->nr_runs];
		rr[i].boot = jc->first_boot + (int)(i / jc->plan->nr_runs);
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
	{
		struct runs_step st = { rr, n, 0 };

		if (job_db_retry(jc, "recording the job's runs", runs_step, &st,
				 &x->e) < 0)
			return exec_fail(x, "infra");
		r = st.kept;
	}
	x->nkept = (size_t)r;
	if (x->nkept)
		jlog(jc, 0,
		     "resuming: %zu of %zu runs were stored by an earlier "
		     "attempt and are kept; running the other %zu",
		     x->nkept, n, n - x->nkept);
	x->clk.t0 = mono_ms();
	x->clk.todo = n - x->nkept;
	return PHASE_NEXT;
}

/* A run the job did not get to: it ran out of time, or lost its host. */
void not_run(struct job_ctx *jc, struct run_rec *rr)
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
	struct strbuf err = STRBUF_INIT;

	if (runs_mark_running(jc->db, rr->id, results_file, &err) < 0)
		jlog(jc, 1, "run %lld: %s", (long long)rr->id, err.buf);
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
 * The run phase's row, and the connection to the agent's host: made for
 * the first round, and again after each boot (kinds that boot).  An
 * unreachable host fails the job in infra.
 */
static int round_connect(struct job_exec *x)
{
	struct job_ctx *jc = &x->jc;
	struct strbuf olog = STRBUF_INIT;

	if (phase_row(jc, "run", &x->pid, &x->e) < 0)
		return exec_fail(x, "infra");
	queue_set_host_state(jc->db, &jc->claim, jc->owner, "running", &x->e);
	strbuf_reset(&x->e);
	if (!jc->agent_path)
		jc->agent_path = runner_default_agent_path();
	jc->target.stall_ms = (int)jc->plan->timeouts.stall_ms;
	runner_close(x->runner);
	x->runner = NULL;
	if (runner_open(&jc->target, jc->agent_path, &x->runner, &olog, &x->e) <
	    0) {
		queue_phase_end(jc->db, x->pid, "failed", x->e.buf, &x->rlog);
		/* Unreachable is the host's fault, not the kernel's
		 * (REFERENCE.md section 3). */
		x->host_unreachable = 1;
		strbuf_release(&olog);
		return exec_fail(x, "infra");
	}
	strbuf_addbuf(&x->rlog, &olog);
	if (olog.len) {
		strbuf_rtrim(&olog);
		jlog(jc, 0, "%s", olog.buf);
	}
	strbuf_release(&olog);
	return PHASE_NEXT;
}

/* The round's runs in order, each stored as it finishes; the run phase's
 * log says how each ended. */
static void round_runs(struct job_exec *x)
{
	struct job_ctx *jc = &x->jc;
	struct run_rec *rr = x->rr;

	run_phase_limit(jc);
	for (size_t k = 0; k < jc->plan->nr_runs; k++) {
		size_t i = (size_t)x->b * jc->plan->nr_runs + k;

		if (rr[i].done_before)
			continue;
		if (jc->timed_out || jc->connection_lost) {
			not_run(jc, &rr[i]);
			x->nfailed++;
			continue;
		}
		if (job_beat(jc) < 0)
			break;
		progress(jc, &rr[i], i, x->n, &x->clk, NULL, 0);
		run_one(jc, x->runner, &rr[i], i, x->n, &x->clk);
		record_finished(jc, &rr[i], &x->rlog);
		if (rr[i].error)
			x->nfailed++;
		progress(jc, &rr[i], i, x->n, &x->clk,
			 rr[i].error	    ? rr[i].error
			 : rr[i].need_fetch ? "ok (stream cut: "
					      "collecting the file)"
					    : "ok",
			 0);
		x->clk.ran++;
		strbuf_addf(&x->rlog, "run %lld (%s %s): %s\n",
			    (long long)rr[i].id, rr[i].pr->workload,
			    rr[i].label.buf,
			    rr[i].error	       ? rr[i].error
			    : rr[i].need_fetch ? "stream cut"
					       : "ok");
	}
}

/*
 * run: the round's runs, on a connection made for the round; on a host
 * that boots, what its console showed decides how they ended.  The run
 * phase's row ends with the round (kinds that boot) or the last round.
 */
int round_run(struct job_exec *x)
{
	struct job_ctx *jc = &x->jc;
	size_t from = (size_t)x->b * jc->plan->nr_runs;
	size_t to = (size_t)(x->b + 1) * jc->plan->nr_runs;

	if (set_phase_state(jc, "running") < 0)
		return PHASE_STOP;
	if ((x->b == 0 || jc->kind_boots) && round_connect(x) != PHASE_NEXT)
		return PHASE_STOP;
	round_runs(x);
	if (jc->kind_boots &&
	    console_round_end(jc, x->rr, from, to, &x->nfailed, &x->fail_msg) <
		    0) {
		queue_phase_end(jc->db, x->pid, "failed", x->rlog.buf, &x->e);
		/* The runs the crash cut short say so. */
		for (size_t i = from; i < to; i++)
			if (!x->rr[i].recorded && !x->rr[i].done_before &&
			    job_ingest_one(jc, &x->rr[i], &x->log) == 0)
				x->rr[i].recorded = 1;
		x->fail_phase = "run";
		return PHASE_STOP;
	}
	if (x->b == jc->boots - 1 || jc->kind_boots) {
		queue_phase_end(jc->db, x->pid,
				jc->lease_lost ? "failed"
				: x->nfailed   ? "failed"
					       : "ok",
				x->rlog.buf, &x->e);
		strbuf_reset(&x->rlog);
		strbuf_reset(&x->e);
	}
	return jc->lease_lost ? PHASE_STOP : PHASE_NEXT;
}

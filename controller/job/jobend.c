/*
 * jobend.c - the end of a job: its runs stored and the job ended in one
 * transaction, or the end of a job that stored nothing; see
 * jobend.h.  Both are run through job_db_retry() (jobguard.c), so a
 * database that went away is waited for.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/adaptive.h"
#include "cleanup.h"
#include "job/jobend.h"
#include "job/jobguard.h"
#include "job/joblog.h"
#include "job/lease.h"
#include "job/phase.h"
#include "store/hosts.h"
#include "store/ingest.h"
#include "store/queue.h"
#include "banned.h"

int job_ingest_one(struct job_ctx *jc, struct run_rec *rr, struct strbuf *log)
{
	struct strbuf err = STRBUF_INIT;
	struct ingest_summary sum;
	int r;

	memset(&sum, 0, sizeof(sum));
	if (rr->expected) {
		r = ingest_mark_expected_panic(jc->db, rr->id, rr->expected,
					       rr->lines.buf, rr->lines.len,
					       &err);
		if (r == 0)
			strbuf_addf(log, "run %lld: expected crash: %s\n",
				    (long long)rr->id, rr->expected);
		strbuf_release(&err);
		return r < 0 ? 1 : 0;
	}
	if (rr->error) {
		r = ingest_mark_failed(jc->db, rr->id, rr->error, rr->lines.buf,
				       rr->lines.len, &err);
		strbuf_release(&err);
		return r < 0 ? 1 : 0;
	}
	r = ingest_run(jc->db, &rr->ex, rr->lines.buf, rr->lines.len, &sum,
		       &err);
	/* A server that went away in the middle of a COPY does not always
	 * show as a lost connection yet: one that cannot answer SELECT 1,
	 * or answers only on a new connection, was away, and the run is not
	 * to blame (it is stored again, on the next try). */
	if (r < 0 && r != INGEST_RUN_FAILED && !db_lost(jc->db)) {
		struct strbuf probe = STRBUF_INIT;
		unsigned before = db_reconnects(jc->db);

		if (db_cmd(jc->db, &probe, "SELECT 1") < 0 ||
		    db_reconnects(jc->db) != before)
			r = -2;
		strbuf_release(&probe);
	}
	if (r == -2 || (r < 0 && db_lost(jc->db))) {
		r = 1;
	} else if (r < 0) {
		/* The workload's failure is the run phase's, not ingest's;
		 * what the host lacks is the host's (end_host_health()). */
		run_failed(rr, r == INGEST_RUN_FAILED ? "run" : "ingest",
			   err.buf);
		rr->host_fault = r == INGEST_RUN_FAILED && sum.host_fault;
		strbuf_reset(&err);
		r = ingest_mark_failed(jc->db, rr->id, rr->error, rr->lines.buf,
				       rr->lines.len, &err) < 0;
		/* A run's own failure is said by the phase that ran it. */
		if (strcmp(rr->phase, "run"))
			strbuf_addf(log, "run %lld: failed: %s\n",
				    (long long)rr->id, rr->error);
	} else {
		strbuf_addf(log,
			    "run %lld: %s %zu results, %zu samples, %zu "
			    "counters\n",
			    (long long)rr->id,
			    r == 1 ? "already ingested:" : "stored",
			    sum.results, sum.samples, sum.counters);
		r = 0;
	}
	ingest_summary_release(&sum);
	strbuf_release(&err);
	return r;
}

/*
 * A done job of an adaptive sequence: queue the other kernel's job of its
 * block, or compare and queue the next block, or record why the sequence
 * stopped (adaptive.c).  Runs while the job still holds its lease, so a
 * job cancelled by now queues nothing.  What happened goes to the job's
 * log; a failure here is a warning, never the job's (its runs are stored).
 */
static int adaptive_step(struct job_ctx *jc)
{
	struct adaptive_outcome o;
	struct strbuf err = STRBUF_INIT;
	int r;

	if (!adaptive_job_is_adaptive(jc->plan, jc->patch_id) ||
	    job_beat(jc) < 0)
		return 0;
	adaptive_outcome_init(&o);
	/* A savepoint: what the step could not do is undone alone, and
	 * the job's results stay. */
	r = db_begin(jc->db, &err);
	if (r == 0 && adaptive_job_done(jc->db, jc->claim.job_id, &o, &err) < 0)
		r = -1;
	if (r == 0)
		r = db_commit(jc->db, &err);
	else
		db_rollback(jc->db);
	if (r < 0 && db_lost(jc->db)) {
		adaptive_outcome_release(&o);
		strbuf_release(&err);
		return 1;
	}
	if (r < 0)
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
	return 0;
}

/*
 * The end of a job that got as far as ingest, as one transaction: the
 * job's lease checked and held, every run stored or marked failed, the
 * next step of an adaptive sequence, the ingest phase closed, and the job
 * ended (done, or failed naming its first failed run).  A controller
 * killed anywhere before the commit leaves nothing of it: the job's lease
 * expires and it runs again, so no run is stored twice or half.  For
 * job_db_retry(): 0 stored, -1 failed for good, 1 the database went away.
 */
int job_store(struct job_ctx *jc, void *arg, struct strbuf *err)
{
	struct store_args *sa = arg;
	struct db *db = jc->db;
	size_t nfailed = 0, ningest = 0;
	int64_t phase_id;
	int r;

	strbuf_reset(&sa->log);
	free(sa->fail_msg);
	sa->fail_msg = NULL;
	sa->fail_phase = NULL;
	if (db_begin(db, err) < 0)
		return db_lost(db) ? 1 : -1;
	r = queue_hold_lease(db, &jc->claim, jc->owner, err);
	if (r == 1) {
		/* A commit whose answer was lost did go through. */
		db_rollback(db);
		return 0;
	}
	if (r == -2)
		jc->lease_lost = 1;
	if (r < 0)
		goto fail;
	for (size_t i = 0; i < sa->n; i++)
		if (sa->rr[i].done_before)
			strbuf_addf(&sa->log,
				    "run %lld: stored by an earlier attempt\n",
				    (long long)sa->rr[i].id);
		else if (sa->rr[i].recorded)
			strbuf_addf(&sa->log, "run %lld: %s as it finished\n",
				    (long long)sa->rr[i].id,
				    sa->rr[i].error ? "its failure recorded"
						    : "stored");
		else if (job_ingest_one(jc, &sa->rr[i], &sa->log))
			goto fail;
	for (size_t i = 0; i < sa->n; i++) {
		if (!sa->rr[i].error)
			continue;
		if (sa->rr[i].phase && !strcmp(sa->rr[i].phase, "ingest"))
			ningest++;
		if (!nfailed++) {
			sa->fail_phase = sa->rr[i].phase;
			sa->fail_msg = xstrfmt(
				"run %lld (%s): %s", (long long)sa->rr[i].id,
				sa->rr[i].phase, sa->rr[i].error);
		}
	}
	if (nfailed) {
		char *first = sa->fail_msg;

		sa->fail_msg = xstrfmt("%zu of %zu runs failed; first: %s",
				       nfailed, sa->n, first);
		free(first);
	} else if (adaptive_step(jc)) {
		goto fail;
	}
	/* The ingest phase's row, made now if the database was away when
	 * the phase began. */
	phase_id = sa->phase_id;
	if (!phase_id &&
	    queue_phase_begin(db, &jc->claim, "ingest", &phase_id, err) < 0)
		goto fail;
	if (queue_phase_end(db, phase_id, ningest ? "failed" : "ok",
			    sa->log.buf, err) < 0 ||
	    queue_finish(db, &jc->claim, jc->owner, nfailed ? "failed" : "done",
			 sa->fail_phase, sa->fail_msg, err) < 0)
		goto fail;
	if (db_commit(db, err) < 0)
		return db_lost(db) ? 1 : -1;
	return 0;
fail:
	r = db_lost(db) ? 1 : -1;
	db_rollback(db);
	return r;
}

int job_finish(struct job_ctx *jc, void *arg, struct strbuf *err)
{
	const struct finish_args *fa = arg;
	int r;

	/* A host quarantined by its boot check: the job goes back to the
	 * queue for another matching host. */
	if (!strcmp(fa->state, "elsewhere"))
		r = queue_requeue_elsewhere(jc->db, &jc->claim, jc->owner,
					    fa->phase, fa->msg, err);
	else
		r = queue_finish(jc->db, &jc->claim, jc->owner, fa->state,
				 fa->phase, fa->msg, err);
	if (r == 0)
		return 0;
	return db_lost(jc->db) ? 1 : -1;
}

/*
 * ingest: with a limit of its own, so that what ran is stored even when
 * the job ran out of time, and one transaction (job_store()) that ends
 * the job too.
 */
int exec_ingest(struct job_exec *x)
{
	struct job_ctx *jc = &x->jc;

	if (set_phase_state(jc, "ingesting") < 0 ||
	    phase_row(jc, "ingest", &x->pid, &x->e) < 0)
		return PHASE_STOP;
	job_phase_limit(jc, "ingest", NULL, 10 * 60 * 1000, 0);
	struct store_args sa = { x->rr, x->n, x->pid, STRBUF_INIT, NULL, NULL };

	if (job_db_retry(jc, "storing the runs", job_store, &sa, &x->e) == 0) {
		x->stored = 1;
		x->fail_phase = sa.fail_phase;
		x->fail_msg = sa.fail_msg;
		x->ret = x->fail_msg ? 1 : 0;
		/* Stored: the host may let go of the run files. */
		forget_runs(x->runner, x->rr, 0, x->n);
	} else {
		free(sa.fail_msg);
		if (!jc->lease_lost) {
			x->fail_phase = "ingest";
			x->fail_msg = strbuf_detach(&x->e, NULL);
		}
	}
	strbuf_release(&sa.log);
	return PHASE_NEXT;
}

/*
 * How the job ended, in x->fail_msg and x->fail_phase and in its log: a
 * bookkeeping step the database refused fails it, an interrupted job says
 * how far it got and where it goes, the others fail or are done.
 */
static void end_outcome(struct job_exec *x)
{
	struct job_ctx *jc = &x->jc;

	/* Every way here without a message is a failed bookkeeping step
	 * (a phase row or state the database refused): the job did not
	 * finish, whatever its runs did, so it must not read "done". */
	if (x->ret != 0 && !x->fail_msg && !jc->interrupted &&
	    !jc->lease_lost) {
		x->fail_phase = "infra";
		x->fail_msg = xstrfmt("the job stopped early: %s",
				      x->e.len ? x->e.buf
					       : "the database refused a "
						 "phase update");
	}
	if (jc->interrupted && !x->stored) {
		size_t nstored = 0, finished = 0;

		for (size_t i = 0; x->rr && i < x->n; i++) {
			if (x->rr[i].done_before || x->rr[i].recorded)
				finished++;
			if (x->rr[i].done_before ||
			    (x->rr[i].recorded && !x->rr[i].error))
				nstored++;
		}
		free(x->fail_msg);
		x->fail_phase = NULL;
		if (x->interrupt_cancels)
			x->fail_msg = xstrfmt(
				"interrupted (SIGINT or SIGTERM) after %zu of "
				"%zu runs: cancelled; the %zu runs that "
				"finished ok are stored",
				finished, x->n, nstored);
		else
			x->fail_msg = xstrfmt(
				"interrupted: the controller stopped after "
				"%zu of %zu runs; back in the queue: the %zu "
				"runs stored are kept and the next attempt "
				"runs the other %zu",
				finished, x->n, nstored, x->n - nstored);
		jlog(jc, 1, "%s", x->fail_msg);
		return;
	}
	if (jc->lease_lost && !x->fail_msg && !jc->interrupted) {
		x->fail_phase = "infra";
		x->fail_msg = xstrdup("the job's lease was lost "
				      "(cancelled, or expired)");
	}
	if (x->fail_msg && x->requeued)
		jlog(jc, 1, "back to the queue: host %s failed its check: %s",
		     jc->host_name, x->fail_msg);
	else if (x->fail_msg && x->elsewhere)
		jlog(jc, 1,
		     "failed in %s on %s, the host's fault: back to the "
		     "queue for another host: %s",
		     x->fail_phase, jc->host_name, x->fail_msg);
	else if (x->fail_msg)
		jlog(jc, 1, "failed in %s: %s",
		     x->fail_phase ? x->fail_phase : "an unknown phase",
		     x->fail_msg);
	else
		jlog(jc, 0, "done: %zu run%s", x->n, x->n == 1 ? "" : "s");
	jc->interrupted = 0;
}

/*
 * The host did its part, or could not be reached: the rules
 * (store/hosts.c) say whose fault that is.  Not for a job interrupted, or
 * sent to another host (a failed check was observed by the check itself).
 */
static void end_host_health(struct job_exec *x)
{
	struct job_ctx *jc = &x->jc;
	struct host_observation o = { 0 };
	struct host_verdict v;
	struct strbuf what = STRBUF_INIT;
	int lacks = 0; /* a run found the host without what it needs */

	strbuf_reset(&x->e);
	if (jc->connection_lost)
		x->host_unreachable = 1;
	if (x->requeued)
		x->elsewhere = 1;
	for (size_t i = 0; x->rr && i < x->n; i++)
		lacks |= x->rr[i].host_fault;
	if (jc->interrupted || x->requeued ||
	    (!x->host_unreachable && !lacks && x->fail_msg))
		return;
	strbuf_addf(&what, "job %lld", (long long)jc->claim.job_id);
	o.host_id = jc->claim.host_id;
	o.kernel_id = jc->kind_boots ? jc->kernel_id : 0;
	o.outcome = x->host_unreachable || lacks ? HOST_FAILED : HOST_WORKED;
	o.what = what.buf;
	o.failure = jc->connection_lost	  ? "connection lost"
		    : x->host_unreachable ? "unreachable"
					  : "lacks what a run needs";
	o.reason = x->host_unreachable || lacks ? x->fail_msg : NULL;
	if (hosts_observe(jc->db, &o, &v, &x->e) < 0)
		jlog(jc, 1, "cannot record the host's health: %s", x->e.buf);
	else if (lacks && !x->host_unreachable)
		jlog(jc, 1,
		     "host %s lacks what a run needs (blame %s): "
		     "health %s",
		     jc->host_name, v.blame, v.after.health);
	else if (v.changed && !x->host_unreachable)
		jlog(jc, 0, "host %s worked: health %s", jc->host_name,
		     v.after.health);
	else if (v.changed)
		jlog(jc, 1, "host %s unreachable (blame %s): health %s",
		     jc->host_name, v.blame, v.after.health);
	else if (x->host_unreachable)
		jlog(jc, 1, "host %s unreachable: blame %s, health %s",
		     jc->host_name, v.blame, v.after.health);
	strbuf_release(&what);
	strbuf_reset(&x->e);
}

/*
 * end: the job's end recorded, waiting for a database that went away
 * (a job whose runs were stored ended in the same transaction), and a
 * failed adaptive block's stop reason.  x->ret becomes what
 * job_execute() returns; err says why the end could not be recorded.
 */
static void end_record(struct job_exec *x, struct strbuf *err)
{
	struct job_ctx *jc = &x->jc;
	int r;

	if (x->stored) {
		r = 0;
	} else {
		struct finish_args fa = {
			jc->interrupted ? (x->interrupt_cancels ? "cancelled"
								: "queued")
			: x->elsewhere	? "elsewhere"
			: x->fail_msg	? "failed"
					: "done",
			x->fail_msg ? x->fail_phase : NULL, x->fail_msg
		};

		keeper_heard(jc, 1);
		job_phase_limit(jc, "end", NULL, 2 * 60 * 1000, 0);
		r = job_db_retry(jc, "recording the end of the job", job_finish,
				 &fa, &x->e);
	}
	if (r < 0) {
		strbuf_addf(err, "cannot record the end of job %lld: %s",
			    (long long)jc->claim.job_id, x->e.buf);
		x->ret = -1;
	} else if (x->fail_msg && !jc->interrupted && !x->elsewhere &&
		   adaptive_job_is_adaptive(jc->plan, jc->patch_id)) {
		/* A failed block ends its sequence: say so where the
		 * sequence's reasons are read. */
		strbuf_reset(&x->e);
		if (adaptive_job_failed(jc->db, jc->claim.job_id, x->fail_phase,
					&x->e) < 0)
			jlog(jc, 1, "cannot record the stop reason: %s",
			     x->e.buf);
	}
	if (x->fail_msg && x->ret == 0)
		x->ret = 1;
	if (x->requeued && x->ret == 1)
		x->ret = 2;
}

/* The end of every job, whichever phase stopped it: the host let go of,
 * the outcome decided and logged, the host's health, the end recorded. */
void exec_end(struct job_exec *x, struct strbuf *err)
{
	runner_close(x->runner);
	x->runner = NULL;
	phase_power_off(&x->jc);
	end_outcome(x);
	end_host_health(x);
	end_record(x, err);
}

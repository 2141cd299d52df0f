/*
 * jobend.c - the end of a job: its runs stored and the job ended in one
 * transaction, or the end of a job that stored nothing; see
 * jobexec-int.h.  Both are run through job_db_retry() (jobguard.c), so a
 * database that went away is waited for.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/adaptive.h"
#include "job/jobexec.h"
#include "job/jobexec-int.h"
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
	if (r < 0 && !db_lost(jc->db)) {
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
		run_failed(rr, "ingest", err.buf);
		strbuf_reset(&err);
		r = ingest_mark_failed(jc->db, rr->id, rr->error, rr->lines.buf,
				       rr->lines.len, &err) < 0;
		strbuf_addf(log, "run %lld: failed: %s\n", (long long)rr->id,
			    rr->error);
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
	size_t nfailed = 0;
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
			strbuf_addf(&sa->log,
				    "run %lld: stored as it finished\n",
				    (long long)sa->rr[i].id);
		else if (job_ingest_one(jc, &sa->rr[i], &sa->log))
			goto fail;
	for (size_t i = 0; i < sa->n; i++) {
		if (!sa->rr[i].error)
			continue;
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
	if (queue_phase_end(db, phase_id,
			    nfailed && nfailed == sa->n ? "failed" : "ok",
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

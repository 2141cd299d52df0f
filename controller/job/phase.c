/*
 * phase.c - what every phase of a job does: its row, the job's state, a
 * skip, a limit that fired, a run's failure, a step's; see phase.h.
 */
#include <stdlib.h>

#include "cleanup.h"
#include "job/joblog.h"
#include "job/lease.h"
#include "job/phase.h"
#include "store/queue.h"
#include "banned.h"

/* A phase that does nothing on this kind of host. */
int phase_skip(struct job_ctx *jc, const char *phase, const char *why)
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
void limit_fired(struct job_ctx *jc, int r, struct strbuf *err)
{
	if (r < 0 && jc->timed_out) {
		strbuf_reset(err);
		strbuf_addbuf(err, &jc->timeout_msg);
	}
}

int phase_done(struct job_ctx *jc, int64_t pid, int r, struct strbuf *log,
	       struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;

	limit_fired(jc, r, err);
	if (r < 0)
		strbuf_addf(log, "%s\n", err->buf);
	queue_phase_end(jc->db, pid, r < 0 ? "failed" : "ok", log->buf, &e);
	strbuf_release(log);
	strbuf_release(&e);
	return r;
}

void run_failed(struct run_rec *rr, const char *phase, const char *error)
{
	if (rr->error)
		return;
	rr->error = xstrdup(error);
	rr->phase = phase;
}

/*
 * The job's state and phase rows are its story, not its results: with the
 * database away for a moment they are skipped (a warning waits for the
 * log), and the job goes on; only a lost lease stops it.
 */
int set_phase_state(struct job_ctx *jc, const char *state)
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
int phase_row(struct job_ctx *jc, const char *phase, int64_t *ret_id,
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

/* The step failed: its error (x->e) is the job's failure, in phase. */
int exec_fail(struct job_exec *x, const char *phase)
{
	x->fail_phase = phase;
	x->fail_msg = strbuf_detach(&x->e, NULL);
	return PHASE_STOP;
}

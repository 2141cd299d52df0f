/*
 * jobend.h - the end of a job: its runs stored and the job ended in one
 * transaction (the ingest phase), or the end of a job that stored
 * nothing, and what every job does as it ends (the outcome in its log,
 * the host's health, the end recorded).  Private to job/.
 */
#ifndef SCHEDFARM_JOBEND_H
#define SCHEDFARM_JOBEND_H

#include <stddef.h>
#include <stdint.h>

#include "job/phase.h"
#include "strbuf.h"

/*
 * Store one run: its lines (a run ingested already is left alone), or its
 * failure.  A run the database refuses fails, with the refusal as its
 * error.  Called as each run finishes, and in the job's final transaction
 * (job_store()) for those that were not stored then.  What was done goes
 * to log.  0, or 1 when the database went away (nothing is recorded
 * against the run: it is tried again).
 */
int job_ingest_one(struct job_ctx *jc, struct run_rec *rr, struct strbuf *log);

/* What the job's final transaction stores, and what it found. */
struct store_args {
	struct run_rec *rr;
	size_t n;
	int64_t phase_id; /* the ingest phase's row; 0: not made yet */
	struct strbuf log; /* the ingest phase's log */
	const char *fail_phase; /* out: NULL when every run was stored */
	char *fail_msg;
};

/*
 * The end of a job that got as far as ingest, as one transaction (see
 * jobend.c).  For job_db_retry(): 0 stored, -1 failed for good, 1 the
 * database went away.
 */
int job_store(struct job_ctx *jc, void *arg, struct strbuf *err);

/* The end of a job that stored nothing (state queued, failed, done, or
 * "elsewhere": back to the queue for another host), for job_db_retry(). */
struct finish_args {
	const char *state, *phase, *msg;
};
int job_finish(struct job_ctx *jc, void *arg, struct strbuf *err);

/*
 * ingest: the runs stored and the job ended in one transaction, under a
 * limit of its own (PHASE_NEXT: the job goes on to its end either way).
 */
int exec_ingest(struct job_exec *x);

/*
 * The end of every job, whichever phase stopped it: the host let go of,
 * the outcome decided and logged, the host's health, the end recorded.
 * x->ret becomes what job_execute() returns; err says why the end could
 * not be recorded.
 */
void exec_end(struct job_exec *x, struct strbuf *err);

#endif

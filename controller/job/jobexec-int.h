/*
 * jobexec-int.h - what the job path's files share and nobody else sees:
 * jobexec.c runs the phases, jobend.c ends a job (its runs stored and the
 * job ended in one transaction, or the end of a job that stored nothing).
 */
#ifndef SCHEDFARM_JOBEXEC_INT_H
#define SCHEDFARM_JOBEXEC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "job/job.h"
#include "store/ingest.h"
#include "strbuf.h"

struct plan_run;

/* One run of the job, from its runs row to its stored results. */
struct run_rec {
	int64_t id;
	const struct plan_run *pr;
	int boot;
	struct strbuf lines;
	struct strbuf label;
	char *error; /* set when the run failed */
	char *expected; /* it ended in the panic its plan expects */
	const char *phase; /* the phase it failed in */
	int need_fetch;
	int stream_done; /* a done line came through the stream */
	int done_ok; /* ... with status ok */
	int stopped; /* the job stopped it (interrupt, cancel, lost lease) */
	int recorded; /* stored (or marked failed) as it finished */
	int done_before; /* stored by an earlier attempt of this job */
	struct ingest_expect ex;
};

/* A line of the job's log (and of the display hook): timestamped, kept
 * for later when the database is away. */
void jlog(struct job_ctx *jc, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record rr's first failure (later ones are consequences). */
void run_failed(struct run_rec *rr, const char *phase, const char *error);

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

#endif

/*
 * phase.h - what the phases of a job share (jobexec.c drives them from
 * its tables): the state of one execution (struct job_exec), its runs
 * (struct run_rec), the answer a phase gives (PHASE_NEXT, PHASE_STOP),
 * the bookkeeping every phase does (phase.c: its row, the job's state, a
 * skip, a limit that fired), and the phases, one file each:
 * phase_build.c (a new host's check, the build), phase_boot.c (a boot
 * round's boot and power-off), phase_run.c (the runs rows, the runs of a
 * round), phase_collect.c (the results files of cut streams); ingest and
 * the end are jobend.c's (jobend.h).  Private to job/.
 */
#ifndef SCHEDFARM_PHASE_H
#define SCHEDFARM_PHASE_H

#include <stddef.h>
#include <stdint.h>

#include "job/job.h"
#include "lab/runner.h"
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
	int host_fault; /* it failed for what the host lacks (ingest says) */
	struct ingest_expect ex;
};

#define RUN_LINES_CAP (256u << 20)

/* What the estimate of the time left counts: the runs this attempt has
 * to do (an earlier attempt's stored runs are not done again). */
struct run_clock {
	int64_t t0;
	size_t todo, ran;
};

/*
 * One execution of a claimed job, as its phases share it: the job's
 * context, its runs, the connection to the agent's host, and how the job
 * ended so far.  Made and let go of by job_execute().
 */
struct job_exec {
	struct job_ctx jc;
	struct run_rec *rr; /* n runs: the plan's runs times the boots */
	size_t n;
	size_t nfailed; /* the runs that failed in the run phase */
	size_t nkept; /* stored by an earlier attempt */
	struct runner *runner; /* the agent's host; NULL when not connected */
	struct run_clock clk;
	int b; /* the boot round the round's phases are in */
	int64_t pid; /* the current phase's job_phases row; 0: none */
	struct strbuf e; /* what the step that failed said */
	struct strbuf log; /* the collect phase's log */
	struct strbuf rlog; /* the run phase's log */
	const char *fail_phase;
	char *fail_msg; /* NULL while nothing failed */
	int interrupt_cancels; /* the hooks' interrupt_cancels */
	int ret; /* what job_execute() returns */
	int host_unreachable, stored, elsewhere, requeued;
};

/*
 * A phase of the job (or of one boot round): PHASE_NEXT to go on to the
 * next, PHASE_STOP to end the job now, with what failed (if anything did)
 * in x->fail_phase and x->fail_msg, or the refused step's error in x->e.
 */
enum { PHASE_NEXT = 0, PHASE_STOP = 1 };

struct exec_phase {
	const char *name;
	int (*run)(struct job_exec *x);
};

/* ---- phase.c: what every phase does -------------------------------- */

/* Record rr's first failure (later ones are consequences). */
void run_failed(struct run_rec *rr, const char *phase, const char *error);

/* A phase that does nothing on this kind of host: its row says why. */
int phase_skip(struct job_ctx *jc, const char *phase, const char *why);

/* A phase that failed (r < 0) because its limit (or the job's budget)
 * ran out says so in err, whatever the hook saw. */
void limit_fired(struct job_ctx *jc, int r, struct strbuf *err);

/*
 * The end of a phase a kind's hook ran (build, boot), r its result: a
 * limit that fired says so in err (limit_fired()), a failure's message
 * closes the log, and the phase's row ends "failed" or "ok" with it (a
 * database away for a moment loses only the row).  Releases log; returns
 * r.
 */
int phase_done(struct job_ctx *jc, int64_t pid, int r, struct strbuf *log,
	       struct strbuf *err);

/* The job's state; with the database away for a moment it is skipped (a
 * warning waits for the log).  -1 only when the lease is lost. */
int set_phase_state(struct job_ctx *jc, const char *state);

/* A phase row (queue_phase_begin()); *ret_id 0 when the database was
 * away.  -1 with err only when it refused. */
int phase_row(struct job_ctx *jc, const char *phase, int64_t *ret_id,
	      struct strbuf *err);

/* The step failed: its error (x->e) is the job's failure, in phase;
 * PHASE_STOP. */
int exec_fail(struct job_exec *x, const char *phase);

/* ---- the phases: each returns PHASE_NEXT or PHASE_STOP ------------- */

/* phase_build.c: a new host checked before its first job; the job's
 * kernel built (kinds that boot) or the build recorded as skipped. */
int exec_check(struct job_exec *x);
int exec_build(struct job_exec *x);

/* phase_boot.c: boot round x->b of the job's kernel (kinds that boot);
 * the host powered off after the round. */
int round_boot(struct job_exec *x);
int round_power_off(struct job_exec *x);
/* The host off after a round or at the end of the job (a no-op when
 * nothing is booted); -1 when it failed (logged to the job). */
int phase_power_off(struct job_ctx *jc);

/* phase_run.c: the job's runs and their rows (those an earlier attempt
 * stored kept); the runs of round x->b. */
int exec_runs(struct job_exec *x);
int round_run(struct job_exec *x);
/* A run the job did not get to: it ran out of time, or lost its host. */
void not_run(struct job_ctx *jc, struct run_rec *rr);

/* phase_collect.c: the results files of the runs whose stream was cut. */
int round_collect(struct job_exec *x);
/* Remove the run files of runs from..to-1 on the host. */
void forget_runs(struct runner *runner, struct run_rec *rr, size_t from,
		 size_t to);

#endif

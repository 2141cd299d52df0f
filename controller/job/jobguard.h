/*
 * jobguard.h - what keeps one job whole under faults: its nested limits
 * (REFERENCE.md section 3) and getting its last statements through a
 * database that went away for a while.
 *
 * Limits: a job has a budget (the plan's timeouts.job, or the sum of its
 * phases' limits); each phase runs under its own limit inside it, and each
 * command under its own inside its phase (struct budget, time-util.h).
 * job_beat() checks the current phase's limit, so the build and boot
 * hooks, which call it every few seconds, stop when it runs out; the
 * message names the limit that fired.  Ingest and the power-off are not
 * bounded by the job's budget: finished runs are stored, and a machine
 * is turned off, even after the job ran out of time.
 *
 * The database: a job's last transaction (its runs stored and the job
 * ended, all at once) must get through.  job_db_retry() runs it again,
 * after a pause that doubles up to 10 s, for as long as the connection is
 * down and the phase's limit allows, renewing the lease as soon as the
 * server is back; the agent's lines wait in memory meanwhile (and in the
 * run files on the host, which are removed only once stored).
 */
#ifndef SCHEDFARM_JOBGUARD_H
#define SCHEDFARM_JOBGUARD_H

#include <stdint.h>

#include "job/job.h"
#include "strbuf.h"

/* Before anything else: the guard's strbufs, no limits yet. */
void job_guard_init(struct job_ctx *jc);

/* Start the job's budget (jc->plan must be loaded). */
void job_budget_begin(struct job_ctx *jc);

/*
 * Enter phase `phase` with its own limit own_ms, inside the job's budget,
 * or on its own when nested is 0 (ingest, power off, the job's end).  key
 * says where the limit comes from in messages ("timeouts.boot"; NULL for
 * a fixed one).  jc->phase_budget is the result.
 */
void job_phase_limit(struct job_ctx *jc, const char *phase, const char *key,
		     int64_t own_ms, int nested);

/*
 * 0 while the phase's limit (and the job's) has time left; -1 once it
 * ran out: jc->timed_out is set and jc->timeout_msg says which limit
 * ("the boot phase's limit (timeouts.boot, 10m) ran out after 10m").
 */
int job_limit_check(struct job_ctx *jc);

/*
 * A limit nested in the current phase's for one command or one run:
 * own_ms of its own, named name (copied into buf, which must outlive b).
 */
void job_command_limit(struct job_ctx *jc, struct budget *b,
		       struct strbuf *name, int64_t own_ms);

/*
 * Run fn(jc, arg, err) until it gets through: it returns 0 (done), -1
 * (failed for good: err says why) or anything else to say "the database
 * went away: try me again" (it has rolled back).  Between tries: a pause
 * (0.5 s doubling to 10 s), a reconnect, and the job's lease renewed
 * first thing.  Gives up when the current phase's limit runs out, or the
 * lease is found lost (another controller has the job now): -1 with err.
 */
int job_db_retry(struct job_ctx *jc, const char *what,
		 int (*fn)(struct job_ctx *jc, void *arg, struct strbuf *err),
		 void *arg, struct strbuf *err);

/* Free what the guard keeps in jc. */
void job_guard_release(struct job_ctx *jc);

#endif

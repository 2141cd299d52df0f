/*
 * jobexec.h - the path of one claimed job: build, boot, run, collect,
 * ingest.
 *
 * Each phase is a function; build and boot dispatch on the host's kind
 * through one table (jobexec.c, job_kinds[]).  `local` and `ssh` hosts run
 * whatever kernel they have, so both phases are recorded as skipped.  The
 * kinds that boot kernels (libvirt, ipmi) plug in by filling .build and
 * .boot in that table: build makes the job's kernel (jc->kernel_id) and
 * boot brings the host up on it and leaves in jc->target the SSH address
 * at which the agent is then run, like an `ssh` host.
 *
 * The job's process owns the lease: it renews it while working and stops
 * (the agent too) when the lease is lost -- the job was cancelled, or it
 * expired and went back to the queue.  Whatever happens, the job ends with
 * a row that says what failed and why, and the host is released.
 */
#ifndef SCHEDFARM_JOBEXEC_H
#define SCHEDFARM_JOBEXEC_H

#include <signal.h>
#include <stdint.h>

#include "job/job.h"
#include "store/db.h"
#include "strbuf.h"

/*
 * Renew the job's lease when due (cheap to call often).  Build and boot
 * hooks that take longer than a few seconds must call it at least every
 * few seconds, or the lease expires and the job goes to another
 * controller; they reach it as jc->beat (job.h).  Return 0, or -1 when
 * the job must stop (cancelled, lease lost, controller stopping).
 */
int job_beat(struct job_ctx *jc);

/*
 * Set (from a signal handler) to make a running job stop at its next
 * tick: the agent is stopped and the job goes back to the queue.
 */
extern volatile sig_atomic_t job_stop_requested;

/*
 * Run the claimed job c to its end and record everything; home is the
 * state folder (home.h) the job keeps its files in.  Return 0 when
 * the job is done, 1 when it failed or was stopped (recorded in the
 * database), 2 when its host failed the check a new host gets first
 * (job/host_check.h: the job is back in the queue, for another host),
 * -1 when even recording failed (err).
 */
int job_execute(struct db *db, const struct queue_claim *c, const char *owner,
		int lease_s, const char *home, const struct job_hooks *hooks,
		struct strbuf *err);

#endif

/*
 * lease.h - the job's lease, renewed by the job's main thread as it works
 * (job_beat(), every tick of every wait) and by the keeper thread while
 * one call blocks (keeper.h); and the stop a signal asks for.  Whoever
 * finds the lease gone sets jc->lease_lost, and the job stops.
 */
#ifndef SCHEDFARM_LEASE_H
#define SCHEDFARM_LEASE_H

#include <signal.h>

#include "job/job.h"

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

/* What the keeper (if any) did while the main thread was away, into the
 * job's log; a lease it found taken away is lost for the job too (but
 * at_end, when the job is ending and lets go of it anyway). */
void keeper_heard(struct job_ctx *jc, int at_end);

#endif

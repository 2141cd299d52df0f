/*
 * lease.c - the job's lease renewed as it works, and what the keeper did
 * meanwhile; see lease.h.
 */
#include "cleanup.h"
#include "job/jobguard.h"
#include "job/joblog.h"
#include "job/keeper.h"
#include "job/lease.h"
#include "store/controllers.h"
#include "time-util.h"
#include "banned.h"

volatile sig_atomic_t job_stop_requested;

/* The job's lease is gone (found by a renewal that touched no row): the
 * job stops. */
static void lease_lost(struct job_ctx *jc)
{
	jc->lease_lost = 1;
	jlog(jc, 1, "lease lost (cancelled, or expired): stopping");
}

/* What the keeper (if any) did while the main thread was away, into the
 * job's log; a lease it found taken away is lost for the job too (but
 * at_end, when the job is ending and lets go of it anyway). */
void keeper_heard(struct job_ctx *jc, int at_end)
{
	struct strbuf problems = STRBUF_INIT, d = STRBUF_INIT;
	int lost, renewed;
	int64_t waited;

	if (!jc->keeper || (jc->lease_lost && !at_end))
		return;
	keeper_news(jc->keeper, &lost, &renewed, &waited, &problems);
	strbuf_rtrim(&problems);
	if (problems.len)
		jlog(jc, 1, "heartbeat failed (the keeper's): %s",
		     problems.buf);
	if (renewed) {
		format_duration_ms(&d, waited);
		jlog(jc, 0,
		     "one call took %s; the keeper renewed the lease %d "
		     "time%s meanwhile",
		     d.buf, renewed, renewed == 1 ? "" : "s");
	}
	if (lost && !at_end)
		lease_lost(jc);
	strbuf_release(&problems);
	strbuf_release(&d);
}

/* Renew the lease when a third of it has passed; -1 once it is lost. */
int job_beat(struct job_ctx *jc)
{
	struct strbuf err = STRBUF_INIT;
	int64_t now = mono_ms();
	int r;

	keeper_heard(jc, 0);
	if (jc->lease_lost)
		return -1;
	if (job_limit_check(jc) < 0)
		return -1;
	if (job_stop_requested) {
		jc->lease_lost = 1;
		jc->interrupted = 1;
		jlog(jc, 1, "interrupted: stopping (%s)",
		     jc->hooks && jc->hooks->interrupt_cancels
			     ? "the job is cancelled"
			     : "the job goes back to the queue");
		return -1;
	}
	/* Every third of the lease, and at least every 5 s so that a
	 * cancelled job lets go of its host soon. */
	if (now - jc->last_beat_ms <
	    (jc->lease_s * 1000 / 3 < 5000 ? jc->lease_s * 1000 / 3 : 5000))
		return 0;
	r = queue_heartbeat(jc->db, &jc->claim, jc->owner, jc->lease_s, &err);
	if (r == 0) {
		jc->last_beat_ms = now;
		/* The controller lives as long as one of its jobs does, even
		 * when its serve died: nobody sweeps this job's guest. */
		controllers_renew(jc->db, jc->owner, jc->lease_s, &err);
	} else if (r == -2) {
		lease_lost(jc);
	} else {
		/* A database hiccup: try again next tick; the lease has
		 * two more thirds to go. */
		jlog(jc, 1, "heartbeat failed: %s", err.buf);
	}
	strbuf_release(&err);
	return jc->lease_lost ? -1 : 0;
}

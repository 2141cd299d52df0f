/*
 * phase_build.c - the phases before a job's runs: a new host's check and
 * the build of the job's kernel (kinds that boot); see phase.h.
 */
#include <stdlib.h>

#include "cleanup.h"
#include "job/host_check.h"
#include "job/jobguard.h"
#include "job/joblog.h"
#include "job/phase.h"
#include "lab/host_kind.h"
#include "plan/plan.h"
#include "store/hosts.h"
#include "store/queue.h"
#include "banned.h"

/*
 * A host that is new (or of unknown health) is checked before its first
 * job (job/host_check.h), recorded as a boot phase.  0 when the host may
 * take the job (checked now, or not due), 1 when it failed its check (the
 * job goes back to the queue for another host), -1 with err when the check
 * could not run.
 */
/* job_db_retry()'s step: is the host due a check (*arg: 1 yes, 0 no)?
 * 1 when the database went away meanwhile (the job is not failed for a
 * failover that happens to land on its first statement). */
static int check_due_step(struct job_ctx *jc, void *arg, struct strbuf *err)
{
	int *due = arg;

	*due = hosts_check_due(jc->db, jc->claim.host_id, err);
	if (*due < 0)
		return db_lost(jc->db) ? 1 : -1;
	return 0;
}

static int phase_check(struct job_ctx *jc, struct strbuf *err)
{
	struct strbuf log = STRBUF_INIT, e = STRBUF_INIT;
	int due = 0, r;
	int64_t pid;

	if (job_db_retry(jc, "checking whether the host is due a check",
			 check_due_step, &due, err) < 0)
		return -1;
	if (due <= 0)
		return due;
	jlog(jc, 0,
	     "host %s is new (health unknown): checking it with its "
	     "known-good kernel before the job",
	     jc->host_name);
	if (queue_set_state(jc->db, &jc->claim, jc->owner, "booting", err) <
		    0 ||
	    queue_phase_begin(jc->db, &jc->claim, "boot", &pid, err) < 0)
		return -1;
	r = host_check_for_job(jc, &log, err);
	jlog(jc, r ? 1 : 0, "%.*s", log.len ? (int)log.len - 1 : 0, log.buf);
	queue_phase_end(jc->db, pid, r ? "failed" : "ok", log.buf, &e);
	strbuf_release(&log);
	strbuf_release(&e);
	return r;
}

/*
 * Build the job's kernel, for kinds that boot one.  0 ok, -1 failed
 * (err says why).
 */
static int phase_build(struct job_ctx *jc, struct strbuf *err)
{
	const struct job_kind_ops *ops = jc->kind;
	struct strbuf log = STRBUF_INIT, e = STRBUF_INIT;
	int64_t pid;
	int r;

	if (!jc->kind_boots) {
		struct strbuf why = STRBUF_INIT;

		if (jc->kernel_has_series) {
			struct strbuf kinds = STRBUF_INIT;

			/* Running here would label the unpatched kernel with
			 * the patch's name (queue_submit refuses such jobs;
			 * this one was queued before it did). */
			host_kind_names(&kinds, " or ", 1);
			strbuf_addf(err,
				    "this %s host runs its own kernel and "
				    "cannot build or boot %s, the series "
				    "applied to its base: nothing was run.  "
				    "Submit again with --kernel NAME (the "
				    "kernel it runs with the series applied) "
				    "or to a %s host",
				    jc->host_kind, jc->kernel_name, kinds.buf);
			strbuf_release(&kinds);
			if (queue_phase_begin(jc->db, &jc->claim, "build", &pid,
					      &e) == 0)
				queue_phase_end(jc->db, pid, "failed", err->buf,
						&e);
			strbuf_release(&e);
			return -1;
		}
		strbuf_addf(&why,
			    "this %s host runs its own kernel: %s is a label "
			    "for it, nothing was built or booted",
			    jc->host_kind, jc->kernel_name);
		phase_skip(jc, "build", why.buf);
		strbuf_release(&why);
		return 0;
	}
	if (queue_set_state(jc->db, &jc->claim, jc->owner, "building", err) <
		    0 ||
	    queue_phase_begin(jc->db, &jc->claim, "build", &pid, err) < 0)
		return -1;
	job_phase_limit(jc, "build", "timeouts.build",
			jc->plan->timeouts.build_ms, 1);
	if (!ops || !ops->build) {
		strbuf_addf(err,
			    "building kernels for %s hosts is not "
			    "available in this schedfarm",
			    jc->host_kind);
		r = -1;
	} else {
		r = ops->build(jc, &log, err);
	}
	return phase_done(jc, pid, r, &log, err);
}

/* A new host is checked first; one that fails never runs the job (it
 * goes back to the queue for another host). */
int exec_check(struct job_exec *x)
{
	int r = phase_check(&x->jc, &x->e);

	if (r == 1) {
		x->requeued = 1;
		return exec_fail(x, "boot");
	}
	if (r < 0)
		return exec_fail(x, "infra");
	return PHASE_NEXT;
}

int exec_build(struct job_exec *x)
{
	if (phase_build(&x->jc, &x->e) < 0)
		return exec_fail(x, "build");
	return PHASE_NEXT;
}

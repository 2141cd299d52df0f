/*
 * phase_boot.c - a boot round's boot of the job's kernel, the judgement
 * of a failed boot, and the power-off after the round (kinds that boot);
 * see phase.h.
 */
#include <stdlib.h>

#include "cleanup.h"
#include "job/jobguard.h"
#include "job/joblog.h"
#include "job/phase.h"
#include "plan/plan.h"
#include "store/queue.h"
#include "banned.h"

/* Boot round b of the job's kernel on the host (kinds that boot). */
static int phase_boot(struct job_ctx *jc, int b, struct strbuf *err)
{
	const struct job_kind_ops *ops = jc->kind;
	struct strbuf log = STRBUF_INIT;
	int64_t pid;
	int r;

	if (!jc->kind_boots) {
		if (b == 0)
			phase_skip(jc, "boot",
				   "the host is already running: no boot");
		return 0;
	}
	if (queue_set_state(jc->db, &jc->claim, jc->owner, "booting", err) <
		    0 ||
	    queue_phase_begin(jc->db, &jc->claim, "boot", &pid, err) < 0)
		return -1;
	/* Power on, the kernel, the agent and SSH: the boot's own limit,
	 * plus one power operation. */
	job_phase_limit(
		jc, "boot", "timeouts.boot + timeouts.power",
		jc->plan->timeouts.boot_ms + jc->plan->timeouts.power_ms, 1);
	if (!ops || !ops->boot) {
		strbuf_addf(err,
			    "booting %s hosts is not available in this "
			    "schedfarm",
			    jc->host_kind);
		r = -1;
	} else {
		r = ops->boot(jc, b, &log, err);
		if (r == 0)
			jc->booted = 1;
	}
	return phase_done(jc, pid, r, &log, err);
}

/*
 * After a failed boot: the kind's check of whose fault it was (a boot of
 * the host's known-good kernel), logged to the job.  1 when the host is
 * quarantined and the job must go to another host.
 */
static int boot_failed_host_fault(struct job_ctx *jc)
{
	const struct job_kind_ops *ops = jc->kind;
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT;
	int r;

	if (!ops || !ops->boot_failed)
		return 0;
	r = ops->boot_failed(jc, &log, &err);
	if (log.len) {
		strbuf_rtrim(&log);
		jlog(jc, r > 0 ? 1 : 0, "%s", log.buf);
	}
	if (r < 0)
		jlog(jc, 1, "judging the failed boot: %s", err.buf);
	strbuf_release(&log);
	strbuf_release(&err);
	return r > 0;
}

/*
 * Power the host off after a boot round (kinds that boot; a no-op for the
 * others and when nothing is booted).  The failure is logged to the job;
 * return -1 so the job stops using the host.
 */
int phase_power_off(struct job_ctx *jc)
{
	const struct job_kind_ops *ops = jc->kind;
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT;
	int r = 0;

	if (!jc->booted || !ops || !ops->power_off)
		return 0;
	jc->booted = 0;
	/* Power-off always runs, with a budget of its own. */
	job_phase_limit(jc, "power-off", "timeouts.power",
			jc->plan->timeouts.power_ms, 0);
	r = ops->power_off(jc, &log, &err);
	if (log.len) {
		strbuf_rtrim(&log);
		jlog(jc, 0, "%s", log.buf);
	}
	if (r < 0)
		jlog(jc, 1, "power off failed: %s", err.buf);
	strbuf_release(&log);
	strbuf_release(&err);
	return r;
}

/* boot: round x->b of the job's kernel on the host (kinds that boot). */
int round_boot(struct job_exec *x)
{
	if (phase_boot(&x->jc, x->b, &x->e) < 0) {
		exec_fail(x, "boot");
		x->elsewhere = boot_failed_host_fault(&x->jc);
		return PHASE_STOP;
	}
	return PHASE_NEXT;
}

/* The host off after its round (kinds that boot). */
int round_power_off(struct job_exec *x)
{
	if (phase_power_off(&x->jc) < 0) {
		x->fail_phase = "infra";
		x->fail_msg = xstrdup("the host could not be powered off "
				      "(see the boot phase log)");
		return PHASE_STOP;
	}
	return PHASE_NEXT;
}

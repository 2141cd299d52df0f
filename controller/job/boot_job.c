/*
 * boot_job.c - the job path's hooks for hosts whose kind boots kernels
 * (lab/host_kind.h: libvirt, ipmi, redfish); see boot_job.h.  Glue only: the
 * work is in build.c and boot.c.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lab/boot.h"
#include "job/boot_job.h"
#include "lab/build.h"
#include "plan/plan.h"
#include "cleanup.h"
#include "home.h"
#include "job/jobguard.h"
#include "job/joblog.h"
#include "store/runs.h"
#include "plan/plan.h"
#include "banned.h"

/* A progress line for whoever shows the job (schedfarm run). */
static void show(struct job_ctx *jc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void show(struct job_ctx *jc, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	if (!jc->hooks || !jc->hooks->phase_progress)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	jc->hooks->phase_progress(jc->hooks->ctx, jc->claim.job_id, msg.buf);
	strbuf_release(&msg);
}

struct build_progress {
	struct job_ctx *jc;
	int last_pct, last_steps;
	int waited; /* the job's log says the build waits for another */
};

/* Each line of make, and each second of a step that prints nothing (line
 * NULL): the lease renewed; every 5% (or 200 steps when the step count of
 * the configuration is not known yet) a line shown; a wait for another
 * build (steps -1) in the job's log once, then shown as it goes on. */
static int beat_on_line(void *ctx, const char *line, int steps, int expected)
{
	struct build_progress *bp = ctx;

	if (!line)
		return bp->jc->beat(bp->jc);
	if (steps < 0 && !bp->waited++) /* it waits for another build */
		jlog(bp->jc, 0, "build: %s", line);
	else if (steps < 0)
		show(bp->jc, "build: %s", line);
	else if (expected > 0) {
		int pct = steps * 100 / expected;

		if (pct > 99)
			pct = 99;
		if (pct >= bp->last_pct + 5) {
			bp->last_pct = pct;
			show(bp->jc, "build: %3d%% (%d/%d steps) %s", pct,
			     steps, expected, line);
		}
	} else if (steps >= bp->last_steps + 200) {
		bp->last_steps = steps;
		show(bp->jc, "build: %d steps %s", steps, line);
	}
	return bp->jc->beat(bp->jc);
}

int boot_job_build(struct job_ctx *jc, struct strbuf *log, struct strbuf *err)
{
	_cleanup_free_ char *cache = NULL;
	struct build_progress bp = { jc, 0, 0, 0 };
	int64_t kid = 0;
	size_t from = log->len;

	if (home_kernel_cache(jc->home, NULL, &cache, err) < 0) {
		show(jc, "build: %s", err->buf);
		return -1;
	}
	show(jc, "build: kernel %s (cache %s)", jc->kernel_name, cache);
	if (build_kernel_for_job(jc->db, jc->claim.job_id, cache, 0,
				 beat_on_line, &bp, &kid, log, err) < 0) {
		show(jc, "build: failed: %s", err->buf);
		return -1;
	}
	jc->kernel_id = kid;
	if (starts_with(log->buf + from, "cache hit"))
		show(jc, "build: %.*s", (int)strcspn(log->buf + from, "\n"),
		     log->buf + from);
	else
		show(jc, "build: done");
	return 0;
}

static void append_event(void *ctx, const char *msg)
{
	struct strbuf *log = ctx;

	strbuf_addf(log, "boot: %s\n", msg);
}

struct boot_state {
	struct boot_result res;
	struct job_ctx *jc;
	struct strbuf *log;
	int run_boot; /* runs.boot of this round's runs */
	int failed; /* the boot failed: kept for boot_job_boot_failed() */
	/* Boots of this round that hung and were made again (boots ids):
	 * they take the verdict of the last one. */
	int64_t *hung;
	size_t nr_hung, alloc_hung;
};

static void boot_state_free(struct boot_state *st)
{
	boot_result_release(&st->res);
	free(st->hung);
	free(st);
}

/*
 * Whether the boot that just failed is made again: it timed out after
 * its kernel had printed its banner (a hang, not a panic the console
 * named, not the host's power or console), the host's hang_retries allow
 * another one, and the boot phase has time left.  A hang that does not
 * come back is a flaky boot, kept with its console and told in the log,
 * not a verdict on the kernel; one that does is judged as before.
 */
static int hang_is_retried(struct job_ctx *jc, const struct boot_state *st)
{
	const struct boot_result *r = &st->res;

	return r->outcome == BOOT_TIMEOUT && r->blame &&
	       !strcmp(r->blame, "kernel") && r->linux_ms >= 0 &&
	       r->health_deferred && r->boot_id &&
	       st->nr_hung < (size_t)r->hang_retries && !jc->interrupted &&
	       !jc->lease_lost && budget_left(&jc->phase_budget) > 0;
}

/*
 * The runs of this boot round carry the console log of the boot (the
 * boots row's, complete once the host is off; after a failed boot, the
 * panic).  Best effort: a failure is a line in the phase's log, never the
 * job's failure.
 */
static void attach_console(struct job_ctx *jc, int64_t boot_id, int run_boot,
			   struct strbuf *log)
{
	struct strbuf e = STRBUF_INIT;

	if (!boot_id)
		return;
	if (boots_attach_console(jc->db, boot_id, jc->claim.job_id, run_boot,
				 jc->claim.attempt, &e) < 0)
		strbuf_addf(log, "console of boot %" PRId64 " not kept: %s\n",
			    boot_id, e.buf);
	strbuf_release(&e);
}

static void state_event(void *ctx, const char *msg)
{
	struct boot_state *st = ctx;

	append_event(st->log, msg);
	show(st->jc, "boot %d: %s", st->run_boot, msg);
}

static int state_tick(void *ctx)
{
	struct boot_state *st = ctx;

	return st->jc->beat(st->jc);
}

/* jc->watch: the booted host's console while the plan runs. */
static int watch_console(struct job_ctx *jc, struct strbuf *hit)
{
	struct boot_state *st = jc->kind_state;
	const struct console_hit *h;

	if (!st)
		return 0;
	if (boot_watch(&st->res, &h) != 1) {
		jc->console_oops =
			boot_watch_count(&st->res, CONSOLE_EV_OOPS) +
				boot_watch_count(&st->res, CONSOLE_EV_BUG) +
				boot_watch_count(&st->res,
						 CONSOLE_EV_KERNEL_BUG) +
				boot_watch_count(&st->res, CONSOLE_EV_GPF) >
			0;
		return 0;
	}
	strbuf_addstr(hit, h->line);
	jc->console_fatal_kind = h->name;
	return 1;
}

/* jc->run_fatal: the boots row and the host's health after it. */
static int record_run_fatal(struct job_ctx *jc, const char *line, int expected,
			    struct strbuf *blame, struct strbuf *err)
{
	struct boot_state *st = jc->kind_state;
	struct strbuf what = STRBUF_INIT;
	int r;

	if (!st)
		return 0;
	strbuf_addf(&what, "boot %d of job %lld (run phase)", st->run_boot,
		    (long long)jc->claim.job_id);
	r = boot_run_fatal(jc->db, &st->res, what.buf, line, expected, blame,
			   err);
	strbuf_release(&what);
	return r;
}

/* The limit of one boot: what is left of the boot phase's (nested in
 * the job's budget), at least 1 ms and at most a day. */
static int64_t boot_ms_left(struct job_ctx *jc)
{
	int64_t ms = budget_left(&jc->phase_budget);

	if (ms > 24 * 3600 * 1000)
		ms = 24 * 3600 * 1000;
	return ms < 1 ? 1 : ms;
}

int boot_job_boot(struct job_ctx *jc, int boot_index, struct strbuf *log,
		  struct strbuf *err)
{
	struct boot_state *st = xcalloc(1, sizeof(*st));
	struct boot_request req;
	int rc;

	boot_request_init(&req);
	req.job_id = jc->claim.job_id;
	req.host_id = jc->claim.host_id;
	req.kernel_id = jc->kernel_id;
	req.state_dir = jc->home;
	/* The domain and the power are this controller's (a sweep leaves
	 * them alone while it lives), the domain named after the attempt. */
	req.controller_id = jc->owner;
	req.attempt = jc->claim.attempt;
	/* The boot phase's limit, nested in the job's budget (jobexec.c):
	 * the boot gets what is left of it, its power phase the plan's
	 * power limit. */
	req.timeout_ms = boot_ms_left(jc);
	req.power_ms = jc->plan->timeouts.power_ms;
	/* A failure is judged after a check on the known-good kernel
	 * (boot_job_boot_failed()). */
	req.defer_failure_health = 1;
	req.on_event = state_event;
	req.tick = state_tick;
	req.ctx = st;
	st->jc = jc;
	st->log = log;
	st->run_boot = jc->first_boot + boot_index;
	boot_result_init(&st->res);
	strbuf_addf(log, "boot round %d\n", boot_index);
	while ((rc = boot_host(jc->db, &req, &st->res, err)) < 0 &&
	       hang_is_retried(jc, st)) {
		ALLOC_GROW(st->hung, st->nr_hung + 1, st->alloc_hung);
		st->hung[st->nr_hung++] = st->res.boot_id;
		strbuf_addf(log,
			    "boot: %s (boot %" PRId64 "); made again, %zu of "
			    "%d: a hang that does not come back is not "
			    "judged\n",
			    err->buf, st->res.boot_id, st->nr_hung,
			    st->res.hang_retries);
		show(jc, "boot %d: %s; booting it again (%zu of %d)",
		     st->run_boot, err->buf, st->nr_hung, st->res.hang_retries);
		boot_result_release(&st->res);
		boot_result_init(&st->res);
		strbuf_reset(err);
		req.timeout_ms = boot_ms_left(jc);
	}
	if (rc < 0) {
		/* boot_host powered the host off; whose fault it was is for
		 * boot_job_boot_failed() to find out. */
		int checked = st->res.health_deferred &&
			      st->res.known_good_kernel_id &&
			      st->res.known_good_kernel_id != st->res.kernel_id;

		strbuf_addf(log, "boot: %s, blame %s%s, host %s\n",
			    boot_outcome_name(st->res.outcome), st->res.blame,
			    checked ? " (to be checked on the known-good "
				      "kernel)"
				    : "",
			    st->res.host_health);
		attach_console(jc, st->res.boot_id, st->run_boot, log);
		st->failed = 1;
		jc->kind_state = st;
		return -1;
	}
	jc->kind_state = st;
	jc->watch = watch_console;
	jc->run_fatal = record_run_fatal;
	jc->target.name = st->res.host_name;
	jc->target.kind = "ssh";
	jc->target.address = st->res.ssh_addr;
	jc->target.port = st->res.ssh_port;
	jc->target.user = st->res.ssh_user;
	jc->target.key_file = st->res.key_file;
	jc->target.known_hosts = st->res.known_hosts;
	return 0;
}

int boot_job_power_off(struct job_ctx *jc, struct strbuf *log,
		       struct strbuf *err)
{
	struct boot_state *st = jc->kind_state;
	int r;

	if (!st)
		return 0;
	if (st->failed) {
		/* boot_host powered it off already. */
		boot_state_free(st);
		jc->kind_state = NULL;
		return 0;
	}
	r = boot_power_off(jc->db, &st->res, err);
	strbuf_addf(log, "power off: %s\n", r < 0 ? err->buf : "done");
	show(jc, "boot %d: power off: %s", st->run_boot,
	     r < 0 ? err->buf : "done");
	attach_console(jc, st->res.boot_id, st->run_boot, log);
	boot_state_free(st);
	jc->kind_state = NULL;
	jc->watch = NULL;
	jc->run_fatal = NULL;
	memset(&jc->target, 0, sizeof(jc->target));
	return r;
}

int boot_job_boot_failed(struct job_ctx *jc, struct strbuf *log,
			 struct strbuf *err)
{
	struct boot_state *st = jc->kind_state;
	struct boot_result *first;
	int64_t kg;
	int check = -1, host_fault = 0;

	if (!st || !st->failed)
		return 0;
	/* The check's progress goes to this log: the one the failed boot
	 * wrote to belonged to its phase, which has ended. */
	st->log = log;
	jc->kind_state = NULL;
	first = &st->res;
	kg = first->known_good_kernel_id;
	if (first->health_deferred && kg && kg != first->kernel_id &&
	    !jc->lease_lost && !jc->interrupted) {
		struct boot_request req;
		struct boot_result chk;
		struct strbuf e = STRBUF_INIT;

		/* The check has a limit of its own: the failed boot may have
		 * used up the boot phase's. */
		jc->timed_out = 0;
		job_phase_limit(jc, "check", "timeouts.boot + timeouts.power",
				jc->plan->timeouts.boot_ms +
					jc->plan->timeouts.power_ms,
				0);
		boot_request_init(&req);
		req.job_id = jc->claim.job_id;
		req.host_id = jc->claim.host_id;
		req.kernel_id = kg;
		req.state_dir = jc->home;
		req.on_event = state_event;
		req.tick = state_tick;
		req.ctx = st;
		req.controller_id = jc->owner;
		req.attempt = jc->claim.attempt;
		req.timeout_ms = jc->plan->timeouts.boot_ms +
				 jc->plan->timeouts.power_ms;
		req.power_ms = jc->plan->timeouts.power_ms;
		req.check_after_failure = 1;
		strbuf_addf(log,
			    "check: booting the host's known-good kernel to "
			    "tell whose fault that was\n");
		show(jc, "boot %d: check: booting the known-good kernel",
		     st->run_boot);
		boot_result_init(&chk);
		if (boot_host(jc->db, &req, &chk, &e) == 0) {
			check = 0;
			strbuf_addf(log,
				    "check: the known-good kernel booted: the "
				    "failure was the kernel's; host %s\n",
				    chk.host_health);
			strbuf_reset(&e);
			if (boot_power_off(jc->db, &chk, &e) < 0)
				strbuf_addf(log, "check: power off: %s\n",
					    e.buf);
		} else if (chk.outcome != BOOT_RUNNING &&
			   strcmp(chk.blame, "none")) {
			check = 1;
			strbuf_addf(log,
				    "check: the known-good kernel failed too "
				    "(%s): host %s\n",
				    e.buf, chk.host_health);
		} else {
			strbuf_addf(log, "check: could not be made: %s\n",
				    e.buf);
		}
		boot_result_release(&chk);
		strbuf_release(&e);
	}
	if (boot_settle_failure(jc->db, first, check, err) < 0) {
		boot_state_free(st);
		return -1;
	}
	/* The hangs made again before it: the same verdict. */
	for (size_t i = 0; i < st->nr_hung; i++)
		if (boot_set_blame(jc->db, st->hung[i], first->blame, err) <
		    0) {
			boot_state_free(st);
			return -1;
		}
	host_fault = !strcmp(first->blame, "host") &&
		     !strcmp(first->host_health, "bad");
	if (check == 1)
		host_fault = 1;
	strbuf_addf(log, "boot failure blamed on the %s%s\n",
		    !strcmp(first->blame, "none") ? "controller (stopped)"
						  : first->blame,
		    host_fault ? ": the host is quarantined and the job goes "
				 "to another host"
			       : "");
	boot_state_free(st);
	return host_fault;
}

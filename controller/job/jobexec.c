/*
 * jobexec.c - one job from claim to release; see jobexec.h.
 *
 * The phases in order: build (once), then per boot round: boot, and the
 * plan's runs; then collect (the results file of every run whose stream
 * was cut) and ingest (one transaction per run).  Each phase is a row of
 * job_phases with its timestamps, status and log, and the job's state
 * follows along (building, booting, running, collecting, ingesting).  On
 * hosts that do not boot, the boot rounds are repetitions: each is a
 * separate agent invocation recorded with its round in runs.boot.
 *
 * This file holds the tables of phases and the loops that drive them
 * (exec_phases[], and round_phases[] for each boot round), the job's
 * loading and the host kinds; the phases themselves are in phase_*.c
 * (phase.h), the end of the job in jobend.c.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/adaptive.h"
#include "job/boot_job.h"
#include "cleanup.h"
#include "home.h"
#include "job/jobend.h"
#include "lab/host_kind.h"
#include "job/jobexec.h"
#include "job/jobguard.h"
#include "job/joblog.h"
#include "job/keeper.h"
#include "job/lease.h"
#include "job/phase.h"
#include "store/jobs.h"
#include "store/runs.h"
#include "parse.h"
#include "plan/plan.h"
#include "time-util.h"
#include "banned.h"

/*
 * Host kinds (lab/host_kind.h).  Those that run the kernel they have get
 * no hooks; every kind that boots kernels gets boot_job.c's (see job.h).
 */
static const struct job_kind_ops booting_kind_ops = {
	"boots",
	boot_job_build,
	boot_job_boot,
	boot_job_power_off,
	boot_job_boot_failed,
};

/* Kinds that must boot the job's kernel before running anything. */
static int kind_boots(const char *kind)
{
	const struct host_kind *hk = host_kind_find(kind);

	return hk && hk->boots;
}

static const struct job_kind_ops *kind_ops(const char *kind)
{
	return kind_boots(kind) ? &booting_kind_ops : NULL;
}

static int load_job(struct job_ctx *jc, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf perr = STRBUF_INIT;
	const char *v;
	int r;

	if (runs_job_setup(jc->db, jc->claim.job_id, jc->claim.host_id, &res,
			   err) < 0)
		return -1;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "job %lld or host %lld vanished",
			    (long long)jc->claim.job_id,
			    (long long)jc->claim.host_id);
		return -1;
	}
	parse_i64(db_get(res, 0, 0), 1, INT64_MAX, &jc->plan_id, NULL);
	parse_i64(db_get(res, 0, 3), 1, INT64_MAX, &jc->kernel_id, NULL);
	parse_i64(db_get(res, 0, 5), 0, INT64_MAX, &jc->patch_id, NULL);
	jc->kernel_name = xstrdup(db_get(res, 0, 4));
	jc->host_name = xstrdup(db_get(res, 0, 6));
	jc->host_kind = xstrdup(db_get(res, 0, 7));
	jc->target.name = jc->host_name;
	jc->target.kind = jc->host_kind;
	jc->target.address = xstrdup_or_null(db_get(res, 0, 8));
	v = db_get(res, 0, 9);
	if (v)
		parse_int(v, 1, 65535, &jc->target.port, NULL);
	jc->target.user = xstrdup_or_null(db_get(res, 0, 10));
	jc->target.key_file = xstrdup_or_null(db_get(res, 0, 11));
	jc->target.known_hosts = xstrdup_or_null(db_get(res, 0, 12));
	/* A local host's run files live in the state folder. */
	if (!strcmp(jc->host_kind, "local")) {
		if (home_subdir(jc->home, HOME_RUN, &jc->run_dir, err) < 0)
			return -1;
		jc->target.run_dir = jc->run_dir;
	}
	parse_int(db_get(res, 0, 13), 0, INT32_MAX, &jc->block, NULL);
	jc->kernel_has_series = !strcmp(db_get(res, 0, 14), "t");
	r = jobs_load_plan(jc->db, jc->claim.job_id, &jc->plan, &perr);
	if (r < 0) {
		if (r == -2)
			strbuf_addstr(err, "the job's plan no longer parses: ");
		strbuf_addbuf(err, &perr);
		strbuf_release(&perr);
		return -1;
	}
	strbuf_release(&perr);
	adaptive_job_boots(jc->plan, jc->patch_id, jc->block, &jc->boots,
			   &jc->first_boot);
	/* A job scheduled with its own boot count (a unit of a submission's
	 * ABBA order, a look of a bisection step: schema 007). */
	if (db_get(res, 0, 15)) {
		parse_int(db_get(res, 0, 15), 1, 1000, &jc->boots, NULL);
		parse_int(db_get(res, 0, 16), 0, INT32_MAX, &jc->first_boot,
			  NULL);
	}
	return 0;
}

static void job_ctx_release(struct job_ctx *jc)
{
	plan_free(jc->plan);
	free(jc->kernel_name);
	free(jc->host_name);
	free(jc->host_kind);
	free((char *)jc->target.address);
	free((char *)jc->target.user);
	free((char *)jc->target.key_file);
	free((char *)jc->target.known_hosts);
	free(jc->agent_path);
	free(jc->run_dir);
}

/* Load the job (its plan, kernel, host and the host's kind) and say in
 * its log what it is going to do. */
static int exec_load(struct job_exec *x)
{
	struct job_ctx *jc = &x->jc;

	if (load_job(jc, &x->e) < 0)
		return exec_fail(x, "infra");
	jc->kind = kind_ops(jc->host_kind);
	jc->kind_boots = kind_boots(jc->host_kind);
	job_budget_begin(jc);
	jlog(jc, 0,
	     "attempt %d on %s (%s), kernel %s, plan %s: %zu run%s x %d "
	     "boot%s",
	     jc->claim.attempt, jc->host_name, jc->host_kind, jc->kernel_name,
	     jc->plan->name, jc->plan->nr_runs,
	     jc->plan->nr_runs == 1 ? "" : "s", jc->boots,
	     jc->boots == 1 ? "" : "s");
	if (adaptive_job_is_adaptive(jc->plan, jc->patch_id))
		jlog(jc, 0,
		     "until decided: block %d of PLM#%lld, boots %d..%d of "
		     "%s (at most %d per kernel)",
		     jc->block, (long long)jc->patch_id, jc->first_boot,
		     jc->first_boot + jc->boots - 1, jc->kernel_name,
		     jc->plan->max_boots);
	return PHASE_NEXT;
}

/* One boot round, phase by phase. */
static const struct exec_phase round_phases[] = {
	{ "boot", round_boot },
	{ "run", round_run },
	{ "collect", round_collect },
	{ "power-off", round_power_off },
};

/*
 * The boot rounds (on hosts that do not boot, repetitions).  Out of time,
 * or with the host gone, the rounds left are not tried; runs cut short by
 * the end of the job were not collected.
 */
static int exec_rounds(struct job_exec *x)
{
	struct job_ctx *jc = &x->jc;
	size_t nr = jc->plan->nr_runs;

	for (x->b = 0; x->b < jc->boots && !jc->lease_lost; x->b++) {
		if (jc->timed_out || jc->connection_lost) {
			for (size_t k = 0; k < nr; k++)
				if (!x->rr[(size_t)x->b * nr + k].done_before)
					not_run(jc,
						&x->rr[(size_t)x->b * nr + k]);
			continue;
		}
		for (size_t p = 0; p < ARRAY_SIZE(round_phases); p++)
			if (round_phases[p].run(x) != PHASE_NEXT)
				return PHASE_STOP;
	}
	if (jc->lease_lost)
		return PHASE_STOP;
	for (size_t i = 0; i < x->n; i++)
		if (x->rr[i].need_fetch && !x->rr[i].error &&
		    (jc->timed_out || jc->connection_lost))
			not_run(jc, &x->rr[i]);
	return PHASE_NEXT;
}

/* The job from its start to its ingest; the end (exec_end()) follows
 * whichever phase stops it. */
static const struct exec_phase exec_phases[] = {
	{ "load", exec_load }, /* the job, its plan, kernel and host */
	{ "check", exec_check }, /* a new host's check */
	{ "build", exec_build }, /* the kernel, for kinds that boot */
	{ "runs", exec_runs }, /* the runs rows */
	{ "rounds", exec_rounds }, /* boot, run, collect, power-off */
	{ "ingest", exec_ingest },
};

int job_execute(struct db *db, const struct queue_claim *c, const char *owner,
		int lease_s, const char *home, const struct job_hooks *hooks,
		struct strbuf *err)
{
	struct job_exec x = { .jc = { .db = db,
				      .claim = *c,
				      .owner = owner,
				      .lease_s = lease_s,
				      .home = home,
				      .hooks = hooks,
				      .beat = job_beat },
			      .e = STRBUF_INIT,
			      .log = STRBUF_INIT,
			      .rlog = STRBUF_INIT,
			      .interrupt_cancels =
				      hooks && hooks->interrupt_cancels,
			      .ret = 1 };
	struct job_ctx *jc = &x.jc;

	job_guard_init(jc);
	jc->last_beat_ms = mono_ms();
	if (keeper_start(db, c, owner, lease_s, &jc->last_beat_ms, &jc->keeper,
			 &x.e) < 0) {
		jlog(jc, 1,
		     "no lease keeper (%s): a call that takes longer than "
		     "the lease loses it",
		     x.e.buf);
		strbuf_reset(&x.e);
	}
	for (size_t i = 0; i < ARRAY_SIZE(exec_phases); i++)
		if (exec_phases[i].run(&x) != PHASE_NEXT)
			break;
	exec_end(&x, err);
	keeper_stop(jc->keeper);
	jc->keeper = NULL;
	for (size_t i = 0; x.rr && i < x.n; i++) {
		strbuf_release(&x.rr[i].lines);
		strbuf_release(&x.rr[i].label);
		free(x.rr[i].error);
		free(x.rr[i].expected);
	}
	free(x.rr);
	free(jc->console_fatal);
	free(x.fail_msg);
	strbuf_release(&x.e);
	strbuf_release(&x.log);
	strbuf_release(&x.rlog);
	job_ctx_release(jc);
	job_guard_release(jc);
	return x.ret;
}

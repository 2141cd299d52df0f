/*
 * job.h - what one job is while it runs: the context its phases share
 * (struct job_ctx), the hooks a display plugs in, and the hooks a host
 * kind plugs in (struct job_kind_ops).  Owned by the job module: both
 * jobexec.c, which runs the phases, and the kinds' hooks (boot_job.c)
 * include it, and neither includes the other's header for it.
 */
#ifndef SCHEDFARM_JOB_H
#define SCHEDFARM_JOB_H

#include <stdatomic.h>
#include <stdint.h>

#include "store/db.h"
#include "store/queue.h"
#include "lab/runner.h"
#include "strbuf.h"
#include "time-util.h"

struct plan;
struct job_kind_ops;

/* What a progress display shows about the run that starts or ends. */
struct job_progress {
	int64_t job_id;
	int64_t run_id;
	size_t index; /* 0-based over the whole job */
	size_t nr_runs;
	const char *workload;
	const char *params; /* the plan's own parameters, "name=value ..." */
	const char *host;
	double elapsed_s; /* since the run phase began */
	double estimate_s; /* time left by the average so far; < 0 unknown */
	const char *outcome; /* NULL when the run starts; "ok", "failed: ..." */
	int tick; /* 1: the run goes on (about once a second), for a display
		   * that redraws its clock; outcome is NULL */
};

struct job_hooks {
	void (*progress)(void *ctx, const struct job_progress *p);
	/* level: 0 info, 1 warning */
	void (*log)(void *ctx, int level, const char *msg);
	void *ctx;
	/* A progress line of a phase without runs ("build: 35% ...",
	 * "boot: +2.1s console: Linux version ..."), for display only (the
	 * phase's log in the database has the whole story).  May be NULL. */
	void (*phase_progress)(void *ctx, int64_t job_id, const char *msg);
	/* What an interrupt (job_stop_requested) does to the job: 0 puts it
	 * back in the queue, where its next attempt runs only the runs not
	 * stored yet (serve, `run` draining the queue); 1 cancels it (`run
	 * PLAN`, whose job nobody else asked for).  Finished runs are
	 * stored either way. */
	int interrupt_cancels;
};

/* Everything a phase may need, loaded when the job starts. */
struct job_ctx {
	struct db *db;
	struct queue_claim claim;
	const char *owner;
	int lease_s;
	/* The farm's state folder (home.h): the kernel cache, console logs
	 * and locks of a boot, the run files of a local host hang off it. */
	const char *home;
	char *run_dir; /* local hosts: the state folder's run/ */
	const struct job_hooks *hooks;

	struct plan *plan;
	int64_t plan_id, kernel_id, patch_id;
	/* Adaptive repetitions (adaptive.h): the job's block, the boots it
	 * runs (the plan's `boots`, or 4 in a later block) and the runs.boot
	 * of its first, so boots are numbered per kernel over a sequence. */
	int block, boots, first_boot;
	char *kernel_name;
	int kernel_has_series; /* the kernel is a series on a base, to be
				* built (never the label of a running one) */
	char *host_name, *host_kind;
	/* The hooks of the host's kind (NULL: a kind without any) and
	 * whether it boots the job's kernel, looked up once in jobexec.c's
	 * table of kinds when the job is loaded. */
	const struct job_kind_ops *kind;
	int kind_boots;
	/* Where the agent runs: the host's own SSH fields; a boot hook may
	 * point it elsewhere (the booted guest). */
	struct runner_host target;
	char *agent_path;
	/* Renew the job's lease when due (lease.c's job_beat(), set by
	 * job_execute()).  Build and boot hooks that take longer than a few
	 * seconds call it at least every few seconds, or the lease expires
	 * and the job goes to another controller; a negative return means
	 * the job must stop.  A pointer, so the hooks need not call up into
	 * lease.c. */
	int (*beat)(struct job_ctx *jc);
	/* When the lease was last renewed (mono_ms()): by job_beat(), or
	 * by the keeper while the main thread waited (keeper.h). */
	_Atomic int64_t last_beat_ms;
	struct lease_keeper *keeper; /* NULL: the main thread alone */
	int lease_lost;
	int interrupted; /* job_stop_requested was seen */
	int booted; /* a boot hook succeeded; power_off is due */
	/* Kinds that boot (set by the boot hook, cleared at power-off):
	 * watch the console while the plan runs -- 1 with the fatal line
	 * in *hit when one came -- and record a fatal line of the run:
	 * expected (the plan's `expect:`) or the kernel's failure, whose
	 * blame goes to *blame.  Both NULL: no console to watch. */
	int (*watch)(struct job_ctx *jc, struct strbuf *hit);
	int (*run_fatal)(struct job_ctx *jc, const char *line, int expected,
			 struct strbuf *blame, struct strbuf *err);
	char *console_fatal; /* this round's fatal console line, or NULL */
	const char *console_fatal_kind; /* its pattern: "panic", ... */
	int console_oops; /* this round's console showed an oops/BUG/GPF */
	void *kind_state; /* the kind's hooks keep what they need here
			   * (e.g. the boot result); they free it in
			   * power_off */

	/* jobguard.h: the job's budget and the current phase's limit
	 * inside it (their names in the strbufs); timed_out once the
	 * phase's limit ran out, timeout_msg saying which. */
	struct budget job_budget, phase_budget;
	struct strbuf job_budget_name, phase_budget_name;
	int timed_out;
	struct strbuf timeout_msg;
	/* Job log lines the database did not take while it was away; they
	 * go out with the next line it takes. */
	struct strbuf pending_log;
	/* The connection to the agent's host was lost mid-run and not
	 * regained: the job's other runs are not tried. */
	int connection_lost;
};

/*
 * Per host kind: how to build, boot and power off (NULL: this kind does
 * none of it).  build makes jc->kernel_id; boot brings the host up on it
 * for round boot_index and points jc->target at its SSH address (the
 * agent is then copied and run there as on an `ssh` host); power_off runs
 * after the round's runs and collect, and at the end of a failed job.
 * Each returns 0, or -1 with err; log is kept with the phase.
 */
struct job_kind_ops {
	const char *kind;
	int (*build)(struct job_ctx *jc, struct strbuf *log,
		     struct strbuf *err);
	int (*boot)(struct job_ctx *jc, int boot_index, struct strbuf *log,
		    struct strbuf *err);
	int (*power_off)(struct job_ctx *jc, struct strbuf *log,
			 struct strbuf *err);
	/* After boot failed: 1 when the host was to blame and is now
	 * quarantined (the job goes to another host), 0 when not. */
	int (*boot_failed)(struct job_ctx *jc, struct strbuf *log,
			   struct strbuf *err);
};

#endif

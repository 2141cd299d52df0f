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

#include "store/db.h"
#include "store/queue.h"
#include "lab/runner.h"
#include "strbuf.h"

struct plan;

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
};

/* Everything a phase may need, loaded when the job starts. */
struct job_ctx {
	struct db *db;
	struct queue_claim claim;
	const char *owner;
	int lease_s;
	const struct job_hooks *hooks;

	struct plan *plan;
	int64_t plan_id, kernel_id, patch_id;
	/* Adaptive repetitions (adaptive.h): the job's block, the boots it
	 * runs (the plan's `boots`, or 4 in a later block) and the runs.boot
	 * of its first, so boots are numbered per kernel over a sequence. */
	int block, boots, first_boot;
	char *kernel_name;
	char *host_name, *host_kind;
	/* Where the agent runs: the host's own SSH fields; a boot hook may
	 * point it elsewhere (the booted guest). */
	struct runner_host target;
	char *agent_path;
	int64_t last_beat_ms;
	int lease_lost;
	int interrupted; /* job_stop_requested was seen */
	int booted; /* a boot hook succeeded; power_off is due */
	void *kind_state; /* the kind's hooks keep what they need here
			   * (e.g. the boot result); they free it in
			   * power_off */
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
};

/*
 * Renew the job's lease when due (cheap to call often).  Build and boot
 * hooks that take longer than a few seconds must call it at least every
 * few seconds, or the lease expires and the job goes to another
 * controller.  Return 0, or -1 when the job must stop (cancelled, lease
 * lost, controller stopping).
 */
int job_beat(struct job_ctx *jc);

/*
 * Set (from a signal handler) to make a running job stop at its next
 * tick: the agent is stopped and the job goes back to the queue.
 */
extern volatile sig_atomic_t job_stop_requested;

/*
 * Run the claimed job c to its end and record everything.  Return 0 when
 * the job is done, 1 when it failed or was stopped (recorded in the
 * database), -1 when even recording failed (err).
 */
int job_execute(struct db *db, const struct queue_claim *c, const char *owner,
		int lease_s, const struct job_hooks *hooks, struct strbuf *err);

#endif

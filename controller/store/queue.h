/*
 * queue.h - the patch queue: submitting jobs, claiming them with a host
 * lease, renewing and expiring leases, and recording a job's phases.
 *
 * PostgreSQL is the one shared state.  Any number of controllers claim with
 * SELECT ... FOR UPDATE SKIP LOCKED: a job and a matching idle host are
 * locked and leased in one transaction, so no job is claimed twice and no
 * host runs two jobs.  A lease has an expiry that the job's process renews
 * (queue_heartbeat); a controller that dies stops renewing, and
 * queue_requeue_expired() (run by every controller) puts its job back in
 * the queue and frees its host.  Every function returns 0 (or a count) on
 * success and a negative number with err filled on failure; nothing here
 * prints.
 */
#ifndef SCHEDFARM_QUEUE_H
#define SCHEDFARM_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "store/answers.h"
#include "store/db.h"
#include "strbuf.h"

/* patches.name and jobs.name: at most this many bytes (schema 001 and
 * 005), printable (006). */
#define PATCH_NAME_MAX_LEN 500

struct plan;
struct job_row;

/* Default lease: renewed every third of it. */
#define QUEUE_LEASE_S 60

struct queue_submit {
	const struct queue_patch
		*patches; /* may be empty (a plan on a kernel) */
	size_t nr_patches;
	const char *base; /* base kernel name (required) */
	const char
		*kernel; /* --kernel: label of the kernel under test, or NULL */
	const char *kernel_release; /* uname -r under that label, if known */
	const char *plan_name; /* for the plans row */
	const char *plan_text; /* the plan file as given */
	size_t plan_len;
	const struct plan *plan; /* parsed plan_text: requirements, run count */
	const char *host; /* host constraint, or NULL */
	int priority; /* -1000..1000 */
	const char *name; /* label of the series, or NULL */
	const char *submitter; /* who; NULL: the local user */
	int64_t rerun_of; /* 0, or the job this one repeats */
	int now; /* runs at once (`run PLAN`): the host must be healthy */
	const struct strvec *plan_set; /* --set overrides, or NULL */
	/* Where the answer is mailed: NULL takes the first patch's From:
	 * (store/answers.h); "" mails nobody but the configured list. */
	const char *mail_to;
	int no_bisect; /* a regression does not start a bisection */
	/* --fresh-base: the base gets the plan's full boots, nothing stored
	 * counted (the plan's `base: fresh` asks the same); refused for a
	 * host that cannot boot the base */
	int fresh_base;
};

struct queue_submitted {
	int64_t patch_id; /* 0 when there were no patches */
	int64_t plan_id;
	int64_t kernel_id;
	int64_t job_id;
	int boots; /* boots of that first job */
	int base_boots; /* the base's boots still to run (-1: not known yet,
			 * the host is picked at claim time) */
	int base_stored; /* base observations stored on the host already */
	int host_boots; /* the host boots kernels: 1, 0, -1 not known */
	int fresh_base; /* the base is booted anew (--fresh-base, plan) */
};

/*
 * Check that data looks like a patch (a unified diff with at least one
 * hunk, no NUL bytes).  Return 0, or -1 with why in err.
 */
int queue_check_patch(const char *name, const char *data, size_t len,
		      struct strbuf *err);

/*
 * Store the series (whole, and file by file), the plan and the kernel
 * label, and create the first job, all in one transaction.  A host
 * constraint must name an existing host that can take the job
 * (queue_host_can_take()).  A series without s->kernel is built and
 * booted, so only hosts of a kind that boots may claim it (the kinds
 * common/kind_names.h lists as booting); a plan that allows
 * no such host is refused.  A series with a fixed plan starts its answer
 * (store/answers.h): the first job runs the first unit of the ABBA
 * order, the rest follow as each one ends.
 */
int queue_submit(struct db *db, const struct queue_submit *s,
		 struct queue_submitted *ret, struct strbuf *err);

/*
 * Store a plan's text (len bytes) under name, once per distinct text
 * (keyed by its sha256); its id in *ret_id.  0, or -1 with err.
 */
int queue_store_plan(struct db *db, const char *name, const char *text,
		     size_t len, int64_t *ret_id, struct strbuf *err);

/* A claimed job with its leased host. */
struct queue_claim {
	int64_t job_id;
	int64_t host_id;
	int attempt; /* jobs.attempts after the claim: 1 for the first */
};

/* A unique lease owner for this process: "hostname:pid:random". */
char *queue_owner_new(void);

/*
 * Claim the queued job of highest priority (oldest first) that has an idle
 * host of health good or unknown matching its constraint and its plan's
 * requirements, and lease both to owner for lease_s seconds, in one
 * transaction.  Return 1 with *ret filled, 0 when nothing can be claimed
 * now, -1 on error.
 */
int queue_claim(struct db *db, const char *owner, int lease_s,
		struct queue_claim *ret, struct strbuf *err);

/* The same for one given job only (for `schedfarm run PLAN`). */
int queue_claim_job(struct db *db, const char *owner, int lease_s,
		    int64_t job_id, struct queue_claim *ret,
		    struct strbuf *err);

/*
 * Read and check a plan file with the files it includes (the text the
 * queue stores, plan_load_text()) and the --set overrides in sets (NULL:
 * none): its text and the parsed plan.  Return 0, or -1 with the plan's
 * errors in err.
 */
int queue_load_plan(const char *path, const struct strvec *sets,
		    struct strbuf *text, struct plan **ret, struct strbuf *err);

/*
 * Parse the stored plan plan_id with the overrides sets (NULL: none).
 * Return 0 with *ret, or -1 with err (no such plan, or it does not check
 * with them: the plan's errors).
 */
int queue_plan_of_id(struct db *db, int64_t plan_id, const struct strvec *sets,
		     struct plan **ret, struct strbuf *err);

/*
 * Renew the leases of job and host.  Return 0, -2 when the lease is gone
 * (the job was cancelled, or expired and went back to the queue: the
 * caller must stop), -1 on a database error.
 */
int queue_heartbeat(struct db *db, const struct queue_claim *c,
		    const char *owner, int lease_s, struct strbuf *err);

/*
 * Inside a transaction: lock the job's row while it is still leased to
 * owner (FOR UPDATE), so that whatever the transaction then stores
 * belongs to a job this controller still holds.  0 held; 1 the job has
 * already ended by owner's hand in this attempt (a commit whose answer
 * was lost went through); -2 the lease is lost (cancelled, expired); -1
 * error.
 */
int queue_hold_lease(struct db *db, const struct queue_claim *c,
		     const char *owner, struct strbuf *err);

/* Set the job's state (claimed, building, ..., ingesting) while leased. */
int queue_set_state(struct db *db, const struct queue_claim *c,
		    const char *owner, const char *state, struct strbuf *err);
/* Set the leased host's state: "leased" or "running". */
int queue_set_host_state(struct db *db, const struct queue_claim *c,
			 const char *owner, const char *state,
			 struct strbuf *err);

/* Append text to the job's log (capped at 1 MiB overall). */
int queue_log(struct db *db, int64_t job_id, const char *text,
	      struct strbuf *err);

/*
 * Phases: a row of job_phases per phase and attempt.  begin returns the
 * row id; end sets its status (ok, failed, skipped) and log.
 */
int queue_phase_begin(struct db *db, const struct queue_claim *c,
		      const char *phase, int64_t *ret_id, struct strbuf *err);
int queue_phase_end(struct db *db, int64_t phase_id, const char *status,
		    const char *log, struct strbuf *err);
int queue_phase_skip(struct db *db, const struct queue_claim *c,
		     const char *phase, const char *why, struct strbuf *err);

/*
 * End a job: state "done" or "failed" (with error_phase and error), runs
 * not finished marked aborted, and the host released, in one transaction.
 * A job that was cancelled meanwhile stays cancelled.  State "queued"
 * puts the job back (an interrupted controller), its attempt not counted;
 * state "cancelled" ends it (an interrupted `run PLAN`) with error as its
 * stop_reason.  The aborted runs' error says which of these it was.  Only
 * the lease owner's rows are touched.
 */
int queue_finish(struct db *db, const struct queue_claim *c, const char *owner,
		 const char *state, const char *error_phase, const char *error,
		 struct strbuf *err);

/*
 * A job whose host failed it (quarantined by its boot check) goes back to
 * the queue for another matching host: that host is added to the job's
 * excluded_hosts, its runs not finished are aborted, the host released.
 * The attempt counts: with none left, or when the job may run on that
 * host only, it fails instead.  error_phase and error say why either way.
 */
int queue_requeue_elsewhere(struct db *db, const struct queue_claim *c,
			    const char *owner, const char *error_phase,
			    const char *error, struct strbuf *err);

/*
 * Put jobs whose lease expired back in the queue (or fail them when they
 * used up max_attempts), abort their unfinished runs, and free hosts whose
 * lease expired.  Counts go to *ret_jobs and *ret_hosts (may be NULL).
 */
int queue_requeue_expired(struct db *db, int *ret_jobs, int *ret_hosts,
			  struct strbuf *err);

/*
 * Cancel a job that has not finished.  Return 1 when cancelled, 0 when it
 * had already finished (done, failed, cancelled), -1 on error (err says
 * "no job N" when there is none).
 */
int queue_cancel(struct db *db, int64_t job_id, struct strbuf *err);

#endif

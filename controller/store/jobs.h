/*
 * jobs.h - the one owner of new rows in `jobs` (the STP# of OSDL's queue).
 *
 * A job is queued by `submit`/`run` (from a plan), by `rerun` (a copy of
 * an earlier job on a named host) and by the adaptive repetitions (the
 * next block of a sequence).  All three fill a struct job_row and go
 * through jobs_insert(), so the columns a job carries are listed once.
 * The state changes of a queued job (claim, phases, finish) belong to
 * queue.c.
 */
#ifndef SCHEDFARM_JOBS_H
#define SCHEDFARM_JOBS_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"
#include "strvec.h"

struct plan;

struct plan;

/* The columns of a job as queued.  Strings are owned by the row. */
struct job_row {
	int64_t patch_id; /* 0: none (a plan run under a kernel name) */
	int64_t kernel_id;
	int64_t plan_id;
	char *host_constraint; /* a host name, or NULL for any match */
	int64_t priority;
	char *name; /* may be NULL */
	struct strvec req_kinds, req_tags;
	int64_t req_min_sockets, req_min_cpus, req_min_memory_mb;
	int64_t nr_runs; /* runs x boots */
	int64_t rerun_of; /* 0: not a rerun */
	int64_t block; /* adaptive block, 0 for any other job */
	struct strvec plan_set; /* --set KEY=VALUE the plan is parsed with */
	/* Boots this job runs and the runs.boot of its first: 0 = the
	 * plan's rule (adaptive.h); set for the units of a submission's
	 * ABBA order (store/answers.c) and a bisection step's looks. */
	int64_t boots, first_boot;
	int64_t bisect_step_id; /* 0: not a bisection step's job */
};

void job_row_init(struct job_row *r);
void job_row_release(struct job_row *r);

/*
 * Fill r's host requirements and run count from plan p, for `boots`
 * boots (the plan's own `boots` for an ordinary job).
 */
void job_row_from_plan(struct job_row *r, const struct plan *p, int boots);

/*
 * Load the queued columns of job `job_id` into r (initialised by the
 * caller, released by it).  Return 0, 1 when there is no such job, or -1
 * with err.
 */
int jobs_load_row(struct db *db, int64_t job_id, struct job_row *r,
		  struct strbuf *err);

/* What a rerun needs to know of a job besides its row. */
struct job_about {
	char *host; /* the host it ran on, else its constraint, else NULL */
	char *plan_name;
	char *kernel; /* the kernel's name */
	int kernel_has_series; /* a series on a base, built by the farm */
};
void job_about_release(struct job_about *a);

/*
 * Fill *ret for job_id (release it).  0, 1 when there is no such job, -1
 * with err.
 */
int jobs_about(struct db *db, int64_t job_id, struct job_about *ret,
	       struct strbuf *err);

/*
 * The newest job that ran the plan whose text is text (matched by its
 * sha256, as plans are stored): its id in *ret_id.  0, 1 when no job ran
 * it, -1 with err.
 */
int jobs_latest_with_plan(struct db *db, const char *text, size_t len,
			  int64_t *ret_id, struct strbuf *err);

/*
 * The --set overrides job_id was queued with (appended to sets, in
 * order).  Return 0 (none is fine), or -1 with err.
 */
int jobs_load_plan_set(struct db *db, int64_t job_id, struct strvec *sets,
		       struct strbuf *err);

/*
 * The overrides of the newest job that ran plan_id (and belongs to
 * patch_id when that is > 0), for readers of a plan without a job at
 * hand (compare).  0 with nothing appended when there is no such job.
 */
int jobs_load_plan_set_of_plan(struct db *db, int64_t plan_id, int64_t patch_id,
			       struct strvec *sets, struct strbuf *err);

/*
 * The effective plan of job_id: its stored plan (`plans`.name, .body of
 * the job's plan_id) parsed with plan_parse_set() and the --set overrides
 * the job was queued with (`jobs`.plan_set), as the job runs it.  The one
 * place that rebuilds a job's plan: the job itself, its adaptive sequence
 * and a submission's answer ask it.  *ret (the caller frees it with
 * plan_free()) on 0; -1 with the server's message in err (or "no job N");
 * -2 with the parser's messages in err when the stored plan no longer
 * parses (each caller says whose plan it was).
 */
int jobs_load_plan(struct db *db, int64_t job_id, struct plan **ret,
		   struct strbuf *err);

/*
 * The plan plan_id as its jobs ran it, for readers of a plan without a job
 * at hand (a comparison, a bisection): parsed with the --set overrides of
 * the newest job that ran it and belongs to patch_id when patch_id > 0 (of
 * any patch when patch_id is 0; none when patch_id < 0 or no job ran it).
 * The overrides are appended to ret_sets (may be NULL).  *ret (the caller
 * frees it) on 0; 1 when there is no plan plan_id; -1 with the server's
 * message in err; -2 with the parser's messages in err.
 */
int jobs_load_plan_of_plan(struct db *db, int64_t plan_id, int64_t patch_id,
			   struct strvec *ret_sets, struct plan **ret,
			   struct strbuf *err);

/* Insert r as a queued job; its id in *ret_id.  0 or -1 with err. */
int jobs_insert(struct db *db, const struct job_row *r, int64_t *ret_id,
		struct strbuf *err);
/*
 * Job job_id for `job show`: no row when there is none, else one JSON
 * object: the job, its kernel, plan (with "set": its --set overrides,
 * [] for none) and host, its phases and its runs (each with its count of
 * results).  Into *ret (the caller frees it).  0,
 * or -1 with err.
 */
int jobs_show_json(struct db *db, int64_t job_id, struct db_result **ret,
		   struct strbuf *err);

/*
 * The text `job show` prints for job_json (the object jobs_show_json()
 * gave), rendered by the server from that object so that both forms
 * agree: one row, one column.  Into *ret.  0, or -1 with err.
 */
int jobs_show_text(struct db *db, const char *job_json, struct db_result **ret,
		   struct strbuf *err);

#endif

/*
 * answers.h - a submission's way to its answer, as rows: the one owner of
 * the answer columns of `patches` and of `patch_files` (schema 007), and
 * of the rule that orders a submission's jobs.
 *
 * A submitted patch (PLM#) with a plan whose `until` is fixed is measured
 * on one host in ABBA order of single boots, P B B P P B ..., where P is
 * the patched kernel and B its base; consecutive boots of one kernel are
 * one job, so `boots: 3` gives the jobs P, B B, P P, B.  The base runs
 * only the boots it lacks: base observations already stored for that
 * host and plan (by other submissions, or `run PLAN --kernel BASE`) are
 * reused, so B has max(0, boots - stored) boots.  The submitted job is
 * the first unit; each next one is queued when the one before it ended
 * (answer/answer.c), on the host the first ran on, so the order holds on
 * any host and however many controllers share the queue.  A submission
 * with a fresh base (`submit --fresh-base`, the plan's `base: fresh`)
 * counts nothing stored: B has all the plan's boots, and the answer
 * compares its own runs only.  Hosts that
 * cannot change kernel (local, ssh) run the patch's boots only; their
 * answer uses the base results stored there.  Plans with `until: decided`
 * are ordered by analysis/adaptive.c instead.
 *
 * The answer states: pending (jobs still to run or to queue), waiting (a
 * host that cannot boot the base has no base results: the note says the
 * command that makes them), answered (verdicts stored), failed (nothing
 * to compare: the note says why), and none for patches from before
 * answers existed.  Nothing here prints.
 */
#ifndef SCHEDFARM_ANSWERS_H
#define SCHEDFARM_ANSWERS_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"
#include "strvec.h"

struct plan;

enum answer_side { ANSWER_PATCH, ANSWER_BASE };

/* One job of the ABBA order: which kernel, how many boots, first boot. */
struct answer_unit {
	enum answer_side side;
	int boots;
	int first_boot; /* runs.boot of its first boot (per kernel) */
};

/*
 * The next job of a submission that wants n boots of the patch and k of
 * the base, after done_patch and done_base boots of each ran (in this
 * order).  Return 1 with *ret, 0 when every boot has run.  Pure.
 */
int answer_next_unit(int n, int k, int done_patch, int done_base,
		     struct answer_unit *ret);

/*
 * The base's boots k of a submission whose plan wants boots per kernel,
 * with stored base observations on its host: max(0, boots - stored), or
 * all boots with a fresh base (nothing stored counts).  Pure.
 */
int answer_base_boots(int boots, int stored, int fresh_base);

/*
 * Boots of the submitted (first) job: the plan's `boots` when the host is
 * known not to boot kernels (host_boots 0) or the base needs none (k 0),
 * else the first ABBA unit (one boot: the base may still need some).
 * host_boots -1 means the host is not known yet.  Pure.
 */
int answer_first_boots(int n, int host_boots, int k);

/* A job of a submission, as the answer sees it. */
struct answer_job {
	int64_t id, kernel_id, host_id;
	char *state, *error_phase, *error;
	int boots, block;
	enum answer_side side;
};

/* What the answer step knows of a submission. */
struct answer_sub {
	int64_t patch_id, base_kernel_id, kernel_id, plan_id, host_id;
	char *name, *submitter, *mail_to, *state, *base, *base_name,
		*kernel_name, *plan_name, *plan_sha, *plan_body, *host_name,
		*host_kind, *note;
	int auto_bisect, n_patches, priority, host_boots;
	/* submit --fresh-base (or the plan's `base: fresh`): the base gets
	 * the plan's full boots and the answer compares its own runs only */
	int fresh_base;
	struct answer_job *jobs; /* its jobs (not bisection steps), by id */
	size_t nr_jobs;
	int live; /* a job is queued or running */
	/* The --set overrides of its first job, which every unit of its
	 * ABBA order repeats: the plan is parsed with them, and only base
	 * results measured with the same count as stored ones. */
	struct strvec plan_set;
};

void answer_sub_release(struct answer_sub *s);

/*
 * The PLM#s whose answer step may have work: pending ones with no job
 * queued or running, and waiting ones whose host now has results of the
 * base kernel with their plan.  Appended to *ret (free it), at most max.
 */
int answers_open(struct db *db, int64_t **ret, size_t *ret_nr, size_t max,
		 struct strbuf *err);

/*
 * Take (or drop) the controller-wide lock of one answer, so that two
 * controllers never answer a PLM# twice at once.  try_lock returns 1
 * when taken, 0 when another holds it, -1 on error.  A session that dies
 * drops its locks.
 */
int answers_try_lock(struct db *db, int64_t patch_id, struct strbuf *err);
void answers_unlock(struct db *db, int64_t patch_id);

/*
 * Load submission patch_id into *s (zeroed first).  0, 1 when there is no
 * such patch, -1 with err.
 */
int answers_load(struct db *db, int64_t patch_id, struct answer_sub *s,
		 struct strbuf *err);

/*
 * Observations (boots) of kernel_id on host_id with plan_id and the --set
 * overrides plan_set (NULL: none), counting only runs that finished, and
 * leaving out the jobs of patch exclude_patch (0: none).  0 or -1 with
 * err.
 */
int answers_observations(struct db *db, int64_t kernel_id, int64_t host_id,
			 int64_t plan_id, const struct strvec *plan_set,
			 int64_t exclude_patch, int *ret_n, struct strbuf *err);

/*
 * Queue unit u of s as a job on s's host (a copy of its first job with
 * the unit's kernel and boots), unless a job of s is queued or running.
 * 1 with its id, 0 when nothing was queued, -1 with err.
 */
int answers_queue_unit(struct db *db, const struct answer_sub *s,
		       const struct answer_unit *u, int64_t *ret_id,
		       struct strbuf *err);

/*
 * Record the answer's state (pending, waiting, answered, failed) with its
 * verdict, headline, note and deciding metrics (a JSON array; NULL for
 * none), and the host it is about; answered_at is set for answered and
 * failed.  0 or -1.
 */
int answers_record(struct db *db, int64_t patch_id, const char *state,
		   int64_t host_id, const char *verdict, const char *headline,
		   const char *note, const char *metrics_json,
		   struct strbuf *err);

/* One patch file of a series, as read from disk. */
struct queue_patch {
	const char *name; /* file name, for messages */
	const char *data;
	size_t len;
};

/*
 * Store the files of a series (called inside queue_submit's
 * transaction): one patch_files row each, with its Subject: when it has
 * one.  0 or -1 with err.
 */
int answers_store_files(struct db *db, int64_t patch_id,
			const struct queue_patch *files, size_t nr,
			struct strbuf *err);

/*
 * The mail address in the first From: header of a patch in mbox or
 * git format-patch form ("From: Name <a@b>"), into out; -1 when it has
 * none.
 */
int answers_patch_author(const char *data, size_t len, struct strbuf *out);

/* The Subject: of a patch without "[PATCH n/m]", into out; -1: none. */
int answers_patch_subject(const char *data, size_t len, struct strbuf *out);

/*
 * Everything `patch show` prints about PLM# patch_id, as one JSON object
 * (see doc/ANSWERS.md): the patch, its answer (with the base runs it
 * reused, patches.answer_base_reused), its jobs, the latest verdict per
 * metric on its host, its mails and bisections, and the answer's phases
 * (answers_phases()).  page_url is
 * the patch page's URL.  0, 1 when there is no such patch, -1.
 */
int answers_show_json(struct db *db, int64_t patch_id, const char *page_url,
		      struct strbuf *out, struct strbuf *err);

/*
 * The submissions, newest first (at most 500), as a JSON array of
 * {patch, name, n_patches, base, state, verdict, headline, submitted_at,
 * answered_at}.  0 or -1 with err.
 */
int answers_list_json(struct db *db, struct strbuf *out, struct strbuf *err);
/*
 * The first count stored files of patch_id's series, by position:
 * position, sha256, the file's bytes in hex.  Into *ret (the caller frees
 * it; it says how many there are).  0, or -1 with err.
 */
int answers_patch_files(struct db *db, int64_t patch_id, int64_t count,
			struct db_result **ret, struct strbuf *err);
/*
 * Who hears of bisection_id's end: one row, the mail_to of its patch (NULL
 * when it has none or is no patch's); no row when there is no such
 * bisection.  Into *ret (the caller frees it).  0, or -1 with err.
 */
int answers_bisection_mail_to(struct db *db, int64_t bisection_id,
			      struct db_result **ret, struct strbuf *err);

#endif

/*
 * answer_account.h - what an answer says of itself beyond its verdict:
 * whose base runs it compared (when they are not the submission's own),
 * and where the time from submit to answer went.
 *
 * Issue 29: a patch on a base whose runs of the same plan on the same host
 * are stored already is answered with them, and says so ("base runs
 * reused from STP#3, STP#5, kernel v6.1") on its page, in `patch show`
 * and in its mail; and `patch show`, the page and the controllers' log
 * list the answer's phases with their durations.  The runs named are read
 * with the very filter the comparison read them with
 * (comparisons_base_sources()); the phases come from the rows the jobs
 * left (jobs.started_at/finished_at, job_phases, patches.created_at and
 * answered_at).  Nothing here prints.
 */
#ifndef SCHEDFARM_ANSWER_ACCOUNT_H
#define SCHEDFARM_ANSWER_ACCOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

struct answer_sub;

/* The stored base runs an answer compared that its submission did not
 * queue. */
struct answer_reuse {
	int64_t *jobs; /* the STP ids whose runs were used, ascending */
	size_t nr_jobs;
	int64_t imported; /* imported runs used (no job) */
};

void answer_reuse_release(struct answer_reuse *r);

/*
 * The base runs of s (its base kernel on its host, its plan and --set
 * overrides) that its comparison reads and that are not of its own jobs,
 * into *ret (zeroed first; release it).  Columns read through
 * comparisons_base_sources(): runs.job_id, the count of runs.  For a
 * submission with a fresh base the comparison reads its own runs only:
 * *ret stays empty.  0, or -1 with err.
 */
int answers_base_reused(struct db *db, const struct answer_sub *s,
			struct answer_reuse *ret, struct strbuf *err);

/* Whether r names any run. */
int answer_reuse_any(const struct answer_reuse *r);

/*
 * "base runs reused from STP#3, STP#5, 2 imported runs, kernel v6.1"
 * appended to out (nothing when r names no run).  Pure.
 */
void answer_reuse_text(const struct answer_reuse *r, const char *kernel,
		       struct strbuf *out);

/*
 * r as the JSON object patches.answer_base_reused holds (schema 016):
 * {"kernel", "jobs": [ids], "imported": N, "text"}; "null" when r names
 * no run.  Appended to out.  Pure.
 */
void answer_reuse_json(const struct answer_reuse *r, const char *kernel,
		       struct strbuf *out);

/*
 * Record json (answer_reuse_json()'s object, or NULL for none) as
 * patches.answer_base_reused of patch_id.  0, or -1 with err.
 */
int answers_record_reuse(struct db *db, int64_t patch_id, const char *json,
			 struct strbuf *err);

/*
 * Where the time from submit to answer went, in milliseconds.  queued:
 * from submit (patches.created_at) to the first job's start, plus the
 * waits between one job's end and the next one's start; build and boot:
 * the job_phases of those names; run: the rest of the jobs' time
 * (jobs.started_at to finished_at: the run, collect and ingest phases
 * and the job's own setup around them); compare: from the last job's
 * end to patches.answered_at.  The five add up to span (answered_at -
 * created_at) when the jobs ran one after another, as an answer's do.
 */
struct answer_phases {
	int answered; /* answered_at is set: the rest is filled */
	int jobs; /* the submission's jobs that ran (not its bisection's) */
	int64_t span_ms, queued_ms, build_ms, boot_ms, run_ms, compare_ms;
};

/*
 * The phases of patch_id's answer (struct answer_phases, from columns
 * patches.created_at, answered_at, jobs.started_at, finished_at of its
 * jobs that are no bisection step, job_phases.phase, started_at,
 * finished_at of theirs), into *ret (zeroed; answered 0 when the patch
 * is not answered or does not exist).  0, or -1 with err.
 */
int answers_phases(struct db *db, int64_t patch_id, struct answer_phases *ret,
		   struct strbuf *err);

/*
 * "queued 5s, build 1m2s, boot 2m10s, run 8m, compare 3s" (durations by
 * format_duration_ms()), appended to out.  Pure.
 */
void answer_phases_text(const struct answer_phases *ph, struct strbuf *out);

/*
 * {"total_seconds", "queued", "build", "boot", "run", "compare"} in
 * seconds (ms precision), or "null" when not answered; appended to out.
 * Pure.
 */
void answer_phases_json(const struct answer_phases *ph, struct strbuf *out);

#endif

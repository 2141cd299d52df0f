/*
 * bisect.h - which change of a series first moves a metric: the search,
 * the rule that decides one step, and bisections as rows.
 *
 * A bisection has points 0..n: point 0 is the good end (the series' base,
 * or the GOOD commit), point n the bad end (the whole series, or BAD),
 * point k the base plus the first k changes.  The ends are compared first
 * (for a submission, its answer did it) and give the direction: a
 * regression or an improvement of one (workload, params, metric) on one
 * host with one plan.  Then each step measures one point, look by look
 * with a group-sequential rule (the first look after the plan's boots,
 * then COMPARE_BLOCK more boots per look, at most ADAPTIVE_MAX_LOOKS
 * looks and the bisection's max_boots; every look at the per-look level
 * of bisect_levels(), as adaptive.h does for `until: decided`), until it
 * is decided against the two ends: like the good end (good) or like the bad
 * end (bad).  A point that stays undecided, or whose kernel does not
 * build or boot, is skipped, as `git bisect skip` does.  The first bad
 * point after the last good one is the culprit; its %change and CI are
 * those of the culprit's kernel against the good point before it.
 *
 * The pure functions (the search, one step's rule) are apart from the
 * database driver so that they can be tested alone (tests/unit/
 * test-bisect.c).  The driver runs in whichever controller finds a
 * bisection with no job running (bisect_tick, called by serve and run
 * through answer/answer.c): every decision is one transaction on the rows,
 * so a controller killed at any point leaves a bisection that the next
 * one continues from its stored steps.  Nothing here prints.
 */
#ifndef SCHEDFARM_BISECT_H
#define SCHEDFARM_BISECT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/compare.h"
#include "store/db.h"
#include "strbuf.h"

/* What is known of a point. */
enum bisect_mark {
	BISECT_UNTESTED,
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_SKIP, /* could not be decided, built or booted */
};

const char *bisect_mark_name(enum bisect_mark m);

enum bisect_what {
	BISECT_TEST, /* measure point `position` next */
	BISECT_FOUND, /* the culprit is point high (low is the good before) */
	BISECT_RANGE, /* the culprit is one of low+1 .. high: the points in
		       * between were skipped */
	BISECT_NONE, /* the bad end is not bad: no change causes it */
};

struct bisect_next {
	enum bisect_what what;
	int position; /* BISECT_TEST */
	int low, high; /* the last good point and the first bad one */
};

/*
 * The next step of a search over marks[0..n] (n >= 1): marks[0] is the
 * good end (taken as good whatever it says), marks[n] the bad end
 * (untested: test it first; good: BISECT_NONE).  Between the last good
 * point and the first bad one after it, the untested point nearest the
 * middle (the lower one on a tie) is tested next; when none is left,
 * the first bad point is the culprit (BISECT_FOUND when it follows the
 * good one directly, else BISECT_RANGE).  Pure.
 */
void bisect_search(const enum bisect_mark *marks, int n,
		   struct bisect_next *ret);

/*
 * One step's rule: the point's verdict against the good end (v_good:
 * good end -> point) and the bad end's against the point (v_bad: point ->
 * bad end), for a change in direction dir (CMP_REGRESSION or
 * CMP_IMPROVEMENT).  The point is bad when it already shows the change
 * (v_good == dir) or the bad end adds nothing (v_bad no-change); good when
 * it shows none (v_good no-change) or the bad end still adds it (v_bad ==
 * dir); when both or neither hold, a point that shows the change (v_good
 * == dir) is bad (it carries part of it: the first change is at or before
 * it), else it is undecided (BISECT_UNTESTED).  Pure.
 */
enum bisect_mark bisect_classify(enum cmp_verdict v_good,
				 enum cmp_verdict v_bad, enum cmp_verdict dir);

/*
 * May an undecided step add a look?  After `looks` looks and `boots`
 * boots: while looks < ADAPTIVE_MAX_LOOKS and boots + COMPARE_BLOCK <=
 * max_boots.  Pure.
 */
int bisect_may_continue(int looks, int boots, int max_boots);

/*
 * The levels every look of a step tests at, for a step whose first look
 * comes after first_boots boots and which may add looks while
 * bisect_may_continue() lets it (so the looks and their boots are known
 * in advance): Pocock's constant for those looks at COMPARE_ALPHA
 * overall (stats_gs_constant(), the boots as information) in *ret_alpha,
 * the no-change interval's level widened the same way in *ret_nc_level;
 * a step of one look gets the fixed design's levels.  Returns 0, or
 * -EINVAL for first_boots < 1.  Pure.
 */
int bisect_levels(int first_boots, int max_boots, double *ret_alpha,
		  double *ret_nc_level);

/* --- Bisections as rows ------------------------------------------------- */

struct bisect_request {
	/* A submission's series ... */
	int64_t patch_id;
	/* ... or a commit range of a git tree (with plan_path). */
	const char *tree, *good, *bad, *config_spec;
	const char *plan_path; /* a plan file (range bisections) */
	const char *host; /* NULL: the submission's answer host */
	const char *metric; /* NULL: the submission's headline metric */
	int max_boots; /* per step, at most */
	int is_auto; /* started by an answer */
};

/*
 * Start a bisection and queue its first job.  For a submission: its base
 * kernel must have a source to build from, its host must boot kernels,
 * and its answer's comparison must show a regression or an improvement
 * of the metric (otherwise the bisection is recorded as done at once:
 * "no change of the series moves METRIC").  The metric's row with the
 * largest decided change is the one followed.  *ret_id gets its id; msg
 * one or more lines saying what was queued.  0, or -1 with err (nothing
 * stored).
 */
int bisect_start(struct db *db, const struct bisect_request *rq,
		 int64_t *ret_id, struct strbuf *msg, struct strbuf *err);

/*
 * Advance bisection id when no job of it is queued or running and no
 * other controller is at it: decide its open step (or add a look), then
 * queue the next step's job or finish.  1 when it finished now, 0
 * otherwise, -1 with err.
 */
int bisect_advance(struct db *db, int64_t id, struct strbuf *log,
		   struct strbuf *err);

/*
 * Advance every running bisection that has no job queued or running:
 * decide the current step (or add a look), then queue the next step or
 * finish.  Ids of bisections that finished now go to *ret_done (free it);
 * what happened, one line per event, to log.  0, or -1 with err.
 */
int bisect_tick(struct db *db, int64_t **ret_done, size_t *ret_nr_done,
		struct strbuf *log, struct strbuf *err);

/*
 * Bisection id as one JSON object: the bisection, its points (position,
 * kernel, label, mark) and its steps (kernel, n, mean, %change against
 * the good end with its CI, p, both verdicts, boots, looks, state, build
 * seconds).  0, 1 when there is none, -1.
 */
int bisect_show_json(struct db *db, int64_t id, const char *page_url,
		     struct strbuf *out, struct strbuf *err);

/* The bisection an answer started for patch_id: 1 with its id, 0 when
 * there is none, -1 with err. */
int bisect_find_auto(struct db *db, int64_t patch_id, int64_t *ret_id,
		     struct strbuf *err);

/* Cancel a running bisection and its queued jobs.  1, 0 not running, -1. */
int bisect_cancel(struct db *db, int64_t id, struct strbuf *err);

#endif

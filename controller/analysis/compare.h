/*
 * compare.h - patch against baseline: observations, statistics, verdicts.
 *
 * The method is REFERENCE.md section 1, with the choices doc/STATISTICS.md
 * explains.  An observation is one boot's mean of its non-warm-up
 * iterations (harmonic mean when the metric's unit is a rate); runs
 * without a boot grouping are one observation each.  Per (host,
 * workload, params, metric): n, mean and sd per side and the effect with
 * its 95% interval and its no-change interval (90% for one look, wider
 * at a look of a sequence).  The effect is %change = 100 (new - base) /
 * |base| (the sign from the difference, so negative means keep their
 * direction), or, when the values cross or include zero, the difference
 * new - base in the metric's unit.  Intervals, at every n: when every
 * value has one sign (a time, a rate, a count, a latency), the ratio of
 * the means on the log scale, so %change never reaches -100%; on the
 * difference scale a t interval.  t at n_a + n_b - 2 degrees of freedom
 * when both sides have the same n and at Welch's otherwise (coverage
 * 94-96% from 3 to 200 per side: bench/calibration, doc/STATISTICS.md).
 * A p-value: Mann-Whitney U from 5 per side (exact up to 20); below that
 * and for summaries Welch's t (on logs when every value is positive).
 *
 * Three layers: pure functions on numbers (compare_stats_compute_at,
 * compare_decide, compare_set_decide, compare_set_next), the database
 * layer that loads observations and stores or deletes verdicts
 * (compare_run, compare_store, compare_delete, compare_why_empty), and
 * the renderers (compare_format_text, compare_format_json).  Nothing here
 * prints; errors go to the caller's strbuf.
 */
#ifndef SCHEDFARM_COMPARE_H
#define SCHEDFARM_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/* Bump when anything below changes what a comparison computes. */
#define COMPARE_METHOD_VERSION 3

#define COMPARE_ALPHA 0.01 /* a fixed design, overall (Holm's family) */
#define COMPARE_NOCHANGE_LEVEL 0.90 /* the no-change interval, one look */
#define COMPARE_BLOCK 4 /* boots per side added per look */
#define COMPARE_CAP_DEFAULT 20 /* boots per side at most */
#define COMPARE_MIN_N 3 /* fewer on a side: insufficient-data */
#define COMPARE_MW_MIN_N 5 /* Mann-Whitney from this many per side */
#define COMPARE_MW_EXACT_MAX 20 /* exact Mann-Whitney up to this many */
#define COMPARE_TAU_DEFAULT 2.0 /* percent: throughput and times */
#define COMPARE_TAU_TAIL 5.0 /* percent: tail latency */

enum cmp_better { CMP_BETTER_HIGHER, CMP_BETTER_LOWER, CMP_BETTER_NONE };

enum cmp_verdict {
	CMP_REGRESSION,
	CMP_IMPROVEMENT,
	CMP_NO_CHANGE,
	CMP_INCONCLUSIVE,
	CMP_INSUFFICIENT,
	CMP_CHANGED, /* a metric without a direction moved beyond tau */
};

/* What the effect is measured in. */
enum cmp_scale {
	CMP_SCALE_PERCENT, /* %change = 100 (new - base) / |base| */
	CMP_SCALE_DIFF, /* new - base in the unit: the values cross or
			 * include 0 */
};

const char *compare_verdict_name(enum cmp_verdict v);
/* "regression" ... "changed"; -1 for anything else. */
int compare_verdict_parse(const char *s, enum cmp_verdict *ret);
const char *compare_better_name(enum cmp_better b);
/* "higher", "lower" or "none"; -1 for anything else. */
int compare_better_parse(const char *s, enum cmp_better *ret);
/* "percent" or "difference". */
const char *compare_scale_name(enum cmp_scale s);
/*
 * 1 when a unit names a rate (".../s", "per sec", "per minute", "ops",
 * "jpm", "tps" and the like): its iterations are averaged harmonically.
 */
int compare_unit_is_rate(const char *unit);
/* The metric's default noise band in percent: 5 for tail latency, else 2. */
double compare_default_tau(const char *metric);
/* One boot's observation: the mean of its iterations (harmonic for rates;
 * arithmetic when a rate has a value <= 0, where the harmonic mean has no
 * meaning).  NaN for n == 0. */
double compare_observation(const double *iter, size_t n, int rate);

/* One side: n observations, or (obs == NULL) a summary n, mean, sd. */
struct compare_sample {
	const double *obs;
	size_t n;
	double mean, sd;
};

/* What the method computes; NaN where a number cannot be computed. */
struct compare_stats {
	size_t n_base, n_new;
	double mean_base, mean_new, sd_base, sd_new;
	enum cmp_scale scale;
	/* The percent scale (NaN on the difference scale): */
	double pct_change;
	double ci_low, ci_high; /* 95% interval of %change */
	double ci90_low, ci90_high; /* the no-change interval (nc_level) */
	int ci_unbounded; /* the base mean is not distinguishable from 0 */
	/* The difference new - base (always) and, on the difference scale,
	 * its intervals in the metric's unit: */
	double diff;
	double diff_low, diff_high; /* 95% */
	double diff90_low, diff90_high; /* the no-change interval */
	double tau_ref; /* difference scale: tau is a percentage of this
			 * (the root-mean-square value of both sides) */
	double nc_level; /* the no-change interval's level */
	const char *ci_method; /* "log-ratio", "t-diff" or NULL (version
				* 2 also stored "fieller", "bca" and
				* "bca-diff") */
	double p_value;
	const char *p_method; /* "mann-whitney-exact", "mann-whitney-normal",
			       * "welch-log", "welch" or NULL */
	const char *why; /* static: why the interval or p is missing or
			  * unbounded ("cannot compute ..."), or NULL */
};

/*
 * Compute everything but the verdict, with the no-change interval at
 * level nc_level (COMPARE_NOCHANGE_LEVEL for a fixed design, wider at a
 * look of a sequence).  Any finite input is safe.  Pure; always fills
 * *ret.
 */
void compare_stats_compute_at(const struct compare_sample *base,
			      const struct compare_sample *new_,
			      double nc_level, struct compare_stats *ret);
/* The same at COMPARE_NOCHANGE_LEVEL. */
void compare_stats_compute(const struct compare_sample *base,
			   const struct compare_sample *new_,
			   struct compare_stats *ret);

/*
 * The verdict rules with noise band tau_pct, test level alpha and the
 * p-value p (s->p_value, or its Holm-adjusted value):
 *   insufficient-data  fewer than COMPARE_MIN_N on a side;
 *   regression / improvement (changed, for a metric with no direction)
 *                      p < alpha, the 95% interval on one side of 0 and
 *                      the estimate beyond tau on that side (below
 *                      COMPARE_MW_MIN_N a side: the whole interval
 *                      beyond tau);
 *   no-change          the no-change interval inside [-tau, tau];
 *   inconclusive       neither, or an unbounded interval (a base mean
 *                      not distinguishable from 0 never gets a verdict).
 * On the difference scale tau is tau_pct percent of s->tau_ref.
 */
enum cmp_verdict compare_decide_p(const struct compare_stats *s, double p,
				  enum cmp_better better, double tau_pct,
				  double alpha);
/* compare_decide_p() with s->p_value. */
enum cmp_verdict compare_decide(const struct compare_stats *s,
				enum cmp_better better, double tau_pct,
				double alpha);

/* --- Sets of rows: several metrics, one decision ----------------------- */

struct compare_row {
	int64_t host_id;
	char *host, *workload, *params_json, *params_text, *metric, *unit;
	enum cmp_better better;
	double tau;
	struct compare_stats s;
	enum cmp_verdict verdict;
	int decides; /* the plan marks this metric `decides: true` */
	double p_adjusted; /* Holm over the host's deciding rows (= p when
			    * the row does not decide or decides alone) */
	int family; /* how many deciding rows that family has (0: the row
		     * does not decide) */
	char *note; /* owned: what the row needs said (unbounded interval,
		     * directions that disagree, the difference scale,
		     * Holm), or NULL */
};

struct compare_set {
	int64_t base_id, new_id, patch_id, plan_id;
	char *base_name, *new_name;
	struct compare_row *rows;
	size_t nr, alloc;
	double alpha; /* the test level the verdicts used */
	double nc_level; /* the no-change interval's level */
	int look, looks; /* a look of a sequence: look of looks; else 0 */
	/*
	 * The question the set answers (schema 017, doc/STATISTICS.md):
	 * "" for the plain one (every stored run of the two kernels, each
	 * metric's default tau), else what decided it in words
	 * ("plan=NAME@SHA12;set=K=V;tau=2").  planned: the patch's own
	 * question, as its answer asks it.  Stored with every row; one
	 * latest row per key and question.
	 */
	char *question;
	int planned;
	/* Metrics with observations of one kernel only: not compared (no
	 * row), counted here to be said under the table. */
	size_t one_sided;
};

void compare_set_release(struct compare_set *set);

/*
 * Keep only the rows of set whose metric matches metric_glob (* and ? as
 * in a glob) and whose workload is workload (NULL: any), after the set
 * was decided: what a filter shows of the family's answer, never a
 * smaller family.  The other rows are released.
 */
void compare_keep_rows(struct compare_set *set, const char *metric_glob,
		       const char *workload);

/*
 * Is row i deciding: the plan marks it `decides: true`, or it marks no
 * row of the set at all (then every row decides).
 */
int compare_row_decides(const struct compare_set *set, size_t i);

/*
 * The verdicts of every row of set at level alpha: the deciding rows of
 * each host form one family whose p-values get Holm's step-down
 * adjustment (so several deciding metrics keep the family-wise error at
 * alpha); other rows are tested alone.  Sets row->p_adjusted,
 * row->family, row->verdict and set->alpha, and adds the Holm note to
 * rows of a family of two or more.  The stats must have been computed
 * with the no-change level the caller wants (set->nc_level).
 */
void compare_set_decide(struct compare_set *set, double alpha);

/*
 * What row r needs said, appended to out as "; "-separated sentences:
 * why an interval or p is missing or unbounded, the difference scale and
 * its unit, r->note (directions that disagree), and Holm's correction
 * with the adjusted p when the row's family has two or more members.
 * Nothing is appended when there is nothing to say.
 */
void compare_row_note(const struct compare_row *r, struct strbuf *out);

/*
 * After a look of an adaptive sequence (look of looks, 1-based): stop,
 * or ask for another block.  The deciding rows are those of
 * compare_row_decides().  *ret_stop = 0 and *ret_add = COMPARE_BLOCK when
 * some deciding row is still inconclusive or insufficient, this is not
 * the last look and another block stays within cap_per_side; otherwise
 * *ret_stop = 1.  reason gets one sentence for `job show`.  Returns 0, or
 * -1 for a look out of range.
 */
int compare_set_next(const struct compare_set *set, int look, int looks,
		     int cap_per_side, int *ret_stop, int *ret_add,
		     struct strbuf *reason);

/* --- The database layer ------------------------------------------------ */

struct compare_query {
	const char *base, *new_; /* kernel names (or set patch_id) */
	/* > 0: base and new from this PLM#, and its question: the plan it
	 * ran (plan, when given, must be one of its plans), its --set
	 * overrides and fresh base unless plan_set/own_jobs say */
	int64_t patch_id;
	/* host and plan filter the runs read; workload only what is kept
	 * of the decided set (a filter never changes Holm's family) */
	const char *host, *workload, *plan;
	double tau_pct; /* NaN: each metric's default */
	/*
	 * A look of an adaptive sequence (look > 0, with patch_id, host and
	 * plan): only the runs of the sequence's own jobs (the patch's, in
	 * blocks 0..max_block) count, at the design's per-look alpha and
	 * no-change level.  Zero for a plain comparison.
	 */
	int look, looks, max_block;
	/* With patch_id: only the runs of the patch's own jobs count (an
	 * answer with a fresh base).  Zero: every stored run. */
	int own_jobs;
	/* Only runs of jobs queued with exactly these --set overrides
	 * (imported runs count as none); NULL: any. */
	const struct strvec *plan_set;
	double alpha; /* 0: COMPARE_ALPHA */
	double nc_level; /* 0: COMPARE_NOCHANGE_LEVEL */
};

/*
 * Resolve the kernels (names or a patch), load every non-warm-up result
 * of finished or imported runs of both on the same hosts, group them into
 * observations, and compute one row per (host, workload, params, metric)
 * present on either side, decided by compare_set_decide().  When the two
 * kernels' results disagree on a metric's direction and the plan does not
 * set it, the row is compared without one and says so in its note.
 * Fills *ret (release it).  Returns 0, -ENOENT when a kernel, patch or
 * plan is unknown, or another negative number on a database error.
 */
int compare_run(struct db *db, const struct compare_query *q,
		struct compare_set *ret, struct strbuf *err);

/*
 * Store every row in comparisons, in one transaction, with
 * COMPARE_METHOD_VERSION and the level, look and Holm family it was
 * decided with; each becomes the latest for its key (schema 002's
 * trigger retires the previous one).  Returns 0 or negative.
 */
int compare_store(struct db *db, const struct compare_set *set,
		  struct strbuf *err);

/*
 * Delete every stored comparison row (every look, not only the latest)
 * of the pair q names (kernels or a patch), narrowed by q->host and
 * q->workload, e.g. one made by mistake: it leaves the report's index at
 * the next `report`.  The number of rows in *ret_rows.  0, -ENOENT when a
 * kernel or patch is unknown (err says which), or another negative.
 */
int compare_delete(struct db *db, const struct compare_query *q,
		   int64_t *ret_rows, struct strbuf *err);

/*
 * compare_run() gave set no rows: say why in words in why, naming the
 * filter of q that matched nothing (a host that does not exist, a
 * workload or plan neither kernel has results of, with those they have),
 * or that neither kernel has finished runs.  0, or negative with why
 * holding the database's error.
 */
int compare_why_empty(struct db *db, const struct compare_query *q,
		      const struct compare_set *set, struct strbuf *why);

/*
 * The LKP/PLM-style table, grouped by host, workload and params, each
 * row's note under it, and under the table the level, the look and, once
 * per host, Holm's correction (a row shows its adjusted p as "adj.").
 * wide: one line a row, the metric after the numbers and the params on
 * the heading line; else each row's metric and verdict on a line of its
 * own above its numbers and the params on a line of their own, so that
 * the rows take at most 78 columns and only labels and notes can be
 * longer (cmd_compare wraps those; cli_wrap()).
 */
void compare_format_table(const struct compare_set *set, int wide,
			  struct strbuf *out);
/* compare_format_table(set, 0, out). */
void compare_format_text(const struct compare_set *set, struct strbuf *out);
/*
 * A JSON array of objects: host, workload, params, metric, unit, better,
 * n_base, n_new, mean_base, mean_new, stddev_base, stddev_new,
 * pct_change, ci_low, ci_high, p_value, verdict (the keys of issue 5),
 * and scale, difference, diff_ci_low, diff_ci_high, ci_unbounded
 * (true: the interval is unbounded, as opposed to null for missing),
 * ci_method, p_method, p_adjusted, alpha, tau, note.
 */
void compare_format_json(const struct compare_set *set, struct strbuf *out);
/*
 * The parts of one row's JSON object that every writer of rows shares
 * (compare_format_json() here, the answer's summary in answer/), so a
 * key is spelled once: the row's name ("host", "workload", "params",
 * "metric", "unit", no leading comma) and its numbers (",\"n_base\"",
 * "n_new", "mean_base", "mean_new", with with_sd "stddev_base" and
 * "stddev_new", then "pct_change", "ci_low", "ci_high", "p_value").
 * The caller writes the braces and whatever else the object holds.
 */
void compare_row_json_name(const struct compare_row *r, struct strbuf *out);
void compare_row_json_numbers(const struct compare_row *r, int with_sd,
			      struct strbuf *out);

#endif

/*
 * compare.h - patch against baseline: observations, statistics, verdicts.
 *
 * The method is REFERENCE.md section 1.  An observation is one boot's
 * mean of its non-warm-up iterations (harmonic mean when the metric's
 * unit is a rate); runs without a boot grouping are one observation each.
 * Per (host, workload, params, metric): n, mean and sd per side, %change
 * = 100 (mean_new / mean_base - 1), its 95% and 90% intervals (Fieller
 * below 10 observations per side and for summaries, BCa bootstrap from
 * 10), a p-value (Mann-Whitney U from 5 per side, exact up to 20; Welch's
 * t on logs below 5 and for summaries) and a verdict.
 *
 * Three layers: pure functions on numbers (compare_stats_compute,
 * compare_decide, compare_adaptive_next), the database layer that loads
 * observations and stores verdicts (compare_run, compare_store), and the
 * renderers (compare_format_text, compare_format_json).  Nothing here
 * prints; errors go to the caller's strbuf.
 */
#ifndef SCHEDFARM_COMPARE_H
#define SCHEDFARM_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/* Bump when anything below changes what a comparison computes. */
#define COMPARE_METHOD_VERSION 1

#define COMPARE_ALPHA 0.01 /* one look */
#define COMPARE_POCOCK_ALPHA 0.0182 /* per look, Pocock, 4 looks */
#define COMPARE_POCOCK_LOOKS 4
#define COMPARE_BLOCK 4 /* boots per side added per look */
#define COMPARE_CAP_DEFAULT 20 /* boots per side at most */
#define COMPARE_MIN_N 3 /* fewer on a side: insufficient-data */
#define COMPARE_MW_MIN_N 5 /* Mann-Whitney from this many per side */
#define COMPARE_MW_EXACT_MAX 20 /* exact Mann-Whitney up to this many */
#define COMPARE_BCA_MIN_N 10 /* BCa bootstrap from this many per side */
#define COMPARE_NBOOT 10000 /* bootstrap replicates */
#define COMPARE_BOOT_SEED 5489UL /* fixed: a recompute gives the same CI */
#define COMPARE_TAU_DEFAULT 2.0 /* percent: throughput and times */
#define COMPARE_TAU_TAIL 5.0 /* percent: tail latency */

enum cmp_better { CMP_BETTER_HIGHER, CMP_BETTER_LOWER, CMP_BETTER_NONE };

enum cmp_verdict {
	CMP_REGRESSION,
	CMP_IMPROVEMENT,
	CMP_NO_CHANGE,
	CMP_INCONCLUSIVE,
	CMP_INSUFFICIENT,
};

const char *compare_verdict_name(enum cmp_verdict v);
const char *compare_better_name(enum cmp_better b);
/* "higher", "lower" or "none"; -1 for anything else. */
int compare_better_parse(const char *s, enum cmp_better *ret);
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
	double pct_change;
	double ci_low, ci_high; /* 95% interval of %change */
	double ci90_low, ci90_high; /* 90% interval of %change */
	int ci_unbounded; /* Fieller: base mean not away from 0 */
	const char *ci_method; /* "fieller", "bca" or NULL */
	double p_value;
	const char *p_method; /* "mann-whitney-exact", "mann-whitney-normal",
			       * "welch-log" or NULL */
};

/* Compute everything but the verdict.  Pure; always fills *ret. */
void compare_stats_compute(const struct compare_sample *base,
			   const struct compare_sample *new_,
			   struct compare_stats *ret);

/*
 * The verdict rules of REFERENCE.md 1.4 with noise band tau_pct and test
 * level alpha (COMPARE_ALPHA, or COMPARE_POCOCK_ALPHA at a look of an
 * adaptive run): insufficient-data below COMPARE_MIN_N on a side;
 * regression / improvement when p < alpha and the whole 95% interval lies
 * beyond tau on the worse / better side; no-change when the 90% interval
 * lies inside [-tau, tau]; otherwise inconclusive.  A metric with no
 * direction is only ever no-change or inconclusive.
 */
enum cmp_verdict compare_decide(const struct compare_stats *s,
				enum cmp_better better, double tau_pct,
				double alpha);

/*
 * Adaptive repetitions (`until: decided`): after look number `look`
 * (1-based, at most COMPARE_POCOCK_LOOKS) on the observations so far,
 * stop or ask for another block.  The verdict uses Pocock's per-look
 * threshold COMPARE_POCOCK_ALPHA.  It stops when the verdict is
 * regression, improvement or no-change, at the last look, or when another
 * block would pass cap_per_side boots on a side; otherwise it says to
 * queue add_per_side = COMPARE_BLOCK more boots per side (ABBA order is
 * the queue's to keep).  reason gets one sentence either way, fit for
 * `job show`.  Pure; returns 0, or -1 for a look out of range.
 */
struct compare_next {
	int stop;
	int add_per_side; /* 0 when stop */
	enum cmp_verdict verdict;
	double threshold;
	struct compare_stats stats;
};
int compare_adaptive_next(const struct compare_sample *base,
			  const struct compare_sample *new_,
			  enum cmp_better better, double tau_pct, int look,
			  int cap_per_side, struct compare_next *ret,
			  struct strbuf *reason);

/* --- The database layer ------------------------------------------------ */

struct compare_query {
	const char *base, *new_; /* kernel names (or set patch_id) */
	int64_t patch_id; /* > 0: base and new from this PLM# */
	const char *host, *workload, *plan; /* filters, NULL = all */
	double tau_pct; /* NaN: each metric's default */
	int look; /* > 0: adaptive look, Pocock threshold */
};

struct compare_row {
	int64_t host_id;
	char *host, *workload, *params_json, *params_text, *metric, *unit;
	enum cmp_better better;
	double tau;
	struct compare_stats s;
	enum cmp_verdict verdict;
	int decides; /* the plan marks this metric `decides: true` */
};

struct compare_set {
	int64_t base_id, new_id, patch_id, plan_id;
	char *base_name, *new_name;
	struct compare_row *rows;
	size_t nr, alloc;
};

void compare_set_release(struct compare_set *set);

/*
 * Resolve the kernels (names or a patch), load every non-warm-up result
 * of finished or imported runs of both on the same hosts, group them into
 * observations, and compute one row per (host, workload, params, metric)
 * present on either side.  Fills *ret (release it).  Returns 0, -ENOENT
 * when a kernel, patch or plan is unknown, or another negative number on
 * a database error.
 */
int compare_run(struct db *db, const struct compare_query *q,
		struct compare_set *ret, struct strbuf *err);

/*
 * Store every row in comparisons, in one transaction, with
 * COMPARE_METHOD_VERSION; each becomes the latest for its key (schema
 * 002's trigger retires the previous one).  Returns 0 or negative.
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
 * Adaptive repetitions over a whole comparison: the queue calls this
 * after compare_run() with q.look = look (so verdicts use Pocock's
 * threshold).  The deciding rows are those the plan marks `decides: true`,
 * or every row when it marks none.  *ret_stop = 0 and *ret_add =
 * COMPARE_BLOCK when some deciding row is still inconclusive or
 * insufficient and neither the last look nor the cap is reached;
 * otherwise *ret_stop = 1.  reason gets one sentence for `job show`.
 * Returns 0, or -1 for a look out of range.
 */
int compare_set_next(const struct compare_set *set, int look, int cap_per_side,
		     int *ret_stop, int *ret_add, struct strbuf *reason);

/* The LKP/PLM-style table, grouped by host, workload and params. */
void compare_format_text(const struct compare_set *set, struct strbuf *out);
/* A JSON array of objects with exactly the keys of issue 5. */
void compare_format_json(const struct compare_set *set, struct strbuf *out);

#endif

/*
 * changes.h - each host's history and the change points in it.
 *
 * A series is what one (host, workload, params, metric) measured over
 * time with the kernels that are not a patch's (the base and mainline
 * kernels a lab runs again and again): one point per observation (a
 * boot's mean of its non-warm-up iterations, harmonic for a rate, as
 * compare.c makes them), oldest first.  Its change points are found by
 * E-divisive means (Matteson & James 2014) as MongoDB's and Apache
 * Otava's (Hunter's) performance CI use it: the series is cut into
 * overlapping windows of CHANGES_WINDOW points; in each, E-divisive
 * splits at the point that maximises the energy divergence q-hat of the
 * two sides, as long as Student's t test (pooled variance) between the
 * neighbouring segments, times the positions the split could have taken,
 * gives p < CHANGES_P_SPLIT; then the candidates of all windows are
 * merged, the weakest dropped one at a time (its test redone against its
 * new neighbours) until every one left has p < CHANGES_P_CONFIRM
 * (doc/STATISTICS.md section 5).  Before all that, an outlier screen (a
 * Hampel filter: a point more than CHANGES_OUTLIER_SIGMA robust standard
 * deviations from its neighbourhood's median takes that median) keeps a
 * one-point outlier from carrying a level change; after it, each point
 * is moved where least squares puts it only where every rule still
 * holds, and the rule is checked once more over all of them.
 *
 * Three layers: the pure search (changes_find), the database step that
 * brings the stored change points up to date for the series whose points
 * changed (changes_update) and lists them (changes_list), and the noise
 * band suggested per metric from the A/A spread of the history
 * (changes_suggest_tau).  Nothing here prints; errors go to the caller's
 * strbuf.
 */
#ifndef SCHEDFARM_CHANGES_H
#define SCHEDFARM_CHANGES_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/* Bump when anything changes what the search finds. */
#define CHANGES_METHOD_VERSION 2

#define CHANGES_WINDOW 50 /* points per window, windows overlap by half */
#define CHANGES_MIN_SEGMENT 5 /* points on each side of a split at least */
#define CHANGES_P_SPLIT 0.01 /* E-divisive's significance, first pass */
#define CHANGES_P_CONFIRM 0.001 /* what every change point keeps */
#define CHANGES_MAX_POINTS 1000000 /* per series */
#define CHANGES_OUTLIER_HALF 3 /* the outlier screen's points either side */
#define CHANGES_OUTLIER_SIGMA 5 /* its threshold, in robust SDs */

/* One change point: the series shifts between points idx - 1 and idx. */
struct changes_point {
	size_t idx;
	size_t n_before, n_after; /* the segments either side */
	double mean_before, mean_after;
	double p; /* Student's t test of the two segments, times the
		   * positions a split could take (at most 1) */
	double qhat; /* E-divisive's divergence where it split */
};

struct changes_list {
	struct changes_point *v;
	size_t nr, alloc;
};

void changes_list_release(struct changes_list *l);

/*
 * The change points of x[0..n), in order of idx, into *ret (released by
 * the caller; emptied first); every one has p < CHANGES_P_CONFIRM against
 * its neighbours, and its means and p are those of the screened series.  Pure
 * and deterministic (no permutations: the t test in their place, as Hunter
 * does).  Returns 0, or -EINVAL for a non-finite value or n >
 * CHANGES_MAX_POINTS.
 */
int changes_find(const double *x, size_t n, struct changes_list *ret);

/* --- The database layer ------------------------------------------------ */

/* What changes_update() did. */
struct changes_update_stats {
	size_t series; /* series in the history */
	size_t analysed; /* whose points changed since the last update */
	size_t points; /* points of the analysed series */
	size_t changes; /* change points stored for them */
};

/*
 * Bring history_series and history_changes up to date: every series
 * (of host, or of all hosts when host is NULL) whose points changed
 * since it was last analysed (a fingerprint of its results), or that was
 * analysed by another CHANGES_METHOD_VERSION, is searched again and its
 * change points replaced, one transaction per host.  Returns 0, or -1
 * with err.
 */
int changes_update(struct db *db, const char *host,
		   struct changes_update_stats *ret, struct strbuf *err);

struct changes_query {
	const char *host, *metric; /* NULL: all; metric may be a glob */
	const char *since; /* change points measured at or after this
			    * (anything PostgreSQL reads as a timestamp) */
	int limit; /* rows at most; 0: no limit */
};

/* One stored change point as changes_list() returns it (strings owned). */
struct changes_row {
	char *host, *workload, *params_text, *metric, *unit, *better;
	char *at; /* when the first point after it ran, UTC */
	char *kernel_before, *kernel_after;
	size_t idx, n_points, n_before, n_after;
	double mean_before, mean_after, shift, pct_shift, p;
	const char *direction; /* "better", "worse" or "changed" */
};

struct changes_rows {
	struct changes_row *v;
	size_t nr, alloc;
};

void changes_rows_release(struct changes_rows *r);

/*
 * The stored change points matching q, newest first.  Returns 0, or -1
 * with err.
 */
int changes_list(struct db *db, const struct changes_query *q,
		 struct changes_rows *ret, struct strbuf *err);

/* The noise band suggested for one metric. */
struct changes_tau {
	char *metric, *unit;
	size_t series, pairs; /* A/A pairs of blocks the spread is from */
	double cv; /* pooled within-segment coefficient of variation, % */
	double p95; /* 95th percentile of |%change| between A/A blocks */
	double tau; /* the suggestion: p95 rounded up to 0.5%, at least
		     * 0.5 */
	double current; /* the metric's default tau today */
};

struct changes_taus {
	struct changes_tau *v;
	size_t nr, alloc;
};

void changes_taus_release(struct changes_taus *t);

/*
 * Suggest tau per metric (those matching q->metric, on q->host or all
 * hosts) from the A/A spread of the history: within each series, between
 * its change points (where the kernels measured the same), adjacent
 * blocks of `boots` points are compared like an A/A patch of that many
 * boots per side; the 95th percentile of their |%change|, over every
 * series of the metric, is what an A/A comparison stays inside 95% of
 * the time -- the band the farm can confirm no-change with.  Series whose
 * values cross zero are left out (no percentage).  Returns 0, or -1 with
 * err.
 */
int changes_suggest_tau(struct db *db, const struct changes_query *q, int boots,
			struct changes_taus *ret, struct strbuf *err);

/*
 * The points of one stored series for a plot: values, kernel names and
 * the change point indices.  Exposed for the report (report/history.c).
 */
struct changes_series {
	int64_t id, host_id;
	char *host, *workload, *params_text, *metric, *unit;
	double *value;
	char **kernel;
	size_t n;
	size_t *cp; /* change point indices */
	size_t ncp;
};

void changes_series_release(struct changes_series *s);

/*
 * Load the points of every series of host_id (> 0), or of every series of
 * metric (host_id 0), with their stored change points, into *ret (an
 * array of *ret_n, freed with changes_series_release() each and free()).
 * Returns 0, or -1 with err.
 */
int changes_load_series(struct db *db, int64_t host_id, const char *metric,
			struct changes_series **ret, size_t *ret_n,
			struct strbuf *err);

#endif

/*
 * history.h - each host's history and its change points as stored:
 * `history_series` (one series per host, workload, parameters and
 * metric, with the fingerprint of the points it was searched on),
 * `history_changes` (the change points found in it) and `history_hosts`
 * (the runs each host's history was last brought up to date with), and
 * the reads of `runs` and `results` that make a host's points.
 *
 * The search (E-divisive means) and when to run it are
 * analysis/changes.c's; these are its statements.  Nothing here prints:
 * each function returns 0, or -1 with the server's message in err.
 */
#ifndef SCHEDFARM_HISTORY_H
#define SCHEDFARM_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"
#include "strvec.h"

/* The columns of history_changes_insert(), in order. */
#define HISTORY_CHANGE_COLS 14

/*
 * Host host_id's points: one row per observation (a boot of a job, else
 * a run) of each series of its finished and imported runs on kernels
 * that are no patch's, the metric's results LIKE like (NULL: all), no
 * warmup.  Columns: workload, params (jsonb's text), metric, unit,
 * direction, at (the run's start), run_id, kernel_id, mean, harmonic mean
 * (NULL when a value is too small to invert), the series' fingerprint
 * (points/results/first result id/last result id), and, when pages, the
 * parameters as "k=v;k=v" and the kernel's name (else NULL); by
 * workload, params, metric (bytewise), at, run_id.  The sort runs in
 * memory (SET LOCAL work_mem): inside the caller's transaction when
 * pages, else in one of its own.  Into *ret (the caller frees it).
 */
int history_points(struct db *db, int64_t host_id, int pages, const char *like,
		   struct db_result **ret, struct strbuf *err);

/*
 * Insert or update host_id's series, one per element of the seven
 * arrays (workload, params as JSON text, metric, unit, better, points,
 * fingerprint), with method_version, analysed now.  *ret holds their
 * rows: id, workload, params::text, metric (in no promised order).
 */
int history_series_upsert(struct db *db, int64_t host_id,
			  int64_t method_version, const struct strvec *w,
			  const struct strvec *p, const struct strvec *m,
			  const struct strvec *u, const struct strvec *b,
			  const struct strvec *n, const struct strvec *f,
			  struct db_result **ret, struct strbuf *err);

/* Delete the change points of the series whose ids (decimal text) are
 * in series_ids. */
int history_changes_delete(struct db *db, const struct strvec *series_ids,
			   struct strbuf *err);

/*
 * Insert change points with method_version: cols[0..14) are parallel
 * arrays of text (one element per point): series_id, idx, run_id, at,
 * kernel_before_id, kernel_after_id, n_before, n_after, mean_before,
 * mean_after, shift, pct_shift ("" for NULL), p_value, qhat ("" for
 * NULL).
 */
int history_changes_insert(struct db *db, int64_t method_version,
			   const struct strvec *cols, struct strbuf *err);

/*
 * Host host_id's series stored with method_version: columns workload,
 * params::text, metric, fingerprint, by the first three bytewise.  Into
 * *ret.
 */
int history_series_fingerprints(struct db *db, int64_t host_id,
				int64_t method_version, struct db_result **ret,
				struct strbuf *err);

/* The ids of the hosts with runs (just the one named host, when not
 * NULL): column id, by id.  Into *ret. */
int history_hosts_with_runs(struct db *db, const char *host,
			    struct db_result **ret, struct strbuf *err);

/* How many series host_id's history has (0 on any error). */
size_t history_series_count(struct db *db, int64_t host_id);

/*
 * The fingerprint of host_id's finished and imported runs now
 * (count/max id/sum of ids) and whether it is the one its history was
 * brought up to date with (method_version): one row, columns f, 't' or
 * 'f' (NULL when never).  Into *ret.
 */
int history_host_fingerprint(struct db *db, int64_t host_id,
			     int64_t method_version, struct db_result **ret,
			     struct strbuf *err);

/* Record that host_id's history is up to date with its runs at fp. */
int history_host_mark(struct db *db, int64_t host_id, const char *fp,
		      int64_t method_version, struct strbuf *err);

/*
 * Change points for `history`, newest first, at most limit (<= 0: all),
 * filtered by host (a name), like (a LIKE pattern of the metric) and
 * since (an ISO time), NULL filtering nothing.  Columns: host, workload,
 * params as "k=v;k=v", metric, unit, better, at (UTC, "YYYY-MM-DD
 * HH24:MI:SS"), kernel before, kernel after, idx, n_points, n_before,
 * n_after, mean_before, mean_after, shift, pct_shift, p_value.  Into
 * *ret.
 */
int history_changes_list(struct db *db, const char *host, const char *like,
			 const char *since, int64_t limit,
			 struct db_result **ret, struct strbuf *err);

/*
 * The stored change points of series (host_id, workload, params as JSON
 * text, metric): column idx, in order.  Into *ret.
 */
int history_change_points(struct db *db, int64_t host_id, const char *workload,
			  const char *params, const char *metric,
			  struct db_result **ret, struct strbuf *err);

/* Host host_id: columns id, name; no row when none.  Into *ret. */
int history_host_of_id(struct db *db, int64_t host_id, struct db_result **ret,
		       struct strbuf *err);

/* The hosts with a series of metric: columns id, name, by name.  Into
 * *ret. */
int history_hosts_of_metric(struct db *db, const char *metric,
			    struct db_result **ret, struct strbuf *err);

#endif

/*
 * pages.h - what the static HTML report (controller/report/) reads of the
 * database, and the digests it keeps of its pages (`report_pages`).
 *
 * One function per statement of a page kind: the rows a page shows and
 * the fingerprints (md5 text) that decide whether it is rendered again.
 * The statements read every table family (runs, hosts, kernels, jobs,
 * patches, plans, bisections, history, comparisons) but write only
 * `report_pages`; they live here rather than with the tables' owners
 * because each is shaped by one page, and a page kind's statements are
 * easier to keep consistent with its fingerprint side by side.  The two
 * reads of `comparisons` for a patch or kernel-pair page are here too,
 * not in store/comparisons.c, for the same reason.
 *
 * Every function runs one statement in the caller's transaction (the
 * report's REPEATABLE READ snapshot), puts the rows into *ret (the caller
 * frees them with db_result_free()) and returns 0, or -1 with the
 * server's message in err.  Columns are listed in order; times are text
 * "YYYY-MM-DD HH24:MI:SS" in UTC, params text "k=v;k=v" sorted by key
 * unless said otherwise; since is --since as PostgreSQL reads a
 * timestamptz, or NULL for everything.  Nothing here prints.
 */
#ifndef SCHEDFARM_PAGES_H
#define SCHEDFARM_PAGES_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/* ---- the report's snapshot and digests ----------------------------- */

/* Open the report's one REPEATABLE READ transaction (ended by the
 * caller's db_commit() or db_rollback()).  0, or -1 with err. */
int pages_begin_snapshot(struct db *db, struct strbuf *err);

/* Check that since reads as a timestamptz, so that a typo fails with the
 * server's word before any page is looked at.  0, or -1 with err. */
int pages_check_since(struct db *db, const char *since, struct strbuf *err);

/* The digests recorded for the output folder out_dir, sorted by page in
 * the C collation.  Columns: page (foo.html), digest. */
int pages_digests_load(struct db *db, const char *out_dir,
		       struct db_result **ret, struct strbuf *err);

/*
 * Record (insert or replace) the digests of pages written into out_dir:
 * pages and digests are text[] literals ("{\"a.html\",...}") of the same
 * length, page k's digest at k.  0, or -1 with err.
 */
int pages_digests_record(struct db *db, const char *out_dir, const char *pages,
			 const char *digests, struct strbuf *err);

/* ---- hosts and plans, over the run listing ------------------------- */

/*
 * Every run as a listing shows it, oldest first.  Columns: id, host_id,
 * plan_id, created_at, kernel name, workload, params, status, job_id, the
 * job's patch_id, host name, plan name.
 */
int pages_runlist(struct db *db, struct db_result **ret, struct strbuf *err);

/*
 * The hosts whose pages to look at: all of them, or with since those with
 * a run or a health change since.  Columns: id, name, kind, address,
 * port, tags ("a, b" or NULL), sockets, cores_per_socket,
 * threads_per_core, numa_nodes, cpus, memory_mb, agent_info (pretty
 * JSON), health, aborted_in_row, the known-good kernel's name,
 * created_at, the fingerprint of the rest with its events and history.
 */
int pages_hosts(struct db *db, const char *since, struct db_result **ret,
		struct strbuf *err);

/* The health changes of host host_id, newest first.  Columns: at,
 * old_health, new_health, reason. */
int pages_host_events(struct db *db, int64_t host_id, struct db_result **ret,
		      struct strbuf *err);

/*
 * The plans whose pages to look at: all, or with since those stored or
 * run since.  Columns: id, name, sha256, body, created_at, the
 * fingerprint of the rest with its jobs' states.
 */
int pages_plans(struct db *db, const char *since, struct db_result **ret,
		struct strbuf *err);

/* ---- metric pages --------------------------------------------------- */

/*
 * The metrics with a history (`history_series`), with since those with a
 * series analysed since.  Columns: metric, the fingerprint of its series
 * (md5 text).
 */
int pages_metrics(struct db *db, const char *since, struct db_result **ret,
		  struct strbuf *err);

/* ---- patch pages ---------------------------------------------------- */

/*
 * The patches whose pages to look at: all, or with since those with a
 * job, comparison, answer or bisection since.  Columns: id, name,
 * submitter, base, n_patches, series_sha256, created_at, base_kernel_id,
 * the base kernel's name, kernel_id, the patched kernel's name, the
 * fingerprint of the page, whether the patched kernel is only a label
 * (t/f), answer_state, answer_verdict, answer_headline, answer_note,
 * answered_at, mail_to, answer_base_reused's text ("base runs reused
 * from STP#3, kernel v6.1", NULL when none).
 */
int pages_patches(struct db *db, const char *since, struct db_result **ret,
		  struct strbuf *err);

/*
 * The jobs of patch patch_id, by id.  Columns: id, state, kernel name,
 * plan name, plan_id, host (its name, else the constraint), host_id,
 * attempts, created_at, finished_at, stop_reason, error (after its phase).
 */
int pages_patch_jobs(struct db *db, int64_t patch_id, struct db_result **ret,
		     struct strbuf *err);

/* The bisections of patch patch_id, by id.  Columns: id, state, metric,
 * host name, result. */
int pages_patch_bisections(struct db *db, int64_t patch_id,
			   struct db_result **ret, struct strbuf *err);

/* ---- bisection pages ------------------------------------------------ */

/*
 * The bisections whose pages to look at: all, or with since those
 * started, finished or still running since.  Columns: id, patch_id, the
 * patch's name, tree, good_rev, bad_rev, host_id, host name, plan_id, plan
 * name, metric, workload, params, direction, state, result, culprit,
 * n_points, created_at, finished_at, the fingerprint of the page (with
 * its steps and points), pct_change, ci_low, ci_high, p_value, error.
 */
int pages_bisections(struct db *db, const char *since, struct db_result **ret,
		     struct strbuf *err);

/*
 * The steps of bisection bisection_id, by step.  Columns: step, position,
 * kernel name, state, boots, looks, n, mean, pct_vs_good, ci_low, ci_high,
 * p_value, verdict_good, verdict_bad, the kernel's build_seconds, note,
 * mean_good, mean_bad.
 */
int pages_bisection_steps(struct db *db, int64_t bisection_id,
			  struct db_result **ret, struct strbuf *err);

/* The points of bisection bisection_id, by position.  Columns: position,
 * mark, kernel name, label. */
int pages_bisection_points(struct db *db, int64_t bisection_id,
			   struct db_result **ret, struct strbuf *err);

/* ---- kernel pairs compared without a patch -------------------------- */

/*
 * The kernel pairs compared without a patch (imports, `compare --base
 * --new`; a pair a patch covers is left out), with since those with a
 * comparison since, by base and new kernel id.  Columns: base_kernel_id,
 * new_kernel_id, the base kernel's name, the new kernel's, the
 * fingerprint of the page (its comparisons and both kernels' runs).
 */
int pages_pairs(struct db *db, const char *since, struct db_result **ret,
		struct strbuf *err);

/* ---- the index ------------------------------------------------------ */

/*
 * The jobs waiting or running, the first 200 by priority (highest first)
 * and id.  Columns: id, patch_id, the patch's name, kernel name, plan
 * name, plan_id, host (its name, else the constraint, else "any"),
 * host_id, state, priority, created_at.
 */
int pages_index_queue(struct db *db, struct db_result **ret,
		      struct strbuf *err);

/* How many jobs are waiting or running.  Column: count. */
int pages_index_queue_count(struct db *db, struct db_result **ret,
			    struct strbuf *err);

/*
 * Every patch with its newest verdict counts, by id.  Columns: id, name,
 * submitter, base, its jobs' states ("done 2, queued 1", or "no jobs"),
 * regressions, improvements, changed (no direction), comparisons,
 * created_at.
 */
int pages_index_patches(struct db *db, struct db_result **ret,
			struct strbuf *err);

/*
 * The kernel pairs of pages_pairs() with their newest verdict counts,
 * most recently compared first, at most 200.  Columns: base_kernel_id,
 * new_kernel_id, the new kernel's name, the base kernel's, regressions,
 * improvements, changed, comparisons, the newest computed_at.
 */
int pages_index_pairs(struct db *db, struct db_result **ret,
		      struct strbuf *err);

/* Every host by name.  Columns: id, name, kind, health, cpus, its runs. */
int pages_index_hosts(struct db *db, struct db_result **ret,
		      struct strbuf *err);

/* Every plan by name and id.  Columns: id, name, the first 12 digits of
 * sha256, its runs, created_at. */
int pages_index_plans(struct db *db, struct db_result **ret,
		      struct strbuf *err);

/*
 * Every metric with a history, by metric.  Columns: metric, hosts, series,
 * change points, the newest change point's time.
 */
int pages_index_metrics(struct db *db, struct db_result **ret,
			struct strbuf *err);

/* ---- run pages ------------------------------------------------------ */

/*
 * The runs whose pages to look at: all, or with since those created since;
 * by id.  Columns: id, the fingerprint of its page (the run, its host,
 * kernel, plan, patch, results, samples and counters).
 */
int pages_runs(struct db *db, const char *since, struct db_result **ret,
	       struct strbuf *err);

/*
 * What a run page shows of each run in ids (a bigint[] literal,
 * "{1,2,3}"), by id.  Columns: id, status, workload, params, boot, seq,
 * job_id, the job's patch_id, the patch's name, plan_id, plan name,
 * host_id, host name, host kind, sockets, cores_per_socket,
 * threads_per_core, numa_nodes, cpus, memory_mb, kernel_id, kernel name,
 * base, release, build state (or why a labelled kernel has none),
 * vmlinux_text, vmlinux_data, vmlinux_bss, build_seconds, whether a build
 * log is stored (t/f), imported, source, agent_info (pretty JSON),
 * console_log, raw_lines, error, created_at, started_at, finished_at,
 * ingested_at.
 */
int pages_run_details(struct db *db, const char *ids, struct db_result **ret,
		      struct strbuf *err);

/* The results of the runs in ids (as above), by run, warm-ups first,
 * metric and iteration.  Columns: run_id, metric, iteration, warmup,
 * value, unit, direction, n, stddev. */
int pages_run_results(struct db *db, const char *ids, struct db_result **ret,
		      struct strbuf *err);

/* Their counters, by run, iteration, source, scope (C collation) and
 * name.  Columns: run_id, iteration, source, scope, name, value,
 * available, note. */
int pages_run_counters(struct db *db, const char *ids, struct db_result **ret,
		       struct strbuf *err);

/* Their samples, by run, iteration, series and t.  Columns: run_id,
 * iteration, series, t, value. */
int pages_run_samples(struct db *db, const char *ids, struct db_result **ret,
		      struct strbuf *err);

/* The build log of kernel kernel_id (no row when there is no such
 * kernel).  Column: build_log (NULL when none is stored). */
int pages_kernel_build_log(struct db *db, int64_t kernel_id,
			   struct db_result **ret, struct strbuf *err);

/* ---- comparisons on patch and kernel-pair pages --------------------- */

/* Runs per kernel and compared (host, workload, params) whose
 * observations pages_comparison_observations() gives: SQL text. */
#define PAGES_OBS_RUNS "50"

/*
 * The newest verdict per (host, workload, params, metric) for kernel pair
 * base_k, new_k and, with patch (not 0), those stored under that PLM#,
 * by host name, workload, params in numeric order and metric.  Columns:
 * host_id, host name, workload, params, params::text, metric, unit,
 * better, n_base, n_new, mean_base, mean_new, stddev_base, stddev_new,
 * pct_change, ci_low, ci_high, p_value, tau, verdict, method_version,
 * base_kernel_id, new_kernel_id, the base kernel's name, the new
 * kernel's, the numeric sort key of params, scale, diff, diff_low,
 * diff_high, ci_unbounded, note, family, alpha.
 */
int pages_latest_comparisons(struct db *db, int64_t base_k, int64_t new_k,
			     int64_t patch, struct db_result **ret,
			     struct strbuf *err);

/*
 * The observations behind those verdicts (same arguments), in run order:
 * every non-warm-up result of the patch's own jobs, and per compared
 * (host, workload, params) and kernel those of the newest PAGES_OBS_RUNS
 * runs.  Columns: host_id, kernel_id, run id, job_id, workload,
 * params::text, metric, iteration, value.
 */
int pages_comparison_observations(struct db *db, int64_t base_k, int64_t new_k,
				  int64_t patch, struct db_result **ret,
				  struct strbuf *err);

#endif

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

#endif

/*
 * runs.h - the rows of one measurement: `runs` (one agent invocation of
 * one plan run on one host and kernel) and `boots` (one boot of a kernel
 * on a host, with its phases' times, outcome and blame).
 *
 * This file is their one writer outside ingest (store/ingest.c checks an
 * agent's lines and copies its `results`, samples and counters): a job
 * inserts its runs and marks them started here, a boot is recorded and
 * finished here, an import inserts its runs here.  Nothing here prints:
 * each function returns 0, or -1 with the server's message in err.
 */
#ifndef SCHEDFARM_RUNS_H
#define SCHEDFARM_RUNS_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/* ---- runs ---------------------------------------------------------- */

/*
 * What a job runs with, read as it starts (job/jobexec.c load_job()): one
 * row of jobs j JOIN plans p JOIN kernels k, with hosts h, whose columns
 * are, by index: 0 p.id, 1 p.name, 2 p.body, 3 k.id, 4 k.name,
 * 5 coalesce(j.patch_id, 0), 6 h.name, 7 h.kind, 8 h.address, 9 h.port,
 * 10 h.ssh_user, 11 h.key_file, 12 h.known_hosts, 13 j.block,
 * 14 k.series_sha256 IS NOT NULL, 15 j.boots, 16 j.first_boot.  No row
 * when the job or the host is gone.  0 with the rows in *ret (the
 * caller's to free), or -1 with err.
 */
int runs_job_setup(struct db *db, int64_t job_id, int64_t host_id,
		   struct db_result **ret, struct strbuf *err);

/*
 * The runs of job_id that are stored and done (an earlier attempt's, when
 * called before this attempt inserts its own): columns 0 id, 1 boot,
 * 2 seq.  0 with the rows in *ret (the caller's), or -1 with err.
 */
int runs_done_of_job(struct db *db, int64_t job_id, struct db_result **ret,
		     struct strbuf *err);

/* One row of `runs` a job is about to run (runs_insert()). */
struct runs_new {
	int64_t job_id, host_id, kernel_id, plan_id;
	const char *workload;
	const char *params; /* JSON of the plan's parameters, secrets masked */
	int64_t boot, seq, attempt, iterations, warmup;
};

/*
 * Insert the runs row r (status pending: the columns named in struct
 * runs_new), *ret_id its id.  Called inside the caller's transaction.
 * 0, or -1 (err has the server's message when the server refused).
 */
int runs_insert(struct db *db, const struct runs_new *r, int64_t *ret_id,
		struct strbuf *err);

/* Run run_id starts: its status running, started_at now(), and the path
 * of its results file on the host.  0, or -1 with err. */
int runs_mark_running(struct db *db, int64_t run_id, const char *results_file,
		      struct strbuf *err);

/*
 * The runs of attempt `attempt` of job_id that never finished (pending or
 * running) are aborted: status, finished_at and an error (kept when
 * set) that says why, by the job's new state (cancelled, queued, or
 * another end).  For queue_finish(), inside its transaction.  0, or -1
 * with err.
 */
int runs_abort_unfinished(struct db *db, int64_t job_id, int64_t attempt,
			  const char *state, struct strbuf *err);

/*
 * The same for a job sent to another host because this one failed its
 * boot check (queue_requeue_elsewhere(), inside its transaction).  0, or
 * -1 with err.
 */
int runs_abort_sent_elsewhere(struct db *db, int64_t job_id, int64_t attempt,
			      struct strbuf *err);

/* ---- boots --------------------------------------------------------- */

/*
 * The host row a boot reads, by name (when name is not NULL) or by id:
 * one row or none in *ret (the caller frees it) with the columns id, name,
 * kind, address, port, ssh_user, key_file, known_hosts, sockets,
 * cores_per_socket, threads_per_core, numa_nodes, memory_mb, libvirt_uri,
 * bmc_address, bmc_port, bmc_user, bmc_password_file, boot_config (text),
 * known_good_kernel_id, health, bmc_bootdev and the release of the
 * known-good kernel.  0, or -1 with err.
 */
int boots_host_row(struct db *db, const char *name, int64_t id,
		   struct db_result **ret, struct strbuf *err);

/*
 * The kernel row a boot reads: one row or none in *ret (the caller frees
 * it) with the columns name, image_path, vmlinux_path, initrd_path,
 * release, build_state.  0, or -1 with err.
 */
int boots_kernel_row(struct db *db, int64_t kernel_id, struct db_result **ret,
		     struct strbuf *err);

/*
 * Start a boots row (outcome running) of kernel_id on host_id for job_id
 * (0: no job, NULL) by controller_id, columns job_id, host_id, kernel_id,
 * method, controller_id; its id in *ret_id.  0, or -1 with err.
 */
int boots_insert(struct db *db, int64_t job_id, int64_t host_id,
		 int64_t kernel_id, const char *method,
		 const char *controller_id, int64_t *ret_id,
		 struct strbuf *err);

/* Set boots.blame of boot_id.  0, or -1 with err. */
int boots_set_blame(struct db *db, int64_t boot_id, const char *blame,
		    struct strbuf *err);

/* What the end of a boot writes into its row (boots_finish()). */
struct boots_end {
	int64_t boot_id;
	/* ms after power-on; negative: not reached (NULL) */
	int64_t linux_ms, beacon_ms, ssh_ms, ready_ms;
	const char *outcome, *blame, *reason, *release;
	const char *console_events, *console_log, *method, *fallback;
};

/*
 * Close boot e->boot_id: the columns linux_ms, beacon_ms, ssh_ms,
 * ready_ms, outcome, blame, reason, release, console_events, console_log,
 * method, fallback, and finished_at (now, unless the outcome is ready: a
 * ready boot ends at its power-off).  0, or -1 with err.
 */
int boots_finish(struct db *db, const struct boots_end *e, struct strbuf *err);

/*
 * At power-off: boots.finished_at set if not yet, console_log replaced by
 * console when it is not NULL.  0, or -1 with err.
 */
int boots_powered_off(struct db *db, int64_t boot_id, const char *console,
		      struct strbuf *err);

/*
 * The run phase ended on a fatal console line of boot_id: the columns
 * outcome, blame, reason, expected (the line, when the plan expected it;
 * else NULL), and events appended to console_events.  0, or -1 with err.
 */
int boots_run_fatal(struct db *db, int64_t boot_id, const char *outcome,
		    const char *blame, const char *reason, const char *expected,
		    const char *events, struct strbuf *err);

/*
 * runs.console_log of the runs of job_id's boot round run_boot in attempt
 * set to the console_log of boot_id.  0, or -1 with err.
 */
int boots_attach_console(struct db *db, int64_t boot_id, int64_t job_id,
			 int64_t run_boot, int64_t attempt, struct strbuf *err);

/*
 * This farm's identity (farm_identity.id, which names its libvirt
 * domains) appended to ret.  0, or -1 with err (also when there is none).
 */
int boots_farm_id(struct db *db, struct strbuf *ret, struct strbuf *err);

/* ---- imported runs ------------------------------------------------- */

/*
 * The earlier import of the same bytes as content (`imports`, matched by
 * the sha256 of the text): columns id, file, imported_at::date, no row
 * when there is none.  Into *ret (the caller frees it).  0, or -1.
 */
int runs_import_find(struct db *db, const char *content, struct db_result **ret,
		     struct strbuf *err);

/*
 * A new `imports` row for the file at path with text content (its sha256
 * stored), format ("observations" or "summaries"), n_rows rows and no
 * runs yet; its id in *ret_id.  0, or -1.
 */
int runs_import_insert(struct db *db, const char *path, const char *content,
		       const char *format, int64_t n_rows, int64_t *ret_id,
		       struct strbuf *err);

/*
 * One imported run (`runs`: host_id, kernel_id, workload, params as JSON
 * text, boot, status 'imported', imported, source = the file's path,
 * import_id, started_at = started_at unix seconds, or NULL when it is
 * negative: the run is then placed at its created_at, the import's
 * time); its id in *ret_id.  0, or -1.
 */
int runs_import_insert_run(struct db *db, int64_t host_id, int64_t kernel_id,
			   const char *workload, const char *params,
			   int64_t boot, int64_t started_at, const char *source,
			   int64_t import_id, int64_t *ret_id,
			   struct strbuf *err);

/* `imports`.n_runs of import_id set to n_runs.  0, or -1. */
int runs_import_set_runs(struct db *db, int64_t import_id, int64_t n_runs,
			 struct strbuf *err);

#endif

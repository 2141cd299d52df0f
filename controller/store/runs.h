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

#endif

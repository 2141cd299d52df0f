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
 * import_id); its id in *ret_id.  0, or -1.
 */
int runs_import_insert_run(struct db *db, int64_t host_id, int64_t kernel_id,
			   const char *workload, const char *params,
			   int64_t boot, const char *source, int64_t import_id,
			   int64_t *ret_id, struct strbuf *err);

/* `imports`.n_runs of import_id set to n_runs.  0, or -1. */
int runs_import_set_runs(struct db *db, int64_t import_id, int64_t n_runs,
			 struct strbuf *err);

#endif

/*
 * import.h - results made elsewhere (another lab's numbers, an old
 * spreadsheet, a table from a mailing-list thread) parsed from CSV and
 * stored so that they compare like the farm's own.
 *
 * Two formats, told apart by the header line: one observation per row
 * (kernel,host,workload,params,metric,unit,better,value[,boot]) or one
 * summary per row (kernel,host,workload,params,metric,unit,better,n,mean,
 * stddev); either may add a time column (when the run started: ISO 8601
 * with or without a zone, UTC without one, or unix seconds; an empty
 * field is no time), which becomes the run's started_at (a run of several
 * rows, grouped by boot, takes its first row's), so that the
 * history orders the run by it -- a run without one is placed at its
 * import, as the runs of the farm are at their start.  import_parse() checks
 * every field and collects every bad row as FILE:LINE: reason; import_store()
 * writes a good file in one transaction.  `schedfarm import` (cmd/cmd_import.c)
 * prints.
 */
#ifndef SCHEDFARM_IMPORT_H
#define SCHEDFARM_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/compare.h"
#include "store/db.h"
#include "strbuf.h"

#define IMPORT_MAX_BYTES (64u << 20)
/* Bad rows listed in errors; the rest are only counted. */
#define IMPORT_MAX_ERRORS 20

enum import_format { IMPORT_OBSERVATIONS, IMPORT_SUMMARIES };

struct import_row {
	unsigned line;
	char *kernel, *host, *workload, *params, *metric, *unit;
	enum cmp_better better;
	double value; /* the value, or the summary's mean */
	int boot; /* 0: no boot column */
	int64_t time; /* unix seconds the run started; -1: none given */
	int64_t n; /* summaries */
	double sd;
};

struct import_file {
	const char *path;
	enum import_format format;
	int has_boot;
	struct import_row *rows;
	size_t nr, alloc;
	struct strbuf errors; /* FILE:LINE: reason lines */
	unsigned nerrors;
};

/* An empty file named path (not copied: it must outlive f). */
void import_file_init(struct import_file *f, const char *path);
void import_file_release(struct import_file *f);

/*
 * Parse and check content as the CSV of f->path.  0 when every row is
 * good; -1 when any is not (f->errors lists them, f->nerrors counts
 * them).
 */
int import_parse(struct import_file *f, const struct strbuf *content);

/*
 * Store a checked file in one transaction: its hash in imports, the
 * hosts and kernels it names (hosts new here are kind 'imported', never
 * scheduled), runs marked imported, results.  *ret_runs counts the runs
 * made; *ret_import is the imports row.  0; -EEXIST when the same bytes
 * were imported before (err names that import); -1 with err.
 */
int import_store(struct db *db, struct import_file *f,
		 const struct strbuf *content, int64_t *ret_import,
		 size_t *ret_runs, struct strbuf *err);

#endif

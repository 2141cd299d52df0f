/*
 * page.h - the shared frame of controller/report/: the state of one
 * report, the page being built, the tables written three ways, the run
 * listing, and the functions the frame's files offer the page kinds.
 * Private to report/; the verb sees only report.h.  The page kinds' own
 * entry points, which only the driver calls, are in page_kinds.h, so
 * that the arrows go one way: report.c -> page_<kind>.c -> the frame.
 *
 * The files: report.c (the driver, recording digests), page.c
 * (a page from its stale check to its file, and the pieces of a page
 * body), table.c (tables as HTML, CSV and JSON), one page_<kind>.c per
 * kind of page, and the parts more than one kind shows: comparison.c
 * (patch and kernel-pair pages), runlist.c (host and plan pages),
 * history.c (host and metric pages), counters.c and together.c (run
 * pages), svg.c (plots).  What the pages read of the database is
 * store/pages.h's: one function per statement, its columns in its
 * contract.  Contracts are above the definitions.
 */
#ifndef SCHEDFARM_REPORT_PAGE_H
#define SCHEDFARM_REPORT_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"
#include "strvec.h"
#include "report/opts.h"

/* Items per listing block (archive page). */
#define RUNS_PER_BLOCK 100
/* Caps on plots per page: the CSV/JSON files hold everything. */
#define MAX_PLOT_TABLE_ROWS 2000

/* A result column as text, "" for NULL. */
#define S(x) ((x) ? (x) : "")

/* A page's digest as report_pages holds it for this output folder. */
struct digest {
	char *page; /* foo.html */
	char *digest;
};

/* One report being written: report_write()'s state, passed everywhere. */
struct report {
	struct db *db;
	const struct report_opts *o;
	struct report_stats *st;
	struct strbuf *err; /* what failed, for the caller */
	char *out; /* the output folder, absolute */
	struct strbuf tmpl; /* web-static/page.html */
	char tmpl_hash[17]; /* of REPORT_FORMAT and the template */
	struct digest *dig; /* stored, sorted by page (C collation) */
	size_t ndig;
	struct strvec rec_pages, rec_digests; /* to record at the end */
	int64_t *kernel_logs; /* kernels whose build log file was written */
	size_t nkernel_logs, kernel_logs_alloc;
};

/* A file a page writes beside itself (CSV, JSON, a long log). */
struct rfile {
	char *name;
	struct strbuf data;
};

/* A page being filled; it exists only inside page_render(). */
struct page {
	char *name; /* foo.html */
	char *stem; /* foo */
	struct strbuf title, body;
	struct rfile *files;
	size_t nfiles, alloc;
};

/*
 * A column of a struct rtab.  A group column (num == RTAB_GROUP) is a
 * text column (rtab_str, rtab_link) that is no column of the HTML: a
 * heading row above the rows that share the values of the group columns
 * shows them (<span data-col="INDEX">); CSV and JSON keep it as a column.
 */
#define RTAB_GROUP 2
/* A text column of short words kept whole (a verdict, a note): it may
 * wrap at spaces and hyphens, never inside a word, as other text cells
 * do when a table is squeezed to fit its window. */
#define RTAB_WORDS 3
struct col {
	const char *key; /* CSV header and JSON key */
	const char *label; /* HTML header */
	int num; /* 1: a right-aligned number; RTAB_GROUP: a group column;
		    RTAB_WORDS: words kept whole */
};

/*
 * One table, written three ways at once: HTML for the page, CSV and JSON
 * files beside it (page-stem + "-" + name + ".csv"/".json").  Numbers go
 * to CSV/JSON at full precision and to HTML formatted for reading.
 * Group columns (struct col) leave the HTML's columns for a heading row
 * over the rows that share them, so that a long name or params string
 * takes one line of its own instead of widening every row.
 */
struct rtab {
	struct page *pg;
	char *name;
	const struct col *cols;
	int ncols, cell;
	int shown; /* columns of the HTML: ncols less the group columns */
	size_t rows;
	size_t row_at; /* where the current row's HTML begins */
	struct strbuf html, csv, json;
	struct strbuf grp, last_grp; /* this row's group heading, the last */
};

/* Columns of pages_runlist() (store/pages.h). */
enum {
	RL_ID,
	RL_HOST,
	RL_PLAN,
	RL_CREATED,
	RL_KERNEL,
	RL_WORKLOAD,
	RL_PARAMS,
	RL_STATUS,
	RL_JOB,
	RL_PATCH,
	RL_HOST_NAME,
	RL_PLAN_NAME,
};

/* Every run as a listing shows it, loaded once per report (runlist.c). */
struct runlist {
	struct db_result *res; /* pages_runlist(), oldest first */
	uint64_t *hash; /* per row: what a listing shows of it */
};

/*
 * What a page kind does to fill an open page (pg has its stem and nothing
 * else yet): title, body, data files.  ctx is the kind's own.  Returns 0
 * or negative with r->err filled.
 */
typedef int page_fill_fn(struct report *r, struct page *pg, void *ctx);

/* page.c: digests and the stale->render step */
uint64_t fnv1a(uint64_t h, const char *s, size_t len);
int page_stale(struct report *r, const char *name, const char *fp,
	       char **ret_digest);
int page_refresh(struct report *r, const char *stem, const char *fp,
		 page_fill_fn *fill, void *ctx);

/* page.c: numbers, the page, its opening and pieces, listing blocks */
double num(const char *s);
int64_t id64(const char *s);
void fmt_value(struct strbuf *out, double v);
void fmt_pct(struct strbuf *out, double v);
void td_value(struct strbuf *out, double v);
void td_pct(struct strbuf *out, double v);
void page_add_file(struct page *pg, const char *name, struct strbuf *sb);
int page_render(struct report *r, const char *stem, const char *digest,
		page_fill_fn *fill, void *ctx);
int write_if_changed(struct report *r, const char *name, const char *data,
		     size_t len);
void dl_item(struct strbuf *b, const char *label, const char *value);
void dl_link(struct strbuf *b, const char *label, const char *value,
	     const char *href);
void h2(struct strbuf *b, const char *id, const char *text);
void nav(struct strbuf *b, const char *crumb);
__attribute__((format(printf, 2, 3))) void page_open(struct page *pg,
						     const char *fmt, ...);
void facts_begin(struct strbuf *b);
void facts_end(struct strbuf *b);
void dl_hardware(struct strbuf *b, const struct db_result *res, int row,
		 int col);
void add_log(struct page *pg, const char *suffix, const char *what,
	     const char *text);
const char *health_class(const char *h);
int front_start(int n, int per);
void archive_links(struct strbuf *b, const char *prefix, int nfull, int per,
		   const char *what);

/* table.c: a table as HTML, CSV and JSON at once */
void rtab_begin(struct rtab *t, struct page *pg, const char *name,
		const char *caption, const struct col *cols, int ncols);
void rtab_row(struct rtab *t, const char *cls);
void rtab_str(struct rtab *t, const char *s);
void rtab_link(struct rtab *t, const char *s, const char *href);
void rtab_num(struct rtab *t, double v, const char *shown);
void rtab_end_row(struct rtab *t);
void rtab_end(struct rtab *t, const char *empty);

/* together.c: a together run's members side by side, per iteration, from
 * its result rows [from, to) (run_id, metric, iteration, warmup, value) */
void render_together(struct page *pg, const struct db_result *res, int from,
		     int to);

/* counters.c: the scheduler counters of a run page */
void render_counters(struct page *pg, const struct db_result *res, int from,
		     int to);

/* comparison.c: the body of patch and kernel-pair pages */
int render_comparison_body(struct report *r, struct page *pg, int64_t base_k,
			   int64_t new_k, int64_t patch);

/*
 * history.c: the history of host host_id (named host) or, with host_id
 * 0, of metric on every host: a table of its change points and each
 * series plotted with them marked.  Returns 0 or -1 with r->err.
 */
int render_history(struct report *r, struct page *pg, int64_t host_id,
		   const char *host, const char *metric);
/*
 * history.c: rows [0, n) of v (changes_list()'s, newest first) as table
 * name of pg, with its CSV and JSON; empty: the text of the empty row;
 * link_metric: link each metric to its page.  v stays the caller's.
 */
struct changes_row;
void changes_table(struct page *pg, const char *name,
		   const struct changes_row *v, size_t n, const char *empty,
		   int link_metric);
/* page.c: the stem of a metric's page ("metric-SLUG-HASH"). */
void metric_page_stem(const char *metric, struct strbuf *out);

/* runlist.c: host and plan pages over the run listing */
int runlist_load(struct report *r, struct runlist *rl);
void runlist_release(struct runlist *rl);

/*
 * A kind of page that owns runs: host pages and plan pages.  Each row
 * load() gives (for --since; column 0 the id, column 1 the name) is one page
 * prefix-ID.html titled "title NAME": the opening, what body writes, then
 * the newest block of the runs whose column rl_col of the run listing is
 * the id; older blocks go to archive pages prefix-ID-pK.html.
 */
struct run_owner {
	const char *prefix; /* "host" */
	const char *title; /* "Host" */
	int (*load)(struct db *db, const char *since, struct db_result **ret,
		    struct strbuf *err); /* a function of store/pages.h */
	int fp_col; /* the column holding the fingerprint of the row */
	int rl_col; /* RL_HOST or RL_PLAN */
	int by_host; /* the run tables name the host (plan pages) */
	int (*body)(struct report *r, struct page *pg,
		    const struct db_result *res, int row);
};

int write_run_owner_pages(struct report *r, const struct runlist *rl,
			  const struct run_owner *kind);

#endif

/*
 * report.c - write the static HTML report (see report.h for the contract).
 *
 * Shape of one report: load the page template and the fingerprints stored
 * for this output folder; for each kind of page (run, patch, kernel pair,
 * host, plan, listing block) ask PostgreSQL for a fingerprint of what the
 * page shows, render only the pages whose fingerprint moved, write only
 * the files whose bytes differ, and record the new fingerprints in one
 * statement at the end.  Run pages are fetched in batches (one statement
 * per table per batch) so 10 000 runs cost a few hundred statements, not
 * tens of thousands.
 *
 * Everything that reaches HTML goes through strbuf_add_html(); hrefs are
 * built only from numeric ids, so no user string ever lands in a URL.
 */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "store/db.h"
#include "parse.h"
#include "report/report.h"
#include "report/svg.h"
#include "banned.h"

/* Bumped whenever the page layout changes, so old pages get rewritten. */
#define REPORT_FORMAT "schedfarm-report-10"
/* Items per listing block (archive page). */
#define RUNS_PER_BLOCK 100
#define PATCHES_PER_BLOCK 50
/* Runs fetched per batch of statements. */
#define RUN_BATCH 200
/* What a page shows inline of a log; the whole log is in a .txt beside. */
#define LOG_INLINE_MAX (64 * 1024)
/* Caps on plots per page: the CSV/JSON files hold everything. */
#define MAX_DOT_PLOTS 24
#define MAX_SERIES_PLOTS 6
#define MAX_SERIES_PER_PLOT 16
#define MAX_PLOT_TABLE_ROWS 2000
#define MAX_COUNTER_CPUS 16
#define MAX_COUNTER_ITERATIONS 3
/* Runs per kernel and compared (host, workload, params) in dot plots. */
#define OBS_RUNS_SQL "50"

#define S(x) ((x) ? (x) : "")
/*
 * SQL helpers of schema/003_report.sql: to_char(() AT TIME ZONE 'UTC',
 * 'YYYY-MM-DD HH24:MI:SS') shows a timestamp in UTC to the second,
 * coalesce((SELECT string_agg(e.key || '=' || e.value, ';' ORDER BY e.key) FROM
 * jsonb_each_text() e), '') jsonb params as key=value;key=value (the import
 * format), coalesce((SELECT string_agg(e.key || '=' || CASE WHEN e.value ~
 * '^[0-9]+([.][0-9]*)?$' THEN lpad(split_part(e.value, '.', 1), 24, '0') || '.'
 * || split_part(e.value, '.', 2) ELSE e.value END, ';' ORDER BY e.key) FROM
 * jsonb_each_text() e), '') the same with numbers padded so they sort as
 * numbers (threads=2 before threads=16).
 */

struct digest {
	char *page;
	char *digest;
};

struct report {
	struct db *db;
	const struct report_opts *o;
	struct report_stats *st;
	struct strbuf *err;
	char *out;
	struct strbuf tmpl;
	char tmpl_hash[17];
	struct digest *dig; /* stored, sorted by page (C collation) */
	size_t ndig;
	struct strvec rec_pages, rec_digests; /* to record at the end */
	int64_t *kernel_logs; /* kernels whose build log file was written */
	size_t nkernel_logs, kernel_logs_alloc;
};

/* ---------------------------------------------------------------- hashing */

static uint64_t fnv1a(uint64_t h, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The stored digest of a page: the templates' hash and the data's. */
static char *make_digest(const struct report *r, const char *fp)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	h = fnv1a(h, r->tmpl_hash, strlen(r->tmpl_hash));
	h = fnv1a(h, "|", 1);
	h = fnv1a(h, fp, strlen(fp));
	return xstrfmt("%016llx", (unsigned long long)h);
}

/* -------------------------------------------------------------- numbers */

static double num(const char *s)
{
	double v;

	if (!s || parse_double(s, -DBL_MAX, DBL_MAX, &v, NULL) < 0)
		return NAN;
	return v;
}

static int64_t id64(const char *s)
{
	int64_t v;

	if (!s || parse_i64(s, INT64_MIN, INT64_MAX, &v, NULL) < 0)
		return 0;
	return v;
}

/* A value as a reader wants it: integers plain, others to 2 decimals
 * from 1 up, 4 significant digits below. */
static void fmt_value(struct strbuf *out, double v)
{
	if (!isfinite(v))
		strbuf_addstr(out, "\xe2\x80\x94");
	else if (v == floor(v) && fabs(v) < 1e15)
		strbuf_addf(out, "%.0f", v);
	else if (fabs(v) >= 1)
		strbuf_addf(out, "%.2f", v);
	else
		strbuf_addf(out, "%.4g", v);
}

static void fmt_pct(struct strbuf *out, double v)
{
	if (!isfinite(v))
		strbuf_addstr(out, "\xe2\x80\x94");
	else
		strbuf_addf(out, "%+.2f%%", v);
}

void report_csv_field(struct strbuf *out, const char *s)
{
	s = S(s);
	if (!strpbrk(s, ",\"\r\n") && *s != ' ' &&
	    !(*s && s[strlen(s) - 1] == ' ')) {
		strbuf_addstr(out, s);
		return;
	}
	strbuf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(out, '"');
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
}

/* ---------------------------------------------------------------- pages */

struct rfile {
	char *name;
	struct strbuf data;
};

struct page {
	char *name; /* foo.html */
	char *stem; /* foo */
	struct strbuf title, body;
	struct rfile *files;
	size_t nfiles, alloc;
};

static void page_init(struct page *pg, const char *stem)
{
	memset(pg, 0, sizeof(*pg));
	pg->stem = xstrdup(stem);
	pg->name = xstrfmt("%s.html", stem);
	strbuf_init(&pg->title, 0);
	strbuf_init(&pg->body, 4096);
}

static void page_release(struct page *pg)
{
	for (size_t i = 0; i < pg->nfiles; i++) {
		free(pg->files[i].name);
		strbuf_release(&pg->files[i].data);
	}
	free(pg->files);
	free(pg->name);
	free(pg->stem);
	strbuf_release(&pg->title);
	strbuf_release(&pg->body);
}

/* Attach a file to the page; it takes sb's buffer. */
static void page_add_file(struct page *pg, const char *name, struct strbuf *sb)
{
	struct rfile *f;

	ALLOC_GROW(pg->files, pg->nfiles + 1, pg->alloc);
	f = &pg->files[pg->nfiles++];
	f->name = xstrdup(name);
	strbuf_init(&f->data, 0);
	strbuf_addbuf(&f->data, sb);
	strbuf_release(sb);
}

/*
 * Write data to out/name unless the file already holds exactly these
 * bytes (force: write anyway).  Writes a temporary file and renames it, so
 * a reader never sees half a page.  Returns 1 written, 0 unchanged,
 * negative with err filled.
 */
static int write_file(struct report *r, const char *name, const char *data,
		      size_t len, int force)
{
	struct strbuf path = STRBUF_INIT, tmp = STRBUF_INIT, old = STRBUF_INIT;
	int fd = -1, ret = -1;
	struct stat stbuf;
	size_t off = 0;

	strbuf_addf(&path, "%s/%s", r->out, name);
	if (!force && stat(path.buf, &stbuf) == 0 &&
	    (size_t)stbuf.st_size == len &&
	    strbuf_read_file(&old, path.buf, len + 1) == 0 && old.len == len &&
	    !memcmp(old.buf, data, len)) {
		ret = 0;
		goto out;
	}
	strbuf_addf(&tmp, "%s/.%s.tmp.%ld", r->out, name, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		strbuf_addf(r->err, "cannot create %s: %s", tmp.buf,
			    strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t n = write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			strbuf_addf(r->err, "cannot write %s: %s", tmp.buf,
				    strerror(errno));
			goto out;
		}
		off += (size_t)n;
	}
	if (close(fd) < 0) {
		fd = -1;
		strbuf_addf(r->err, "cannot write %s: %s", tmp.buf,
			    strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp.buf, path.buf) < 0) {
		strbuf_addf(r->err, "cannot rename %s to %s: %s", tmp.buf,
			    path.buf, strerror(errno));
		goto out;
	}
	r->st->files_written++;
	if (ends_with(name, ".html"))
		r->st->pages_written++;
	strvec_push(&r->st->written, name);
	ret = 1;
out:
	if (fd >= 0) {
		close(fd);
		unlink(tmp.buf);
	}
	strbuf_release(&path);
	strbuf_release(&tmp);
	strbuf_release(&old);
	return ret;
}

static int write_if_changed(struct report *r, const char *name,
			    const char *data, size_t len)
{
	return write_file(r, name, data, len, 0);
}

/*
 * Put the page into the template (@TITLE@, @BODY@ are the only markers),
 * write it and its data files, and queue its digest (NULL: not tracked,
 * the index) for recording.  Returns 0 or negative with err filled.
 */
static int page_finish(struct report *r, struct page *pg, const char *digest)
{
	struct strbuf html = STRBUF_INIT;
	const char *t = r->tmpl.buf, *at;
	int ret = 0;

	strbuf_grow(&html, r->tmpl.len + pg->body.len + 256);
	while ((at = strchr(t, '@'))) {
		strbuf_add(&html, t, (size_t)(at - t));
		if (starts_with(at, "@TITLE@")) {
			strbuf_add_html(&html, pg->title.buf);
			t = at + 7;
		} else if (starts_with(at, "@BODY@")) {
			strbuf_addbuf(&html, &pg->body);
			t = at + 6;
		} else {
			strbuf_addch(&html, '@');
			t = at + 1;
		}
	}
	strbuf_addstr(&html, t);
	for (size_t i = 0; i < pg->nfiles && ret >= 0; i++)
		ret = write_if_changed(r, pg->files[i].name,
				       pg->files[i].data.buf,
				       pg->files[i].data.len);
	/* The index (no digest) is written every time, as promised. */
	if (ret >= 0)
		ret = write_file(r, pg->name, html.buf, html.len, !digest);
	if (ret >= 0 && digest) {
		strvec_push(&r->rec_pages, pg->name);
		strvec_push(&r->rec_digests, digest);
	}
	r->st->pages_rendered++;
	strbuf_release(&html);
	return ret < 0 ? ret : 0;
}

static int digest_cmp(const void *a, const void *b)
{
	return strcmp(((const struct digest *)a)->page,
		      ((const struct digest *)b)->page);
}

/*
 * Is the page stale?  Counts it as checked; on 1, *ret_digest holds the
 * digest to record once it is written (caller frees).
 */
static int page_stale(struct report *r, const char *name, const char *fp,
		      char **ret_digest)
{
	struct digest key = { .page = (char *)name }, *d;
	char *dg = make_digest(r, fp);
	struct strbuf path = STRBUF_INIT;
	int stale;

	r->st->pages_checked++;
	d = r->ndig ? bsearch(&key, r->dig, r->ndig, sizeof(*d), digest_cmp)
		    : NULL;
	strbuf_addf(&path, "%s/%s", r->out, name);
	stale = !d || strcmp(d->digest, dg) || access(path.buf, F_OK) < 0;
	strbuf_release(&path);
	if (!stale) {
		free(dg);
		return 0;
	}
	*ret_digest = dg;
	return 1;
}

/* Record the digests of the pages written (one statement per 2000). */
static int record_digests(struct report *r)
{
	size_t i = 0;

	while (i < r->rec_pages.nr) {
		struct strbuf pages = STRBUF_INIT, digests = STRBUF_INIT;
		struct db_args a = DB_ARGS_INIT;
		size_t end =
			i + 2000 < r->rec_pages.nr ? i + 2000 : r->rec_pages.nr;
		int rc;

		/* Names and digests are ours ([a-z0-9.-]); quoted anyway. */
		strbuf_addch(&pages, '{');
		strbuf_addch(&digests, '{');
		for (size_t k = i; k < end; k++) {
			strbuf_addf(&pages, "%s\"%s\"", k > i ? "," : "",
				    r->rec_pages.v[k]);
			strbuf_addf(&digests, "%s\"%s\"", k > i ? "," : "",
				    r->rec_digests.v[k]);
		}
		strbuf_addch(&pages, '}');
		strbuf_addch(&digests, '}');
		db_args_str(&a, r->out);
		db_args_str(&a, pages.buf);
		db_args_str(&a, digests.buf);
		rc = db_exec_args(
			r->db, NULL, r->err,
			"INSERT INTO report_pages (out_dir, page, digest) "
			"SELECT $1, p, d FROM unnest($2::text[], $3::text[]) "
			"AS u(p, d) ON CONFLICT (out_dir, page) DO UPDATE "
			"SET digest = EXCLUDED.digest, written_at = now()",
			&a);
		db_args_clear(&a);
		strbuf_release(&pages);
		strbuf_release(&digests);
		if (rc < 0)
			return rc;
		i = end;
	}
	return 0;
}

static int load_digests(struct report *r)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	int rc, n;

	db_args_str(&a, r->out);
	rc = db_exec_args(r->db, &res, r->err,
			  "SELECT page, digest FROM report_pages "
			  "WHERE out_dir = $1 ORDER BY page COLLATE \"C\"",
			  &a);
	db_args_clear(&a);
	if (rc < 0)
		return rc;
	n = db_nrows(res);
	r->dig = xcalloc((size_t)n + 1, sizeof(*r->dig));
	for (int i = 0; i < n; i++) {
		r->dig[i].page = xstrdup(db_get(res, i, 0));
		r->dig[i].digest = xstrdup(db_get(res, i, 1));
	}
	r->ndig = (size_t)n;
	return 0;
}

/* ---------------------------------------------------------------- tables */

struct col {
	const char *key; /* CSV header and JSON key */
	const char *label; /* HTML header */
	int num; /* right-aligned number */
};

/*
 * One table, written three ways at once: HTML for the page, CSV and JSON
 * files beside it (page-stem + "-" + name + ".csv"/".json").  Numbers go
 * to CSV/JSON at full precision and to HTML formatted for reading.
 */
struct rtab {
	struct page *pg;
	char *name;
	const struct col *cols;
	int ncols, cell;
	size_t rows;
	struct strbuf html, csv, json;
};

static void rtab_begin(struct rtab *t, struct page *pg, const char *name,
		       const char *caption, const struct col *cols, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->pg = pg;
	t->name = xstrdup(name);
	t->cols = cols;
	t->ncols = ncols;
	strbuf_init(&t->html, 1024);
	strbuf_init(&t->csv, 1024);
	strbuf_init(&t->json, 1024);
	strbuf_addf(&t->html,
		    "<div class=\"table-wrap\"><table id=\"t-%s\" "
		    "class=\"data\">",
		    name);
	if (caption) {
		strbuf_addstr(&t->html, "<caption>");
		strbuf_add_html(&t->html, caption);
		strbuf_addstr(&t->html, "</caption>");
	}
	strbuf_addstr(&t->html, "<thead><tr>");
	for (int i = 0; i < ncols; i++) {
		strbuf_addf(&t->html, "<th%s>",
			    cols[i].num ? " class=\"num\"" : "");
		strbuf_add_html(&t->html, cols[i].label);
		strbuf_addstr(&t->html, "</th>");
		if (i)
			strbuf_addch(&t->csv, ',');
		report_csv_field(&t->csv, cols[i].key);
	}
	strbuf_addstr(&t->html, "</tr></thead><tbody>");
	strbuf_addstr(&t->csv, "\r\n");
	strbuf_addch(&t->json, '[');
}

static void rtab_row(struct rtab *t, const char *cls)
{
	if (cls && *cls)
		strbuf_addf(&t->html, "<tr class=\"%s\">", cls);
	else
		strbuf_addstr(&t->html, "<tr>");
	strbuf_addstr(&t->json, t->rows ? ",\n{" : "\n{");
	t->cell = 0;
	t->rows++;
}

static void rtab_key(struct rtab *t)
{
	if (t->cell)
		strbuf_addch(&t->csv, ',');
	if (t->cell)
		strbuf_addch(&t->json, ',');
	strbuf_add_json_str(&t->json, t->cols[t->cell].key);
	strbuf_addch(&t->json, ':');
}

/* A text cell; s may be NULL (empty in HTML and CSV, null in JSON). */
static void rtab_str(struct rtab *t, const char *s)
{
	if (t->cell >= t->ncols)
		return;
	rtab_key(t);
	strbuf_addstr(&t->html, "<td>");
	strbuf_add_html(&t->html, S(s));
	strbuf_addstr(&t->html, "</td>");
	report_csv_field(&t->csv, s);
	if (s)
		strbuf_add_json_str(&t->json, s);
	else
		strbuf_addstr(&t->json, "null");
	t->cell++;
}

/* A text cell linking to href (built by us from ids, never from input). */
static void rtab_link(struct rtab *t, const char *s, const char *href)
{
	if (t->cell >= t->ncols)
		return;
	rtab_key(t);
	strbuf_addstr(&t->html, "<td><a href=\"");
	strbuf_add_html(&t->html, href);
	strbuf_addstr(&t->html, "\">");
	strbuf_add_html(&t->html, S(s));
	strbuf_addstr(&t->html, "</a></td>");
	report_csv_field(&t->csv, s);
	if (s)
		strbuf_add_json_str(&t->json, s);
	else
		strbuf_addstr(&t->json, "null");
	t->cell++;
}

/*
 * A number cell: v at full precision in CSV/JSON (null when not finite);
 * HTML shows shown when given, else v formatted by fmt_value().
 */
static void rtab_num(struct rtab *t, double v, const char *shown)
{
	struct strbuf tmp = STRBUF_INIT;

	if (t->cell >= t->ncols)
		return;
	rtab_key(t);
	strbuf_addstr(&t->html, "<td class=\"num\">");
	if (shown)
		strbuf_add_html(&t->html, shown);
	else {
		fmt_value(&tmp, v);
		strbuf_addbuf(&t->html, &tmp);
	}
	strbuf_addstr(&t->html, "</td>");
	strbuf_reset(&tmp);
	if (isfinite(v)) {
		strbuf_add_json_double(&tmp, v);
		strbuf_addbuf(&t->csv, &tmp);
		strbuf_addbuf(&t->json, &tmp);
	} else
		strbuf_addstr(&t->json, "null");
	strbuf_release(&tmp);
	t->cell++;
}

static void rtab_end_row(struct rtab *t)
{
	while (t->cell < t->ncols)
		rtab_str(t, NULL);
	strbuf_addstr(&t->html, "</tr>");
	strbuf_addstr(&t->csv, "\r\n");
	strbuf_addch(&t->json, '}');
}

/* Close the table, append it to the page with links to its data files. */
static void rtab_end(struct rtab *t, const char *empty)
{
	struct strbuf fname = STRBUF_INIT;
	struct page *pg = t->pg;

	if (!t->rows && empty) {
		strbuf_addf(&t->html, "<tr><td class=\"empty\" colspan=\"%d\">",
			    t->ncols);
		strbuf_add_html(&t->html, empty);
		strbuf_addstr(&t->html, "</td></tr>");
	}
	strbuf_addstr(&t->html, "</tbody></table></div>");
	strbuf_addstr(&t->json, t->rows ? "\n]\n" : "]\n");
	strbuf_addf(&t->html,
		    "<p class=\"data-links\">Data: <a "
		    "href=\"%s-%s.csv\">CSV</a> \xc2\xb7 <a "
		    "href=\"%s-%s.json\">JSON</a></p>",
		    pg->stem, t->name, pg->stem, t->name);
	strbuf_addbuf(&pg->body, &t->html);
	strbuf_addf(&fname, "%s-%s.csv", pg->stem, t->name);
	page_add_file(pg, fname.buf, &t->csv);
	strbuf_reset(&fname);
	strbuf_addf(&fname, "%s-%s.json", pg->stem, t->name);
	page_add_file(pg, fname.buf, &t->json);
	strbuf_release(&fname);
	strbuf_release(&t->html);
	free(t->name);
}

/* A definition list row: label, then escaped value (skipped when NULL). */
static void dl_item(struct strbuf *b, const char *label, const char *value)
{
	if (!value)
		return;
	strbuf_addstr(b, "<dt>");
	strbuf_add_html(b, label);
	strbuf_addstr(b, "</dt><dd>");
	strbuf_add_html(b, value);
	strbuf_addstr(b, "</dd>");
}

static void dl_link(struct strbuf *b, const char *label, const char *value,
		    const char *href)
{
	if (!value)
		return;
	strbuf_addstr(b, "<dt>");
	strbuf_add_html(b, label);
	strbuf_addstr(b, "</dt><dd><a href=\"");
	strbuf_add_html(b, href);
	strbuf_addstr(b, "\">");
	strbuf_add_html(b, value);
	strbuf_addstr(b, "</a></dd>");
}

static void h2(struct strbuf *b, const char *id, const char *text)
{
	strbuf_addf(b, "<h2 id=\"%s\">", id);
	strbuf_add_html(b, text);
	strbuf_addstr(b, "</h2>");
}

static void nav(struct strbuf *b, const char *crumb)
{
	strbuf_addstr(b, "<nav><a href=\"index.html\">schedfarm report</a>");
	if (crumb) {
		strbuf_addstr(b, " \xe2\x80\xba ");
		strbuf_add_html(b, crumb);
	}
	strbuf_addstr(b, "</nav>");
}

/*
 * A log or other long text, inline; when longer than LOG_INLINE_MAX only
 * its tail is inline and all of it goes to a .txt file beside the page
 * (a short log is not worth a file: a report holds thousands of runs).
 */
static void add_log(struct page *pg, const char *suffix, const char *what,
		    const char *text)
{
	size_t len = strlen(text), from = 0;

	if (len > LOG_INLINE_MAX) {
		struct strbuf f = STRBUF_INIT, fname = STRBUF_INIT;

		strbuf_addf(&fname, "%s-%s.txt", pg->stem, suffix);
		from = len - LOG_INLINE_MAX;
		while (from < len && ((unsigned char)text[from] & 0xc0) == 0x80)
			from++;
		strbuf_addf(&pg->body,
			    "<p class=\"note\">The last %zu bytes "
			    "of %zu; all of it is in <a "
			    "href=\"%s\">%s</a>.</p>",
			    len - from, len, fname.buf, fname.buf);
		strbuf_addstr(&f, text);
		page_add_file(pg, fname.buf, &f);
		strbuf_release(&fname);
	}
	strbuf_addstr(&pg->body, "<pre class=\"log\" aria-label=\"");
	strbuf_add_html(&pg->body, what);
	strbuf_addstr(&pg->body, "\">");
	strbuf_add_html(&pg->body, text + from);
	strbuf_addstr(&pg->body, "</pre>");
}

static int q(struct report *r, struct db_result **ret, const char *sql,
	     const struct db_args *a)
{
	static const struct db_args none = DB_ARGS_INIT;

	return db_exec_args(r->db, ret, r->err, sql, a ? a : &none);
}

/* ------------------------------------------------------ counters (perf) */

/* What perf sched stats says of each /proc/schedstat field. */
static const struct {
	const char *name, *desc;
} counter_desc[] = {
	{ "yld_count", "sched_yield() calls" },
	{ "sched_count", "schedule() calls" },
	{ "sched_goidle", "schedule() left the CPU idle" },
	{ "ttwu_count", "try_to_wake_up() calls" },
	{ "ttwu_local", "wakeups on the local CPU" },
	{ "rq_cpu_time", "time tasks ran on this CPU (ns)" },
	{ "run_delay", "time tasks waited to run (ns): latency" },
	{ "pcount", "timeslices run" },
	{ "lb_count", "load_balance() calls" },
	{ "lb_balanced", "found the domain already balanced" },
	{ "lb_failed", "failed to move any task" },
	{ "lb_imbalance", "imbalance found (sum)" },
	{ "lb_imbalance_load", "load imbalance found (sum)" },
	{ "lb_imbalance_util", "utilisation imbalance found (sum)" },
	{ "lb_imbalance_task", "task-count imbalance found (sum)" },
	{ "lb_imbalance_misfit", "misfit imbalance found (sum)" },
	{ "lb_gained", "tasks pulled: migrations" },
	{ "lb_hot_gained", "cache-hot tasks pulled anyway" },
	{ "lb_nobusyq", "no busier runqueue found" },
	{ "lb_nobusyg", "no busier group found" },
	{ "alb_count", "active load balance attempts" },
	{ "alb_failed", "active load balance failed" },
	{ "alb_pushed", "tasks pushed by active balance" },
	{ "sbe_count", "exec balancing: calls" },
	{ "sbe_balanced", "exec balancing: already balanced" },
	{ "sbe_pushed", "exec balancing: tasks moved" },
	{ "sbf_count", "fork balancing: calls" },
	{ "sbf_balanced", "fork balancing: already balanced" },
	{ "sbf_pushed", "fork balancing: tasks moved" },
	{ "ttwu_wake_remote", "wakeups of tasks last on another CPU" },
	{ "ttwu_move_affine", "wakeups moved to the waking CPU (affine)" },
	{ "ttwu_move_balance", "wakeups moved by balancing" },
};

static const char *describe_counter(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(counter_desc); i++)
		if (!strcmp(counter_desc[i].name, name))
			return counter_desc[i].desc;
	return "";
}

struct cmatrix {
	char *title;
	struct strvec rows; /* "busy lb_count", "alb_pushed" */
	struct strvec rnames; /* the bare counter name, for descriptions */
	int cpus[MAX_COUNTER_CPUS];
	int ncpus, more_cpus;
	double *cells; /* rows.nr x MAX_COUNTER_CPUS */
	double *total; /* per row, over every CPU (shown or not) */
	size_t alloc;
};

static int cm_row(struct cmatrix *m, const char *key, const char *name)
{
	size_t i;

	for (i = 0; i < m->rows.nr; i++)
		if (!strcmp(m->rows.v[i], key))
			return (int)i;
	strvec_push(&m->rows, key);
	strvec_push(&m->rnames, name);
	if (m->rows.nr > m->alloc) {
		size_t old = m->alloc;

		m->alloc = m->alloc ? m->alloc * 2 : 16;
		m->cells = xrealloc(m->cells, sizeof(double) * m->alloc *
						      MAX_COUNTER_CPUS);
		m->total = xrealloc(m->total, sizeof(double) * m->alloc);
		for (size_t k = old * MAX_COUNTER_CPUS;
		     k < m->alloc * MAX_COUNTER_CPUS; k++)
			m->cells[k] = NAN;
		for (size_t k = old; k < m->alloc; k++)
			m->total[k] = 0;
	}
	return (int)i;
}

static void cm_put(struct cmatrix *m, const char *key, const char *name,
		   int cpu, double v)
{
	int row = cm_row(m, key, name), c;

	if (isfinite(v))
		m->total[row] += v;
	for (c = 0; c < m->ncpus; c++)
		if (m->cpus[c] == cpu)
			break;
	if (c == m->ncpus) {
		if (m->ncpus == MAX_COUNTER_CPUS) {
			m->more_cpus = 1;
			return;
		}
		m->cpus[m->ncpus++] = cpu;
	}
	m->cells[(size_t)row * MAX_COUNTER_CPUS + (size_t)c] = v;
}

static void cm_release(struct cmatrix *m)
{
	free(m->title);
	strvec_clear(&m->rows);
	strvec_clear(&m->rnames);
	free(m->cells);
	free(m->total);
}

static void cm_html(struct strbuf *b, const struct cmatrix *m)
{
	strbuf_addstr(b, "<div class=\"table-wrap\"><table class=\"data "
			 "counters\"><caption>");
	strbuf_add_html(b, m->title);
	strbuf_addstr(b, "</caption><thead><tr><th>counter</th>");
	for (int c = 0; c < m->ncpus; c++)
		strbuf_addf(b, "<th class=\"num\">cpu%d</th>", m->cpus[c]);
	strbuf_addstr(b, "<th class=\"num\">all CPUs</th><th>what it "
			 "counts</th></tr></thead><tbody>");
	for (size_t i = 0; i < m->rows.nr; i++) {
		strbuf_addstr(b, "<tr><td>");
		strbuf_add_html(b, m->rows.v[i]);
		strbuf_addstr(b, "</td>");
		for (int c = 0; c < m->ncpus; c++) {
			strbuf_addstr(b, "<td class=\"num\">");
			fmt_value(b,
				  m->cells[i * MAX_COUNTER_CPUS + (size_t)c]);
			strbuf_addstr(b, "</td>");
		}
		strbuf_addstr(b, "<td class=\"num\">");
		fmt_value(b, m->total[i]);
		strbuf_addstr(b, "</td><td class=\"desc\">");
		strbuf_add_html(b, describe_counter(m->rnames.v[i]));
		strbuf_addstr(b, "</td></tr>");
	}
	strbuf_addstr(b, "</tbody></table></div>");
	if (m->more_cpus)
		strbuf_addf(b,
			    "<p class=\"note\">Columns for the first %d "
			    "CPUs; \"all CPUs\" and the CSV cover every "
			    "CPU.</p>",
			    MAX_COUNTER_CPUS);
}

/* Parse "cpu12" or "cpu12/domain1/busy": cpu, domain (-1), type (""). */
static int parse_scope(const char *scope, int *ret_cpu, int *ret_dom,
		       struct strbuf *ret_type)
{
	struct strvec parts = STRVEC_INIT;
	int ok = -1;

	strvec_split(&parts, scope, '/');
	*ret_dom = -1;
	strbuf_reset(ret_type);
	if (parts.nr >= 1 && parts.nr <= 3 && starts_with(parts.v[0], "cpu") &&
	    parse_int(parts.v[0] + 3, 0, 1 << 20, ret_cpu, NULL) == 0) {
		ok = 0;
		if (parts.nr >= 2 &&
		    (!starts_with(parts.v[1], "domain") ||
		     parse_int(parts.v[1] + 6, 0, 64, ret_dom, NULL) < 0))
			ok = -1;
		if (parts.nr == 3)
			strbuf_addstr(ret_type, parts.v[2]);
	}
	strvec_clear(&parts);
	return ok;
}

/*
 * The counters of one run, laid out as `perf sched stats` shows them: a
 * CPU table (one column per CPU plus the sum), one table per domain level
 * with the idle type before each load-balance counter, then every other
 * source as a plain list; counters the kernel could not give are listed
 * with the agent's reason.  rows/from/to index the run's slice of res.
 */
static void render_counters(struct page *pg, const struct db_result *res,
			    int from, int to)
{
	struct strbuf *b = &pg->body, type = STRBUF_INIT, key = STRBUF_INIT;
	struct rtab t;
	static const struct col cols[] = {
		{ "iteration", "iteration", 1 },
		{ "source", "source", 0 },
		{ "scope", "scope", 0 },
		{ "name", "counter", 0 },
		{ "value", "value", 1 },
		{ "available", "available", 0 },
		{ "note", "note", 0 },
	};
	int shown_iters = 0, last_iter = -1, nother = 0;

	h2(b, "counters", "Scheduler counters (deltas over the run)");
	if (from == to) {
		strbuf_addstr(b, "<p class=\"note\">No counters were "
				 "reported for this run.</p>");
		return;
	}
	for (int i = from; i < to;) {
		int iter = (int)id64(db_get(res, i, 1)), j = i;
		struct cmatrix cpu, dom[8];
		int ndom = 0;

		while (j < to && id64(db_get(res, j, 1)) == iter)
			j++;
		if (shown_iters == MAX_COUNTER_ITERATIONS) {
			strbuf_addf(b,
				    "<p class=\"note\">Iterations after %d "
				    "are in the CSV and JSON below.</p>",
				    last_iter);
			break;
		}
		shown_iters++;
		last_iter = iter;
		memset(&cpu, 0, sizeof(cpu));
		memset(dom, 0, sizeof(dom));
		strvec_init(&cpu.rows);
		strvec_init(&cpu.rnames);
		cpu.title = xstrfmt("Iteration %d: per CPU (schedstat)", iter);
		strbuf_addf(b, "<h3>Iteration %d</h3>", iter);
		nother = 0;
		for (int k = i; k < j; k++) {
			const char *src = db_get(res, k, 2),
				   *scope = db_get(res, k, 3),
				   *name = db_get(res, k, 4);
			int c, d;

			if (strcmp(S(src), "schedstat") ||
			    strcmp(S(db_get(res, k, 6)), "t") ||
			    parse_scope(S(scope), &c, &d, &type) < 0) {
				nother++;
				continue;
			}
			if (d < 0) {
				cm_put(&cpu, name, name, c,
				       num(db_get(res, k, 5)));
				continue;
			}
			if (d >= (int)ARRAY_SIZE(dom))
				continue;
			if (d >= ndom) {
				for (int n = ndom; n <= d; n++) {
					strvec_init(&dom[n].rows);
					strvec_init(&dom[n].rnames);
					dom[n].title = xstrfmt(
						"Iteration %d: domain%d "
						"(load balancing per idle "
						"type)",
						iter, n);
				}
				ndom = d + 1;
			}
			strbuf_reset(&key);
			if (type.len)
				strbuf_addf(&key, "%s %s", type.buf, name);
			else
				strbuf_addstr(&key, name);
			cm_put(&dom[d], key.buf, name, c,
			       num(db_get(res, k, 5)));
		}
		if (cpu.rows.nr)
			cm_html(b, &cpu);
		for (int n = 0; n < ndom; n++)
			if (dom[n].rows.nr)
				cm_html(b, &dom[n]);
		cm_release(&cpu);
		for (int n = 0; n < ndom; n++)
			cm_release(&dom[n]);
		if (nother) {
			strbuf_addstr(b, "<div class=\"table-wrap\"><table "
					 "class=\"data counters\"><caption>"
					 "Other sources</caption><thead><tr>"
					 "<th>source</th><th>scope</th>"
					 "<th>counter</th><th class=\"num\">"
					 "value</th></tr></thead><tbody>");
			for (int k = i; k < j; k++) {
				int c, d;

				if (!strcmp(S(db_get(res, k, 2)),
					    "schedstat") &&
				    !strcmp(S(db_get(res, k, 6)), "t") &&
				    parse_scope(S(db_get(res, k, 3)), &c, &d,
						&type) == 0)
					continue;
				strbuf_addstr(b, "<tr><td>");
				strbuf_add_html(b, db_get(res, k, 2));
				strbuf_addstr(b, "</td><td>");
				strbuf_add_html(b, db_get(res, k, 3));
				strbuf_addstr(b, "</td><td>");
				strbuf_add_html(b, db_get(res, k, 4));
				if (strcmp(S(db_get(res, k, 6)), "t")) {
					strbuf_addstr(b, "</td><td class="
							 "\"unavailable\">not "
							 "available: ");
					strbuf_add_html(b, db_get(res, k, 7));
				} else {
					strbuf_addstr(b, "</td><td class="
							 "\"num\">");
					fmt_value(b, num(db_get(res, k, 5)));
				}
				strbuf_addstr(b, "</td></tr>");
			}
			strbuf_addstr(b, "</tbody></table></div>");
		}
		i = j;
	}
	strbuf_addstr(b, "<details><summary>All counters as a table"
			 "</summary>");
	{
		/* rtab_end appends to the body: open details first. */
		rtab_begin(&t, pg, "counters", NULL, cols,
			   (int)ARRAY_SIZE(cols));
		for (int k = from; k < to; k++) {
			int avail = !strcmp(S(db_get(res, k, 6)), "t");

			rtab_row(&t, NULL);
			rtab_num(&t, num(db_get(res, k, 1)), NULL);
			rtab_str(&t, db_get(res, k, 2));
			rtab_str(&t, db_get(res, k, 3));
			rtab_str(&t, db_get(res, k, 4));
			rtab_num(&t, num(db_get(res, k, 5)), NULL);
			rtab_str(&t, avail ? "yes" : "no");
			rtab_str(&t, db_get(res, k, 7));
			rtab_end_row(&t);
		}
		rtab_end(&t, "no counters");
	}
	strbuf_addstr(b, "</details>");
	strbuf_release(&type);
	strbuf_release(&key);
}

/* ------------------------------------------------------------ run pages */

/* Columns of the run detail statement below. */
enum {
	RC_ID,
	RC_STATUS,
	RC_WORKLOAD,
	RC_PARAMS,
	RC_BOOT,
	RC_SEQ,
	RC_JOB,
	RC_PATCH,
	RC_PATCH_NAME,
	RC_PLAN,
	RC_PLAN_NAME,
	RC_HOST,
	RC_HOST_NAME,
	RC_HOST_KIND,
	RC_SOCKETS,
	RC_CORES,
	RC_THREADS,
	RC_NUMA,
	RC_CPUS,
	RC_MEM,
	RC_KERNEL,
	RC_KNAME,
	RC_KBASE,
	RC_KRELEASE,
	RC_KSTATE,
	RC_KTEXT,
	RC_KDATA,
	RC_KBSS,
	RC_KSECONDS,
	RC_KHASLOG,
	RC_IMPORTED,
	RC_SOURCE,
	RC_AGENT,
	RC_CONSOLE,
	RC_RAW,
	RC_ERROR,
	RC_CREATED,
	RC_STARTED,
	RC_FINISHED,
	RC_INGESTED,
};

static const char run_detail_sql[] =
	"SELECT r.id, r.status, r.workload, coalesce((SELECT string_agg(e.key "
	"|| '=' || e.value, ';' ORDER BY e.key) FROM jsonb_each_text(r.params) "
	"e), ''), "
	" r.boot, r.seq, r.job_id, j.patch_id, pa.name, r.plan_id, pl.name,"
	" r.host_id, h.name, h.kind, h.sockets, h.cores_per_socket,"
	" h.threads_per_core, h.numa_nodes, h.cpus, h.memory_mb,"
	" r.kernel_id, k.name, k.base, k.release, k.build_state,"
	" k.vmlinux_text, k.vmlinux_data, k.vmlinux_bss, k.build_seconds,"
	" k.build_log IS NOT NULL, r.imported, r.source,"
	" jsonb_pretty(r.agent_info), r.console_log, r.raw_lines, r.error, "
	"to_char((r.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), "
	"to_char((r.started_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), "
	"to_char((r.finished_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), "
	"to_char((r.ingested_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') "
	"FROM runs r JOIN hosts h ON h.id = r.host_id"
	" JOIN kernels k ON k.id = r.kernel_id"
	" LEFT JOIN plans pl ON pl.id = r.plan_id"
	" LEFT JOIN jobs j ON j.id = r.job_id"
	" LEFT JOIN patches pa ON pa.id = j.patch_id"
	" WHERE r.id = ANY($1::bigint[]) ORDER BY r.id";

/* Write the kernel's build log beside the pages, once per report. */
static int kernel_log_file(struct report *r, struct page *pg, int64_t kid)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	struct strbuf name = STRBUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < r->nkernel_logs; i++)
		if (r->kernel_logs[i] == kid)
			return 0;
	ALLOC_GROW(r->kernel_logs, r->nkernel_logs + 1, r->kernel_logs_alloc);
	r->kernel_logs[r->nkernel_logs++] = kid;
	db_args_i64(&a, kid);
	rc = q(r, &res, "SELECT build_log FROM kernels WHERE id = $1", &a);
	db_args_clear(&a);
	if (rc < 0 || db_nrows(res) != 1 || !db_get(res, 0, 0))
		return rc;
	strbuf_addf(&name, "kernel-%lld-build.txt", (long long)kid);
	{
		struct strbuf data = STRBUF_INIT;

		strbuf_addstr(&data, db_get(res, 0, 0));
		page_add_file(pg, name.buf, &data);
	}
	strbuf_release(&name);
	(void)r;
	return 0;
}

/* Cursor over rows sorted by run id in column 0. */
static void slice(const struct db_result *res, int *pos, int64_t id,
		  int *ret_from, int *ret_to)
{
	int n = db_nrows(res);

	while (*pos < n && id64(db_get(res, *pos, 0)) < id)
		(*pos)++;
	*ret_from = *pos;
	while (*pos < n && id64(db_get(res, *pos, 0)) == id)
		(*pos)++;
	*ret_to = *pos;
}

/* Is a series per task ("share./a/task3") rather than per group? */
static int is_task_series(const char *name)
{
	return strstr(name, "/task") != NULL;
}

/*
 * One plot of the rows from..to (one iteration) whose series are per task
 * (tasks) or not, with its numbers beside it.  Returns 1 when drawn.
 */
static int series_plot(struct strbuf *b, const struct db_result *res, int from,
		       int to, int iter, int warm, int tasks)
{
	struct strbuf title = STRBUF_INIT, cur = STRBUF_INIT, err = STRBUF_INIT;
	int all_share = 1, nseries = 0, rows = 0;
	struct svg_plot p;
	size_t sidx = 0;

	for (int k = from; k < to; k++) {
		const char *sname = S(db_get(res, k, 2));

		if (is_task_series(sname) != tasks)
			continue;
		rows++;
		if (!starts_with(sname, "share."))
			all_share = 0;
	}
	if (!rows)
		return 0;
	strbuf_addf(&title, "Iteration %d%s: %s", iter,
		    warm ? " (warm-up)" : "",
		    tasks	? "per task"
		    : all_share ? "per group"
				: "series");
	/* The agent reports shares in percent of one CPU (wl_fairness_loop.c);
	 * other series carry no unit in the protocol. */
	svg_plot_init(&p, title.buf, "time since the iteration started", "s",
		      all_share ? "CPU share" : "value",
		      all_share ? "% of one CPU" : "as reported");
	for (int k = from; k < to; k++) {
		const char *sname = S(db_get(res, k, 2));

		if (is_task_series(sname) != tasks)
			continue;
		if (!nseries || strcmp(cur.buf, sname)) {
			if (nseries == MAX_SERIES_PER_PLOT)
				break;
			strbuf_reset(&cur);
			strbuf_addstr(&cur, sname);
			sidx = svg_plot_add_series(&p, sname, SVG_LINE);
			nseries++;
		}
		svg_series_add(&p, sidx, num(db_get(res, k, 3)),
			       num(db_get(res, k, 4)), NAN, NAN);
	}
	strbuf_addstr(b, "<figure class=\"plot-fig\">");
	svg_plot_write(&p, b, &err);
	strbuf_addstr(b, "<figcaption>");
	strbuf_add_html(b, title.buf);
	strbuf_addf(b, ": %d series", nseries);
	if (nseries == MAX_SERIES_PER_PLOT)
		strbuf_addstr(b, " (the first ones; all are in the data "
				 "files)");
	strbuf_addstr(b, ".<details><summary>The numbers</summary><table "
			 "class=\"data small\"><thead><tr><th>series</th><th "
			 "class=\"num\">t (s)</th><th class=\"num\">value"
			 "</th></tr></thead><tbody>");
	rows = 0;
	for (int k = from; k < to && rows < MAX_PLOT_TABLE_ROWS; k++) {
		if (is_task_series(S(db_get(res, k, 2))) != tasks)
			continue;
		rows++;
		strbuf_addstr(b, "<tr><td>");
		strbuf_add_html(b, db_get(res, k, 2));
		strbuf_addstr(b, "</td><td class=\"num\">");
		fmt_value(b, num(db_get(res, k, 3)));
		strbuf_addstr(b, "</td><td class=\"num\">");
		fmt_value(b, num(db_get(res, k, 4)));
		strbuf_addstr(b, "</td></tr>");
	}
	strbuf_addstr(b, "</tbody></table></details></figcaption></figure>");
	svg_plot_release(&p);
	strbuf_release(&title);
	strbuf_release(&cur);
	strbuf_release(&err);
	return 1;
}

/*
 * Plots of the time series of one run (samples rows from..to, sorted by
 * iteration, series, t): per iteration one plot of the groups and one of
 * the tasks, measured iterations first, at most MAX_SERIES_PLOTS plots;
 * every sample is in the data files.
 */
static void render_samples(struct page *pg, const struct db_result *res,
			   int from, int to, const struct db_result *results,
			   int rfrom, int rto)
{
	static const struct col cols[] = {
		{ "iteration", "iteration", 1 },
		{ "series", "series", 0 },
		{ "t", "t (s)", 1 },
		{ "value", "value", 1 },
	};
	struct strbuf *b = &pg->body;
	struct rtab t;
	int plots = 0;

	h2(b, "series", "Time series");
	if (from == to) {
		strbuf_addstr(b, "<p class=\"note\">No time series were "
				 "reported for this run.</p>");
		return;
	}
	strbuf_addstr(b, "<div class=\"plots\">");
	/* Two passes: measured iterations, then warm-up ones. */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = from; i < to;) {
			int iter = (int)id64(db_get(res, i, 1)), j = i,
			    warm = 0;

			while (j < to && id64(db_get(res, j, 1)) == iter)
				j++;
			for (int k = rfrom; k < rto; k++)
				if (id64(db_get(results, k, 2)) == iter &&
				    !strcmp(S(db_get(results, k, 3)), "t"))
					warm = 1;
			if (warm == pass && plots < MAX_SERIES_PLOTS)
				plots += series_plot(b, res, i, j, iter, warm,
						     0);
			if (warm == pass && plots < MAX_SERIES_PLOTS)
				plots += series_plot(b, res, i, j, iter, warm,
						     1);
			i = j;
		}
	}
	strbuf_addstr(b, "</div>");
	if (plots == MAX_SERIES_PLOTS)
		strbuf_addf(b,
			    "<p class=\"note\">Plots stop at %d per run; "
			    "every sample is in the table below.</p>",
			    MAX_SERIES_PLOTS);
	strbuf_addstr(b, "<details><summary>All samples as a table</summary>");
	rtab_begin(&t, pg, "samples", NULL, cols, (int)ARRAY_SIZE(cols));
	for (int k = from; k < to; k++) {
		rtab_row(&t, NULL);
		rtab_num(&t, num(db_get(res, k, 1)), NULL);
		rtab_str(&t, db_get(res, k, 2));
		rtab_num(&t, num(db_get(res, k, 3)), NULL);
		rtab_num(&t, num(db_get(res, k, 4)), NULL);
		rtab_end_row(&t);
	}
	rtab_end(&t, NULL);
	strbuf_addstr(b, "</details>");
}

/* Render one run page from row i of det and its slices of the others. */
static int render_run(struct report *r, const struct db_result *det, int i,
		      const struct db_result *res, int rfrom, int rto,
		      const struct db_result *cnt, int cfrom, int cto,
		      const struct db_result *smp, int sfrom, int sto,
		      const char *digest)
{
	static const struct col rcols[] = {
		{ "iteration", "iteration", 1 },
		{ "warmup", "warm-up", 0 },
		{ "metric", "metric", 0 },
		{ "value", "value", 1 },
		{ "unit", "unit", 0 },
		{ "direction", "better", 0 },
		{ "n", "n", 1 },
		{ "stddev", "s.d.", 1 },
	};
	struct strbuf stem = STRBUF_INIT, href = STRBUF_INIT, tmp = STRBUF_INIT;
	int64_t id = id64(db_get(det, i, RC_ID));
	struct page pg;
	struct strbuf *b;
	struct rtab t;
	int rc;

	strbuf_addf(&stem, "run-%lld", (long long)id);
	page_init(&pg, stem.buf);
	b = &pg.body;
	strbuf_addf(&pg.title, "Run %lld: %s on %s", (long long)id,
		    S(db_get(det, i, RC_WORKLOAD)),
		    S(db_get(det, i, RC_HOST_NAME)));
	nav(b, pg.title.buf);
	strbuf_addstr(b, "<h1>");
	strbuf_add_html(b, pg.title.buf);
	strbuf_addstr(b, "</h1>");

	strbuf_addstr(b, "<section class=\"facts\"><dl>");
	dl_item(b, "status", db_get(det, i, RC_STATUS));
	dl_item(b, "workload", db_get(det, i, RC_WORKLOAD));
	dl_item(b, "params", db_get(det, i, RC_PARAMS));
	dl_item(b, "boot", db_get(det, i, RC_BOOT));
	dl_item(b, "order in job", db_get(det, i, RC_SEQ));
	if (db_get(det, i, RC_JOB)) {
		strbuf_reset(&tmp);
		strbuf_addf(&tmp, "STP %s", db_get(det, i, RC_JOB));
		dl_item(b, "job", tmp.buf);
	}
	if (db_get(det, i, RC_PATCH)) {
		strbuf_reset(&href);
		strbuf_addf(&href, "patch-%lld.html",
			    (long long)id64(db_get(det, i, RC_PATCH)));
		strbuf_reset(&tmp);
		strbuf_addf(&tmp, "PLM %s: %s", db_get(det, i, RC_PATCH),
			    S(db_get(det, i, RC_PATCH_NAME)));
		dl_link(b, "patch", tmp.buf, href.buf);
	}
	if (db_get(det, i, RC_PLAN)) {
		strbuf_reset(&href);
		strbuf_addf(&href, "plan-%lld.html",
			    (long long)id64(db_get(det, i, RC_PLAN)));
		dl_link(b, "plan", db_get(det, i, RC_PLAN_NAME), href.buf);
	}
	if (!strcmp(S(db_get(det, i, RC_IMPORTED)), "t"))
		dl_item(b, "imported from", S(db_get(det, i, RC_SOURCE)));
	dl_item(b, "created", db_get(det, i, RC_CREATED));
	dl_item(b, "started", db_get(det, i, RC_STARTED));
	dl_item(b, "finished", db_get(det, i, RC_FINISHED));
	dl_item(b, "ingested", db_get(det, i, RC_INGESTED));
	dl_item(b, "error", db_get(det, i, RC_ERROR));
	strbuf_addstr(b, "</dl></section>");

	h2(b, "host", "Host");
	strbuf_addstr(b, "<section class=\"facts\"><dl>");
	strbuf_reset(&href);
	strbuf_addf(&href, "host-%lld.html",
		    (long long)id64(db_get(det, i, RC_HOST)));
	dl_link(b, "name", db_get(det, i, RC_HOST_NAME), href.buf);
	dl_item(b, "kind", db_get(det, i, RC_HOST_KIND));
	dl_item(b, "sockets", db_get(det, i, RC_SOCKETS));
	dl_item(b, "cores per socket", db_get(det, i, RC_CORES));
	dl_item(b, "threads per core", db_get(det, i, RC_THREADS));
	dl_item(b, "NUMA nodes", db_get(det, i, RC_NUMA));
	dl_item(b, "CPUs", db_get(det, i, RC_CPUS));
	if (db_get(det, i, RC_MEM)) {
		strbuf_reset(&tmp);
		strbuf_addf(&tmp, "%s MiB", db_get(det, i, RC_MEM));
		dl_item(b, "memory", tmp.buf);
	}
	strbuf_addstr(b, "</dl></section>");

	h2(b, "kernel", "Kernel");
	strbuf_addstr(b, "<section class=\"facts\"><dl>");
	dl_item(b, "name", db_get(det, i, RC_KNAME));
	dl_item(b, "base", db_get(det, i, RC_KBASE));
	dl_item(b, "release", db_get(det, i, RC_KRELEASE));
	dl_item(b, "build", db_get(det, i, RC_KSTATE));
	if (db_get(det, i, RC_KSECONDS)) {
		strbuf_reset(&tmp);
		fmt_value(&tmp, num(db_get(det, i, RC_KSECONDS)));
		strbuf_addstr(&tmp, " s");
		dl_item(b, "build time", tmp.buf);
	}
	if (!strcmp(S(db_get(det, i, RC_KHASLOG)), "t")) {
		int64_t kid = id64(db_get(det, i, RC_KERNEL));

		strbuf_reset(&href);
		strbuf_addf(&href, "kernel-%lld-build.txt", (long long)kid);
		dl_link(b, "build log", href.buf, href.buf);
		if (kernel_log_file(r, &pg, kid) < 0) {
			rc = -1;
			goto out;
		}
	}
	strbuf_addstr(b, "</dl></section>");
	if (db_get(det, i, RC_KTEXT) || db_get(det, i, RC_KDATA) ||
	    db_get(det, i, RC_KBSS)) {
		strbuf_addstr(b, "<table class=\"data small\"><caption>size "
				 "vmlinux (bytes)</caption><thead><tr><th "
				 "class=\"num\">text</th><th class=\"num\">"
				 "data</th><th class=\"num\">bss</th></tr>"
				 "</thead><tbody><tr>");
		for (int c = RC_KTEXT; c <= RC_KBSS; c++) {
			strbuf_addstr(b, "<td class=\"num\">");
			fmt_value(b, num(db_get(det, i, c)));
			strbuf_addstr(b, "</td>");
		}
		strbuf_addstr(b, "</tr></tbody></table>");
	}

	h2(b, "agent", "Agent");
	if (db_get(det, i, RC_AGENT)) {
		strbuf_addstr(b, "<pre class=\"json\">");
		strbuf_add_html(b, db_get(det, i, RC_AGENT));
		strbuf_addstr(b, "</pre>");
	} else
		strbuf_addstr(b, "<p class=\"note\">No agent information "
				 "(imported or not yet run).</p>");

	h2(b, "results", "Results");
	rtab_begin(&t, &pg, "results", NULL, rcols, (int)ARRAY_SIZE(rcols));
	for (int k = rfrom; k < rto; k++) {
		rtab_row(&t,
			 !strcmp(S(db_get(res, k, 3)), "t") ? "warmup" : NULL);
		rtab_num(&t, num(db_get(res, k, 2)), NULL);
		rtab_str(&t, !strcmp(S(db_get(res, k, 3)), "t") ? "yes" : "no");
		rtab_str(&t, db_get(res, k, 1));
		rtab_num(&t, num(db_get(res, k, 4)), NULL);
		rtab_str(&t, db_get(res, k, 5));
		rtab_str(&t, db_get(res, k, 6));
		rtab_num(&t, num(db_get(res, k, 7)), NULL);
		rtab_num(&t, num(db_get(res, k, 8)), NULL);
		rtab_end_row(&t);
	}
	rtab_end(&t, "no results");

	render_counters(&pg, cnt, cfrom, cto);
	render_samples(&pg, smp, sfrom, sto, res, rfrom, rto);

	h2(b, "console", "Console log");
	if (db_get(det, i, RC_CONSOLE))
		add_log(&pg, "console", "console log",
			db_get(det, i, RC_CONSOLE));
	else
		strbuf_addstr(b, "<p class=\"note\">No console log.</p>");
	h2(b, "raw", "Agent lines as received");
	if (db_get(det, i, RC_RAW))
		add_log(&pg, "agent", "agent lines", db_get(det, i, RC_RAW));
	else
		strbuf_addstr(b, "<p class=\"note\">No agent lines.</p>");

	rc = page_finish(r, &pg, digest);
out:
	page_release(&pg);
	strbuf_release(&stem);
	strbuf_release(&href);
	strbuf_release(&tmp);
	return rc;
}

static void ids_literal(struct strbuf *sb, const int64_t *ids, size_t n)
{
	strbuf_addch(sb, '{');
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%s%lld", i ? "," : "", (long long)ids[i]);
	strbuf_addch(sb, '}');
}

/* Render the runs in ids (sorted) with four statements for the batch. */
static int render_run_batch(struct report *r, const int64_t *ids,
			    char **digests, size_t n)
{
	_cleanup_db_result_ struct db_result *det = NULL, *res = NULL,
					     *cnt = NULL, *smp = NULL;
	struct strbuf lit = STRBUF_INIT;
	struct db_args a = DB_ARGS_INIT;
	int rc, pr = 0, pc = 0, ps = 0;

	ids_literal(&lit, ids, n);
	db_args_str(&a, lit.buf);
	rc = q(r, &det, run_detail_sql, &a);
	if (rc >= 0)
		rc = q(r, &res,
		       "SELECT run_id, metric, iteration, warmup, value, unit,"
		       " direction, n, stddev FROM results WHERE run_id = "
		       "ANY($1::bigint[]) ORDER BY run_id, warmup DESC, "
		       "metric, iteration",
		       &a);
	if (rc >= 0)
		rc = q(r, &cnt,
		       "SELECT run_id, iteration, source, scope, name, value,"
		       " available, note FROM counters WHERE run_id = "
		       "ANY($1::bigint[]) ORDER BY run_id, iteration, source,"
		       " scope COLLATE \"C\", name",
		       &a);
	if (rc >= 0)
		rc = q(r, &smp,
		       "SELECT run_id, iteration, series, t, value FROM "
		       "samples WHERE run_id = ANY($1::bigint[]) ORDER BY "
		       "run_id, iteration, series, t",
		       &a);
	db_args_clear(&a);
	strbuf_release(&lit);
	if (rc < 0)
		return rc;
	for (int i = 0; i < db_nrows(det) && rc >= 0; i++) {
		int64_t id = id64(db_get(det, i, RC_ID));
		int rf, rt, cf, ct, sf, st;
		const char *dg = NULL;

		for (size_t k = 0; k < n; k++)
			if (ids[k] == id)
				dg = digests[k];
		slice(res, &pr, id, &rf, &rt);
		slice(cnt, &pc, id, &cf, &ct);
		slice(smp, &ps, id, &sf, &st);
		rc = render_run(r, det, i, res, rf, rt, cnt, cf, ct, smp, sf,
				st, dg);
	}
	return rc;
}

static const char run_fp_sql[] =
	"SELECT r.id, md5(concat_ws('|', r.status, r.error, r.params::text,"
	" r.agent_info::text, r.boot, r.seq, r.job_id, r.plan_id, r.source,"
	" r.imported, r.created_at, r.started_at, r.finished_at,"
	" r.ingested_at, md5(coalesce(r.console_log, '')),"
	" md5(coalesce(r.raw_lines, '')), h.name, h.kind, h.sockets,"
	" h.cores_per_socket, h.threads_per_core, h.numa_nodes, h.cpus,"
	" h.memory_mb, k.name, k.base, k.release, k.build_state,"
	" k.vmlinux_text, k.vmlinux_data, k.vmlinux_bss, k.build_seconds,"
	" k.built_at, length(k.build_log), pl.name, j.patch_id, pa.name,"
	" (SELECT count(*) || ',' || coalesce(max(x.id), 0) || ',' ||"
	"  coalesce(sum(x.value), 0) FROM results x WHERE x.run_id = r.id),"
	" (SELECT count(*) || ',' || coalesce(sum(x.value), 0) FROM samples x"
	"  WHERE x.run_id = r.id),"
	" (SELECT count(*) || ',' || coalesce(sum(x.value), 0) FROM counters"
	"  x WHERE x.run_id = r.id)))"
	" FROM runs r JOIN hosts h ON h.id = r.host_id"
	" JOIN kernels k ON k.id = r.kernel_id"
	" LEFT JOIN plans pl ON pl.id = r.plan_id"
	" LEFT JOIN jobs j ON j.id = r.job_id"
	" LEFT JOIN patches pa ON pa.id = j.patch_id"
	" WHERE $1::timestamptz IS NULL OR r.created_at >= $1::timestamptz"
	" ORDER BY r.id";

static int write_run_pages(struct report *r)
{
	_cleanup_db_result_ struct db_result *fp = NULL;
	struct db_args a = DB_ARGS_INIT;
	int64_t ids[RUN_BATCH];
	char *digests[RUN_BATCH];
	size_t n = 0;
	int rc;

	db_args_str(&a, r->o->since);
	rc = q(r, &fp, run_fp_sql, &a);
	db_args_clear(&a);
	if (rc < 0)
		return rc;
	for (int i = 0; i <= db_nrows(fp) && rc >= 0; i++) {
		if (i < db_nrows(fp)) {
			struct strbuf name = STRBUF_INIT;
			char *dg;

			strbuf_addf(&name, "run-%s.html", db_get(fp, i, 0));
			if (page_stale(r, name.buf, db_get(fp, i, 1), &dg)) {
				ids[n] = id64(db_get(fp, i, 0));
				digests[n++] = dg;
			}
			strbuf_release(&name);
		}
		if (n && (n == RUN_BATCH || i == db_nrows(fp))) {
			rc = render_run_batch(r, ids, digests, n);
			for (size_t k = 0; k < n; k++)
				free(digests[k]);
			n = 0;
		}
	}
	for (size_t k = 0; k < n; k++)
		free(digests[k]);
	return rc;
}

/* ---------------------------------------------------- comparison pages */

/* Columns of the latest-comparisons statement. */
enum {
	CC_HOST,
	CC_HOST_NAME,
	CC_WORKLOAD,
	CC_PARAMS,
	CC_PARAMS_KEY,
	CC_METRIC,
	CC_UNIT,
	CC_BETTER,
	CC_NBASE,
	CC_NNEW,
	CC_MBASE,
	CC_MNEW,
	CC_SBASE,
	CC_SNEW,
	CC_PCT,
	CC_CILO,
	CC_CIHI,
	CC_P,
	CC_TAU,
	CC_VERDICT,
	CC_METHOD,
	CC_BASE_K,
	CC_NEW_K,
	CC_BASE_NAME,
	CC_NEW_NAME,
};

/*
 * The newest verdict per (host, workload, params, metric) for a kernel
 * pair, and for a patch also those stored under its PLM#.  $1 base kernel,
 * $2 new kernel, $3 patch (may be NULL).
 */
static const char latest_cmp_sql[] =
	"SELECT * FROM (SELECT DISTINCT ON (c.host_id, c.workload, c.params,"
	" c.metric) c.host_id, h.name, c.workload, coalesce((SELECT "
	"string_agg(e.key || '=' || e.value, ';' ORDER BY e.key) FROM "
	"jsonb_each_text(c.params) e), '') AS ptxt, c.params::text, c.metric, "
	"c.unit, c.better, c.n_base,"
	" c.n_new, c.mean_base, c.mean_new, c.stddev_base, c.stddev_new,"
	" c.pct_change, c.ci_low, c.ci_high, c.p_value, c.tau, c.verdict,"
	" c.method_version, c.base_kernel_id, c.new_kernel_id, bk.name,"
	" nk.name"
	", coalesce((SELECT string_agg(e.key || '=' || CASE WHEN e.value ~ "
	"'^[0-9]+([.][0-9]*)?$' THEN lpad(split_part(e.value, '.', 1), 24, "
	"'0') || '.' || split_part(e.value, '.', 2) ELSE e.value END, ';' "
	"ORDER BY e.key) FROM jsonb_each_text(c.params) e), '') AS nkey"
	" FROM comparisons c JOIN hosts h ON h.id = c.host_id"
	" JOIN kernels bk ON bk.id = c.base_kernel_id"
	" JOIN kernels nk ON nk.id = c.new_kernel_id"
	" WHERE (c.base_kernel_id = $1 AND c.new_kernel_id = $2)"
	"    OR ($3::bigint IS NOT NULL AND c.patch_id = $3)"
	" ORDER BY c.host_id, c.workload, c.params, c.metric,"
	" c.computed_at DESC, c.id DESC) x"
	" ORDER BY 2, 3, nkey COLLATE \"C\", 6";

struct obs {
	int64_t host, kernel, run, job;
	const char *workload, *params, *metric;
	int iteration;
	double value;
};

static int obs_match(const struct obs *o, const struct db_result *c, int i)
{
	return o->host == id64(db_get(c, i, CC_HOST)) &&
	       !strcmp(o->workload, S(db_get(c, i, CC_WORKLOAD))) &&
	       !strcmp(o->params, S(db_get(c, i, CC_PARAMS_KEY))) &&
	       !strcmp(o->metric, S(db_get(c, i, CC_METRIC)));
}

/* Split "k=v;k=v" into keys and values (first '=' splits). */
static void split_params(const char *s, struct strvec *keys,
			 struct strvec *vals)
{
	struct strvec parts = STRVEC_INIT;

	if (*s)
		strvec_split(&parts, s, ';');
	for (size_t i = 0; i < parts.nr; i++) {
		char *eq = strchr(parts.v[i], '=');

		if (!eq)
			continue;
		*eq = '\0';
		strvec_push(keys, parts.v[i]);
		strvec_push(vals, eq + 1);
	}
	strvec_clear(&parts);
}

/*
 * Which parameter do rows idx[0..n) sweep?  The one numeric key whose
 * value varies (preferring threads, users, jobs, clients, tasks); NULL
 * when none does.  The caller frees the result.
 */
static char *find_sweep_key(const struct db_result *c, const int *idx, int n)
{
	static const char *const pref[] = { "threads", "users", "jobs",
					    "clients", "tasks", "groups" };
	struct strvec k0 = STRVEC_INIT, v0 = STRVEC_INIT;
	char *best = NULL;
	int best_rank = 100;

	if (n < 2)
		return NULL;
	split_params(S(db_get(c, idx[0], CC_PARAMS)), &k0, &v0);
	for (size_t k = 0; k < k0.nr; k++) {
		int varies = 0, numeric = 1, rank = 50;

		for (int i = 0; i < n && numeric; i++) {
			struct strvec kk = STRVEC_INIT, vv = STRVEC_INIT;
			int found = 0;

			split_params(S(db_get(c, idx[i], CC_PARAMS)), &kk, &vv);
			for (size_t j = 0; j < kk.nr; j++) {
				double d;

				if (strcmp(kk.v[j], k0.v[k]))
					continue;
				found = 1;
				if (parse_double(vv.v[j], -DBL_MAX, DBL_MAX, &d,
						 NULL) < 0)
					numeric = 0;
				if (strcmp(vv.v[j], v0.v[k]))
					varies = 1;
			}
			if (!found)
				numeric = 0;
			strvec_clear(&kk);
			strvec_clear(&vv);
		}
		if (!varies || !numeric)
			continue;
		for (size_t p = 0; p < ARRAY_SIZE(pref); p++)
			if (!strcmp(pref[p], k0.v[k]))
				rank = (int)p;
		if (rank < best_rank) {
			free(best);
			best = xstrdup(k0.v[k]);
			best_rank = rank;
		}
	}
	strvec_clear(&k0);
	strvec_clear(&v0);
	return best;
}

/* The params without key skip, for grouping sweep lines ("" if none). */
static void params_without(const char *params, const char *skip,
			   struct strbuf *out)
{
	struct strvec k = STRVEC_INIT, v = STRVEC_INIT;

	split_params(params, &k, &v);
	for (size_t i = 0; i < k.nr; i++) {
		if (!strcmp(k.v[i], skip))
			continue;
		if (out->len)
			strbuf_addch(out, ';');
		strbuf_addf(out, "%s=%s", k.v[i], v.v[i]);
	}
	strvec_clear(&k);
	strvec_clear(&v);
}

static double param_value(const char *params, const char *key)
{
	struct strvec k = STRVEC_INIT, v = STRVEC_INIT;
	double d = NAN;

	split_params(params, &k, &v);
	for (size_t i = 0; i < k.nr; i++)
		if (!strcmp(k.v[i], key))
			d = num(v.v[i]);
	strvec_clear(&k);
	strvec_clear(&v);
	return d;
}

/* Rows of a bad host are red; retired and maintenance ones greyed. */
static const char *health_class(const char *h)
{
	if (!h)
		return NULL;
	if (!strcmp(h, "bad"))
		return "health-bad";
	if (!strcmp(h, "retired") || !strcmp(h, "maintenance"))
		return "health-off";
	return NULL;
}

static const char *verdict_class(const char *v)
{
	if (!v || !strcmp(v, "no-change"))
		return NULL;
	if (!strcmp(v, "regression"))
		return "v-regression";
	if (!strcmp(v, "improvement"))
		return "v-improvement";
	if (!strcmp(v, "inconclusive"))
		return "v-inconclusive";
	return "v-insufficient";
}

struct sweep_pt {
	double x;
	int row;
};

static int sweep_cmp(const void *a, const void *b)
{
	double x = ((const struct sweep_pt *)a)->x,
	       y = ((const struct sweep_pt *)b)->x;

	return x < y ? -1 : x > y;
}

/*
 * One plot of metric over the swept key for rows idx[0..n) (same host,
 * workload, metric and other params), base and new with bands, and the
 * numbers beside it.  The patch's band is the stored 95% CI of the change
 * applied to the base mean; the base's is its stored standard deviation.
 */
static void sweep_plot(struct strbuf *b, const struct db_result *c,
		       const int *idx, int n, const char *key, const char *rest)
{
	struct sweep_pt *pts = xcalloc((size_t)n, sizeof(*pts));
	struct strbuf title = STRBUF_INIT, err = STRBUF_INIT,
		      name = STRBUF_INIT;
	struct svg_plot p;
	size_t sb, sn;
	int r0 = idx[0];

	for (int i = 0; i < n; i++) {
		pts[i].x = param_value(S(db_get(c, idx[i], CC_PARAMS)), key);
		pts[i].row = idx[i];
	}
	qsort(pts, (size_t)n, sizeof(*pts), sweep_cmp);
	strbuf_addf(&title, "%s: %s over %s on %s",
		    S(db_get(c, r0, CC_WORKLOAD)), S(db_get(c, r0, CC_METRIC)),
		    key, S(db_get(c, r0, CC_HOST_NAME)));
	if (*rest)
		strbuf_addf(&title, " (%s)", rest);
	svg_plot_init(&p, title.buf, key, "", S(db_get(c, r0, CC_METRIC)),
		      S(db_get(c, r0, CC_UNIT)));
	p.x_log2 = 1;
	strbuf_addf(&name, "base %s (mean \xc2\xb1 1 s.d.)",
		    S(db_get(c, r0, CC_BASE_NAME)));
	sb = svg_plot_add_series(&p, name.buf, SVG_LINE);
	strbuf_reset(&name);
	strbuf_addf(&name, "new %s (mean, 95%% CI)",
		    S(db_get(c, r0, CC_NEW_NAME)));
	sn = svg_plot_add_series(&p, name.buf, SVG_LINE);
	for (int i = 0; i < n; i++) {
		int row = pts[i].row;
		double mb = num(db_get(c, row, CC_MBASE)),
		       mn = num(db_get(c, row, CC_MNEW)),
		       sdb = num(db_get(c, row, CC_SBASE)),
		       lo = num(db_get(c, row, CC_CILO)),
		       hi = num(db_get(c, row, CC_CIHI));

		svg_series_add(&p, sb, pts[i].x, mb, mb - sdb, mb + sdb);
		svg_series_add(&p, sn, pts[i].x, mn, mb * (1 + lo / 100),
			       mb * (1 + hi / 100));
	}
	strbuf_addstr(b, "<figure class=\"plot-fig\">");
	svg_plot_write(&p, b, &err);
	strbuf_addstr(b, "<figcaption>Lines: means stored by "
			 "<code>schedfarm compare</code>. Shaded: the base "
			 "\xc2\xb1 one standard deviation; the new kernel's "
			 "95% confidence interval of the change, drawn around "
			 "the base mean.<details><summary>The numbers"
			 "</summary><table class=\"data small\"><thead><tr>");
	strbuf_addstr(b, "<th class=\"num\">");
	strbuf_add_html(b, key);
	strbuf_addstr(b, "</th><th class=\"num\">base mean</th><th "
			 "class=\"num\">base s.d.</th><th class=\"num\">new "
			 "mean</th><th class=\"num\">%change</th><th "
			 "class=\"num\">95% CI</th><th>verdict</th></tr>"
			 "</thead><tbody>");
	for (int i = 0; i < n; i++) {
		int row = pts[i].row;

		strbuf_addstr(b, "<tr><td class=\"num\">");
		fmt_value(b, pts[i].x);
		strbuf_addstr(b, "</td><td class=\"num\">");
		fmt_value(b, num(db_get(c, row, CC_MBASE)));
		strbuf_addstr(b, "</td><td class=\"num\">");
		fmt_value(b, num(db_get(c, row, CC_SBASE)));
		strbuf_addstr(b, "</td><td class=\"num\">");
		fmt_value(b, num(db_get(c, row, CC_MNEW)));
		strbuf_addstr(b, "</td><td class=\"num\">");
		fmt_pct(b, num(db_get(c, row, CC_PCT)));
		strbuf_addstr(b, "</td><td class=\"num\">");
		fmt_pct(b, num(db_get(c, row, CC_CILO)));
		strbuf_addstr(b, " \xe2\x80\xa6 ");
		fmt_pct(b, num(db_get(c, row, CC_CIHI)));
		strbuf_addstr(b, "</td><td>");
		strbuf_add_html(b, db_get(c, row, CC_VERDICT));
		strbuf_addstr(b, "</td></tr>");
	}
	strbuf_addstr(b, "</tbody></table></details></figcaption></figure>");
	svg_plot_release(&p);
	strbuf_release(&title);
	strbuf_release(&err);
	strbuf_release(&name);
	free(pts);
}

/*
 * The observations of comparison row i in run order, base and new as
 * dots, with their numbers and run links beside.
 */
static void dot_plot(struct strbuf *b, const struct db_result *c, int i,
		     const struct obs *ob, size_t nob)
{
	struct strbuf title = STRBUF_INIT, err = STRBUF_INIT,
		      name = STRBUF_INIT;
	int64_t kb = id64(db_get(c, i, CC_BASE_K)),
		kn = id64(db_get(c, i, CC_NEW_K));
	struct svg_plot p;
	size_t sb, sn;
	int order = 0;

	strbuf_addf(&title, "%s %s on %s", S(db_get(c, i, CC_WORKLOAD)),
		    S(db_get(c, i, CC_METRIC)), S(db_get(c, i, CC_HOST_NAME)));
	if (*S(db_get(c, i, CC_PARAMS)))
		strbuf_addf(&title, " (%s)", db_get(c, i, CC_PARAMS));
	svg_plot_init(&p, title.buf, "observation in run order", "",
		      S(db_get(c, i, CC_METRIC)), S(db_get(c, i, CC_UNIT)));
	p.width = 380;
	p.height = 240;
	strbuf_addf(&name, "base %s", S(db_get(c, i, CC_BASE_NAME)));
	sb = svg_plot_add_series(&p, name.buf, SVG_DOTS);
	strbuf_reset(&name);
	strbuf_addf(&name, "new %s", S(db_get(c, i, CC_NEW_NAME)));
	sn = svg_plot_add_series(&p, name.buf, SVG_DOTS);
	for (size_t k = 0; k < nob; k++) {
		if (!obs_match(&ob[k], c, i) ||
		    (ob[k].kernel != kb && ob[k].kernel != kn))
			continue;
		order++;
		svg_series_add(&p, ob[k].kernel == kb ? sb : sn, order,
			       ob[k].value, NAN, NAN);
	}
	strbuf_addstr(b, "<figure class=\"plot-fig small\">");
	svg_plot_write(&p, b, &err);
	strbuf_addstr(b, "<figcaption>");
	strbuf_add_html(b, title.buf);
	strbuf_addstr(b, ": every non-warm-up result in run order."
			 "<details><summary>The numbers"
			 "</summary><table class=\"data small\"><thead><tr>"
			 "<th class=\"num\">#</th><th>run</th><th>kernel</th>"
			 "<th class=\"num\">iteration</th><th class=\"num\">"
			 "value</th></tr></thead><tbody>");
	order = 0;
	for (size_t k = 0; k < nob; k++) {
		if (!obs_match(&ob[k], c, i) ||
		    (ob[k].kernel != kb && ob[k].kernel != kn))
			continue;
		order++;
		if (order > MAX_PLOT_TABLE_ROWS)
			continue;
		strbuf_addf(b,
			    "<tr><td class=\"num\">%d</td><td><a "
			    "href=\"run-%lld.html\">%lld</a></td><td>",
			    order, (long long)ob[k].run, (long long)ob[k].run);
		strbuf_add_html(b, ob[k].kernel == kb
					   ? S(db_get(c, i, CC_BASE_NAME))
					   : S(db_get(c, i, CC_NEW_NAME)));
		strbuf_addf(b,
			    "</td><td class=\"num\">%d</td><td "
			    "class=\"num\">",
			    ob[k].iteration);
		fmt_value(b, ob[k].value);
		strbuf_addstr(b, "</td></tr>");
	}
	strbuf_addstr(b, "</tbody></table></details></figcaption></figure>");
	svg_plot_release(&p);
	strbuf_release(&title);
	strbuf_release(&err);
	strbuf_release(&name);
}

/* How many observations row i has on its base and new side. */
static void count_obs(const struct db_result *c, int i, const struct obs *ob,
		      size_t nob, int *ret_base, int *ret_new)
{
	int64_t kb = id64(db_get(c, i, CC_BASE_K)),
		kn = id64(db_get(c, i, CC_NEW_K));

	*ret_base = *ret_new = 0;
	for (size_t k = 0; k < nob; k++) {
		if (!obs_match(&ob[k], c, i))
			continue;
		if (ob[k].kernel == kb)
			(*ret_base)++;
		else if (ob[k].kernel == kn)
			(*ret_new)++;
	}
}

/*
 * The headline metric of a (host, workload, params) group, for the PLM
 * table: a workload's own headline (DESIGN.md's table) when present, else
 * the first metric with a direction and a %change, else the first row.
 */
static int headline_row(const struct db_result *c, int from, int to)
{
	static const char *const headline[] = {
		"max_jpm",	 "jain_index",	  "transactions", "messages",
		"records_per_s", "round_trip_us", "elapsed_s",	  "time",
	};

	for (size_t h = 0; h < ARRAY_SIZE(headline); h++)
		for (int i = from; i < to; i++)
			if (!strcmp(S(db_get(c, i, CC_METRIC)), headline[h]))
				return i;
	for (int i = from; i < to; i++)
		if (strcmp(S(db_get(c, i, CC_BETTER)), "none") &&
		    db_get(c, i, CC_PCT))
			return i;
	return from;
}

static int same_group(const struct db_result *c, int a, int b, int params)
{
	return !strcmp(S(db_get(c, a, CC_HOST_NAME)),
		       S(db_get(c, b, CC_HOST_NAME))) &&
	       !strcmp(S(db_get(c, a, CC_WORKLOAD)),
		       S(db_get(c, b, CC_WORKLOAD))) &&
	       (!params || !strcmp(S(db_get(c, a, CC_PARAMS_KEY)),
				   S(db_get(c, b, CC_PARAMS_KEY))));
}

/* The STP ids of the new kernel's runs behind row i, for the PLM table. */
static void stp_ids(struct strbuf *out, const struct db_result *c, int i,
		    const struct obs *ob, size_t nob, int64_t kernel)
{
	int64_t seen[6];
	int nseen = 0, imported = 0;

	for (size_t k = 0; k < nob; k++) {
		int dup = 0;

		if (!obs_match(&ob[k], c, i) || ob[k].kernel != kernel)
			continue;
		if (!ob[k].job) {
			imported = 1;
			continue;
		}
		for (int s = 0; s < nseen; s++)
			if (seen[s] == ob[k].job)
				dup = 1;
		if (dup)
			continue;
		if (nseen == 5) {
			strbuf_addstr(out, " \xe2\x80\xa6");
			break;
		}
		seen[nseen++] = ob[k].job;
		strbuf_addf(out, "%s%lld", out->len ? ", " : "",
			    (long long)ob[k].job);
	}
	if (imported && !out->len)
		strbuf_addstr(out, "imported");
}

/*
 * The body shared by a patch page and a kernel-pair page: the PLM-style
 * table, the full compare table, and plots per workload.
 */
static int render_comparison_body(struct report *r, struct page *pg,
				  int64_t base_k, int64_t new_k, int64_t patch,
				  int *ret_regr, int *ret_impr)
{
	_cleanup_db_result_ struct db_result *c = NULL, *o = NULL;
	static const struct col plm_cols[] = {
		{ "stp_id", "STP id", 0 }, { "plm", "PLM#", 1 },
		{ "kernel", "Kernel", 0 }, { "workload", "Workload", 0 },
		{ "params", "Params", 0 }, { "metric", "Metric", 0 },
		{ "value", "Value", 1 },   { "unit", "Unit", 0 },
		{ "host", "Host", 0 },	   { "pct_change", "%Change", 1 },
	};
	static const struct col cmp_cols[] = {
		{ "host", "host", 0 },
		{ "workload", "workload", 0 },
		{ "params", "params", 0 },
		{ "metric", "metric", 0 },
		{ "unit", "unit", 0 },
		{ "better", "better", 0 },
		{ "n_base", "n base", 1 },
		{ "mean_base", "base mean", 1 },
		{ "stddev_base", "base s.d.", 1 },
		{ "n_new", "n new", 1 },
		{ "mean_new", "new mean", 1 },
		{ "stddev_new", "new s.d.", 1 },
		{ "pct_change", "%change", 1 },
		{ "ci_low", "95% CI low", 1 },
		{ "ci_high", "95% CI high", 1 },
		{ "p_value", "p", 1 },
		{ "tau", "\xcf\x84 (%)", 1 },
		{ "verdict", "verdict", 0 },
	};
	struct strbuf *b = &pg->body, tmp = STRBUF_INIT, tmp2 = STRBUF_INIT;
	struct db_args a = DB_ARGS_INIT;
	struct obs *ob = NULL;
	size_t nob = 0;
	struct rtab t;
	int rc, nc, dots = 0;

	db_args_i64(&a, base_k);
	db_args_i64(&a, new_k);
	if (patch)
		db_args_i64(&a, patch);
	else
		db_args_str(&a, NULL);
	rc = q(r, &c, latest_cmp_sql, &a);
	db_args_clear(&a);
	if (rc < 0)
		return rc;
	nc = db_nrows(c);
	/*
	 * Observations behind the rows, in run order: every non-warm-up
	 * result of the patch's own jobs, and per compared (host, workload,
	 * params) and kernel the newest OBS_RUNS runs.  Bounded so a page
	 * costs the same however many runs a shared base kernel gathers.
	 */
	db_args_i64(&a, base_k);
	db_args_i64(&a, new_k);
	if (patch)
		db_args_i64(&a, patch);
	else
		db_args_str(&a, NULL);
	rc = q(r, &o,
	       "WITH c AS (SELECT DISTINCT host_id, workload, params,"
	       " base_kernel_id, new_kernel_id FROM comparisons"
	       " WHERE (base_kernel_id = $1 AND new_kernel_id = $2)"
	       " OR ($3::bigint IS NOT NULL AND patch_id = $3)),"
	       " rs AS (SELECT r.id FROM c CROSS JOIN LATERAL (VALUES"
	       " (c.base_kernel_id), (c.new_kernel_id)) AS k(id)"
	       " CROSS JOIN LATERAL (SELECT r.id FROM runs r"
	       " WHERE r.kernel_id = k.id AND r.host_id = c.host_id"
	       " AND r.workload = c.workload AND r.params = c.params"
	       " ORDER BY r.id DESC LIMIT " OBS_RUNS_SQL ") r"
	       " UNION SELECT r.id FROM runs r JOIN jobs j ON j.id = r.job_id"
	       " WHERE $3::bigint IS NOT NULL AND j.patch_id = $3)"
	       " SELECT r.host_id, r.kernel_id, r.id, r.job_id, r.workload,"
	       " r.params::text, x.metric, x.iteration, x.value"
	       " FROM rs JOIN runs r ON r.id = rs.id"
	       " JOIN results x ON x.run_id = r.id AND NOT x.warmup"
	       " ORDER BY r.id, x.metric, x.iteration",
	       &a);
	db_args_clear(&a);
	if (rc < 0)
		return rc;
	{
		nob = (size_t)db_nrows(o);
		ob = xcalloc(nob + 1, sizeof(*ob));
		for (size_t k = 0; k < nob; k++) {
			ob[k].host = id64(db_get(o, (int)k, 0));
			ob[k].kernel = id64(db_get(o, (int)k, 1));
			ob[k].run = id64(db_get(o, (int)k, 2));
			ob[k].job = id64(db_get(o, (int)k, 3));
			ob[k].workload = S(db_get(o, (int)k, 4));
			ob[k].params = S(db_get(o, (int)k, 5));
			ob[k].metric = S(db_get(o, (int)k, 6));
			ob[k].iteration = (int)id64(db_get(o, (int)k, 7));
			ob[k].value = num(db_get(o, (int)k, 8));
		}
	}

	*ret_regr = *ret_impr = 0;
	for (int i = 0; i < nc; i++) {
		if (!strcmp(S(db_get(c, i, CC_VERDICT)), "regression"))
			(*ret_regr)++;
		if (!strcmp(S(db_get(c, i, CC_VERDICT)), "improvement"))
			(*ret_impr)++;
	}
	strbuf_addf(b,
		    "<p class=\"verdicts\"><span class=\"count "
		    "v-regression\">%d regression%s</span> <span "
		    "class=\"count v-improvement\">%d improvement%s</span> "
		    "over %d comparison%s (the newest verdict per host, "
		    "workload, params and metric).</p>",
		    *ret_regr, *ret_regr == 1 ? "" : "s", *ret_impr,
		    *ret_impr == 1 ? "" : "s", nc, nc == 1 ? "" : "s");

	/* The PLM table: per (host, workload, params) the headline metric,
	 * base row then new row, as OSDL's PLM printed it. */
	h2(b, "plm", "Result table (PLM style)");
	rtab_begin(&t, pg, "plm", NULL, plm_cols, (int)ARRAY_SIZE(plm_cols));
	for (int i = 0; i < nc;) {
		int j = i + 1, hl;

		while (j < nc && same_group(c, i, j, 1))
			j++;
		hl = headline_row(c, i, j);
		for (int side = 0; side < 2; side++) {
			int64_t k = id64(
				db_get(c, hl, side ? CC_NEW_K : CC_BASE_K));

			rtab_row(&t,
				 side ? verdict_class(db_get(c, hl, CC_VERDICT))
				      : "base");
			strbuf_reset(&tmp);
			stp_ids(&tmp, c, hl, ob, nob, k);
			rtab_str(&t, tmp.buf);
			if (side && patch)
				rtab_num(&t, (double)patch, NULL);
			else
				rtab_str(&t, NULL);
			rtab_str(&t, db_get(c, hl,
					    side ? CC_NEW_NAME : CC_BASE_NAME));
			rtab_str(&t, db_get(c, hl, CC_WORKLOAD));
			rtab_str(&t, db_get(c, hl, CC_PARAMS));
			rtab_str(&t, db_get(c, hl, CC_METRIC));
			rtab_num(&t,
				 num(db_get(c, hl, side ? CC_MNEW : CC_MBASE)),
				 NULL);
			rtab_str(&t, db_get(c, hl, CC_UNIT));
			rtab_str(&t, db_get(c, hl, CC_HOST_NAME));
			if (side) {
				strbuf_reset(&tmp);
				fmt_pct(&tmp, num(db_get(c, hl, CC_PCT)));
				rtab_num(&t, num(db_get(c, hl, CC_PCT)),
					 tmp.buf);
			} else
				rtab_num(&t, NAN, "base");
			rtab_end_row(&t);
		}
		i = j;
	}
	rtab_end(&t, "no comparisons stored yet: run schedfarm compare");

	h2(b, "compare", "Every comparison");
	strbuf_addstr(b, "<p class=\"note\">Coloured only where the verdict "
			 "is not no-change. %change = 100\xc2\xb7(new/base "
			 "\xe2\x88\x92 1); the interval is the 95% confidence "
			 "interval of the %change.</p>");
	rtab_begin(&t, pg, "compare", NULL, cmp_cols,
		   (int)ARRAY_SIZE(cmp_cols));
	for (int i = 0; i < nc; i++) {
		rtab_row(&t, verdict_class(db_get(c, i, CC_VERDICT)));
		rtab_str(&t, db_get(c, i, CC_HOST_NAME));
		rtab_str(&t, db_get(c, i, CC_WORKLOAD));
		rtab_str(&t, db_get(c, i, CC_PARAMS));
		rtab_str(&t, db_get(c, i, CC_METRIC));
		rtab_str(&t, db_get(c, i, CC_UNIT));
		rtab_str(&t, db_get(c, i, CC_BETTER));
		rtab_num(&t, num(db_get(c, i, CC_NBASE)), NULL);
		rtab_num(&t, num(db_get(c, i, CC_MBASE)), NULL);
		rtab_num(&t, num(db_get(c, i, CC_SBASE)), NULL);
		rtab_num(&t, num(db_get(c, i, CC_NNEW)), NULL);
		rtab_num(&t, num(db_get(c, i, CC_MNEW)), NULL);
		rtab_num(&t, num(db_get(c, i, CC_SNEW)), NULL);
		for (int k = CC_PCT; k <= CC_CIHI; k++) {
			strbuf_reset(&tmp);
			fmt_pct(&tmp, num(db_get(c, i, k)));
			rtab_num(&t, num(db_get(c, i, k)), tmp.buf);
		}
		strbuf_reset(&tmp);
		if (db_get(c, i, CC_P))
			strbuf_addf(&tmp, "%.3g", num(db_get(c, i, CC_P)));
		else
			strbuf_addstr(&tmp, "\xe2\x80\x94");
		rtab_num(&t, num(db_get(c, i, CC_P)), tmp.buf);
		rtab_num(&t, num(db_get(c, i, CC_TAU)), NULL);
		rtab_str(&t, db_get(c, i, CC_VERDICT));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no comparisons stored yet: run schedfarm compare");

	/* Plots per (host, workload): sweeps per metric, then dot plots. */
	h2(b, "plots", "Plots");
	if (!nc)
		strbuf_addstr(b, "<p class=\"note\">Nothing to plot yet.</p>");
	for (int i = 0; i < nc;) {
		int j = i + 1, n = 0, *idx, *done, single = 0;

		while (j < nc && same_group(c, i, j, 0))
			j++;
		strbuf_addstr(b, "<h3>");
		strbuf_add_html(b, db_get(c, i, CC_WORKLOAD));
		strbuf_addstr(b, " on ");
		strbuf_add_html(b, db_get(c, i, CC_HOST_NAME));
		strbuf_addstr(b, "</h3><div class=\"plots\">");
		idx = xcalloc((size_t)(j - i), sizeof(int));
		done = xcalloc((size_t)(j - i), sizeof(int));
		/* One sweep plot per metric and per value of the other params.
		 */
		for (int k = i; k < j; k++) {
			char *key;

			if (done[k - i])
				continue;
			n = 0;
			for (int m = k; m < j; m++)
				if (!strcmp(S(db_get(c, m, CC_METRIC)),
					    S(db_get(c, k, CC_METRIC)))) {
					idx[n++] = m;
					done[m - i] = 1;
				}
			key = find_sweep_key(c, idx, n);
			if (!key)
				continue;
			for (int m = 0; m < n; m++) {
				int *sub, ns = 0;

				if (idx[m] < 0)
					continue;
				sub = xcalloc((size_t)n, sizeof(int));
				strbuf_reset(&tmp);
				params_without(S(db_get(c, idx[m], CC_PARAMS)),
					       key, &tmp);
				for (int z = m; z < n; z++) {
					if (idx[z] < 0)
						continue;
					strbuf_reset(&tmp2);
					params_without(
						S(db_get(c, idx[z], CC_PARAMS)),
						key, &tmp2);
					if (strcmp(tmp.buf, tmp2.buf))
						continue;
					sub[ns++] = idx[z];
					idx[z] = -1;
				}
				if (ns >= 2)
					sweep_plot(b, c, sub, ns, key, tmp.buf);
				free(sub);
			}
			free(key);
		}
		free(idx);
		free(done);
		for (int k = i; k < j; k++) {
			int nb = 0, nn = 0;

			count_obs(c, k, ob, nob, &nb, &nn);
			if (nb <= 1 && nn <= 1) {
				/* One number a side: the sweep plot and the
				 * tables already say everything. */
				single++;
				continue;
			}
			if (dots == MAX_DOT_PLOTS) {
				strbuf_addf(
					b,
					"<p class=\"note\">Dot plots stop at "
					"%d per page; every observation is "
					"on the run pages.</p>",
					MAX_DOT_PLOTS);
				dots++;
			}
			if (dots > MAX_DOT_PLOTS)
				break;
			dot_plot(b, c, k, ob, nob);
			dots++;
		}
		strbuf_addstr(b, "</div>");
		if (j > i)
			strbuf_addf(b,
				    "<p class=\"note\">Dot plots show %sthe "
				    "newest " OBS_RUNS_SQL " runs of each "
				    "kernel with these parameters; n in the "
				    "tables counts every observation the "
				    "comparison used.</p>",
				    patch ? "the runs of this patch's jobs and "
					  : "");
		if (single)
			strbuf_addf(b,
				    "<p class=\"note\">%d comparison%s "
				    "with at most one observation a side "
				    "get%s no dot plot.</p>",
				    single, single == 1 ? "" : "s",
				    single == 1 ? "s" : "");
		i = j;
	}
	free(ob);
	strbuf_release(&tmp);
	strbuf_release(&tmp2);
	return 0;
}

/* --------------------------------------------------- run listings */

/* Columns of runlist_sql. */
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

static const char runlist_sql[] =
	"SELECT r.id, r.host_id, r.plan_id, to_char((r.created_at) AT TIME "
	"ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), k.name,"
	" r.workload, coalesce((SELECT string_agg(e.key || '=' || e.value, ';' "
	"ORDER BY e.key) FROM jsonb_each_text(r.params) e), ''), r.status, "
	"r.job_id,"
	" j.patch_id, h.name, pl.name"
	" FROM runs r JOIN kernels k ON k.id = r.kernel_id"
	" JOIN hosts h ON h.id = r.host_id"
	" LEFT JOIN plans pl ON pl.id = r.plan_id"
	" LEFT JOIN jobs j ON j.id = r.job_id ORDER BY r.id";

struct runlist {
	struct db_result *res;
	uint64_t *hash; /* per row: what a listing shows of it */
};

static int runlist_load(struct report *r, struct runlist *rl)
{
	int rc = q(r, &rl->res, runlist_sql, NULL), n;

	if (rc < 0)
		return rc;
	n = db_nrows(rl->res);
	rl->hash = xcalloc((size_t)n + 1, sizeof(*rl->hash));
	for (int i = 0; i < n; i++) {
		uint64_t h = 0xcbf29ce484222325ULL;

		for (int c = 0; c <= RL_PLAN_NAME; c++) {
			const char *v = S(db_get(rl->res, i, c));

			h = fnv1a(h, v, strlen(v));
			h = fnv1a(h, "\x1f", 1);
		}
		rl->hash[i] = h;
	}
	return 0;
}

static void runlist_release(struct runlist *rl)
{
	db_result_free(rl->res);
	free(rl->hash);
}

/* The rows of rl whose column col equals owner, in id order. */
static int *runlist_select(const struct runlist *rl, int col, int64_t owner,
			   int *ret_n)
{
	int n = db_nrows(rl->res), k = 0;
	int *idx = xcalloc((size_t)n + 1, sizeof(int));

	for (int i = 0; i < n; i++)
		if (db_get(rl->res, i, col) &&
		    id64(db_get(rl->res, i, col)) == owner)
			idx[k++] = i;
	*ret_n = k;
	return idx;
}

/* Fingerprint text of rows idx[from..to). */
static void runlist_fp(const struct runlist *rl, const int *idx, int from,
		       int to, struct strbuf *out)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int i = from; i < to; i++) {
		char b[17];

		snprintf(b, sizeof(b), "%016llx",
			 (unsigned long long)rl->hash[idx[i]]);
		h = fnv1a(h, b, 16);
	}
	strbuf_addf(out, "%d:%d:%016llx", from, to, (unsigned long long)h);
}

/*
 * A table of the runs idx[from..to), newest first, into pg under name.
 * by_host says whether the other column is the host (plan pages) or the
 * plan (host pages).
 */
static void runlist_table(struct page *pg, const struct runlist *rl,
			  const int *idx, int from, int to, const char *name,
			  int by_host)
{
	static const struct col cols_h[] = {
		{ "run", "run", 1 },	   { "created", "created (UTC)", 0 },
		{ "kernel", "kernel", 0 }, { "workload", "workload", 0 },
		{ "params", "params", 0 }, { "status", "status", 0 },
		{ "stp_id", "STP id", 1 }, { "plm", "PLM#", 1 },
		{ "host", "host", 0 },
	};
	static const struct col cols_p[] = {
		{ "run", "run", 1 },	   { "created", "created (UTC)", 0 },
		{ "kernel", "kernel", 0 }, { "workload", "workload", 0 },
		{ "params", "params", 0 }, { "status", "status", 0 },
		{ "stp_id", "STP id", 1 }, { "plm", "PLM#", 1 },
		{ "plan", "plan", 0 },
	};
	struct strbuf href = STRBUF_INIT;
	const struct db_result *res = rl->res;
	struct rtab t;

	rtab_begin(&t, pg, name, NULL, by_host ? cols_h : cols_p,
		   (int)ARRAY_SIZE(cols_h));
	for (int k = to; k-- > from;) {
		int i = idx[k];

		rtab_row(&t, NULL);
		strbuf_reset(&href);
		strbuf_addf(&href, "run-%s.html", db_get(res, i, RL_ID));
		rtab_link(&t, db_get(res, i, RL_ID), href.buf);
		rtab_str(&t, db_get(res, i, RL_CREATED));
		rtab_str(&t, db_get(res, i, RL_KERNEL));
		rtab_str(&t, db_get(res, i, RL_WORKLOAD));
		rtab_str(&t, db_get(res, i, RL_PARAMS));
		rtab_str(&t, db_get(res, i, RL_STATUS));
		rtab_str(&t, db_get(res, i, RL_JOB));
		if (db_get(res, i, RL_PATCH)) {
			strbuf_reset(&href);
			strbuf_addf(&href, "patch-%s.html",
				    db_get(res, i, RL_PATCH));
			rtab_link(&t, db_get(res, i, RL_PATCH), href.buf);
		} else
			rtab_str(&t, NULL);
		strbuf_reset(&href);
		if (by_host) {
			strbuf_addf(&href, "host-%s.html",
				    db_get(res, i, RL_HOST));
			rtab_link(&t, db_get(res, i, RL_HOST_NAME), href.buf);
		} else if (db_get(res, i, RL_PLAN)) {
			strbuf_addf(&href, "plan-%s.html",
				    db_get(res, i, RL_PLAN));
			rtab_link(&t, db_get(res, i, RL_PLAN_NAME), href.buf);
		} else
			rtab_str(&t, NULL);
		rtab_end_row(&t);
	}
	rtab_end(&t, "no runs");
	strbuf_release(&href);
}

/* Links to the archive pages prefix-p1.html .. prefix-pN.html. */
static void archive_links(struct strbuf *b, const char *prefix, int nfull,
			  int per, const char *what)
{
	if (!nfull)
		return;
	strbuf_addf(b,
		    "<p class=\"pages\">All %s, %d per page, oldest "
		    "first:",
		    what, per);
	for (int k = 1; k <= nfull; k++)
		strbuf_addf(b, " <a href=\"%s-p%d.html\">%d</a>", prefix, k, k);
	strbuf_addstr(b, "</p>");
}

/*
 * Blocks of a listing of n items: nfull complete blocks of per items get
 * archive pages; the front page shows the last complete block and the
 * incomplete one, so one new item changes the front page only.
 */
static int front_start(int n, int per);

/*
 * The "Runs" section of a host or plan page: how many runs idx (n of them)
 * holds, the newest block as a table (by_host: with a host column), and
 * links to the archive pages of the older blocks, named after stem.
 */
static void runs_section(struct page *pg, const struct runlist *rl,
			 const int *idx, int n, const char *stem, int by_host)
{
	struct strbuf *b = &pg->body;

	h2(b, "runs", "Runs");
	strbuf_addf(b, "<p>%d run%s in all; the newest here.</p>", n,
		    n == 1 ? "" : "s");
	runlist_table(pg, rl, idx, front_start(n, RUNS_PER_BLOCK), n, "runs",
		      by_host);
	archive_links(b, stem, n / RUNS_PER_BLOCK, RUNS_PER_BLOCK, "runs");
}

static int front_start(int n, int per)
{
	int nfull = n / per;

	return nfull ? (nfull - 1) * per : 0;
}

/* Write the archive pages prefix-pK.html of a run listing. */
static int write_run_archives(struct report *r, const struct runlist *rl,
			      const int *idx, int n, const char *prefix,
			      const char *what, const char *back,
			      const char *back_href, int by_host)
{
	int nfull = n / RUNS_PER_BLOCK, rc = 0;

	for (int k = 1; k <= nfull && rc >= 0; k++) {
		struct strbuf stem = STRBUF_INIT, fp = STRBUF_INIT;
		char *dg = NULL;

		strbuf_addf(&stem, "%s-p%d", prefix, k);
		runlist_fp(rl, idx, (k - 1) * RUNS_PER_BLOCK,
			   k * RUNS_PER_BLOCK, &fp);
		strbuf_addstr(&stem, ".html");
		if (page_stale(r, stem.buf, fp.buf, &dg)) {
			struct page pg;

			strbuf_setlen(&stem, stem.len - 5);
			page_init(&pg, stem.buf);
			strbuf_addf(&pg.title, "%s: runs, page %d", what, k);
			nav(&pg.body, pg.title.buf);
			strbuf_addstr(&pg.body, "<h1>");
			strbuf_add_html(&pg.body, pg.title.buf);
			strbuf_addstr(&pg.body, "</h1><p><a href=\"");
			strbuf_add_html(&pg.body, back_href);
			strbuf_addstr(&pg.body, "\">");
			strbuf_add_html(&pg.body, back);
			strbuf_addstr(&pg.body, "</a></p>");
			archive_links(&pg.body, prefix, nfull, RUNS_PER_BLOCK,
				      "runs");
			runlist_table(&pg, rl, idx, (k - 1) * RUNS_PER_BLOCK,
				      k * RUNS_PER_BLOCK, "runs", by_host);
			rc = page_finish(r, &pg, dg);
			page_release(&pg);
		}
		free(dg);
		strbuf_release(&stem);
		strbuf_release(&fp);
	}
	return rc;
}

/* ------------------------------------------------------------ host pages */

enum {
	HC_ID,
	HC_NAME,
	HC_KIND,
	HC_ADDRESS,
	HC_PORT,
	HC_TAGS,
	HC_SOCKETS,
	HC_CORES,
	HC_THREADS,
	HC_NUMA,
	HC_CPUS,
	HC_MEM,
	HC_AGENT,
	HC_HEALTH,
	HC_ABORTED,
	HC_GOOD_KERNEL,
	HC_CREATED,
	HC_FP,
};

static const char host_sql[] =
	"SELECT h.id, h.name, h.kind, h.address, h.port,"
	" nullif(array_to_string(h.tags, ', '), ''), h.sockets, "
	"h.cores_per_socket,"
	" h.threads_per_core, h.numa_nodes, h.cpus, h.memory_mb,"
	" jsonb_pretty(h.agent_info), h.health, h.aborted_in_row, kg.name, "
	"to_char((h.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'),"
	" md5(concat_ws('|', h.name, h.kind, h.address, h.port,"
	" h.tags::text, h.sockets, h.cores_per_socket, h.threads_per_core,"
	" h.numa_nodes, h.cpus, h.memory_mb, h.agent_info::text, h.health,"
	" h.aborted_in_row, kg.name, (SELECT count(*) || ',' ||"
	" coalesce(max(e.id), 0) FROM host_events e WHERE e.host_id = h.id)))"
	" FROM hosts h LEFT JOIN kernels kg ON kg.id = h.known_good_kernel_id"
	" WHERE $1::timestamptz IS NULL"
	"  OR EXISTS (SELECT 1 FROM runs r WHERE r.host_id = h.id"
	"             AND r.created_at >= $1::timestamptz)"
	"  OR EXISTS (SELECT 1 FROM host_events e WHERE e.host_id = h.id"
	"             AND e.at >= $1::timestamptz)"
	" ORDER BY h.id";

static int render_host(struct report *r, const struct db_result *h, int i,
		       const struct runlist *rl, const int *idx, int n,
		       const char *digest)
{
	_cleanup_db_result_ struct db_result *ev = NULL;
	static const struct col ecols[] = {
		{ "at", "at (UTC)", 0 },
		{ "old_health", "from", 0 },
		{ "new_health", "to", 0 },
		{ "reason", "why", 0 },
	};
	struct strbuf stem = STRBUF_INIT, tmp = STRBUF_INIT;
	struct db_args a = DB_ARGS_INIT;
	int64_t id = id64(db_get(h, i, HC_ID));
	struct page pg;
	struct strbuf *b;
	struct rtab t;
	int rc;

	db_args_i64(&a, id);
	rc = q(r, &ev,
	       "SELECT to_char((at) AT TIME ZONE 'UTC', 'YYYY-MM-DD "
	       "HH24:MI:SS'), old_health, new_health, reason FROM "
	       "host_events WHERE host_id = $1 ORDER BY at DESC, id DESC",
	       &a);
	db_args_clear(&a);
	if (rc < 0)
		return rc;
	strbuf_addf(&stem, "host-%lld", (long long)id);
	page_init(&pg, stem.buf);
	b = &pg.body;
	strbuf_addf(&pg.title, "Host %s", S(db_get(h, i, HC_NAME)));
	nav(b, pg.title.buf);
	strbuf_addstr(b, "<h1>");
	strbuf_add_html(b, pg.title.buf);
	strbuf_addstr(b, "</h1><section class=\"facts\"><dl>");
	dl_item(b, "kind", db_get(h, i, HC_KIND));
	dl_item(b, "address", db_get(h, i, HC_ADDRESS));
	dl_item(b, "port", db_get(h, i, HC_PORT));
	dl_item(b, "tags", db_get(h, i, HC_TAGS));
	{
		const char *hl = S(db_get(h, i, HC_HEALTH)),
			   *cls = health_class(hl);

		strbuf_addf(b, "<dt>health</dt><dd class=\"%s\">",
			    !strcmp(hl, "good") ? "health-good"
			    : cls		? cls
						: "health-unknown");
	}
	strbuf_add_html(b, db_get(h, i, HC_HEALTH));
	strbuf_addstr(b, "</dd>");
	dl_item(b, "aborted runs in a row", db_get(h, i, HC_ABORTED));
	dl_item(b, "known-good kernel", db_get(h, i, HC_GOOD_KERNEL));
	dl_item(b, "sockets", db_get(h, i, HC_SOCKETS));
	dl_item(b, "cores per socket", db_get(h, i, HC_CORES));
	dl_item(b, "threads per core", db_get(h, i, HC_THREADS));
	dl_item(b, "NUMA nodes", db_get(h, i, HC_NUMA));
	dl_item(b, "CPUs", db_get(h, i, HC_CPUS));
	if (db_get(h, i, HC_MEM)) {
		strbuf_addf(&tmp, "%s MiB", db_get(h, i, HC_MEM));
		dl_item(b, "memory", tmp.buf);
	}
	dl_item(b, "registered", db_get(h, i, HC_CREATED));
	strbuf_addstr(b, "</dl></section>");
	if (db_get(h, i, HC_AGENT)) {
		strbuf_addstr(b, "<details><summary>What the agent reported"
				 "</summary><pre class=\"json\">");
		strbuf_add_html(b, db_get(h, i, HC_AGENT));
		strbuf_addstr(b, "</pre></details>");
	}
	h2(b, "health", "Health history");
	rtab_begin(&t, &pg, "health", NULL, ecols, (int)ARRAY_SIZE(ecols));
	for (int k = 0; k < db_nrows(ev); k++) {
		const char *nh = db_get(ev, k, 2);

		rtab_row(&t, health_class(nh));
		for (int c = 0; c < 4; c++)
			rtab_str(&t, db_get(ev, k, c));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no health changes recorded");
	runs_section(&pg, rl, idx, n, stem.buf, 0);
	rc = page_finish(r, &pg, digest);
	page_release(&pg);
	strbuf_release(&stem);
	strbuf_release(&tmp);
	return rc;
}

static int write_host_pages(struct report *r, const struct runlist *rl)
{
	_cleanup_db_result_ struct db_result *h = NULL;
	struct db_args a = DB_ARGS_INIT;
	int rc;

	db_args_str(&a, r->o->since);
	rc = q(r, &h, host_sql, &a);
	db_args_clear(&a);
	for (int i = 0; rc >= 0 && i < db_nrows(h); i++) {
		struct strbuf name = STRBUF_INIT, fp = STRBUF_INIT,
			      back = STRBUF_INIT;
		int64_t id = id64(db_get(h, i, HC_ID));
		int n, *idx = runlist_select(rl, RL_HOST, id, &n);
		char *dg = NULL;

		strbuf_addf(&name, "host-%lld.html", (long long)id);
		strbuf_addf(&fp, "%s|%d|", S(db_get(h, i, HC_FP)), n);
		runlist_fp(rl, idx, front_start(n, RUNS_PER_BLOCK), n, &fp);
		if (page_stale(r, name.buf, fp.buf, &dg))
			rc = render_host(r, h, i, rl, idx, n, dg);
		strbuf_setlen(&name, name.len - 5);
		strbuf_addf(&back, "Host %s", S(db_get(h, i, HC_NAME)));
		if (rc >= 0) {
			struct strbuf href = STRBUF_INIT;

			strbuf_addf(&href, "%s.html", name.buf);
			rc = write_run_archives(r, rl, idx, n, name.buf,
						back.buf, back.buf, href.buf,
						0);
			strbuf_release(&href);
		}
		free(dg);
		free(idx);
		strbuf_release(&name);
		strbuf_release(&fp);
		strbuf_release(&back);
	}
	return rc;
}

/* ------------------------------------------------------------ plan pages */

static const char plan_sql[] =
	"SELECT pl.id, pl.name, pl.sha256, pl.body, to_char((pl.created_at) AT "
	"TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'),"
	" md5(concat_ws('|', pl.name, pl.sha256, (SELECT count(*) || ',' ||"
	" string_agg(j.id || ':' || j.state, ',' ORDER BY j.id) FROM jobs j"
	" WHERE j.plan_id = pl.id)))"
	" FROM plans pl WHERE $1::timestamptz IS NULL"
	"  OR pl.created_at >= $1::timestamptz"
	"  OR EXISTS (SELECT 1 FROM runs r WHERE r.plan_id = pl.id"
	"             AND r.created_at >= $1::timestamptz)"
	" ORDER BY pl.id";

static int render_plan(struct report *r, const struct db_result *p, int i,
		       const struct runlist *rl, const int *idx, int n,
		       const char *digest)
{
	struct strbuf stem = STRBUF_INIT;
	int64_t id = id64(db_get(p, i, 0));
	struct page pg;
	struct strbuf *b;
	int rc;

	strbuf_addf(&stem, "plan-%lld", (long long)id);
	page_init(&pg, stem.buf);
	b = &pg.body;
	strbuf_addf(&pg.title, "Plan %s", S(db_get(p, i, 1)));
	nav(b, pg.title.buf);
	strbuf_addstr(b, "<h1>");
	strbuf_add_html(b, pg.title.buf);
	strbuf_addstr(b, "</h1><section class=\"facts\"><dl>");
	dl_item(b, "sha256", db_get(p, i, 2));
	dl_item(b, "stored", db_get(p, i, 4));
	strbuf_addstr(b, "</dl></section>");
	h2(b, "body", "The plan");
	strbuf_addstr(b, "<pre class=\"plan\">");
	strbuf_add_html(b, db_get(p, i, 3));
	strbuf_addstr(b, "</pre>");
	runs_section(&pg, rl, idx, n, stem.buf, 1);
	rc = page_finish(r, &pg, digest);
	page_release(&pg);
	strbuf_release(&stem);
	return rc;
}

static int write_plan_pages(struct report *r, const struct runlist *rl)
{
	_cleanup_db_result_ struct db_result *p = NULL;
	struct db_args a = DB_ARGS_INIT;
	int rc;

	db_args_str(&a, r->o->since);
	rc = q(r, &p, plan_sql, &a);
	db_args_clear(&a);
	for (int i = 0; rc >= 0 && i < db_nrows(p); i++) {
		struct strbuf name = STRBUF_INIT, fp = STRBUF_INIT,
			      back = STRBUF_INIT, href = STRBUF_INIT;
		int64_t id = id64(db_get(p, i, 0));
		int n, *idx = runlist_select(rl, RL_PLAN, id, &n);
		char *dg = NULL;

		strbuf_addf(&name, "plan-%lld.html", (long long)id);
		strbuf_addf(&fp, "%s|%d|", S(db_get(p, i, 5)), n);
		runlist_fp(rl, idx, front_start(n, RUNS_PER_BLOCK), n, &fp);
		if (page_stale(r, name.buf, fp.buf, &dg))
			rc = render_plan(r, p, i, rl, idx, n, dg);
		strbuf_setlen(&name, name.len - 5);
		strbuf_addf(&back, "Plan %s", S(db_get(p, i, 1)));
		strbuf_addf(&href, "%s.html", name.buf);
		if (rc >= 0)
			rc = write_run_archives(r, rl, idx, n, name.buf,
						back.buf, back.buf, href.buf,
						1);
		free(dg);
		free(idx);
		strbuf_release(&name);
		strbuf_release(&fp);
		strbuf_release(&back);
		strbuf_release(&href);
	}
	return rc;
}

/* ------------------------------------------- patch and kernel-pair pages */

static const char patch_fp_sql[] =
	"SELECT p.id, p.name, p.submitter, p.base, p.n_patches,"
	" p.series_sha256, to_char((p.created_at) AT TIME ZONE 'UTC', "
	"'YYYY-MM-DD HH24:MI:SS'), p.base_kernel_id,"
	" bk.name, p.kernel_id, nk.name,"
	" md5(concat_ws('|', p.name, p.submitter, p.base, p.n_patches,"
	" p.series_sha256, p.created_at, p.base_kernel_id, p.kernel_id,"
	" bk.name, nk.name,"
	" (SELECT string_agg(j.id || ':' || j.state || ':' ||"
	"  coalesce(j.host_id, 0) || ':' || j.attempts || ':' ||"
	"  coalesce(j.error, ''), ',' ORDER BY j.id) FROM jobs j"
	"  WHERE j.patch_id = p.id),"
	" (SELECT count(*) || ',' || coalesce(max(c.id), 0) FROM comparisons"
	"  c WHERE c.patch_id = p.id OR (c.base_kernel_id = p.base_kernel_id"
	"  AND c.new_kernel_id = p.kernel_id)),"
	/* Its own jobs' runs; base runs elsewhere show up on the page when
	 * a new compare stores verdicts, which changes the count above. */
	" (SELECT count(*) || ',' || coalesce(max(r.id), 0) || ',' ||"
	"  count(*) FILTER (WHERE r.status IN ('done', 'imported'))"
	"  FROM runs r JOIN jobs j ON j.id = r.job_id WHERE j.patch_id = p.id)"
	" ))"
	" FROM patches p LEFT JOIN kernels bk ON bk.id = p.base_kernel_id"
	" LEFT JOIN kernels nk ON nk.id = p.kernel_id"
	" WHERE $1::timestamptz IS NULL OR p.created_at >= $1::timestamptz"
	"  OR EXISTS (SELECT 1 FROM jobs j WHERE j.patch_id = p.id AND"
	"   coalesce(j.finished_at, j.created_at) >= $1::timestamptz)"
	"  OR EXISTS (SELECT 1 FROM comparisons c WHERE (c.patch_id = p.id"
	"   OR (c.base_kernel_id = p.base_kernel_id AND c.new_kernel_id ="
	"   p.kernel_id)) AND c.computed_at >= $1::timestamptz)"
	" ORDER BY p.id";

static int render_patch(struct report *r, const struct db_result *p, int i,
			const char *digest)
{
	_cleanup_db_result_ struct db_result *jobs = NULL;
	static const struct col jcols[] = {
		{ "stp_id", "STP id", 1 },
		{ "state", "state", 0 },
		{ "kernel", "kernel", 0 },
		{ "plan", "plan", 0 },
		{ "host", "host", 0 },
		{ "attempts", "attempts", 1 },
		{ "created", "created (UTC)", 0 },
		{ "finished", "finished (UTC)", 0 },
		{ "stop_reason", "why it stopped", 0 },
		{ "error", "error", 0 },
	};
	struct strbuf stem = STRBUF_INIT, href = STRBUF_INIT, tmp = STRBUF_INIT;
	struct db_args a = DB_ARGS_INIT;
	int64_t id = id64(db_get(p, i, 0));
	int rc, regr, impr;
	struct page pg;
	struct strbuf *b;
	struct rtab t;

	db_args_i64(&a, id);
	rc = q(r, &jobs,
	       "SELECT j.id, j.state, k.name, pl.name, j.plan_id,"
	       " coalesce(h.name, j.host_constraint), j.host_id, j.attempts, "
	       "to_char((j.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD "
	       "HH24:MI:SS'), to_char((j.finished_at) AT TIME ZONE 'UTC', "
	       "'YYYY-MM-DD HH24:MI:SS'),"
	       " j.stop_reason, coalesce(j.error_phase || ': ', '') ||"
	       " j.error FROM jobs j JOIN kernels k ON k.id = j.kernel_id"
	       " JOIN plans pl ON pl.id = j.plan_id"
	       " LEFT JOIN hosts h ON h.id = j.host_id"
	       " WHERE j.patch_id = $1 ORDER BY j.id",
	       &a);
	db_args_clear(&a);
	if (rc < 0)
		return rc;
	strbuf_addf(&stem, "patch-%lld", (long long)id);
	page_init(&pg, stem.buf);
	b = &pg.body;
	strbuf_addf(&pg.title, "PLM %lld: %s", (long long)id,
		    S(db_get(p, i, 1)));
	nav(b, pg.title.buf);
	strbuf_addstr(b, "<h1>");
	strbuf_add_html(b, pg.title.buf);
	strbuf_addstr(b, "</h1><section class=\"facts\"><dl>");
	dl_item(b, "PLM#", db_get(p, i, 0));
	dl_item(b, "name", db_get(p, i, 1));
	dl_item(b, "submitter", db_get(p, i, 2));
	dl_item(b, "base", db_get(p, i, 3));
	dl_item(b, "patches in the series", db_get(p, i, 4));
	dl_item(b, "series sha256", db_get(p, i, 5));
	dl_item(b, "submitted", db_get(p, i, 6));
	dl_item(b, "base kernel", db_get(p, i, 8));
	dl_item(b, "patched kernel", db_get(p, i, 10));
	strbuf_addstr(b, "</dl></section>");

	h2(b, "jobs", "Jobs");
	rtab_begin(&t, &pg, "jobs", NULL, jcols, (int)ARRAY_SIZE(jcols));
	for (int k = 0; k < db_nrows(jobs); k++) {
		rtab_row(&t, !strcmp(S(db_get(jobs, k, 1)), "failed")
				     ? "v-regression"
				     : NULL);
		rtab_str(&t, db_get(jobs, k, 0));
		rtab_str(&t, db_get(jobs, k, 1));
		rtab_str(&t, db_get(jobs, k, 2));
		strbuf_reset(&href);
		strbuf_addf(&href, "plan-%s.html", db_get(jobs, k, 4));
		rtab_link(&t, db_get(jobs, k, 3), href.buf);
		if (db_get(jobs, k, 6)) {
			strbuf_reset(&href);
			strbuf_addf(&href, "host-%s.html", db_get(jobs, k, 6));
			rtab_link(&t, db_get(jobs, k, 5), href.buf);
		} else
			rtab_str(&t, db_get(jobs, k, 5));
		rtab_num(&t, num(db_get(jobs, k, 7)), NULL);
		rtab_str(&t, db_get(jobs, k, 8));
		rtab_str(&t, db_get(jobs, k, 9));
		rtab_str(&t, db_get(jobs, k, 10));
		rtab_str(&t, db_get(jobs, k, 11));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no jobs");

	if (!db_get(p, i, 7) || !db_get(p, i, 9))
		strbuf_addstr(b, "<p class=\"note\">The patched kernel is not "
				 "built yet; comparisons stored under this "
				 "PLM# are shown.</p>");
	rc = render_comparison_body(r, &pg, id64(db_get(p, i, 7)),
				    id64(db_get(p, i, 9)), id, &regr, &impr);
	if (rc >= 0)
		rc = page_finish(r, &pg, digest);
	page_release(&pg);
	strbuf_release(&stem);
	strbuf_release(&href);
	strbuf_release(&tmp);
	return rc;
}

static int write_patch_pages(struct report *r)
{
	_cleanup_db_result_ struct db_result *p = NULL;
	struct db_args a = DB_ARGS_INIT;
	int rc;

	db_args_str(&a, r->o->since);
	rc = q(r, &p, patch_fp_sql, &a);
	db_args_clear(&a);
	for (int i = 0; rc >= 0 && i < db_nrows(p); i++) {
		struct strbuf name = STRBUF_INIT;
		char *dg = NULL;

		strbuf_addf(&name, "patch-%s.html", db_get(p, i, 0));
		if (page_stale(r, name.buf, db_get(p, i, 11), &dg))
			rc = render_patch(r, p, i, dg);
		free(dg);
		strbuf_release(&name);
	}
	return rc;
}

/* Kernel pairs compared without a patch (imports, `compare --base --new`). */
static const char pair_where[] =
	" FROM comparisons c WHERE c.patch_id IS NULL AND NOT EXISTS"
	" (SELECT 1 FROM patches p WHERE p.base_kernel_id = c.base_kernel_id"
	"  AND p.kernel_id = c.new_kernel_id)";

static int write_pair_pages(struct report *r)
{
	_cleanup_db_result_ struct db_result *p = NULL;
	struct strbuf sql = STRBUF_INIT;
	struct db_args a = DB_ARGS_INIT;
	int rc;

	strbuf_addf(&sql,
		    "SELECT g.b, g.n, bk.name, nk.name, md5(g.fp || (SELECT"
		    " count(*) || ',' || coalesce(max(r.id), 0) || ',' ||"
		    " count(*) FILTER (WHERE r.status IN ('done', 'imported'))"
		    " FROM runs r WHERE r.kernel_id IN (g.b, g.n)) || bk.name"
		    " || nk.name) FROM (SELECT c.base_kernel_id AS b,"
		    " c.new_kernel_id AS n, string_agg(c.id::text, ','"
		    " ORDER BY c.id) AS fp, max(c.computed_at) AS at %s"
		    " GROUP BY 1, 2) g JOIN kernels bk ON bk.id = g.b"
		    " JOIN kernels nk ON nk.id = g.n"
		    " WHERE $1::timestamptz IS NULL OR g.at >= $1::timestamptz"
		    " ORDER BY g.b, g.n",
		    pair_where);
	db_args_str(&a, r->o->since);
	rc = q(r, &p, sql.buf, &a);
	db_args_clear(&a);
	strbuf_release(&sql);
	for (int i = 0; rc >= 0 && i < db_nrows(p); i++) {
		struct strbuf stem = STRBUF_INIT, name = STRBUF_INIT;
		int64_t bk = id64(db_get(p, i, 0)), nk = id64(db_get(p, i, 1));
		char *dg = NULL;

		strbuf_addf(&stem, "compare-%lld-%lld", (long long)bk,
			    (long long)nk);
		strbuf_addf(&name, "%s.html", stem.buf);
		if (page_stale(r, name.buf, db_get(p, i, 4), &dg)) {
			struct page pg;
			int regr, impr;

			page_init(&pg, stem.buf);
			strbuf_addf(&pg.title, "%s vs %s", S(db_get(p, i, 3)),
				    S(db_get(p, i, 2)));
			nav(&pg.body, pg.title.buf);
			strbuf_addstr(&pg.body, "<h1>");
			strbuf_add_html(&pg.body, pg.title.buf);
			strbuf_addstr(&pg.body, "</h1><section class=\"facts\">"
						"<dl>");
			dl_item(&pg.body, "base kernel", db_get(p, i, 2));
			dl_item(&pg.body, "new kernel", db_get(p, i, 3));
			strbuf_addstr(&pg.body, "</dl></section>");
			rc = render_comparison_body(r, &pg, bk, nk, 0, &regr,
						    &impr);
			if (rc >= 0)
				rc = page_finish(r, &pg, dg);
			page_release(&pg);
		}
		free(dg);
		strbuf_release(&stem);
		strbuf_release(&name);
	}
	return rc;
}

/* ------------------------------------------------------------ the index */

enum {
	PS_ID,
	PS_NAME,
	PS_SUBMITTER,
	PS_BASE,
	PS_STATE,
	PS_REGR,
	PS_IMPR,
	PS_NCMP,
	PS_CREATED,
};

static const char patch_summary_sql[] =
	"WITH lc AS (SELECT DISTINCT ON (p.id, c.host_id, c.workload,"
	"  c.params, c.metric) p.id AS pid, c.verdict"
	"  FROM patches p JOIN comparisons c ON c.patch_id = p.id"
	"  OR (c.base_kernel_id = p.base_kernel_id"
	"      AND c.new_kernel_id = p.kernel_id)"
	"  ORDER BY p.id, c.host_id, c.workload, c.params, c.metric,"
	"  c.computed_at DESC, c.id DESC),"
	" cnt AS (SELECT pid, count(*) FILTER (WHERE verdict = 'regression')"
	"  AS regr, count(*) FILTER (WHERE verdict = 'improvement') AS impr,"
	"  count(*) AS n FROM lc GROUP BY pid),"
	" st AS (SELECT patch_id, string_agg(state || ' ' || n, ', ' ORDER"
	"  BY state) AS state FROM (SELECT patch_id, state, count(*) AS n"
	"  FROM jobs WHERE patch_id IS NOT NULL GROUP BY 1, 2) s"
	"  GROUP BY patch_id)"
	" SELECT p.id, p.name, p.submitter, p.base,"
	" coalesce(st.state, 'no jobs'), coalesce(cnt.regr, 0),"
	" coalesce(cnt.impr, 0), coalesce(cnt.n, 0), to_char((p.created_at) AT "
	"TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM patches p LEFT JOIN "
	"cnt ON cnt.pid = p.id"
	" LEFT JOIN st ON st.patch_id = p.id ORDER BY p.id";

/* Patches rows [from, to) of ps, newest first, as a table into pg. */
static void patch_table(struct page *pg, const struct db_result *ps, int from,
			int to, const char *name)
{
	static const struct col cols[] = {
		{ "plm", "PLM#", 1 },
		{ "name", "name", 0 },
		{ "submitter", "submitter", 0 },
		{ "base", "base", 0 },
		{ "state", "jobs", 0 },
		{ "regressions", "regressions", 1 },
		{ "improvements", "improvements", 1 },
		{ "comparisons", "comparisons", 1 },
		{ "submitted", "submitted (UTC)", 0 },
	};
	struct strbuf href = STRBUF_INIT;
	struct rtab t;

	rtab_begin(&t, pg, name, NULL, cols, (int)ARRAY_SIZE(cols));
	for (int i = to; i-- > from;) {
		const char *cls = NULL;

		if (id64(db_get(ps, i, PS_REGR)) > 0)
			cls = "v-regression";
		else if (id64(db_get(ps, i, PS_IMPR)) > 0)
			cls = "v-improvement";
		rtab_row(&t, cls);
		strbuf_reset(&href);
		strbuf_addf(&href, "patch-%s.html", db_get(ps, i, PS_ID));
		rtab_link(&t, db_get(ps, i, PS_ID), href.buf);
		rtab_link(&t, db_get(ps, i, PS_NAME), href.buf);
		rtab_str(&t, db_get(ps, i, PS_SUBMITTER));
		rtab_str(&t, db_get(ps, i, PS_BASE));
		rtab_str(&t, db_get(ps, i, PS_STATE));
		rtab_num(&t, num(db_get(ps, i, PS_REGR)), NULL);
		rtab_num(&t, num(db_get(ps, i, PS_IMPR)), NULL);
		rtab_num(&t, num(db_get(ps, i, PS_NCMP)), NULL);
		rtab_str(&t, db_get(ps, i, PS_CREATED));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no patches submitted yet");
	strbuf_release(&href);
}

static int write_patch_archives(struct report *r, const struct db_result *ps)
{
	int n = db_nrows(ps), nfull = n / PATCHES_PER_BLOCK, rc = 0;

	for (int k = 1; k <= nfull && rc >= 0; k++) {
		struct strbuf stem = STRBUF_INIT, fp = STRBUF_INIT;
		int from = (k - 1) * PATCHES_PER_BLOCK,
		    to = k * PATCHES_PER_BLOCK;
		char *dg = NULL;

		strbuf_addf(&stem, "patches-p%d.html", k);
		for (int i = from; i < to; i++)
			for (int c = 0; c <= PS_CREATED; c++)
				strbuf_addf(&fp, "%s\x1f", S(db_get(ps, i, c)));
		if (page_stale(r, stem.buf, fp.buf, &dg)) {
			struct page pg;

			strbuf_setlen(&stem, stem.len - 5);
			page_init(&pg, stem.buf);
			strbuf_addf(&pg.title, "Patches, page %d", k);
			nav(&pg.body, pg.title.buf);
			strbuf_addstr(&pg.body, "<h1>");
			strbuf_add_html(&pg.body, pg.title.buf);
			strbuf_addstr(&pg.body, "</h1>");
			archive_links(&pg.body, "patches", nfull,
				      PATCHES_PER_BLOCK, "patches");
			patch_table(&pg, ps, from, to, "patches");
			rc = page_finish(r, &pg, dg);
			page_release(&pg);
		}
		free(dg);
		strbuf_release(&stem);
		strbuf_release(&fp);
	}
	return rc;
}

static int write_index(struct report *r)
{
	_cleanup_db_result_ struct db_result *queue = NULL, *ps = NULL,
					     *pairs = NULL, *hosts = NULL,
					     *plans = NULL, *nq = NULL;
	static const struct col qcols[] = {
		{ "stp_id", "STP id", 1 },	 { "plm", "PLM#", 1 },
		{ "patch", "patch", 0 },	 { "kernel", "kernel", 0 },
		{ "plan", "plan", 0 },		 { "host", "host", 0 },
		{ "state", "state", 0 },	 { "priority", "priority", 1 },
		{ "queued", "queued (UTC)", 0 },
	};
	static const struct col kcols[] = {
		{ "new", "new kernel", 0 },
		{ "base", "base kernel", 0 },
		{ "regressions", "regressions", 1 },
		{ "improvements", "improvements", 1 },
		{ "comparisons", "comparisons", 1 },
		{ "computed", "latest (UTC)", 0 },
	};
	static const struct col hcols[] = {
		{ "host", "host", 0 },	   { "kind", "kind", 0 },
		{ "health", "health", 0 }, { "cpus", "CPUs", 1 },
		{ "runs", "runs", 1 },
	};
	static const struct col pcols[] = {
		{ "plan", "plan", 0 },
		{ "sha256", "sha256", 0 },
		{ "runs", "runs", 1 },
		{ "stored", "stored (UTC)", 0 },
	};
	struct strbuf sql = STRBUF_INIT, href = STRBUF_INIT;
	struct page pg;
	struct strbuf *b;
	struct rtab t;
	int rc, n;

	rc = q(r, &queue,
	       "SELECT j.id, j.patch_id, pa.name, k.name, pl.name, j.plan_id,"
	       " coalesce(h.name, j.host_constraint, 'any'), j.host_id,"
	       " j.state, j.priority, to_char((j.created_at) AT TIME ZONE "
	       "'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM jobs j JOIN kernels k ON "
	       "k.id = j.kernel_id"
	       " JOIN plans pl ON pl.id = j.plan_id"
	       " LEFT JOIN patches pa ON pa.id = j.patch_id"
	       " LEFT JOIN hosts h ON h.id = j.host_id"
	       " WHERE j.state NOT IN ('done', 'failed', 'cancelled')"
	       " ORDER BY j.priority DESC, j.id LIMIT 200",
	       NULL);
	if (rc >= 0)
		rc = q(r, &nq,
		       "SELECT count(*) FROM jobs WHERE state NOT IN"
		       " ('done', 'failed', 'cancelled')",
		       NULL);
	if (rc >= 0)
		rc = q(r, &ps, patch_summary_sql, NULL);
	if (rc >= 0) {
		strbuf_addf(&sql,
			    "WITH lc AS (SELECT DISTINCT ON (c.base_kernel_id,"
			    " c.new_kernel_id, c.host_id, c.workload, c.params,"
			    " c.metric) c.base_kernel_id AS b,"
			    " c.new_kernel_id AS n, c.verdict, c.computed_at"
			    " %s ORDER BY c.base_kernel_id, c.new_kernel_id,"
			    " c.host_id, c.workload, c.params, c.metric,"
			    " c.computed_at DESC, c.id DESC)"
			    " SELECT lc.b, lc.n, nk.name, bk.name,"
			    " count(*) FILTER (WHERE verdict = 'regression'),"
			    " count(*) FILTER (WHERE verdict = 'improvement'),"
			    " count(*), to_char((max(lc.computed_at)) AT TIME "
			    "ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM lc JOIN "
			    "kernels bk ON bk.id = lc.b"
			    " JOIN kernels nk ON nk.id = lc.n"
			    " GROUP BY lc.b, lc.n, nk.name, bk.name"
			    " ORDER BY max(lc.computed_at) DESC, lc.b, lc.n"
			    " LIMIT 200",
			    pair_where);
		rc = q(r, &pairs, sql.buf, NULL);
	}
	if (rc >= 0)
		rc = q(r, &hosts,
		       "SELECT h.id, h.name, h.kind, h.health, h.cpus,"
		       " (SELECT count(*) FROM runs r WHERE r.host_id = h.id)"
		       " FROM hosts h ORDER BY h.name",
		       NULL);
	if (rc >= 0)
		rc = q(r, &plans,
		       "SELECT pl.id, pl.name, left(pl.sha256, 12),"
		       " (SELECT count(*) FROM runs r WHERE r.plan_id = pl.id),"
		       " to_char((pl.created_at) AT TIME ZONE 'UTC', "
		       "'YYYY-MM-DD HH24:MI:SS') FROM plans pl ORDER BY "
		       "pl.name, pl.id",
		       NULL);
	strbuf_release(&sql);
	if (rc < 0)
		return rc;
	rc = write_patch_archives(r, ps);
	if (rc < 0)
		return rc;

	page_init(&pg, "index");
	b = &pg.body;
	strbuf_addstr(&pg.title, "schedfarm: queue and latest patches");
	nav(b, NULL);
	strbuf_addstr(b, "<h1>Queue and latest patches</h1>");
	if (r->o->now) {
		strbuf_addstr(b, "<p class=\"generated\">Generated ");
		strbuf_add_html(b, r->o->now);
		strbuf_addstr(b, ".</p>");
	}
	h2(b, "queue", "Queue");
	strbuf_addf(b, "<p>%s job%s waiting or running%s.</p>",
		    S(db_get(nq, 0, 0)),
		    strcmp(S(db_get(nq, 0, 0)), "1") ? "s" : "",
		    db_nrows(queue) < (int)id64(db_get(nq, 0, 0))
			    ? "; the first 200 by priority"
			    : "");
	rtab_begin(&t, &pg, "queue", NULL, qcols, (int)ARRAY_SIZE(qcols));
	for (int i = 0; i < db_nrows(queue); i++) {
		rtab_row(&t, NULL);
		rtab_str(&t, db_get(queue, i, 0));
		if (db_get(queue, i, 1)) {
			strbuf_reset(&href);
			strbuf_addf(&href, "patch-%s.html",
				    db_get(queue, i, 1));
			rtab_link(&t, db_get(queue, i, 1), href.buf);
			rtab_link(&t, db_get(queue, i, 2), href.buf);
		} else {
			rtab_str(&t, NULL);
			rtab_str(&t, NULL);
		}
		rtab_str(&t, db_get(queue, i, 3));
		strbuf_reset(&href);
		strbuf_addf(&href, "plan-%s.html", db_get(queue, i, 5));
		rtab_link(&t, db_get(queue, i, 4), href.buf);
		if (db_get(queue, i, 7)) {
			strbuf_reset(&href);
			strbuf_addf(&href, "host-%s.html", db_get(queue, i, 7));
			rtab_link(&t, db_get(queue, i, 6), href.buf);
		} else
			rtab_str(&t, db_get(queue, i, 6));
		rtab_str(&t, db_get(queue, i, 8));
		rtab_num(&t, num(db_get(queue, i, 9)), NULL);
		rtab_str(&t, db_get(queue, i, 10));
		rtab_end_row(&t);
	}
	rtab_end(&t, "the queue is empty");

	h2(b, "patches", "Patches, newest first");
	n = db_nrows(ps);
	patch_table(&pg, ps, front_start(n, PATCHES_PER_BLOCK), n, "patches");
	archive_links(b, "patches", n / PATCHES_PER_BLOCK, PATCHES_PER_BLOCK,
		      "patches");

	h2(b, "kernels", "Kernel comparisons without a patch");
	rtab_begin(&t, &pg, "kernels", NULL, kcols, (int)ARRAY_SIZE(kcols));
	for (int i = 0; i < db_nrows(pairs); i++) {
		const char *cls = NULL;

		if (id64(db_get(pairs, i, 4)) > 0)
			cls = "v-regression";
		else if (id64(db_get(pairs, i, 5)) > 0)
			cls = "v-improvement";
		rtab_row(&t, cls);
		strbuf_reset(&href);
		strbuf_addf(&href, "compare-%s-%s.html", db_get(pairs, i, 0),
			    db_get(pairs, i, 1));
		rtab_link(&t, db_get(pairs, i, 2), href.buf);
		rtab_str(&t, db_get(pairs, i, 3));
		rtab_num(&t, num(db_get(pairs, i, 4)), NULL);
		rtab_num(&t, num(db_get(pairs, i, 5)), NULL);
		rtab_num(&t, num(db_get(pairs, i, 6)), NULL);
		rtab_str(&t, db_get(pairs, i, 7));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no kernel comparisons yet");

	h2(b, "hosts", "Hosts");
	rtab_begin(&t, &pg, "hosts", NULL, hcols, (int)ARRAY_SIZE(hcols));
	for (int i = 0; i < db_nrows(hosts); i++) {
		const char *hl = db_get(hosts, i, 3);

		rtab_row(&t, health_class(hl));
		strbuf_reset(&href);
		strbuf_addf(&href, "host-%s.html", db_get(hosts, i, 0));
		rtab_link(&t, db_get(hosts, i, 1), href.buf);
		rtab_str(&t, db_get(hosts, i, 2));
		rtab_str(&t, hl);
		rtab_num(&t, num(db_get(hosts, i, 4)), NULL);
		rtab_num(&t, num(db_get(hosts, i, 5)), NULL);
		rtab_end_row(&t);
	}
	rtab_end(&t, "no hosts registered");

	h2(b, "plans", "Plans");
	rtab_begin(&t, &pg, "plans", NULL, pcols, (int)ARRAY_SIZE(pcols));
	for (int i = 0; i < db_nrows(plans); i++) {
		rtab_row(&t, NULL);
		strbuf_reset(&href);
		strbuf_addf(&href, "plan-%s.html", db_get(plans, i, 0));
		rtab_link(&t, db_get(plans, i, 1), href.buf);
		rtab_str(&t, db_get(plans, i, 2));
		rtab_num(&t, num(db_get(plans, i, 3)), NULL);
		rtab_str(&t, db_get(plans, i, 4));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no plans stored");

	rc = page_finish(r, &pg, NULL);
	page_release(&pg);
	strbuf_release(&href);
	return rc;
}

/* ------------------------------------------------------------ driver */

void report_stats_init(struct report_stats *st)
{
	memset(st, 0, sizeof(*st));
	strvec_init(&st->written);
}

void report_stats_release(struct report_stats *st)
{
	strvec_clear(&st->written);
	free(st->out_dir);
	st->out_dir = NULL;
}

/* mkdir -p, 0755. */
static int mkdirs(const char *dir, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int ret = 0;

	strbuf_addstr(&p, dir);
	for (size_t i = 1; i <= p.len && ret == 0; i++) {
		if (i < p.len && p.buf[i] != '/')
			continue;
		p.buf[i] = '\0';
		if (mkdir(p.buf, 0755) < 0 && errno != EEXIST) {
			strbuf_addf(err, "cannot create %s: %s", p.buf,
				    strerror(errno));
			ret = -1;
		}
		if (i < p.len)
			p.buf[i] = '/';
	}
	strbuf_release(&p);
	return ret;
}

int report_find_static(struct strbuf *out, struct strbuf *err)
{
	static const char *const rel[] = {
		"/../web-static",
		"/../../web-static",
		"/../share/schedfarm/web-static",
	};
	const char *env = getenv("SCHEDFARM_WEB_STATIC");
	struct strbuf exe = STRBUF_INIT, cand = STRBUF_INIT;
	char buf[PATH_MAX];
	ssize_t n;
	int ret = -1;

	if (env && *env) {
		strbuf_addf(&cand, "%s/page.html", env);
		if (access(cand.buf, R_OK) == 0) {
			strbuf_addstr(out, env);
			ret = 0;
		} else
			strbuf_addf(err,
				    "SCHEDFARM_WEB_STATIC=%s holds no "
				    "readable page.html",
				    env);
		strbuf_release(&cand);
		return ret;
	}
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n > 0) {
		char *slash;

		buf[n] = '\0';
		slash = strrchr(buf, '/');
		if (slash)
			*slash = '\0';
		strbuf_addstr(&exe, buf);
	}
	strbuf_addstr(err, "cannot find web-static/ (set SCHEDFARM_WEB_STATIC);"
			   " looked in");
	for (size_t i = 0; exe.len && i < ARRAY_SIZE(rel); i++) {
		strbuf_reset(&cand);
		strbuf_addf(&cand, "%s%s/page.html", exe.buf, rel[i]);
		if (access(cand.buf, R_OK) == 0) {
			strbuf_setlen(&cand, cand.len - strlen("/page.html"));
			strbuf_reset(out);
			strbuf_addbuf(out, &cand);
			strbuf_reset(err);
			ret = 0;
			break;
		}
		strbuf_addf(err, " %s%s", exe.buf, rel[i]);
	}
	strbuf_release(&exe);
	strbuf_release(&cand);
	return ret;
}

/* Read page.html and style.css; refuse a template without the CSP. */
static int load_static(struct report *r, struct strbuf *css)
{
	struct strbuf path = STRBUF_INIT;
	uint64_t h = 0xcbf29ce484222325ULL;
	int rc;

	strbuf_addf(&path, "%s/page.html", r->o->static_dir);
	rc = strbuf_read_file(&r->tmpl, path.buf, 1 << 20);
	if (rc < 0) {
		strbuf_addf(r->err, "cannot read %s: %s", path.buf,
			    strerror(-rc));
		goto out;
	}
	if (!strstr(r->tmpl.buf, "Content-Security-Policy") ||
	    !strstr(r->tmpl.buf, "default-src 'none'") ||
	    !strstr(r->tmpl.buf, "@BODY@")) {
		strbuf_addf(r->err,
			    "%s lacks the Content-Security-Policy "
			    "(default-src 'none') or @BODY@",
			    path.buf);
		rc = -1;
		goto out;
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/style.css", r->o->static_dir);
	rc = strbuf_read_file(css, path.buf, 1 << 20);
	if (rc < 0) {
		strbuf_addf(r->err, "cannot read %s: %s", path.buf,
			    strerror(-rc));
		goto out;
	}
	h = fnv1a(h, REPORT_FORMAT, strlen(REPORT_FORMAT));
	h = fnv1a(h, r->tmpl.buf, r->tmpl.len);
	snprintf(r->tmpl_hash, sizeof(r->tmpl_hash), "%016llx",
		 (unsigned long long)h);
out:
	strbuf_release(&path);
	return rc < 0 ? -1 : 0;
}

int report_write(struct db *db, const struct report_opts *o,
		 struct report_stats *st, struct strbuf *err)
{
	struct report r;
	struct strbuf css = STRBUF_INIT;
	struct runlist rl = { NULL, NULL };
	char *abs = NULL;
	int rc, in_tx = 0;

	memset(&r, 0, sizeof(r));
	r.db = db;
	r.o = o;
	r.st = st;
	r.err = err;
	strbuf_init(&r.tmpl, 0);
	strvec_init(&r.rec_pages);
	strvec_init(&r.rec_digests);

	rc = mkdirs(o->out_dir, err);
	if (rc < 0)
		goto out;
	{
		struct stat sb;

		if (stat(o->out_dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			strbuf_addf(err, "%s is not a folder", o->out_dir);
			rc = -1;
			goto out;
		}
	}
	abs = realpath(o->out_dir, NULL);
	if (!abs) {
		strbuf_addf(err, "cannot resolve %s: %s", o->out_dir,
			    strerror(errno));
		rc = -1;
		goto out;
	}
	r.out = abs;
	free(st->out_dir);
	st->out_dir = xstrdup(abs);
	rc = load_static(&r, &css);
	if (rc < 0)
		goto out;
	/* One snapshot for every page, and the digests recorded with it. */
	rc = db_cmd(db, err, "BEGIN ISOLATION LEVEL REPEATABLE READ");
	if (rc < 0)
		goto out;
	in_tx = 1;
	if (o->since) {
		struct db_args a = DB_ARGS_INIT;

		/* Check the date once, so a typo fails with a clear word. */
		db_args_str(&a, o->since);
		rc = db_exec_args(db, NULL, err, "SELECT $1::timestamptz", &a);
		db_args_clear(&a);
		if (rc < 0)
			goto out;
	}
	rc = load_digests(&r);
	if (rc >= 0)
		rc = write_if_changed(&r, "style.css", css.buf, css.len);
	if (rc >= 0)
		rc = write_run_pages(&r);
	if (rc >= 0)
		rc = write_patch_pages(&r);
	if (rc >= 0)
		rc = write_pair_pages(&r);
	if (rc >= 0)
		rc = runlist_load(&r, &rl);
	if (rc >= 0)
		rc = write_host_pages(&r, &rl);
	if (rc >= 0)
		rc = write_plan_pages(&r, &rl);
	if (rc >= 0)
		rc = write_index(&r);
	if (rc >= 0)
		rc = record_digests(&r);
	if (rc >= 0) {
		rc = db_commit(db, err);
		in_tx = 0;
	}
out:
	if (in_tx)
		db_rollback(db);
	runlist_release(&rl);
	for (size_t i = 0; i < r.ndig; i++) {
		free(r.dig[i].page);
		free(r.dig[i].digest);
	}
	free(r.dig);
	free(r.kernel_logs);
	strvec_clear(&r.rec_pages);
	strvec_clear(&r.rec_digests);
	strbuf_release(&r.tmpl);
	strbuf_release(&css);
	free(abs);
	return rc < 0 ? rc : 0;
}

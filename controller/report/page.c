/*
 * page.c - one page of the report, from open to file, and the pieces
 * every page kind builds its body from.
 *
 * Whether a page is rendered at all is decided here too: page_refresh()
 * is the one stale->render step, comparing the digest of the page's
 * fingerprint (with the templates' hash) to the one report_pages holds
 * for it (r->dig, loaded by the driver, report.c).
 *
 * A page exists only inside page_render(): opened empty, filled by its
 * kind's page_fill_fn, put into the template (web-static/page.html, whose
 * only markers are @TITLE@ and @BODY@), and written with the data files
 * it collected (CSV, JSON, long logs) by write_file(), which leaves a
 * file alone when its bytes are unchanged and otherwise replaces it by
 * rename, so a reader never sees half a page.  The pieces: numbers as a
 * reader wants them, the page opening (page_open()), facts lists,
 * headings, long logs, and the blocks of a long listing.
 *
 * Everything that reaches HTML goes through strbuf_add_html(), which also
 * writes controls and bidi characters as visible escapes; the .txt and
 * CSV files beside a page get the same (strbuf_add_printable()).  hrefs
 * are built only from numeric ids and metric slugs ([a-z0-9-]), so no
 * user string ever lands in a URL, and they are escaped all the same.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "store/db.h"
#include "parse.h"
#include "report/page.h"
#include "fs.h"
#include "banned.h"

/* What a page shows inline of a log; the whole log is in a .txt beside. */
#define LOG_INLINE_MAX (64 * 1024)

/* -------------------------------------------------------------- numbers */

/* A number from a result column: NaN when NULL or not a number. */
double num(const char *s)
{
	double v;

	if (!s || parse_double(s, -DBL_MAX, DBL_MAX, &v, NULL) < 0)
		return NAN;
	return v;
}

/* An id or count from a result column: 0 when NULL or not an integer. */
int64_t id64(const char *s)
{
	int64_t v;

	if (!s || parse_i64(s, INT64_MIN, INT64_MAX, &v, NULL) < 0)
		return 0;
	return v;
}

/* A value as a reader wants it: integers plain, others to 2 decimals
 * from 1 up, 4 significant digits below. */
void fmt_value(struct strbuf *out, double v)
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

/* A %change: sign and two decimals; a dash when not finite. */
void fmt_pct(struct strbuf *out, double v)
{
	if (!isfinite(v))
		strbuf_addstr(out, "\xe2\x80\x94");
	else
		strbuf_addf(out, "%+.2f%%", v);
}

/* A number cell of a plain HTML table: v as fmt_value() shows it. */
void td_value(struct strbuf *out, double v)
{
	strbuf_addstr(out, "<td class=\"num\">");
	fmt_value(out, v);
	strbuf_addstr(out, "</td>");
}

/* The same for a percentage, as fmt_pct() shows it. */
void td_pct(struct strbuf *out, double v)
{
	strbuf_addstr(out, "<td class=\"num\">");
	fmt_pct(out, v);
	strbuf_addstr(out, "</td>");
}

/* ------------------------------------------------------ fingerprints */

/*
 * FNV-1a over len bytes of s, continuing from h (start from
 * 0xcbf29ce484222325).  Not for security: it only tells whether what a
 * page shows has changed.
 */
uint64_t fnv1a(uint64_t h, const char *s, size_t len)
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

/* bsearch() and sort order of struct digest: by page name, bytewise. */
static int digest_cmp(const void *a, const void *b)
{
	return strcmp(((const struct digest *)a)->page,
		      ((const struct digest *)b)->page);
}

/*
 * Is the page name (foo.html) stale by fingerprint fp: no digest stored
 * for it, a different one (data or templates changed), or no file on
 * disk?  Counts it as checked, and as unchanged when it is not stale.  Returns
 * 1 with *ret_digest the digest to record once the page is written (the caller
 * frees it), or 0.
 */
int page_stale(struct report *r, const char *name, const char *fp,
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
		r->st->pages_unchanged++;
		free(dg);
		return 0;
	}
	*ret_digest = dg;
	return 1;
}

/*
 * The stale->render step every page kind goes through: when the page
 * stem.html is stale by fingerprint fp (see page_stale()), render it with
 * fill and queue its new digest.  Returns 0 (rendered or still fresh) or
 * negative with r->err filled.  Run pages, which fetch their data a batch
 * of stale pages at a time, call its two halves, page_stale() and
 * page_render(), themselves.
 */
int page_refresh(struct report *r, const char *stem, const char *fp,
		 page_fill_fn *fill, void *ctx)
{
	struct strbuf name = STRBUF_INIT;
	char *dg = NULL;
	int rc = 0;

	strbuf_addf(&name, "%s.html", stem);
	if (page_stale(r, name.buf, fp, &dg))
		rc = page_render(r, stem, dg, fill, ctx);
	free(dg);
	strbuf_release(&name);
	return rc;
}

/* The stem of a metric's page ("metric-SLUG-HASH"): the index links to
 * it (page_index.c), page_metric.c writes it. */
void metric_page_stem(const char *metric, struct strbuf *out)
{
	uint64_t h = fnv1a(0xcbf29ce484222325ULL, metric, strlen(metric));
	size_t start = out->len;

	strbuf_addstr(out, "metric-");
	for (const char *p = metric; *p && out->len - start < 48; p++) {
		unsigned char c = (unsigned char)*p;

		strbuf_addch(out, isalnum(c) ? (char)tolower(c) : '-');
	}
	strbuf_addf(out, "-%08llx", (unsigned long long)(h & 0xffffffffULL));
}

/* ---------------------------------------------------------------- pages */

/* An empty page that will be stem.html; page_release() frees it. */
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
void page_add_file(struct page *pg, const char *name, struct strbuf *sb)
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
	struct strbuf path = STRBUF_INIT;
	int ret;

	strbuf_addf(&path, "%s/%s", r->out, name);
	ret = force ? write_file_atomic(path.buf, data, len, 0644, 0, r->err)
		    : write_file_if_changed(path.buf, data, len, 0644, 0,
					    r->err);
	if (ret == 0 && force)
		ret = 1;
	if (ret == 1) {
		r->st->files_written++;
		if (ends_with(name, ".html"))
			r->st->pages_written++;
		strvec_push(&r->st->written, name);
	}
	strbuf_release(&path);
	return ret;
}

/* write_file() without force: for files that are not the index. */
int write_if_changed(struct report *r, const char *name, const char *data,
		     size_t len)
{
	return write_file(r, name, data, len, 0);
}

/*
 * Put the page into the template (@TITLE@, @BODY@ are the only markers),
 * write it and its data files, and queue its digest (NULL: not tracked,
 * the index) for recording.  Markers inside an HTML comment are text,
 * copied as they are: the template's own comment names them, and filling
 * them there put a second copy of every page in its leading comment.
 * Returns 0 or negative with err filled.
 */
static int page_finish(struct report *r, struct page *pg, const char *digest)
{
	struct strbuf html = STRBUF_INIT;
	const char *t = r->tmpl.buf, *at;
	int ret = 0;

	strbuf_grow(&html, r->tmpl.len + pg->body.len + 256);
	while ((at = strchr(t, '@'))) {
		const char *c = strstr(t, "<!--"), *end;

		if (c && c < at) {
			end = strstr(c + 4, "-->");
			end = end ? end + 3 : c + strlen(c);
			strbuf_add(&html, t, (size_t)(end - t));
			t = end;
			continue;
		}
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

/*
 * Open the page stem.html, let fill write its title, body and data
 * files, then put it into the template and write it (digest: what to
 * record for it, NULL for the index, which is written every time).  A
 * page whose fill fails is dropped unwritten.  Returns 0 or negative
 * with r->err filled.
 */
int page_render(struct report *r, const char *stem, const char *digest,
		page_fill_fn *fill, void *ctx)
{
	struct page pg;
	int rc;

	page_init(&pg, stem);
	rc = fill(r, &pg, ctx);
	if (rc >= 0)
		rc = page_finish(r, &pg, digest);
	page_release(&pg);
	return rc;
}

/* ---------------------------------------------------------- HTML pieces */

/* A definition list row: label, then escaped value (skipped when NULL). */
void dl_item(struct strbuf *b, const char *label, const char *value)
{
	if (!value)
		return;
	strbuf_addstr(b, "<dt>");
	strbuf_add_html(b, label);
	strbuf_addstr(b, "</dt><dd>");
	strbuf_add_html(b, value);
	strbuf_addstr(b, "</dd>");
}

/* The same with the value linking to href (ours, from ids). */
void dl_link(struct strbuf *b, const char *label, const char *value,
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

/* A section heading; id (ours, a fixed word) is its anchor. */
void h2(struct strbuf *b, const char *id, const char *text)
{
	strbuf_addf(b, "<h2 id=\"%s\">", id);
	strbuf_add_html(b, text);
	strbuf_addstr(b, "</h2>");
}

/* The nav line: the index, then crumb (the page's title) when not NULL. */
void nav(struct strbuf *b, const char *crumb)
{
	strbuf_addstr(b, "<nav><a href=\"index.html\">schedfarm report</a>");
	if (crumb) {
		strbuf_addstr(b, " \xe2\x80\xba ");
		strbuf_add_html(b, crumb);
	}
	strbuf_addstr(b, "</nav>");
}

/*
 * The opening of every page but the index: the title (printf-style),
 * which the template also puts into <title>, as the crumb of the nav
 * line and as the <h1>.
 */
void page_open(struct page *pg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&pg->title, fmt, ap);
	va_end(ap);
	nav(&pg->body, pg->title.buf);
	strbuf_addstr(&pg->body, "<h1>");
	strbuf_add_html(&pg->body, pg->title.buf);
	strbuf_addstr(&pg->body, "</h1>");
}

/* A list of facts (dl_item(), dl_link()) opens and closes with these. */
void facts_begin(struct strbuf *b)
{
	strbuf_addstr(b, "<section class=\"facts\"><dl>");
}

void facts_end(struct strbuf *b)
{
	strbuf_addstr(b, "</dl></section>");
}

/*
 * The hardware facts of a host, for its own page and a run's: columns
 * col.. of row hold sockets, cores per socket, threads per core, NUMA
 * nodes, CPUs and memory (MiB), in that order.
 */
void dl_hardware(struct strbuf *b, const struct db_result *res, int row,
		 int col)
{
	struct strbuf mem = STRBUF_INIT;

	dl_item(b, "sockets", db_get(res, row, col));
	dl_item(b, "cores per socket", db_get(res, row, col + 1));
	dl_item(b, "threads per core", db_get(res, row, col + 2));
	dl_item(b, "NUMA nodes", db_get(res, row, col + 3));
	dl_item(b, "CPUs", db_get(res, row, col + 4));
	if (db_get(res, row, col + 5)) {
		strbuf_addf(&mem, "%s MiB", db_get(res, row, col + 5));
		dl_item(b, "memory", mem.buf);
	}
	strbuf_release(&mem);
}

/*
 * A log or other long text, inline; when longer than LOG_INLINE_MAX only
 * its tail is inline and all of it goes to a .txt file beside the page
 * (a short log is not worth a file: a report holds thousands of runs),
 * with its control and bidi characters escaped, since a reader may cat
 * it to a terminal.
 */
void add_log(struct page *pg, const char *suffix, const char *what,
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
		strbuf_add_printable(&f, text, PRINTABLE_LINES);
		page_add_file(pg, fname.buf, &f);
		strbuf_release(&fname);
	}
	strbuf_addstr(&pg->body, "<pre class=\"log\" aria-label=\"");
	strbuf_add_html(&pg->body, what);
	strbuf_addstr(&pg->body, "\">");
	strbuf_add_html(&pg->body, text + from);
	strbuf_addstr(&pg->body, "</pre>");
}

/* Rows of a bad host are red; retired and maintenance ones greyed. */
const char *health_class(const char *h)
{
	if (!h)
		return NULL;
	if (!strcmp(h, "bad"))
		return "health-bad";
	if (!strcmp(h, "retired") || !strcmp(h, "maintenance"))
		return "health-off";
	return NULL;
}

/* ------------------------------------------------------ listing blocks */

/*
 * Blocks of a listing of n items: nfull complete blocks of per items get
 * archive pages; the front page shows the last complete block and the
 * incomplete one, so one new item changes the front page only.
 */
int front_start(int n, int per)
{
	int nfull = n / per;

	return nfull ? (nfull - 1) * per : 0;
}

/* Links to the archive pages prefix-p1.html .. prefix-pN.html. */
void archive_links(struct strbuf *b, const char *prefix, int nfull, int per,
		   const char *what)
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

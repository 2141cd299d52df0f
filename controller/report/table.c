/*
 * table.c - the report's tables, written three ways at once: HTML for the
 * page, CSV and JSON files beside it, so every number a page shows can be
 * taken away at full precision.
 *
 * A table is filled cell by cell (rtab_row(), rtab_str(), rtab_link(),
 * rtab_num(), rtab_end_row()) in the order of its columns; rtab_end()
 * appends the HTML to the page with links to the two files and attaches
 * the files to the page, named after the page and the table.  Text is
 * escaped for each format here, so callers pass strings as stored.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "parse.h"
#include "report/page.h"
#include "report/report.h"
#include "banned.h"

/*
 * Would a spreadsheet read s as a formula?  A cell that begins with =, +,
 * -, @, a tab or a carriage return (OWASP, "CSV Injection") -- unless it
 * is a plain number: a negative %change must stay a number.
 */
static int csv_formula_like(const char *s)
{
	double d;

	if (!*s || !strchr("=+-@\t\r", *s))
		return 0;
	return parse_double(s, -DBL_MAX, DBL_MAX, &d, NULL) < 0;
}

/* See report.h: one CSV field, quoted as RFC 4180 asks when it must be,
 * a cell a spreadsheet would run as a formula prefixed with ' so that it
 * is shown as the text it is, and what would act on a terminal that shows
 * the file (ESC, C1, bidi controls) escaped as strbuf_add_printable()
 * does; line breaks and tabs stay, quoted. */
void report_csv_field(struct strbuf *out, const char *s)
{
	struct strbuf safe = STRBUF_INIT;
	int quote_char;

	s = S(s);
	if (!printable_is_clean(s, strlen(s), PRINTABLE_LINES)) {
		strbuf_add_printable(&safe, s, PRINTABLE_LINES);
		s = safe.buf;
	}
	quote_char = csv_formula_like(s);
	if (!strpbrk(s, ",\"\r\n") && *s != ' ' &&
	    !(*s && s[strlen(s) - 1] == ' ')) {
		if (quote_char)
			strbuf_addch(out, '\'');
		strbuf_addstr(out, s);
		strbuf_release(&safe);
		return;
	}
	strbuf_addch(out, '"');
	if (quote_char)
		strbuf_addch(out, '\'');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(out, '"');
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
	strbuf_release(&safe);
}

/*
 * Start table name (t-name in the HTML, pg's stem-name.csv/.json beside)
 * with an optional caption and ncols columns; cols must outlive t.  The
 * table is the page's once rtab_end() has run.
 */
void rtab_begin(struct rtab *t, struct page *pg, const char *name,
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
	strbuf_init(&t->grp, 0);
	strbuf_init(&t->last_grp, 0);
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
		if (cols[i].num != RTAB_GROUP) {
			strbuf_addf(&t->html, "<th%s>",
				    cols[i].num == 1 ? " class=\"num\""
				    : cols[i].num == RTAB_WORDS
					    ? " class=\"words\""
					    : "");
			strbuf_add_html(&t->html, cols[i].label);
			strbuf_addstr(&t->html, "</th>");
			t->shown++;
		}
		if (i)
			strbuf_addch(&t->csv, ',');
		report_csv_field(&t->csv, cols[i].key);
	}
	strbuf_addstr(&t->html, "</tr></thead><tbody>");
	strbuf_addstr(&t->csv, "\r\n");
	strbuf_addch(&t->json, '[');
}

/* Start a row, with HTML class cls (a word of ours) unless NULL or "". */
void rtab_row(struct rtab *t, const char *cls)
{
	t->row_at = t->html.len;
	if (cls && *cls)
		strbuf_addf(&t->html, "<tr class=\"%s\">", cls);
	else
		strbuf_addstr(&t->html, "<tr>");
	strbuf_addstr(&t->json, t->rows ? ",\n{" : "\n{");
	strbuf_reset(&t->grp);
	t->cell = 0;
	t->rows++;
}

/* The separators before a cell, and its key in the JSON object. */
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
void rtab_str(struct rtab *t, const char *s)
{
	rtab_link(t, s, NULL);
}

/*
 * A text cell linking to href (built by us from ids, never from input);
 * with href NULL a plain text cell.
 */
void rtab_link(struct rtab *t, const char *s, const char *href)
{
	if (t->cell >= t->ncols)
		return;
	rtab_key(t);
	if (t->cols[t->cell].num == RTAB_GROUP) {
		/* Into the heading, with its column so it can be found. */
		if (t->grp.len)
			strbuf_addstr(&t->grp, " \xc2\xb7 ");
		strbuf_addf(&t->grp, "<span data-col=\"%d\">", t->cell);
		strbuf_add_html(&t->grp, S(s));
		strbuf_addstr(&t->grp, "</span>");
	} else if (href) {
		strbuf_addstr(&t->html, "<td><a href=\"");
		strbuf_add_html(&t->html, href);
		strbuf_addstr(&t->html, "\">");
		strbuf_add_html(&t->html, S(s));
		strbuf_addstr(&t->html, "</a></td>");
	} else {
		strbuf_addstr(&t->html, t->cols[t->cell].num == RTAB_WORDS
						? "<td class=\"words\">"
						: "<td>");
		strbuf_add_html(&t->html, S(s));
		strbuf_addstr(&t->html, "</td>");
	}
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
void rtab_num(struct rtab *t, double v, const char *shown)
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

/*
 * End a row; cells not given are empty (null in JSON).  When its group
 * values differ from the row before, a heading row with them goes in
 * front of it.
 */
void rtab_end_row(struct rtab *t)
{
	while (t->cell < t->ncols)
		rtab_str(t, NULL);
	strbuf_addstr(&t->html, "</tr>");
	if (t->grp.len && strcmp(t->grp.buf, t->last_grp.buf)) {
		struct strbuf row = STRBUF_INIT;

		strbuf_add(&row, t->html.buf + t->row_at,
			   t->html.len - t->row_at);
		strbuf_setlen(&t->html, t->row_at);
		strbuf_addf(&t->html,
			    "<tr class=\"group\"><th colspan=\"%d\">%s</th>"
			    "</tr>",
			    t->shown, t->grp.buf);
		strbuf_addbuf(&t->html, &row);
		strbuf_release(&row);
		strbuf_reset(&t->last_grp);
		strbuf_addbuf(&t->last_grp, &t->grp);
	}
	strbuf_addstr(&t->csv, "\r\n");
	strbuf_addch(&t->json, '}');
}

/* Close the table, append it to the page with links to its data files. */
void rtab_end(struct rtab *t, const char *empty)
{
	struct strbuf fname = STRBUF_INIT;
	struct page *pg = t->pg;

	if (!t->rows && empty) {
		strbuf_addf(&t->html, "<tr><td class=\"empty\" colspan=\"%d\">",
			    t->shown);
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
	strbuf_release(&t->grp);
	strbuf_release(&t->last_grp);
	free(t->name);
}

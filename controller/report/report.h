/*
 * report.h - the static HTML report: index, patch, comparison, run, host
 * and plan pages with inline SVG plots and CSV/JSON beside every table.
 *
 * The report is a folder anyone can serve or open from disk.  Pages carry
 * no script and no external resource; each sets a Content-Security-Policy
 * that forbids both, and every string that came from a user, a plan, a
 * patch or an agent is HTML-escaped.  Verdicts and statistics are read
 * from the comparisons table as `schedfarm compare` stored them; nothing
 * here recomputes them.
 *
 * Incremental: for every page a fingerprint of the data it shows is
 * computed in SQL and kept in report_pages (schema 003) per output folder;
 * a page is rendered only when its fingerprint, the templates or the file
 * on disk changed, and a file is written only when its bytes differ.  The
 * index is rendered every time.  Listings (the patches of the index, the
 * runs of a host or a plan) are cut into fixed blocks counted from the
 * oldest item, so a new item changes the front page and never the
 * archive pages of older blocks.  A patch page depends on the patch, its
 * jobs, their runs and its stored comparisons: a base-kernel run made for
 * another patch reaches it with the next `schedfarm compare`, so one new
 * run rewrites a handful of pages, not every patch on that base.
 */
#ifndef SCHEDFARM_REPORT_H
#define SCHEDFARM_REPORT_H

#include "store/db.h"
#include "strbuf.h"
#include "strvec.h"
#include "report/opts.h"

void report_stats_init(struct report_stats *st);
void report_stats_release(struct report_stats *st);

/*
 * Write the report for db into o->out_dir.  Returns 0, or a negative
 * number with err saying what failed (a statement, a file, a template);
 * pages written before a failure stay, and their fingerprints are not
 * recorded, so the next run writes them again.  st is filled either way.
 * o->out_dir (made when missing) must resolve to a folder of the user
 * the farm runs as that group and others cannot write to, as the state
 * folder's own must (home.h); a link left inside it is replaced, not
 * followed.
 */
int report_write(struct db *db, const struct report_opts *o,
		 struct report_stats *st, struct strbuf *err);

/*
 * Find web-static/: $SCHEDFARM_WEB_STATIC, else next to the binary
 * (<exe>/../web-static, <exe>/../../web-static for a build folder), else
 * <exe>/../share/schedfarm/web-static (installed).  Returns 0 with the
 * folder in out, or -1 with err listing where it looked.
 */
int report_find_static(struct strbuf *out, struct strbuf *err);

/* Append s as one CSV field (RFC 4180 quoting when needed; a cell that
 * is not a number and begins with = + - @ tab or CR gets a leading ',
 * so that a spreadsheet shows it instead of running it). */
void report_csv_field(struct strbuf *out, const char *s);

#endif

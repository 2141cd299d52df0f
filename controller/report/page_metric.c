/*
 * page_metric.c - metric pages (metric-SLUG.html): one metric's history
 * on every host, each series plotted with its change points marked
 * (history.c), and the table of its change points.  A metric page is
 * rendered again when any of its series was analysed again (its points or
 * its change points changed).  The index lists them (page_index.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "store/db.h"
#include "store/pages.h"
#include "report/page.h"
#include "report/page_kinds.h"
#include "banned.h"

/* Fill the page of the metric in ctx (a page_fill_fn). */
static int fill_metric(struct report *r, struct page *pg, void *ctx)
{
	const char *metric = ctx;

	page_open(pg, "Metric %s", metric);
	return render_history(r, pg, 0, NULL, metric);
}

/*
 * Write the page of every metric with a history (with --since: one of
 * its series analysed since), when stale: its fingerprint covers its
 * series' fingerprints and the times they were analysed.  Returns 0 or
 * negative with r->err filled.
 */
int write_metric_pages(struct report *r)
{
	_cleanup_db_result_ struct db_result *m = NULL;
	int rc;

	/* With --since, only metrics a series of which was analysed since. */
	rc = pages_metrics(r->db, r->o->since, &m, r->err);
	for (int i = 0; rc >= 0 && i < db_nrows(m); i++) {
		struct strbuf stem = STRBUF_INIT;
		char *metric = xstrdup(db_get(m, i, 0));

		metric_page_stem(metric, &stem);
		rc = page_refresh(r, stem.buf, db_get(m, i, 1), fill_metric,
				  metric);
		strbuf_release(&stem);
		free(metric);
	}
	return rc;
}

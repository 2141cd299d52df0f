/*
 * page_pair.c - kernel-pair pages (compare-BASE-NEW.html): two kernels
 * compared without a patch (an import, `schedfarm compare --base --new`),
 * the two names and then the comparison body (comparison.c).  A pair that
 * a patch covers is shown on the patch's page instead (store/pages.c
 * says which pairs are left, for the index too).
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

/* A kernel-pair page being filled: its row of pages_pairs(). */
struct pair_page {
	const struct db_result *p;
	int i;
};

/* Fill the page of kernel pair row pp->i (a page_fill_fn). */
static int fill_pair(struct report *r, struct page *pg, void *ctx)
{
	const struct pair_page *pp = ctx;
	const struct db_result *p = pp->p;
	int i = pp->i;

	page_open(pg, "%s vs %s", S(db_get(p, i, 3)), S(db_get(p, i, 2)));
	facts_begin(&pg->body);
	dl_item(&pg->body, "base kernel", db_get(p, i, 2));
	dl_item(&pg->body, "new kernel", db_get(p, i, 3));
	facts_end(&pg->body);
	return render_comparison_body(r, pg, id64(db_get(p, i, 0)),
				      id64(db_get(p, i, 1)), 0);
}

/*
 * Write the page of every kernel pair compared without a patch
 * (pages_pairs()) with a comparison from --since on, when stale: its
 * fingerprint covers the pair's comparisons and the runs of both kernels.
 * Returns 0 or negative with r->err filled.
 */
int write_pair_pages(struct report *r)
{
	_cleanup_db_result_ struct db_result *p = NULL;
	int rc;

	rc = pages_pairs(r->db, r->o->since, &p, r->err);
	for (int i = 0; rc >= 0 && i < db_nrows(p); i++) {
		struct strbuf stem = STRBUF_INIT;
		struct pair_page pp = { p, i };

		strbuf_addf(&stem, "compare-%lld-%lld",
			    (long long)id64(db_get(p, i, 0)),
			    (long long)id64(db_get(p, i, 1)));
		rc = page_refresh(r, stem.buf, db_get(p, i, 4), fill_pair, &pp);
		strbuf_release(&stem);
	}
	return rc;
}

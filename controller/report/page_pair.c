/*
 * page_pair.c - kernel-pair pages (compare-BASE-NEW.html): two kernels
 * compared without a patch (an import, `schedfarm compare --base --new`),
 * the two names and then the comparison body (comparison.c).  A pair that
 * a patch covers is shown on the patch's page instead; pair_where says
 * which pairs are left, for the index too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "store/db.h"
#include "report/report-int.h"
#include "banned.h"

/* Kernel pairs compared without a patch (imports, `compare --base --new`). */
const char pair_where[] =
	" FROM comparisons c WHERE c.patch_id IS NULL AND NOT EXISTS"
	" (SELECT 1 FROM patches p WHERE p.base_kernel_id = c.base_kernel_id"
	"  AND p.kernel_id = c.new_kernel_id)";

/* A kernel-pair page being filled: its row of the statement below. */
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
 * Write the page of every kernel pair of pair_where with a comparison
 * from --since on, when stale: its fingerprint covers the pair's
 * comparisons and the runs of both kernels.  Returns 0 or negative with
 * r->err filled.
 */
int write_pair_pages(struct report *r)
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

/*
 * page_plan.c - plan pages (plan-ID.html): the plan's text and the runs
 * made from it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "store/db.h"
#include "report/report-int.h"
#include "banned.h"
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

/* A plan page being filled: its row of plan_sql and its runs. */
struct plan_page {
	const struct db_result *p;
	int i;
	const struct runlist *rl;
	int *idx, n;
};

/* Fill the page of plan row pp->i (a page_fill_fn). */
static int fill_plan(struct report *r, struct page *pg, void *ctx)
{
	const struct plan_page *pp = ctx;
	const struct db_result *p = pp->p;
	struct strbuf *b = &pg->body;
	int i = pp->i;

	(void)r;
	page_open(pg, "Plan %s", S(db_get(p, i, 1)));
	facts_begin(b);
	dl_item(b, "sha256", db_get(p, i, 2));
	dl_item(b, "stored", db_get(p, i, 4));
	facts_end(b);
	h2(b, "body", "The plan");
	strbuf_addstr(b, "<pre class=\"plan\">");
	strbuf_add_html(b, db_get(p, i, 3));
	strbuf_addstr(b, "</pre>");
	runs_section(pg, pp->rl, pp->idx, pp->n, pg->stem, 1);
	return 0;
}

int write_plan_pages(struct report *r, const struct runlist *rl)
{
	_cleanup_db_result_ struct db_result *p = NULL;
	struct db_args a = DB_ARGS_INIT;
	int rc;

	db_args_str(&a, r->o->since);
	rc = q(r, &p, plan_sql, &a);
	db_args_clear(&a);
	for (int i = 0; rc >= 0 && i < db_nrows(p); i++) {
		struct strbuf stem = STRBUF_INIT, fp = STRBUF_INIT,
			      back = STRBUF_INIT, href = STRBUF_INIT;
		int64_t id = id64(db_get(p, i, 0));
		struct plan_page pp = { p, i, rl, NULL, 0 };

		pp.idx = runlist_select(rl, RL_PLAN, id, &pp.n);
		strbuf_addf(&stem, "plan-%lld", (long long)id);
		strbuf_addf(&fp, "%s|%d|", S(db_get(p, i, 5)), pp.n);
		runlist_fp(rl, pp.idx, front_start(pp.n, RUNS_PER_BLOCK), pp.n,
			   &fp);
		rc = page_refresh(r, stem.buf, fp.buf, fill_plan, &pp);
		strbuf_addf(&back, "Plan %s", S(db_get(p, i, 1)));
		strbuf_addf(&href, "%s.html", stem.buf);
		if (rc >= 0)
			rc = write_run_archives(r, rl, pp.idx, pp.n, stem.buf,
						back.buf, back.buf, href.buf,
						1);
		free(pp.idx);
		strbuf_release(&stem);
		strbuf_release(&fp);
		strbuf_release(&back);
		strbuf_release(&href);
	}
	return rc;
}

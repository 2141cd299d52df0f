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

int write_plan_pages(struct report *r, const struct runlist *rl)
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

/*
 * page_plan.c - plan pages (plan-ID.html): the plan's text and digest,
 * then the runs made from it as runlist.c lists them for every struct
 * run_owner.  A plan's fingerprint also covers the states of its jobs.
 * The text is shown with its passwords masked (conninfo.h): a plan may
 * carry a database password for sysbench, which the page must not
 * publish.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "conninfo.h"
#include "store/db.h"
#include "store/pages.h"
#include "report/page.h"
#include "report/page_kinds.h"
#include "banned.h"

/* What a plan page shows above its runs: its facts and its text. */
static int plan_body(struct report *r, struct page *pg,
		     const struct db_result *p, int i)
{
	struct strbuf *b = &pg->body, text = STRBUF_INIT;

	(void)r;
	facts_begin(b);
	dl_item(b, "sha256", db_get(p, i, 2));
	dl_item(b, "stored", db_get(p, i, 4));
	facts_end(b);
	h2(b, "body", "The plan");
	strbuf_addstr(b, "<pre class=\"plan\">");
	text_mask_passwords(db_get(p, i, 3), &text);
	strbuf_add_html(b, text.buf);
	strbuf_addstr(b, "</pre>");
	strbuf_release(&text);
	return 0;
}

static const struct run_owner plan_pages = {
	.prefix = "plan",
	.title = "Plan",
	.load = pages_plans,
	.fp_col = 5,
	.rl_col = RL_PLAN,
	.by_host = 1,
	.body = plan_body,
};

/* Write the plan pages and their archive pages (see runlist.c). */
int write_plan_pages(struct report *r, const struct runlist *rl)
{
	return write_run_owner_pages(r, rl, &plan_pages);
}

/*
 * page_host.c - host pages (host-ID.html): the host's facts and health,
 * what its agent reported, its health history (host_events), the history
 * of its results with their change points (history.c), then its runs as
 * runlist.c lists them for every struct run_owner.  A host page is
 * rendered again when any of those change, or the newest block of its
 * runs does.
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

/* Columns of pages_hosts(); HC_FP is the fingerprint of the rest. */
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

/*
 * What a host page shows above its runs: the host's facts, what its agent
 * reported, and its health history.
 */
static int host_body(struct report *r, struct page *pg,
		     const struct db_result *h, int i)
{
	_cleanup_db_result_ struct db_result *ev = NULL;
	static const struct col ecols[] = {
		{ "at", "at (UTC)", 0 },
		{ "old_health", "from", 0 },
		{ "new_health", "to", 0 },
		{ "reason", "why", 0 },
	};
	int64_t id = id64(db_get(h, i, HC_ID));
	struct strbuf *b = &pg->body;
	struct rtab t;
	int rc;

	rc = pages_host_events(r->db, id, &ev, r->err);
	if (rc < 0)
		return rc;
	facts_begin(b);
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
	dl_hardware(b, h, i, HC_SOCKETS);
	dl_item(b, "registered", db_get(h, i, HC_CREATED));
	facts_end(b);
	if (db_get(h, i, HC_AGENT)) {
		strbuf_addstr(b, "<details><summary>What the agent reported"
				 "</summary><pre class=\"json\">");
		strbuf_add_html(b, db_get(h, i, HC_AGENT));
		strbuf_addstr(b, "</pre></details>");
	}
	h2(b, "health", "Health history");
	rtab_begin(&t, pg, "health", NULL, ecols, (int)ARRAY_SIZE(ecols));
	for (int k = 0; k < db_nrows(ev); k++) {
		const char *nh = db_get(ev, k, 2);

		rtab_row(&t, health_class(nh));
		for (int c = 0; c < 4; c++)
			rtab_str(&t, db_get(ev, k, c));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no health changes recorded");
	return render_history(r, pg, id, db_get(h, i, HC_NAME), NULL);
}

static const struct run_owner host_pages = {
	.prefix = "host",
	.title = "Host",
	.load = pages_hosts,
	.fp_col = HC_FP,
	.rl_col = RL_HOST,
	.by_host = 0,
	.body = host_body,
};

/* Write the host pages and their archive pages (see runlist.c). */
int write_host_pages(struct report *r, const struct runlist *rl)
{
	return write_run_owner_pages(r, rl, &host_pages);
}

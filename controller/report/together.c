/*
 * together.c - the "Together" section of a together run's page: the
 * members' figures side by side, one row per iteration (seed 001's two
 * kernel compiles: 1m53s in /a against 1m51s in /b), from the run's
 * result rows: each measured member's elapsed time, each member group's
 * share of the CPU the groups used, the ratio of the elapsed times and
 * Jain's index (doc/PROTOCOL.md, "Together").
 */
#include <stdlib.h>
#include <string.h>

#include "report/page.h"
#include "banned.h"

/* Append name to sv unless there. */
static void add_once(struct strvec *sv, const char *name)
{
	for (size_t i = 0; i < sv->nr; i++)
		if (!strcmp(sv->v[i], name))
			return;
	strvec_push(sv, name);
}

/* The value of metric name in iteration it among rows [from, to), or NAN. */
static int find(const struct db_result *res, int from, int to, const char *name,
		const char *it, double *ret)
{
	for (int k = from; k < to; k++)
		if (!strcmp(S(db_get(res, k, 1)), name) &&
		    !strcmp(S(db_get(res, k, 2)), it)) {
			*ret = num(db_get(res, k, 4));
			return 0;
		}
	return -1;
}

void render_together(struct page *pg, const struct db_result *res, int from,
		     int to)
{
	struct strvec members = STRVEC_INIT, iters = STRVEC_INIT,
		      keys = STRVEC_INIT, labels = STRVEC_INIT,
		      names = STRVEC_INIT;
	struct col *cols;
	struct rtab t;
	size_t nc;

	for (int k = from; k < to; k++) {
		const char *m = S(db_get(res, k, 1));

		if (starts_with(m, "elapsed_s.") || starts_with(m, "share."))
			add_once(&members, strchr(m, '.') + 1);
		if (strcmp(S(db_get(res, k, 3)), "t"))
			add_once(&iters, S(db_get(res, k, 2)));
	}
	if (!members.nr)
		goto out;
	strvec_push(&keys, "iteration");
	strvec_push(&labels, "iteration");
	strvec_push(&names, "");
	for (size_t i = 0; i < members.nr; i++) {
		strvec_pushf(&keys, "elapsed_s.%s", members.v[i]);
		strvec_pushf(&labels, "%s: elapsed (s)", members.v[i]);
		strvec_pushf(&names, "elapsed_s.%s", members.v[i]);
	}
	for (size_t i = 0; i < members.nr; i++) {
		strvec_pushf(&keys, "share.%s", members.v[i]);
		strvec_pushf(&labels, "%s: CPU share (%%)", members.v[i]);
		strvec_pushf(&names, "share.%s", members.v[i]);
	}
	strvec_pushl(&keys, "elapsed_ratio", "jain_index", (char *)NULL);
	strvec_pushl(&labels, "elapsed max/min", "Jain's index", (char *)NULL);
	strvec_pushl(&names, "elapsed_ratio", "jain_index", (char *)NULL);
	nc = keys.nr;
	cols = xcalloc(nc, sizeof(*cols));
	for (size_t c = 0; c < nc; c++) {
		cols[c].key = keys.v[c];
		cols[c].label = labels.v[c];
		cols[c].num = 1;
	}
	h2(&pg->body, "together", "Together");
	strbuf_addstr(&pg->body,
		      "<p class=\"note\">The members ran at the same time, "
		      "each in its own cgroup, from one barrier; shares are "
		      "over the time all measured members ran.</p>");
	rtab_begin(&t, pg, "together", "the members side by side", cols,
		   (int)nc);
	for (size_t i = 0; i < iters.nr; i++) {
		rtab_row(&t, NULL);
		rtab_num(&t, num(iters.v[i]), NULL);
		for (size_t c = 1; c < nc; c++) {
			double v;

			if (find(res, from, to, names.v[c], iters.v[i], &v) ==
			    0)
				rtab_num(&t, v, NULL);
			else
				rtab_str(&t, "");
		}
		rtab_end_row(&t);
	}
	rtab_end(&t, "no measured iterations");
	free(cols);
out:
	strvec_clear(&members);
	strvec_clear(&iters);
	strvec_clear(&keys);
	strvec_clear(&labels);
	strvec_clear(&names);
}

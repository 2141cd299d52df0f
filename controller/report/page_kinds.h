/*
 * page_kinds.h - the page kinds of the report, as the driver (report.c)
 * calls them: one function per page_<kind>.c that writes that kind's
 * stale pages.  Only report.c calls them; the page kinds themselves use
 * the shared frame (page.h), never the driver.
 */
#ifndef SCHEDFARM_REPORT_PAGE_KINDS_H
#define SCHEDFARM_REPORT_PAGE_KINDS_H

#include "report/page.h"

/*
 * The page kinds, in the order report_write() calls them: page_run.c,
 * page_patch.c, page_bisect.c, page_pair.c, page_host.c, page_plan.c,
 * page_metric.c, page_index.c.
 * Each writes its stale pages (the index: always) and returns 0 or
 * negative with r->err filled.
 */
int write_run_pages(struct report *r);
int write_patch_pages(struct report *r);
int write_bisect_pages(struct report *r);
int write_pair_pages(struct report *r);
int write_host_pages(struct report *r, const struct runlist *rl);
int write_plan_pages(struct report *r, const struct runlist *rl);
int write_metric_pages(struct report *r);
int write_index(struct report *r);

#endif

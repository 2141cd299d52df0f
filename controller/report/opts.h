/*
 * opts.h - what a caller asks of one report (struct report_opts) and what
 * it is told back (struct report_stats): the two structs of report.h's
 * report_write(), in a header of their own so that the shared frame of
 * the pages (page.h) can see them without including the driver's
 * header, report.h.
 */
#ifndef SCHEDFARM_REPORT_OPTS_H
#define SCHEDFARM_REPORT_OPTS_H

#include "strvec.h"

struct report_opts {
	const char *out_dir; /* created when missing */
	const char *since; /* a timestamp PostgreSQL reads, or NULL */
	const char *static_dir; /* the web-static/ folder */
	const char *now; /* "generated at" text for the index, or NULL */
};

struct report_stats {
	int pages_checked; /* pages whose fingerprint was looked at (every
			    * page but the index) */
	int pages_unchanged; /* of those, the pages still fresh: not
			      * rendered */
	int pages_rendered; /* pages rendered: those whose data changed, and
			     * the index, rendered every time; so
			     * checked + 1 == rendered + unchanged */
	int pages_written; /* .html files whose bytes changed */
	int files_written; /* every file whose bytes changed */
	struct strvec written; /* names (relative to out_dir) of those files */
	char *out_dir; /* the absolute output folder */
};

#endif

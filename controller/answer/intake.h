/*
 * intake.h - a list read once: its archive mirrored, the messages after
 * each epoch's cursor read with GMime, each recorded as a patch, not a
 * patch or unreadable, patches grouped into series (doc/LISTS.md).
 */
#ifndef SCHEDFARM_ANSWER_INTAKE_H
#define SCHEDFARM_ANSWER_INTAKE_H

#include "store/db.h"
#include "strbuf.h"

/* What one poll did, for the caller to print. */
struct intake_stats {
	int read, patches, not_patches, unreadable, seen_before;
	int series_complete; /* series that became complete and in policy */
	int series_filtered; /* complete, but no patch inside the policy */
};

/*
 * Poll the list named name once: mirror its epochs under
 * home/lists/<name>/git (a new epoch noticed), read each commit after the
 * epoch's cursor, and record it (list_messages, list_series) with the
 * cursor moved in the same transaction, so a restart reads nothing twice;
 * then a series still open after the list's series wait becomes
 * incomplete (and is never run).  Untrusted patches are only ever built in the
 * sandbox: the poll refuses to start where it cannot be had (lab/sandbox.h),
 * with the reason in err.  One line per message and per series completed is
 * appended to out; counts go to *ret.  0, 1 when no list has that name, -1 with
 * err.
 */
int intake_poll(struct db *db, const char *home, const char *name,
		struct strbuf *out, struct intake_stats *ret,
		struct strbuf *err);

#endif

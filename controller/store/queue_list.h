/*
 * queue_list.h - what the verbs read of the queue (`queue`, `run`,
 * `compare`): the listing, counts, one job's state, a plan by its text.
 * Every function returns 0 (or 1 for "none") on success and a negative
 * number with err filled on failure; nothing here prints.
 */
#ifndef SCHEDFARM_QUEUE_LIST_H
#define SCHEDFARM_QUEUE_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/*
 * The stored plan whose text is text (plans are kept once per distinct
 * text, keyed by its sha256): its sha256 appended to ret_sha256.  0, 1
 * when no job ever ran that text, -1 with err.
 */
int queue_find_plan(struct db *db, const char *text, size_t len,
		    struct strbuf *ret_sha256, struct strbuf *err);

/* Number of jobs in state queued. */
int queue_count_queued(struct db *db, int64_t *ret, struct strbuf *err);

/* The state of job_id appended to ret_state: 0, 1 when there is no such
 * job, -1 with err. */
int queue_job_state(struct db *db, int64_t job_id, struct strbuf *ret_state,
		    struct strbuf *err);

/* Is any host leased or running (so that waiting may free one)?  0 with
 * *ret_busy set, or -1 with err. */
int queue_hosts_busy(struct db *db, int *ret_busy, struct strbuf *err);
/*
 * The queue for `queue`: the jobs in state (NULL: those not done, failed
 * or cancelled; "all": every one), newest first, at most limit of them.
 * One row: the jobs as a JSON array, and as the lines of the table
 * (E'\n'-joined, '' when none).  Into *ret (the caller frees it).  0, or
 * -1 with err.
 */
int queue_list(struct db *db, const char *state, int64_t limit,
	       struct db_result **ret, struct strbuf *err);

#endif

/*
 * listqueue.h - a complete series from a list given its base and queued
 * through the same code as `schedfarm submit` (store/queue.h).
 */
#ifndef SCHEDFARM_ANSWER_LISTQUEUE_H
#define SCHEDFARM_ANSWER_LISTQUEUE_H

#include <stdint.h>

#include "store/db.h"
#include "store/lists.h"
#include "strbuf.h"

/*
 * The base of series_id of list l: the commit of a base-commit: trailer
 * when l's base repository has it and the series applies there; else the
 * first base of l's path map whose glob a patch touches and where the
 * series applies (with no base repository, a mapped base is taken
 * untried).  The series is then queued with l's plan (none: only its base
 * is recorded) and its row says base, method, PLM# and state 'queued'.
 * A series that applies to no base is not queued: state 'no-base' and
 * one note naming each base tried; one the queue refuses stays
 * 'complete' with the refusal as its note.  A series queued supersedes its
 * older versions (same list, author and subject without the version):
 * their queued jobs are cancelled and they are linked to it.  One line on what
 * was done is appended to out.  0, or -1 with err (the transaction is the
 * caller's).
 */
int listqueue_series(struct db *db, const struct list_row *l, int64_t series_id,
		     struct strbuf *out, struct strbuf *err);

/*
 * The commit id of the first "base-commit: HEX" trailer line in text
 * (7 to 64 hex digits) into ret (emptied first): 1 found, 0 none.
 */
int listqueue_base_commit(const char *text, struct strbuf *ret);

#endif

/*
 * inbox.h - a public-inbox archive mirrored with git: its epochs
 * (git/N.git), each cloned once and fetched after, the commits after a
 * cursor, and the message (file `m`) of one commit.
 *
 * Git runs through run-command (argv, no shell, a timeout).  Nothing here
 * prints: failures fill err.
 */
#ifndef SCHEDFARM_LAB_INBOX_H
#define SCHEDFARM_LAB_INBOX_H

#include "strbuf.h"
#include "strvec.h"

/*
 * Bring the mirror of epoch of the archive at inbox (an http(s) URL or a
 * local folder) up to date in dir/git/<epoch>.git: cloned (--mirror) when
 * missing, else fetched.  1 when the epoch is there, 0 when the archive
 * has no such epoch (a clone that failed leaves nothing behind; git's
 * words appended to ret_why, which may be NULL), -1 with err when a fetch
 * of an existing mirror failed.
 */
int inbox_sync_epoch(const char *dir, const char *inbox, int epoch,
		     struct strbuf *ret_why, struct strbuf *err);

/*
 * The commits of the mirrored epoch after commit after (NULL or "": all of
 * them), oldest first, appended to ret.  0 or -1 with err.
 */
int inbox_commits_after(const char *dir, int epoch, const char *after,
			struct strvec *ret, struct strbuf *err);

/*
 * The newest commit of the mirrored epoch (its HEAD) into ret (emptied
 * first).  0 or -1 with err.
 */
int inbox_head(const char *dir, int epoch, struct strbuf *ret,
	       struct strbuf *err);

/*
 * The message the commit added (its file `m`) into ret (emptied first).
 * 1 when read, 0 when the commit has no `m` (public-inbox's deletions),
 * -1 with err.
 */
int inbox_read_message(const char *dir, int epoch, const char *commit,
		       struct strbuf *ret, struct strbuf *err);

#endif

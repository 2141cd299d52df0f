/*
 * lists.h - the mailing lists the farm follows: `lists` rows and their
 * policy, the read cursor per (list, epoch), the messages read and the
 * series they form (schema 019; doc/LISTS.md).
 *
 * Every function returns 0 (or 1 where it says so) on success and -1 with
 * err filled on failure; nothing here prints.  Message-IDs are stored
 * without their angle brackets.
 */
#ifndef SCHEDFARM_STORE_LISTS_H
#define SCHEDFARM_STORE_LISTS_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"
#include "strvec.h"

/* One `lists` row. */
struct list_row {
	int64_t id;
	char *name;
	char *inbox; /* an http(s) URL or a local folder */
	struct strvec path_globs; /* a patch touches one of these */
	struct strvec subject_prefixes; /* its [...] holds one of these */
	struct strvec base_map; /* "GLOB=BASE" */
	char *base_repo; /* where base-commit trailers are looked up */
	char *plan_path; /* the plan a complete series is queued with */
	char *host; /* the host it is queued for; NULL: any */
	int from_now; /* the first poll starts at the archive's end */
	int mail_improvements;
	char *dry_run_mbox; /* NULL: mail goes out by SMTP */
	int mails_per_hour;
	int series_wait_s;
};

void list_row_init(struct list_row *l);
void list_row_release(struct list_row *l);

/*
 * Insert l (its id is ignored) into lists(name, inbox, path_globs,
 * subject_prefixes, base_map, base_repo, plan_path, host, from_now,
 * mail_improvements, dry_run_mbox, mails_per_hour, series_wait_s).  *ret_id is
 * the new id.  1 when added, 0 when a list of that name exists (nothing
 * changed), -1 with err.
 */
int lists_add(struct db *db, const struct list_row *l, int64_t *ret_id,
	      struct strbuf *err);

/*
 * The lists row named name (every column above, and id) into *ret, which
 * the caller initialised and releases.  1 found, 0 no such list, -1 err.
 */
int lists_get(struct db *db, const char *name, struct list_row *ret,
	      struct strbuf *err);

/* Every lists.name, sorted, appended to ret.  0 or -1 with err. */
int lists_names(struct db *db, struct strvec *ret, struct strbuf *err);

/*
 * Delete the lists row named name with its cursors, messages and series
 * (ON DELETE CASCADE).  1 deleted, 0 no such list, -1 with err.
 */
int lists_remove(struct db *db, const char *name, struct strbuf *err);

/*
 * list_cursors.last_commit of (list_id, epoch) into ret (emptied first;
 * left empty when that epoch has no cursor yet).  0 or -1 with err.
 */
int lists_cursor_get(struct db *db, int64_t list_id, int epoch,
		     struct strbuf *ret, struct strbuf *err);

/* list_cursors(list_id, epoch, last_commit) set to commit.  0 or -1. */
int lists_cursor_set(struct db *db, int64_t list_id, int epoch,
		     const char *commit, struct strbuf *err);

/*
 * The highest list_cursors.epoch of list_id in *ret_max (-1 when it has
 * no cursor yet).  0 or -1 with err.
 */
int lists_epoch_max(struct db *db, int64_t list_id, int *ret_max,
		    struct strbuf *err);

/* Whether list_messages holds message_id: 1 yes, 0 no, -1 with err. */
int lists_message_seen(struct db *db, const char *message_id,
		       struct strbuf *err);

/* One message read from a list, as list_messages stores it. */
struct list_message {
	const char *message_id;
	int64_t list_id;
	int epoch;
	const char *commit; /* git_commit: the archive's commit */
	const char *state; /* "patch", "not-a-patch" or "unreadable" */
	const char *reason; /* why not a patch, or why unreadable */
	const char *subject;
	const char *author;
	int64_t series_id; /* 0: none */
	int part; /* k of [k/n]; 0 for a cover letter or a lone patch */
	const char *body; /* the patch's text; NULL for others */
};

/*
 * Insert m into list_messages(message_id, list_id, epoch, git_commit,
 * state, reason, subject, author, series_id, part, body).  1 inserted, 0
 * when message_id is already there (nothing changed), -1 with err.
 */
int lists_message_add(struct db *db, const struct list_message *m,
		      struct strbuf *err);

/*
 * The list_series row of (list_id, cover_message_id): made when missing
 * with author, subject (without its version), version and n_expected, in
 * state 'open'.  *ret_id its id.  0 or -1 with err.
 */
int lists_series_get_or_add(struct db *db, int64_t list_id,
			    const char *cover_message_id, const char *author,
			    const char *subject, int version, int n_expected,
			    int64_t *ret_id, struct strbuf *err);

/*
 * The id of the list_series of list_id and version whose cover letter or
 * any patch has one of the Message-IDs in ids
 * (list_series.cover_message_id, or list_messages.series_id of a
 * message_id in ids), 0 when none.  0 or -1 with err.
 */
int lists_series_find(struct db *db, int64_t list_id, int version,
		      const struct strvec *ids, int64_t *ret_id,
		      struct strbuf *err);

/*
 * Recount list_series.n_arrived of series_id from its patches
 * (list_messages state 'patch', distinct part > 0, or 1 for a lone
 * patch); an 'open' series with all n_expected arrived becomes
 * 'complete'.  *ret_complete is 1 when it became complete by this call.
 * 0 or -1 with err.
 */
int lists_series_count(struct db *db, int64_t series_id, int *ret_complete,
		       struct strbuf *err);

/*
 * Whether a patch of series_id is inside its list's policy (a
 * list_messages row of state 'patch' with an empty reason): 1 yes, 0 no,
 * -1 with err.
 */
int lists_series_inside(struct db *db, int64_t series_id, struct strbuf *err);

/*
 * The mails of series_id that have a text (list_messages.body: its cover
 * letter and its patches), in part order (the cover, 0, first): each
 * one's author, subject and body appended to the three vectors.  0 or
 * -1 with err.
 */
int lists_series_mails(struct db *db, int64_t series_id,
		       struct strvec *ret_authors, struct strvec *ret_subjects,
		       struct strvec *ret_bodies, struct strbuf *err);

/*
 * Record where series_id went: list_series.base, base_method, patch_id
 * (0: not queued), state ('queued', or 'complete' when it was not) and
 * note (NULL: kept).  0 or -1 with err.
 */
int lists_series_based(struct db *db, int64_t series_id, const char *base,
		       const char *method, int64_t patch_id, const char *state,
		       const char *note, struct strbuf *err);

/*
 * Mark every older version of series_id superseded by it: the
 * list_series of the same list_id, author and subject with a lower
 * version, not yet superseded, filtered or no-base, get state
 * 'superseded', superseded_by series_id and a note naming it.  Their
 * patch_id (0 where none) are appended to ret_patches and their ids to
 * ret_series, as decimal text.  0 or -1 with err.
 */
int lists_series_supersede(struct db *db, int64_t series_id,
			   struct strvec *ret_series,
			   struct strvec *ret_patches, struct strbuf *err);

/*
 * The queued jobs of submission patch_id (jobs.id where jobs.patch_id is
 * it and jobs.state is 'queued'), appended to ret as decimal text.  0 or
 * -1 with err.
 */
int lists_patch_queued_jobs(struct db *db, int64_t patch_id, struct strvec *ret,
			    struct strbuf *err);

/*
 * The series of list_id still 'open' wait_s seconds after they were made
 * (list_series.created_at) become 'incomplete', with a note saying how
 * many of n_expected arrived.  One line per series ("ID\tSUBJECT\t
 * ARRIVED/EXPECTED") appended to ret.  0 or -1 with err.
 */
int lists_series_expire(struct db *db, int64_t list_id, int wait_s,
			struct strvec *ret, struct strbuf *err);

/*
 * Set list_series.state (and note, NULL to keep it) of series_id.  0 or
 * -1 with err.
 */
int lists_series_set_state(struct db *db, int64_t series_id, const char *state,
			   const char *note, struct strbuf *err);

/*
 * What `list show` prints of list_id: per list_messages.state the count,
 * then each list_series (id, state, version, n_arrived, n_expected,
 * subject, base, base_method, PLM#patch_id, note; "" for NULL), one
 * tab-separated line each, into out.  0 or -1 with err.
 */
int lists_summary(struct db *db, int64_t list_id, struct strbuf *out,
		  struct strbuf *err);

#endif

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
	char *address; /* the list's posting address; NULL: not known */
	char *reply_cc; /* "all" (NULL), "list" or "none" (schema 021) */
};

void list_row_init(struct list_row *l);
void list_row_release(struct list_row *l);

/*
 * Insert l (its id is ignored) into lists(name, inbox, path_globs,
 * subject_prefixes, base_map, base_repo, plan_path, host, from_now,
 * mail_improvements, dry_run_mbox, mails_per_hour, series_wait_s,
 * address, reply_cc).  *ret_id is
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

/*
 * Store l's policy in the lists row l->id: path_globs, subject_prefixes,
 * base_map, base_repo, plan_path, host, mail_improvements, dry_run_mbox,
 * mails_per_hour, series_wait_s, address, reply_cc.  Its name, inbox,
 * from_now, cursors, messages and series stay.  1 changed, 0 no such row
 * (removed meanwhile), -1 with err.
 */
int lists_set_policy(struct db *db, const struct list_row *l,
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
	/* what a reply on the thread needs (schema 021): Reply-To (NULL:
	 * none), the original To and Cc, References (NULL: none) */
	const char *reply_to;
	const struct strvec *recipients, *refs;
};

/*
 * Insert m into list_messages(message_id, list_id, epoch, git_commit,
 * state, reason, subject, author, series_id, part, body, reply_to,
 * recipients, refs).  1 inserted, 0
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

/* --- the reply on the thread (schema 021, answer/listreply.c) --------- */

/* One mail of a series, as a reply to it needs it. */
struct list_reply_mail {
	char *message_id, *subject, *author;
	char *reply_to; /* NULL when it had none */
	int part; /* 0: the cover letter (or a lone patch) */
	struct strvec recipients, refs;
};

/* The series a submission came from, and its list's mail policy. */
struct list_reply_src {
	int64_t series_id, list_id;
	int version;
	char *list_name, *inbox;
	char *dry_run_mbox; /* NULL: SMTP */
	int mail_improvements;
	char *address; /* the list's address; NULL: not known */
	char *reply_cc; /* "all", "list" or "none" */
	/* how the series' base was chosen: "base-commit" or "path map";
	 * NULL: not recorded */
	char *base_method;
	struct list_reply_mail *mails; /* by part, the cover first */
	size_t nr;
};

void list_reply_src_init(struct list_reply_src *s);
void list_reply_src_release(struct list_reply_src *s);

/*
 * The list_series whose patch_id is patch_id (list_series.id, version,
 * base_method;
 * lists.id, name, inbox, dry_run_mbox, mail_improvements, address,
 * reply_cc) and its mails
 * that have a text (list_messages.message_id, subject, author, reply_to,
 * recipients, refs, part; by part) into *ret, which the caller
 * initialised and releases.  1 found, 0 when patch_id did not come from
 * a list, -1 with err.
 */
int lists_reply_source(struct db *db, int64_t patch_id,
		       struct list_reply_src *ret, struct strbuf *err);

/* A reply to be written into list_replies. */
struct list_reply {
	int64_t series_id, patch_id;
	int64_t bisection_id; /* not 0: held until that bisection ends */
	const char *verdict, *in_reply_to, *sender, *subject, *body;
	const char *delivery; /* "smtp" or "mbox" */
	const char *mbox; /* with "mbox": the file */
	const struct strvec *refs, *to, *cc;
};

/*
 * Insert r into list_replies(series_id, patch_id, verdict, bisection_id,
 * message_id, in_reply_to, refs, sender, to_addrs, cc_addrs, subject,
 * body, delivery, mbox; next_attempt_at now, or NULL while held by its
 * bisection), its Message-ID chosen here ("schedfarm.list.SERIES.VERDICT.
 * FARM@host", host: this machine's name) and put in ret_message_id.  1
 * inserted, 0 when (series_id, verdict) has its row already (nothing
 * changed, ret_message_id empty), -1 with err.  Meant to run inside the
 * answer's transaction.
 */
int lists_reply_add(struct db *db, const struct list_reply *r,
		    struct strbuf *ret_message_id, struct strbuf *err);

/* A claimed list_replies row. */
struct list_reply_row {
	int64_t id;
	int attempts;
	char *message_id, *in_reply_to, *sender, *subject, *body, *delivery,
		*mbox;
	struct strvec refs, to, cc;
};

void list_reply_row_init(struct list_reply_row *r);
void list_reply_row_release(struct list_reply_row *r);

/* The held reply of a bisection, and the mail of the patch it blames. */
struct list_reply_blame {
	int64_t reply_id;
	int culprit; /* 0: the bisection named none (failed, a range, gone) */
	int n; /* the patches of the series */
	char *message_id, *subject; /* of part culprit; NULL when none */
	char *body; /* the reply's body as written */
	struct strvec refs; /* its References, then its Message-ID */
};

void list_reply_blame_init(struct list_reply_blame *b);
void list_reply_blame_release(struct list_reply_blame *b);

/*
 * The reply held for bisection_id (list_replies.id with that
 * bisection_id, state 'pending', next_attempt_at NULL) and, when the
 * bisection is 'done' with a culprit k (bisections.culprit), its body
 * (list_replies.body), the
 * list_messages row of part k of the reply's series (message_id,
 * subject, refs) into *ret (initialised by the caller); n is the
 * series' list_series.n_expected.  1 when a reply is held, 0 when none,
 * -1 with err.
 */
int lists_reply_blame(struct db *db, int64_t bisection_id,
		      struct list_reply_blame *ret, struct strbuf *err);

/*
 * Release held reply id: next_attempt_at now, and, when in_reply_to is
 * not NULL, in_reply_to, refs, subject and body replaced by these.  0 or
 * -1 with err.
 */
int lists_reply_release(struct db *db, int64_t id, const char *in_reply_to,
			const struct strvec *refs, const char *subject,
			const char *body, struct strbuf *err);

/*
 * The bisections that hold a reply (list_replies.bisection_id of a
 * 'pending' row with next_attempt_at NULL) and no longer run (their
 * bisections row is not 'running', or is gone), as decimal text appended
 * to ret.  0 or -1 with err.
 */
int lists_replies_held_ended(struct db *db, struct strvec *ret,
			     struct strbuf *err);

/*
 * Claim the oldest due reply (state 'pending', next_attempt_at reached)
 * of a list that has sent fewer than lists.mails_per_hour replies in the
 * last hour (list_replies.claimed_at): state 'sending', claimed_at now,
 * attempts + 1, committed before the caller sends it; its columns into
 * *ret (initialised by the caller).  1 claimed, 0 none due, -1 with err.
 */
int lists_reply_claim(struct db *db, struct list_reply_row *ret,
		      struct strbuf *err);

/*
 * Record how the send of a claimed reply went: state 'sent' and sent_at
 * (error NULL), or, with error, last_error and either 'pending' again
 * after retry_s seconds or, retry_s < 0, 'failed' for good
 * (next_attempt_at NULL).  0 or -1 with err.
 */
int lists_reply_done(struct db *db, int64_t id, const char *error,
		     int64_t retry_s, struct strbuf *err);

/* Where a submission came from, for `patch show`, `patch list`, pages. */
struct list_origin {
	char *list_name, *inbox, *message_id; /* the cover's (or 1/n's) */
	/* the thread in the archive, lore style: INBOX/MESSAGE-ID/, the
	 * Message-ID percent-encoded where a URL needs it */
	char *link;
	/* how its base was chosen ("base-commit", "path map"); NULL: not
	 * recorded */
	char *base_method;
	int version;
	/* the series' other versions (schema 019's superseded_by): the
	 * version that superseded it and the newest it superseded, each
	 * with its PLM# (0: none, or not queued); version 0: none */
	int64_t newer_patch, older_patch;
	int newer_version, older_version;
	/* its replies: Message-ID, verdict, state, sent_at ("" when not),
	 * delivery, one entry each, in the same order */
	struct strvec reply_ids, reply_verdicts, reply_states, reply_sent,
		reply_delivery;
};

void list_origin_init(struct list_origin *o);
void list_origin_release(struct list_origin *o);

/*
 * The origin of patch_id (lists.name, inbox, list_series.
 * cover_message_id, version, base_method, and the link made of the first two;
 * the patch_id and version of the series its superseded_by names and of the
 * newest series whose superseded_by names it; its list_replies'
 * message_id, verdict, state, sent_at, delivery) into *ret
 * (initialised by the caller).  1 when it came from a list, 0 when not,
 * -1 with err.
 */
int lists_patch_origin(struct db *db, int64_t patch_id, struct list_origin *ret,
		       struct strbuf *err);

/*
 * Every submission that came from a list, by PLM#: one line each
 * ("PATCH_ID\tLIST\tMESSAGE-ID\tREPLIES", REPLIES the list_replies of
 * it as "VERDICT STATE" joined with ", ", "" when none) appended to ret.
 * 0 or -1 with err.
 */
int lists_origins(struct db *db, struct strvec *ret, struct strbuf *err);

#endif

/*
 * mails.h - the outbox: the one owner of `mails` rows (schema 007).
 *
 * A mail the farm owes is queued once (an answer per patch, a result per
 * bisection: unique indexes make a second queueing a no-op), then claimed
 * by one controller at a time with a lease, sent (lab/mail.c), and marked
 * sent, or failed with the reason and the time of the next try (doubling
 * from mail.retry_min up to mail.retry_max; after mail.max_attempts it is
 * given up: next_attempt_at NULL).  A controller that dies while sending
 * leaves a lease that expires; the mail is then tried again with the same
 * Message-ID (so a server or reader that got it already can tell), the
 * reason saying so.  A mail whose data went out without a reply from the
 * server is 'unknown' (schema 014): it may have arrived, and it is not
 * tried again by itself.  Recipients left out (not an address, or refused
 * by the server) are kept in the row's `refused`, each with its reason.
 * Nothing here prints.
 */
#ifndef SCHEDFARM_MAILS_H
#define SCHEDFARM_MAILS_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"
#include "strvec.h"

/* How long a claimed mail is the claimer's. */
#define MAILS_LEASE_S 300

struct mail_row {
	int64_t id;
	char *kind, *sender, *subject, *body, *message_id;
	struct strvec to;
	int attempts; /* including this one */
	int64_t created; /* epoch seconds */
};

void mail_row_init(struct mail_row *m);
void mail_row_release(struct mail_row *m);

/*
 * Queue a mail of kind "answer" (patch_id) or "bisection" (bisection_id)
 * unless that patch or bisection has one already.  to: the recipients
 * (at least one); refused and refused_why (NULL, or as many): the ones
 * left out and why, recorded with it.  Return 1 with its id in *ret_id
 * when queued, 0 when there was one (nothing done), -1 with err.
 */
int mails_queue(struct db *db, const char *kind, int64_t patch_id,
		int64_t bisection_id, const char *sender,
		const struct strvec *to, const struct strvec *refused,
		const struct strvec *refused_why, const char *subject,
		const char *body, int64_t *ret_id, struct strbuf *err);

/*
 * Claim the oldest mail that is due (pending, or failed with its next
 * try now or earlier, or left 'sending' by a controller whose lease
 * expired) for owner, counting the attempt.  1 with *ret filled (release
 * it), 0 when none is due, -1 with err.
 */
int mails_claim_due(struct db *db, const char *owner, struct mail_row *ret,
		    struct strbuf *err);

/*
 * Claimed mail id was accepted by the server, for all but refused (NULL,
 * or the recipients the server refused, with refused_why), which are
 * added to the row's.  0 or -1 with err.
 */
int mails_sent(struct db *db, int64_t id, const char *owner,
	       const struct strvec *refused, const struct strvec *refused_why,
	       struct strbuf *err);

/*
 * Claimed mail id went out and no reply came (mail.h's MAIL_UNKNOWN):
 * state unknown with reason, never tried again by itself (it may have
 * been delivered; an operator who knows it was not can queue it again).
 * 0 or -1 with err.
 */
int mails_unknown(struct db *db, int64_t id, const char *owner,
		  const char *reason, struct strbuf *err);

/*
 * Claimed mail id failed with reason: state failed, next try after
 * retry_min_ms * 2^(attempts - 1) (at most retry_max_ms), or never when
 * attempts reached max_attempts.  0 or -1 with err.
 */
int mails_failed(struct db *db, int64_t id, const char *owner,
		 const char *reason, int64_t retry_min_ms, int64_t retry_max_ms,
		 int max_attempts, struct strbuf *err);

/*
 * The delay before try number attempts + 1 after attempts failures:
 * retry_min_ms doubled attempts - 1 times, at most retry_max_ms.  Pure.
 */
int64_t mails_backoff_ms(int attempts, int64_t retry_min_ms,
			 int64_t retry_max_ms);

#endif

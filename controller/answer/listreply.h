/*
 * listreply.h - the farm's reply on a mailing list's thread (issue 34;
 * doc/LISTS.md): when the answer of a series that came from a list is
 * ready, a 0-day-like text mail answers the patch on its thread.
 *
 * listreply_queue() runs inside the answer's transaction (answer.c's
 * record()): it decides whether the verdict is mailed (the policy), picks
 * the headers (Subject "Re: ...", In-Reply-To, References, To the author,
 * Cc the original recipients), composes the body (base and patch, host,
 * plan, the metrics that moved in compare.c's PLM table, how to
 * reproduce, the Reported-by: tag) and writes one list_replies row per
 * (series version, verdict), its Message-ID chosen there.
 * listreply_send_due() then claims due rows (the list's rate limit holds
 * there), sends each over SMTP (lab/mail.c) or appends it to the list's
 * --dry-run-mbox file, and records what became of it.  A row claimed
 * and never recorded (a controller stopped mid-send) is not sent again.
 */
#ifndef SCHEDFARM_LISTREPLY_H
#define SCHEDFARM_LISTREPLY_H

#include "answer/answer.h"
#include "store/lists.h"
#include "strbuf.h"
#include "strvec.h"

struct answer_sub;
struct compare_set;

/*
 * Whether an answer with verdict goes to the list: a regression always,
 * an improvement when the list's policy says so (mail_improvements),
 * nothing else ("no-change", "inconclusive", ...; NULL) ever.  1 or 0.
 */
int listreply_wanted(const char *verdict, int mail_improvements);

/* The headers of a reply. */
struct listreply_hdrs {
	const struct list_reply_mail *orig; /* the mail answered (in src) */
	struct strbuf subject; /* "Re: " and its subject */
	struct strbuf references; /* "<a> <b> <orig>" */
	struct strvec refs; /* the same, without <> */
	struct strvec to, cc;
};

void listreply_hdrs_init(struct listreply_hdrs *h);
void listreply_hdrs_release(struct listreply_hdrs *h);

/*
 * Choose the headers of the reply to src (its mails by part): the mail
 * answered is the cover letter (part 0), else the first patch; To its
 * Reply-To, else its author (X-Original-From where a relay rewrote From,
 * as intake stored it); Cc as src->reply_cc says: "all" (or NULL) its
 * original To and Cc and the list's address, "list" the list's address
 * only, "none" nobody; never the To address, the farm's own (farm_from,
 * may be NULL) or one twice (addresses compared without case).  Recipients that
 * are not one mailbox are left for the sender to refuse.  0, or -1 with err
 * when src has no mail.
 */
int listreply_headers(const struct list_reply_src *src, const char *farm_from,
		      struct listreply_hdrs *ret, struct strbuf *err);

/*
 * Append the body of the reply: the verdict, base and patch, host and
 * plan, the rows of set that moved (regression or improvement) as
 * compare_format_text() writes the PLM table, how to reproduce with
 * schedfarm, the Reported-by: line (farm_from), the page.  s, set and t
 * as answer_mail_body() takes them; set may be NULL.
 */
void listreply_body(const struct list_reply_src *src,
		    const struct listreply_hdrs *h, const struct answer_sub *s,
		    const struct compare_set *set, const struct answer_text *t,
		    const char *farm_from, struct strbuf *out);

/*
 * text (an RFC 5322 message, CRLF or LF line ends) as one mboxrd entry:
 * a "From " line, LF line ends, each line that matches ^>*From  given one
 * more '>', a blank line after.  Appended to out.
 */
void listreply_mboxrd(const char *text, int64_t date, struct strbuf *out);

/*
 * In the caller's transaction: when patch s came from a list and verdict
 * is to be mailed (listreply_wanted()), write its reply row
 * (lists_reply_add(): once per series version and verdict); while t's
 * bisection (t->bisection_id) runs, the row is held for it
 * (listreply_bisected()).  Replies go
 * by SMTP when cfg has a server, into the list's --dry-run-mbox when it
 * has one; with neither nothing is written.  1 when a row was written, 0
 * when none was due, -1 with err.
 */
int listreply_queue(struct db *db, const struct farm_config *cfg,
		    const struct answer_sub *s, const char *verdict,
		    const struct compare_set *set, const struct answer_text *t,
		    struct strbuf *err);

/*
 * Bisection bisection_id ended (it no longer runs): the reply held for
 * it, if any, is let go, turned into an answer to the patch it names
 * guilty (Subject "Re: " and that patch's subject, In-Reply-To it,
 * References its References and it, a first paragraph saying so) when
 * it names one, else as written.  0 or -1 with err.
 */
int listreply_bisected(struct db *db, int64_t bisection_id, struct strbuf *err);

/*
 * Send the replies that are due (answer_tick()'s step 4), at most a
 * handful a call, after letting go of those whose bisection ended
 * (listreply_bisected()); counted in st->mails_sent and mails_failed, logged
 * through ac->log.
 */
void listreply_send_due(const struct answer_ctx *ac, struct answer_stats *st);

#endif

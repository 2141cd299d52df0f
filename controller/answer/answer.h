/*
 * answer.h - a submission answered without further commands: the step
 * every controller (`serve`, `run`) takes between jobs.
 *
 * answer_tick() does, in order:
 *
 *  1. For each submission (PLM#) whose jobs have all ended: queue its next
 *     job of the ABBA order on its host (store/answers.h), or, when every
 *     boot has run, answer it: compare (analysis/compare.c) on that host
 *     with its plan, store the verdicts, record the answer (verdict per
 *     deciding metric, headline, note), start a bisection when a series of
 *     two or more patches regressed on a deciding metric (analysis/
 *     bisect.h; [bisect] auto and `submit --no-bisect` turn it off), and
 *     queue one mail (store/mails.h) to the submitter and the configured
 *     list.  A host that cannot boot the base and has no base results
 *     makes the answer wait, naming the command that would make them.
 *  2. Advance the bisections that have no job running; one that ends
 *     queues its mail, naming the culprit.
 *  3. Rewrite the report pages that changed (report/, incremental) into
 *     the configured report folder, when anything above happened.
 *  4. Send the mails that are due, over SMTP (lab/mail.c), recording each
 *     as sent (with the recipients the server refused), failed with the
 *     reason and the time of its next try, or unknown (the data went out,
 *     no reply came: not sent again).  Recipients that are not one mail
 *     address are left out when the mail is queued, and recorded.
 *
 * Every step is idempotent on the rows: a controller killed anywhere
 * leaves a state the next tick (of any controller) finishes.  Nothing
 * here prints; what happened goes to the log callback.
 */
#ifndef SCHEDFARM_ANSWER_H
#define SCHEDFARM_ANSWER_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

struct farm_config;

struct answer_ctx {
	struct db *db;
	const char *home; /* the state folder */
	const struct farm_config *cfg;
	const char *owner; /* the controller, for mail leases */
	/* level 0 info, 1 warning; may be NULL */
	void (*log)(void *ctx, int level, const char *msg);
	void *log_ctx;
};

struct answer_stats {
	int queued; /* jobs queued (base units, bisection steps) */
	int answered; /* answers recorded (answered or failed) */
	int waiting; /* answers that wait for base results */
	int bisections_done;
	int mails_sent, mails_failed;
	int pages_written;
};

/*
 * One pass of the four steps above.  Returns 0 (failures of single
 * submissions, mails or pages are logged and left for the next pass), or
 * -1 with err when the database itself failed.
 */
int answer_tick(const struct answer_ctx *ac, struct answer_stats *st,
		struct strbuf *err);

/* --- compose.c: the texts of the mails ---------------------------------- */

struct answer_sub;
struct compare_set;

/* What an answer mail says beyond the submission and its comparison. */
struct answer_text {
	const char *verdict; /* regression, improvement, no-change, ... */
	const char *headline; /* "jain_index -19.9% regression on vm" */
	const char *note; /* NULL, or why it failed / what is missing */
	const char *page_url;
	int64_t bisection_id; /* 0: none started */
	const char *bisection_url;
	const char *bisection_note; /* NULL, or why none was started */
	/* "base runs reused from STP#3, kernel v6.1" (store/
	 * answer_account.h), its JSON for patches.answer_base_reused; NULL
	 * when the comparison used no stored base run of others */
	const char *base_reused, *base_reused_json;
};

/* "[schedfarm] PLM#N "NAME": HEADLINE" */
void answer_mail_subject(const struct answer_sub *s, const char *headline,
			 struct strbuf *out);

/*
 * The body of an answer: the submission, the verdict, each deciding
 * metric with its %change, CI and p, the PLM table of set (may be NULL
 * when nothing was compared), the jobs, the bisection, the page link.
 */
void answer_mail_body(const struct answer_sub *s, const struct compare_set *set,
		      const struct answer_text *t, struct strbuf *out);

/*
 * The command that gives s the base results it waits for, every word
 * quoted for a POSIX shell (names come from submitters: a base named
 * `b$(touch x)` must stay one word when the line is pasted): "schedfarm
 * run PLAN_PATH --host HOST --kernel BASE [--set K=V]...".
 */
void answer_base_command(const struct answer_sub *s, const char *plan_path,
			 struct strbuf *out);

/*
 * Subject and body of the mail of a finished bisection, from its
 * bisect_show_json() object (text).  -1 when the JSON is unreadable.
 */
int answer_bisect_mail(const char *bisection_json, struct strbuf *subject,
		       struct strbuf *body, struct strbuf *err);

#endif

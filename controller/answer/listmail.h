/*
 * listmail.h - which mails of a list are patches: the subject's brackets
 * read ([PATCH v3 2/5], [RFC PATCH sched/core 1/2], [PATCH RESEND],
 * [GIT PULL]), the paths a diff touches, and a list's policy applied.
 *
 * Pure functions of their arguments: no database, no I/O.
 */
#ifndef SCHEDFARM_ANSWER_LISTMAIL_H
#define SCHEDFARM_ANSWER_LISTMAIL_H

#include "lab/mime.h"
#include "strbuf.h"
#include "strvec.h"

/* What a subject says of itself. */
struct patch_subject {
	int reply; /* "Re:" (or "Fwd:") before the brackets */
	int patch; /* a PATCH word in the brackets */
	int pull; /* GIT PULL */
	int rfc, resend;
	int version; /* vN; 1 when none */
	int part, total; /* k/n; 0/0 when none */
	struct strvec words; /* every bracket word (PATCH, sched/core, ...) */
	struct strbuf title; /* the subject after the brackets */
};

void patch_subject_init(struct patch_subject *s);
void patch_subject_release(struct patch_subject *s);

/* Read subject into *s (initialised by the caller).  Never fails. */
void patch_subject_parse(const char *subject, struct patch_subject *s);

/*
 * The paths the diff in body touches (the a/ and b/ sides of "diff --git"
 * lines, else of "---"/"+++" lines; /dev/null left out), each once,
 * appended to ret.  Returns how many there are: 0 means no diff.
 */
int patch_touched_paths(const char *body, struct strvec *ret);

/*
 * Whether path matches a policy glob: a glob ending in '/' matches what is
 * under that folder, any other is an fnmatch() pattern ('*' crosses '/').
 */
int policy_path_matches(const char *glob, const char *path);

/* What a mail of a list is. */
enum listmail_kind {
	LISTMAIL_NOT_PATCH, /* reason says why */
	LISTMAIL_COVER, /* [PATCH 0/n]: a series' cover letter */
	LISTMAIL_PATCH, /* a patch with a diff */
};

/*
 * Classify a read mail m whose subject s was parsed, under a policy of
 * path globs and subject words (an empty vector: no filter).  reason
 * (emptied first) says why a mail is not a patch, or, for a patch that
 * touches no path of the policy or lacks every subject word, why it is
 * outside the policy (empty when it is inside).  The kind is returned.
 */
enum listmail_kind listmail_classify(const struct mail_msg *m,
				     const struct patch_subject *s,
				     const struct strvec *path_globs,
				     const struct strvec *subject_words,
				     struct strbuf *reason);

/*
 * The Message-ID that names the series of a mail when none of its
 * ancestors is known yet: a cover letter's own; else, for k/n with n > 1,
 * the mail it answers (In-Reply-To, else the last References entry: the
 * cover letter or 1/n as git send-email threads a series, not the root of
 * a thread a v2 may have been sent into); else its own.
 */
const char *listmail_series_key(const struct mail_msg *m,
				const struct patch_subject *s);

#endif

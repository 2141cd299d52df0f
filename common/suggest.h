/*
 * suggest.h - "did you mean": the known name closest to a mistyped one.
 *
 * A verb, an option or a workload typed with a letter wrong, missing,
 * doubled or two letters swapped is answered with the name it probably
 * was, as git answers `git comit`.  (After git's help.c, with the
 * optimal-string-alignment distance.)
 */
#ifndef SCHEDFARM_SUGGEST_H
#define SCHEDFARM_SUGGEST_H

#include <stddef.h>

/*
 * Edits (insert, delete, substitute, swap two neighbours) between a and
 * b.  Case matters.
 */
size_t suggest_distance(const char *a, const char *b);

/*
 * The candidate closest to word, when it is close enough to be a typo:
 * at most 1 edit for words up to 4 characters, 2 up to 8, else 3 -- or a
 * candidate that word is the start of, or that starts with word, when
 * only one does.  NULL when nothing qualifies or word is itself a
 * candidate.  n candidates; NULL entries are skipped.
 */
const char *suggest_closest(const char *word, const char *const *cands,
			    size_t n);

#endif

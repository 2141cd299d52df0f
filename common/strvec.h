/*
 * strvec.h - a growable, NULL-terminated vector of owned strings.
 *
 * The argv of every child process and any list of words read from input.
 * (After git's strvec.h.)
 */
#ifndef SCHEDFARM_STRVEC_H
#define SCHEDFARM_STRVEC_H

#include <stddef.h>

struct strvec {
	char **v;
	size_t nr;
	size_t alloc;
};

extern const char *empty_strvec[];
#define STRVEC_INIT                                                            \
	{                                                                      \
		.v = (char **)empty_strvec, .nr = 0, .alloc = 0                \
	}

void strvec_init(struct strvec *sv);
void strvec_clear(struct strvec *sv);
/* Append a copy of s; return the copy (owned by the vector). */
const char *strvec_push(struct strvec *sv, const char *s);
__attribute__((format(printf, 2, 3))) const char *
strvec_pushf(struct strvec *sv, const char *fmt, ...);
/* Append each argument up to a terminating NULL. */
__attribute__((sentinel)) void strvec_pushl(struct strvec *sv, ...);
void strvec_pushv(struct strvec *sv, const char *const *v);
void strvec_pop(struct strvec *sv);
/* Split s at each occurrence of sep (empty fields kept) and append them. */
void strvec_split(struct strvec *sv, const char *s, char sep);
/* Join with sep into a new string the caller frees. */
char *strvec_join(const struct strvec *sv, const char *sep);

#endif

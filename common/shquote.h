/*
 * shquote.h - words for a POSIX shell: the commands the farm suggests
 * (an answer's note, an error's "run ...") are pasted into a terminal, and
 * a name from a submitter (a base `b$(touch x)`, a host, a path) must
 * come out of that paste as one word, never as shell syntax.
 */
#ifndef SCHEDFARM_SHQUOTE_H
#define SCHEDFARM_SHQUOTE_H

#include "strbuf.h"

/*
 * Append s as one word a POSIX sh reads back as exactly s: as it is when
 * every byte is one of A-Z a-z 0-9 and _ @ % + = : , . / - (and it does
 * not start with '~' or is not empty), else inside single quotes, each
 * single quote written as '\''.  Control characters stay inside the
 * quotes, where the shell gives them no meaning.
 */
void strbuf_add_sh_quoted(struct strbuf *sb, const char *s);

/* Append each word of argv (NULL-terminated), sh-quoted, space-separated. */
void strbuf_add_sh_argv(struct strbuf *sb, const char *const *argv);

#endif

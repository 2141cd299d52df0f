/*
 * conninfo.h - PostgreSQL connection strings given in a plan (sysbench's
 * pg_conninfo): their words, and their passwords kept out of sight.
 *
 * A plan may name a database with a password in it.  The agent needs the
 * password; nobody else does: what the farm shows or stores for showing
 * (runs.params, job show, pages, CSV/JSON, plan expand, progress lines)
 * has it written as "***", and the agent hands it to sysbench in the
 * environment (PGPASSWORD), never on a command line `ps` can read.  Only
 * the keyword/value form is taken here, with the words the agent can pass
 * on (host, port, user, password, dbname); libpq's quoting rules apply
 * (a value in single quotes, \' and \\ inside).  libc only: the static
 * agent links it.
 */
#ifndef SCHEDFARM_CONNINFO_H
#define SCHEDFARM_CONNINFO_H

#include "strbuf.h"
#include "strvec.h"

/* What masked passwords read as. */
#define CONNINFO_MASK "***"

/*
 * Split ci ("host=/run/pg port=5432 user=sb password='a b'") into keys
 * and values, unquoted, in order.  0, or -1 with err saying what is wrong
 * (a word without '=', a keyword the agent cannot pass to sysbench, an
 * open quote, a URI); err never holds a value of ci.
 */
int conninfo_split(const char *ci, struct strvec *keys, struct strvec *vals,
		   struct strbuf *err);

/*
 * Append ci to out with the value of password written as CONNINFO_MASK:
 * the words rebuilt as key=value (quoted where needed).  A string that
 * does not split is masked as free text (text_mask_passwords).
 */
void conninfo_mask(const char *ci, struct strbuf *out);

/*
 * Append text (a plan's YAML, a message) to out with every password in
 * it written as CONNINFO_MASK: the value after "password=" (any case,
 * spaces around '=' allowed; a value in single quotes as libpq reads it,
 * else up to white space -- a '"' closing a YAML double-quoted scalar
 * stays) and the password of a postgres:// or postgresql:// URI.
 */
void text_mask_passwords(const char *text, struct strbuf *out);

#endif

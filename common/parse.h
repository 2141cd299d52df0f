/*
 * parse.h - the one place numbers are read from text.
 *
 * argv, YAML, CSV and agent lines all come through here: the whole string
 * must be the number (no trailing junk, no empty string), and it must lie in
 * [min, max].  On failure the functions return a negative errno and, when
 * ret_err is not NULL, point it at a static phrase fit for an error message
 * ("is not a number", "is out of range 1..64").  (After OpenBSD strtonum.)
 */
#ifndef SCHEDFARM_PARSE_H
#define SCHEDFARM_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

int parse_i64(const char *s, int64_t min, int64_t max, int64_t *ret,
	      const char **ret_err);
int parse_int(const char *s, int min, int max, int *ret, const char **ret_err);
/* Doubles: NaN and infinities are always refused. */
int parse_double(const char *s, double min, double max, double *ret,
		 const char **ret_err);
/*
 * "30", "2.5" (seconds), "30s", "1.5s", "500ms", "1.5m", "1h" to
 * milliseconds within [min_ms, max_ms]; a value finer than a millisecond
 * ("0.0001s") is refused.
 */
int parse_duration_ms(const char *s, int64_t min_ms, int64_t max_ms,
		      int64_t *ret, const char **ret_err);
/* "5368709120", "500M", "5G", "1T" (K, M, G, T: powers of 1024, as
 * du -h and ccache's Ki, Mi, Gi) to bytes within [min, max]. */
int parse_size_bytes(const char *s, int64_t min, int64_t max, int64_t *ret,
		     const char **ret_err);

/*
 * A name a user gives something (a host, a kernel, a patch): 1..max bytes
 * of UTF-8 text without control characters (C0, DEL or C1), bidi
 * controls or the BOM (unicode_is_bidi_or_bom()), so that it prints as
 * itself in a terminal, a table row or a page.  0, or -1 with
 * err saying what is wrong ("WHAT holds a control character (0x1b at
 * byte 4)"); the name itself is never echoed, since it may be what a
 * terminal would act on.  what names the thing ("a host name").
 */
int check_name(const char *what, const char *s, size_t max, struct strbuf *err);

/*
 * 1 when name can be a user name on the remote side: 1 to 32 of
 * [A-Za-z0-9._-], not starting with '-' or '.'.  Anything else (a space,
 * '@', a shell word) is refused before it reaches a server.
 */
int ssh_user_name_ok(const char *name);

/*
 * Is addr what a libvirt host's SSH forward may listen on: a dotted IPv4
 * address (inet_pton), nothing else?  1 or 0.  It ends up inside qemu's
 * -netdev option string, where a name or anything with a comma would be
 * read as more options.  One address, a unicast one: 0.0.0.0/8 (0.0.0.0
 * listens on every interface), multicast 224.0.0.0/4 and 240.0.0.0/4
 * (255.255.255.255 among them) are refused; IPv6 (::, ff00::/8 ...) is
 * not taken at all.
 */
int virt_address_ok(const char *addr);

/*
 * Why virt_address_ok() refuses addr ("not an IPv4 address (like
 * 127.0.0.1)", "a multicast address (224.0.0.0/4)", ...: a phrase that
 * follows "is"), or NULL when it takes it.  A static string.
 */
const char *virt_address_problem(const char *addr);

#endif

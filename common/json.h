/*
 * json.h - a small strict JSON (RFC 8259) reader for untrusted input.
 *
 * The controller reads every agent line with it and the agent reads its run
 * spec with it, so it refuses rather than guesses: no NaN/Infinity tokens,
 * no comments, no trailing commas, no trailing garbage after the value, no
 * lone surrogates or invalid UTF-8 (raw or escaped), no \u0000 (every
 * consumer is C and would silently truncate), no duplicate object keys
 * (which member wins would be a guess), and numbers that overflow a double
 * are refused.  Depth, string length and the total number of values are
 * capped so hostile input cannot make us recurse or allocate without bound.
 *
 * Writing JSON is strbuf_add_json_str() / strbuf_add_json_double() in
 * strbuf.h.
 */
#ifndef SCHEDFARM_JSON_H
#define SCHEDFARM_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

/*
 * Caps on a document.  A zero field takes the default:
 *   max_depth  32       nesting of arrays and objects
 *   max_string 65536    bytes of one decoded string (keys included)
 *   max_items  100000   values in the whole document (keys not counted)
 */
struct json_limits {
	size_t max_depth, max_string, max_items;
};

#define JSON_DEFAULT_MAX_DEPTH 32
#define JSON_DEFAULT_MAX_STRING 65536
#define JSON_DEFAULT_MAX_ITEMS 100000

struct json_value;

/*
 * Parse exactly one JSON value (surrounded by optional whitespace) from
 * text[0..len).  text need not be NUL-terminated.  lim may be NULL for the
 * defaults.  On success return 0 and hand the tree to *ret (free it with
 * json_free()).  On failure return -1, leave *ret NULL and append to err a
 * sentence with the position: "at line 1 column 12: expected ':' after an
 * object key".
 */
int json_parse(const char *text, size_t len, const struct json_limits *lim,
	       struct json_value **ret, struct strbuf *err);
/* Free a tree from json_parse(); NULL is fine. */
void json_free(struct json_value *v);

/* The accessors below accept NULL and values of the wrong type. */
enum json_type json_type_of(const struct json_value *v);
/* "null", "a boolean", "a number", "a string", "an array", "an object". */
const char *json_type_name(enum json_type t);
/* The member named key, or NULL if absent or obj is not an object. */
const struct json_value *json_get(const struct json_value *obj,
				  const char *key);
/* Members of an object or elements of an array; 0 for anything else. */
size_t json_len(const struct json_value *arr_or_obj);
/* Element i of an array, or NULL. */
const struct json_value *json_at(const struct json_value *arr, size_t i);
/* Key / value of member i of an object (in document order), or NULL. */
const char *json_key_at(const struct json_value *obj, size_t i);
const struct json_value *json_value_at(const struct json_value *obj, size_t i);
/* The decoded string, or NULL if v is not a string. */
const char *json_string(const struct json_value *v);
/* Length of the decoded string in bytes (0 if not a string). */
size_t json_string_len(const struct json_value *v);
/* Return 0 and the value, or -1 if v is not a number / boolean. */
int json_number(const struct json_value *v, double *ret);
int json_bool(const struct json_value *v, int *ret);
/* The number as written ("42", "-1.5e3"), for exact integer parsing with
 * parse_i64(); NULL if v is not a number. */
const char *json_number_text(const struct json_value *v);

/*
 * Typed member getters for validating documents.  Each returns 0 and the
 * value; -ENOENT when the key is absent (err untouched, so the caller can
 * apply a default); or -EINVAL when it is there but not what is wanted, with
 * err saying which key and what was expected: "\"iterations\": expected an
 * integer in 1..10000, got 0".  Strings returned point into obj.
 */
int json_get_i64(const struct json_value *obj, const char *key, int64_t min,
		 int64_t max, int64_t *ret, struct strbuf *err);
int json_get_double(const struct json_value *obj, const char *key, double min,
		    double max, double *ret, struct strbuf *err);
/* max_len: longest acceptable string in bytes (0: no limit beyond parsing). */
int json_get_string(const struct json_value *obj, const char *key,
		    size_t max_len, const char **ret, struct strbuf *err);
int json_get_bool(const struct json_value *obj, const char *key, int *ret,
		  struct strbuf *err);

/*
 * Lenient member getters for reading documents the farm wrote itself (a
 * bisection's or a patch's summary), where a missing or mistyped member
 * is shown as absent rather than refused: the string member key (pointing
 * into obj), or NULL; the number member key, or NAN.
 */
const char *json_member_string(const struct json_value *obj, const char *key);
double json_member_number(const struct json_value *obj, const char *key);

#endif

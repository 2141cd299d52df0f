/*
 * fuzz-json.c - libFuzzer target for the strict JSON reader: any input must
 * parse or be refused with a message, never crash, leak or read out of
 * bounds; what parses must be walkable with every accessor.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const struct json_value *v, int depth)
{
	double d;
	int b;
	int64_t i;
	const char *s;
	struct strbuf err = STRBUF_INIT;

	json_number(v, &d);
	json_bool(v, &b);
	json_number_text(v);
	s = json_string(v);
	if (s)
		(void)strlen(s);
	for (size_t k = 0; k < json_len(v); k++) {
		const char *key = json_key_at(v, k);

		walk(json_at(v, k), depth + 1);
		walk(json_value_at(v, k), depth + 1);
		if (key) {
			json_get_i64(v, key, -5, 5, &i, &err);
			json_get_double(v, key, 0, 1, &d, &err);
			json_get_string(v, key, 3, &s, &err);
			json_get_bool(v, key, &b, &err);
			json_get(v, key);
		}
	}
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_value *v = NULL;
	struct strbuf err = STRBUF_INIT;
	struct json_limits lim = { 8, 64, 256 };

	if (json_parse((const char *)data, size, NULL, &v, &err) == 0) {
		/* what parses is reported without error text */
		if (err.len)
			__builtin_trap();
		walk(v, 0);
		json_free(v);
	} else if (!err.len || v) {
		__builtin_trap(); /* a refusal always says why */
	}
	strbuf_reset(&err);
	if (json_parse((const char *)data, size, &lim, &v, &err) == 0)
		json_free(v);
	strbuf_release(&err);
	return 0;
}

/*
 * fuzz-agent-spec.c - libFuzzer target for the run spec checker: a spec is
 * accepted (and then every parameter reads back) or refused with a message.
 */
#include <stddef.h>
#include <stdint.h>

#include "agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_spec s;
	struct strbuf field = STRBUF_INIT, err = STRBUF_INIT;

	run_spec_init(&s);
	if (spec_parse((const char *)data, size, &s, &field, &err) == 0) {
		for (size_t i = 0; i < s.pnames.nr; i++)
			(void)spec_param(&s, s.pnames.v[i]);
		if (s.iterations < 1 || !s.wl)
			__builtin_trap();
	} else if (!err.len) {
		__builtin_trap();
	}
	run_spec_release(&s);
	strbuf_release(&field);
	strbuf_release(&err);
	return 0;
}

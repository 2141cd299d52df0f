/*
 * fuzz-agent-spec.c - libFuzzer target for the run spec checker: a spec is
 * accepted (and then every parameter reads back, of the run or of each
 * together member) or refused with a message.
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
		for (size_t m = 0; m < s.nmembers; m++) {
			const struct run_spec *ms = &s.members[m];

			if (!ms->wl || !ms->name || !wl_ops_of(ms))
				__builtin_trap();
			for (size_t i = 0; i < ms->pnames.nr; i++)
				(void)spec_param(ms, ms->pnames.v[i]);
		}
		if (s.iterations < 1 || (!s.wl && !s.nmembers) ||
		    (s.wl && !wl_ops_of(&s)))
			__builtin_trap();
	} else if (!err.len) {
		__builtin_trap();
	}
	run_spec_release(&s);
	strbuf_release(&field);
	strbuf_release(&err);
	return 0;
}

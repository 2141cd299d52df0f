/*
 * fuzz-agent-lines.c - libFuzzer target for the checks every agent line
 * goes through before the controller believes it (store/ingest.c): the
 * whole of a run's output (ingest_check_all(), which hands each line to
 * ingest_check_line(): types, fields, ranges, nothing after done), with
 * the error's quoting of what was refused.  The first byte picks the
 * run's bounds (iterations 1..8, warm-up 0..3) so both in- and
 * out-of-range iterations are reached; the run id is always 1, as in the
 * seeds.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "store/ingest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ingest_expect ex = { 1, 3, 1 };
	struct ingest_summary sum;
	struct strbuf err = STRBUF_INIT;

	if (size) {
		ex.iterations = 1 + (data[0] & 7);
		ex.warmup = (data[0] >> 3) & 3;
		data++;
		size--;
	}
	/* Every line goes through ingest_check_line() in order until the
	 * first bad one, which is what a run's stream gets too. */
	memset(&sum, 0, sizeof(sum));
	if (ingest_check_all((const char *)data, size, &ex, &sum, &err) == 0)
		ingest_summary_release(&sum);
	strbuf_release(&err);
	return 0;
}

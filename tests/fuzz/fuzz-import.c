/*
 * fuzz-import.c - libFuzzer target for `schedfarm import`'s CSV reader
 * (analysis/import.c): any bytes must parse into checked rows or be
 * refused row by row with FILE:LINE reasons, never crash, leak or read
 * out of bounds.
 */
#include <stddef.h>
#include <stdint.h>

#include "analysis/import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf content = STRBUF_INIT;
	struct import_file f;

	strbuf_add(&content, data, size);
	import_file_init(&f, "fuzz.csv");
	import_parse(&f, &content);
	import_file_release(&f);
	strbuf_release(&content);
	return 0;
}

/*
 * test-console.c - the console scanner: every table row, milestones, a
 * firmware banner before and after Linux, lines split across feeds, the
 * bounds on line length and on kept hits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lab/console.h"

/* Each table row matches a line that holds its needle. */
static void test_every_row_matches(void **state)
{
	(void)state;
	for (size_t i = 0; i < console_patterns_count; i++) {
		const struct console_pattern *p = &console_patterns[i];
		struct console_scanner cs;
		struct strbuf in = STRBUF_INIT;

		console_scanner_init(&cs);
		/* Firmware rows count only after Linux started. */
		if (p->event == CONSOLE_EV_FIRMWARE)
			console_scanner_feed(&cs, "[0.0] Linux version 6.1 x\n",
					     26, 1);
		strbuf_addf(&in, "[    1.234] xx %s yy\n", p->needle);
		console_scanner_feed(&cs, in.buf, in.len, 10);
		assert_int_equal(console_scanner_count(&cs, p->event) >= 1, 1);
		assert_int_equal(!!console_scanner_fatal(&cs),
				 p->kind == CONSOLE_FATAL);
		strbuf_release(&in);
		console_scanner_release(&cs);
	}
}

static void test_boot_sequence_and_panic(void **state)
{
	struct console_scanner cs;
	const char *boot =
		"\r\n[    0.000000] Linux version 6.1.0-57-amd64 "
		"(debian-kernel@"
		"lists.debian.org) #1 SMP\r\n"
		"[    1.1] WARNING: CPU: 0 PID: 1 at foo\r\n"
		"SCHEDFARM-AGENT-READY release=6.1.0-57-amd64 sockets=2\r\n";
	const char *panic1 = "[    2.0] Kernel pan";
	const char *panic2 = "ic - not syncing: Attempted to kill init!\r\n";
	struct strbuf sum = STRBUF_INIT;

	(void)state;
	console_scanner_init(&cs);
	assert_int_equal(console_scanner_feed(&cs, boot, strlen(boot), 100), 0);
	assert_int_equal(cs.linux_ms, 100);
	assert_int_equal(cs.beacon_ms, 100);
	assert_string_equal(cs.linux_release, "6.1.0-57-amd64");
	assert_string_equal(cs.beacon_release, "6.1.0-57-amd64");
	assert_int_equal(console_scanner_count(&cs, CONSOLE_EV_WARNING), 1);
	assert_null(console_scanner_fatal(&cs));
	/* A line split across two reads is matched once, when complete. */
	assert_int_equal(console_scanner_feed(&cs, panic1, strlen(panic1), 200),
			 0);
	assert_int_equal(console_scanner_feed(&cs, panic2, strlen(panic2), 300),
			 1);
	assert_non_null(console_scanner_fatal(&cs));
	assert_string_equal(console_scanner_fatal(&cs)->name, "panic");
	assert_int_equal(cs.fatal_ms, 300);
	console_scanner_summary(&cs, 0, &sum);
	assert_non_null(
		strstr(sum.buf, "+0.300s panic: [    2.0] Kernel panic"));
	assert_non_null(strstr(sum.buf, "warning: "));
	strbuf_release(&sum);
	console_scanner_release(&cs);
}

static void test_firmware_banner_only_after_linux(void **state)
{
	struct console_scanner cs;
	const char *fw = "SeaBIOS (version 1.16.2-debian-1.16.2-1)\n";

	(void)state;
	console_scanner_init(&cs);
	assert_int_equal(console_scanner_feed(&cs, fw, strlen(fw), 1), 0);
	console_scanner_feed(&cs, "Linux version 6.1 (x)\n", 22, 2);
	assert_int_equal(console_scanner_feed(&cs, fw, strlen(fw), 3), 1);
	assert_string_equal(console_scanner_fatal(&cs)->name, "firmware");
	console_scanner_release(&cs);
}

static void test_bounds(void **state)
{
	struct console_scanner cs;
	struct strbuf big = STRBUF_INIT;

	(void)state;
	console_scanner_init(&cs);
	/* A needle past the line cap is not seen; the line is bounded. */
	for (int i = 0; i < CONSOLE_LINE_MAX + 10; i++)
		strbuf_addch(&big, 'x');
	strbuf_addstr(&big, "Kernel panic - not syncing\n");
	console_scanner_feed(&cs, big.buf, big.len, 1);
	assert_null(console_scanner_fatal(&cs));
	/* Hits past the cap are counted, not kept. */
	for (int i = 0; i < CONSOLE_MAX_HITS + 5; i++)
		console_scanner_feed(&cs, "BUG: x\n", 7, 2);
	assert_int_equal(cs.nhits, CONSOLE_MAX_HITS - 4);
	assert_int_equal(cs.dropped_hits, 9);
	/* The tail stays bounded whatever is fed. */
	for (int i = 0; i < 100; i++)
		console_scanner_feed(&cs, big.buf, big.len, 3);
	assert_true(cs.tail.len <= 2 * CONSOLE_TAIL_MAX);
	/* A final line without a newline is scanned at flush. */
	console_scanner_feed(&cs, "Kernel panic - not syncing: x", 29, 4);
	assert_null(console_scanner_fatal(&cs));
	console_scanner_flush(&cs, 5);
	/* ...and kept although the recorded hits filled their share. */
	assert_non_null(console_scanner_fatal(&cs));
	strbuf_release(&big);
	console_scanner_release(&cs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_row_matches),
		cmocka_unit_test(test_boot_sequence_and_panic),
		cmocka_unit_test(test_firmware_banner_only_after_linux),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

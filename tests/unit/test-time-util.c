/*
 * test-time-util.c - common/time-util: the monotonic clock, deadlines, and
 * sleep_ms() sleeping its whole time while signals keep arriving.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "time-util.h"

static volatile sig_atomic_t ticks;

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

static void test_mono_ms_moves_forward(void **state)
{
	int64_t a, b;

	(void)state;
	a = mono_ms();
	sleep_ms(20);
	b = mono_ms();
	assert_true(b - a >= 20);
	assert_true(b - a < 5000);
}

static void test_sleep_nothing(void **state)
{
	int64_t t0;

	(void)state;
	t0 = mono_ms();
	sleep_ms(0);
	sleep_ms(-100);
	assert_true(mono_ms() - t0 < 50);
}

/* A signal every 10 ms, delivered without SA_RESTART so each one breaks
 * into the sleep with EINTR: the sleep still lasts its whole time. */
static void test_sleep_survives_signals(void **state)
{
	struct sigaction sa, old;
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	int64_t t0, took;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	ticks = 0;
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
	t0 = mono_ms();
	sleep_ms(300);
	took = mono_ms() - t0;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	assert_true(took >= 300);
	assert_true(took < 3000);
	/* The signals did arrive during the sleep. */
	assert_true(ticks >= 5);
}

static void test_deadlines(void **state)
{
	int64_t d;

	(void)state;
	d = deadline_in(10000);
	assert_true(deadline_left(d) > 9000);
	assert_true(deadline_left(d) <= 10000);
	assert_int_equal(deadline_left(deadline_in(-5)), 0);
	d = deadline_in(30);
	sleep_ms(40);
	assert_int_equal(deadline_left(d), 0);
}

/* Budgets nest: the tightest one bounds what is left and is the one
 * named when time runs out. */
static void test_budgets_nest(void **state)
{
	struct budget job, phase, cmd, unlimited;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	budget_start(&job, "the job's budget", 60000, NULL);
	budget_start(&phase, "the run phase's limit", 5000, &job);
	budget_start(&cmd, "the command's limit", 100000, &phase);
	/* The command's own 100 s are cut to its phase's 5 s. */
	assert_ptr_equal(budget_tightest(&cmd), &phase);
	assert_true(budget_left(&cmd) <= 5000);
	assert_true(budget_left(&cmd) > 4000);
	assert_false(budget_expired(&cmd));
	/* A phase longer than what is left of the job gets the job's. */
	budget_start(&phase, "the collect phase's limit", 3600000, &job);
	assert_ptr_equal(budget_tightest(&phase), &job);
	assert_true(budget_left(&phase) <= 60000);
	/* On a tie the innermost is named. */
	budget_start(&cmd, "inner", 0, NULL);
	assert_ptr_equal(budget_tightest(&cmd), &cmd);
	/* No limit anywhere: never runs out. */
	budget_start(&unlimited, "none", -1, NULL);
	assert_true(budget_left(&unlimited) == INT64_MAX);
	assert_false(budget_expired(&unlimited));
	budget_start(&cmd, "the command's limit", 30, &unlimited);
	sleep_ms(40);
	assert_true(budget_expired(&cmd));
	assert_int_equal(budget_left(&cmd), 0);
	budget_describe(&cmd, &sb);
	assert_non_null(strstr(sb.buf, "the command's limit ran out after "));
	strbuf_release(&sb);
}

static void test_format_duration(void **state)
{
	static const struct {
		int64_t ms;
		const char *want;
	} cases[] = {
		{ 0, "0ms" },	    { 850, "850ms" },	   { 1000, "1s" },
		{ 1500, "1.5s" },   { 42000, "42s" },	   { 120000, "2m" },
		{ 125000, "2m5s" }, { 3600000, "1h" },	   { 5400000, "1h30m" },
		{ 86400000, "1d" }, { 183600000, "2d3h" }, { -5, "0ms" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;

		format_duration_ms(&sb, cases[i].ms);
		assert_string_equal(sb.buf, cases[i].want);
		strbuf_release(&sb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mono_ms_moves_forward),
		cmocka_unit_test(test_sleep_nothing),
		cmocka_unit_test(test_sleep_survives_signals),
		cmocka_unit_test(test_deadlines),
		cmocka_unit_test(test_budgets_nest),
		cmocka_unit_test(test_format_duration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

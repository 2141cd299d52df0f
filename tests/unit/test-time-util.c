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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mono_ms_moves_forward),
		cmocka_unit_test(test_sleep_nothing),
		cmocka_unit_test(test_sleep_survives_signals),
		cmocka_unit_test(test_deadlines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

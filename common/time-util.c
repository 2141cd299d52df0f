/*
 * time-util.c - the monotonic clock, sleeping and deadlines; see
 * time-util.h.  libc only (the static agent links it).
 */
#include <errno.h>
#include <time.h>

#include "time-util.h"
#include "banned.h"

int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Sleep to an absolute time rather than for a relative one: after EINTR a
 * relative sleep would have to be restarted with the remainder, and a
 * stream of signals (SIGCHLD from a busy child, say) would stretch or,
 * with a careless restart, shorten it.
 */
void sleep_ms(int64_t ms)
{
	struct timespec until;
	int r;

	if (ms <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(ms / 1000);
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	do
		r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until,
				    NULL);
	while (r == EINTR);
}

int64_t deadline_in(int64_t ms)
{
	return mono_ms() + ms;
}

int64_t deadline_left(int64_t deadline)
{
	int64_t left = deadline - mono_ms();

	return left > 0 ? left : 0;
}

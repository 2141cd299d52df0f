/*
 * time-util.h - the monotonic clock, sleeping and deadlines.
 *
 * Durations and deadlines are milliseconds on CLOCK_MONOTONIC, which no
 * clock step (NTP, the operator, a suspended VM's catch-up) moves; wall
 * time is only ever for dates that a person reads.  Linked into both the
 * controller and the static agent: libc only.  (The file is time-util.h,
 * not time.h, because common/ is on the include path and a time.h there
 * would stand in for the C library's <time.h>; systemd names its own the
 * same way.)
 */
#ifndef SCHEDFARM_TIME_UTIL_H
#define SCHEDFARM_TIME_UTIL_H

#include <stdint.h>

/* Milliseconds on the monotonic clock, from an arbitrary start. */
int64_t mono_ms(void);

/*
 * Sleep ms milliseconds (nothing when ms <= 0).  A signal does not cut
 * the sleep short: it waits for an absolute point on the monotonic clock
 * and goes back to sleep after each EINTR, so the whole time passes
 * however many signals arrive.  Code that must react to a signal polls a
 * flag between short sleeps instead.
 */
void sleep_ms(int64_t ms);

/* The point on the monotonic clock ms milliseconds from now. */
int64_t deadline_in(int64_t ms);

/* Milliseconds left until deadline (a mono_ms() value); 0 once passed. */
int64_t deadline_left(int64_t deadline);

#endif

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

#include "strbuf.h"

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

/*
 * Budgets: limits that nest (REFERENCE.md section 3).  A job has a
 * budget; each phase has one of its own inside it; each command one
 * inside its phase.  What is left of a budget is the smaller of its own
 * time and what is left of every budget around it, so a command never
 * outlives its phase nor a phase its job.  When time runs out,
 * budget_tightest() says which limit it was, and budget_describe() puts
 * that into words for the error: "the run phase's limit (timeouts.run,
 * 2m) ran out", "the job's budget (timeouts.job, 1h) ran out".
 *
 * A budget is a small value on the caller's stack; name points to a
 * string that outlives it; parent, when not NULL, must outlive it too.
 */
struct budget {
	const char *name; /* "the run phase's limit (timeouts.run, 2m)" */
	int64_t limit_ms; /* its own length; < 0: none of its own */
	int64_t start; /* mono_ms() when it began */
	const struct budget *parent;
};

/* Begin b now: limit_ms of its own (< 0: only what parent leaves). */
void budget_start(struct budget *b, const char *name, int64_t limit_ms,
		  const struct budget *parent);

/* The mono_ms() point where b (or one around it) runs out; INT64_MAX
 * when no budget of the chain has a limit. */
int64_t budget_end(const struct budget *b);

/* Milliseconds left of b and every budget around it (0 once out). */
int64_t budget_left(const struct budget *b);

/* 1 once b or a budget around it has run out. */
int budget_expired(const struct budget *b);

/* The budget of b's chain that runs out first (b itself on a tie). */
const struct budget *budget_tightest(const struct budget *b);

/*
 * The limit that runs out first, for an error: "<its name> ran out after
 * <how long it has run>".  Appended to out.
 */
void budget_describe(const struct budget *b, struct strbuf *out);

/* A duration for people: "850ms", "42s", "2m", "1h30m", "2d3h". */
void format_duration_ms(struct strbuf *out, int64_t ms);

#endif

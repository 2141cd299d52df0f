/*
 * time-util.c - the monotonic clock, sleeping and deadlines; see
 * time-util.h.  libc only (the static agent links it).
 */
#include <errno.h>
#include <inttypes.h>
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

void budget_start(struct budget *b, const char *name, int64_t limit_ms,
		  const struct budget *parent)
{
	b->name = name;
	b->limit_ms = limit_ms;
	b->start = mono_ms();
	b->parent = parent;
}

/* Where one budget of the chain ends on its own (INT64_MAX: no limit). */
static int64_t own_end(const struct budget *b)
{
	if (b->limit_ms < 0 || b->start > INT64_MAX - b->limit_ms)
		return INT64_MAX;
	return b->start + b->limit_ms;
}

const struct budget *budget_tightest(const struct budget *b)
{
	const struct budget *best = b;
	int64_t best_end = own_end(b);

	for (const struct budget *p = b->parent; p; p = p->parent) {
		int64_t e = own_end(p);

		/* Strictly earlier: on a tie the innermost limit is the one
		 * to name, being the most specific. */
		if (e < best_end) {
			best = p;
			best_end = e;
		}
	}
	return best;
}

int64_t budget_end(const struct budget *b)
{
	return own_end(budget_tightest(b));
}

int64_t budget_left(const struct budget *b)
{
	int64_t end = budget_end(b), now = mono_ms();

	if (end == INT64_MAX)
		return INT64_MAX;
	return end > now ? end - now : 0;
}

int budget_expired(const struct budget *b)
{
	return budget_left(b) == 0;
}

void format_duration_ms(struct strbuf *out, int64_t ms)
{
	int64_t s;

	if (ms < 0)
		ms = 0;
	s = ms / 1000;
	if (ms < 1000) {
		strbuf_addf(out, "%" PRId64 "ms", ms);
	} else if (s < 60) {
		if (ms % 1000)
			strbuf_addf(out, "%.1fs", (double)ms / 1000.0);
		else
			strbuf_addf(out, "%" PRId64 "s", s);
	} else if (s < 3600) {
		strbuf_addf(out, "%" PRId64 "m", s / 60);
		if (s % 60)
			strbuf_addf(out, "%" PRId64 "s", s % 60);
	} else if (s < 86400) {
		strbuf_addf(out, "%" PRId64 "h", s / 3600);
		if (s % 3600 / 60)
			strbuf_addf(out, "%" PRId64 "m", s % 3600 / 60);
	} else {
		strbuf_addf(out, "%" PRId64 "d", s / 86400);
		if (s % 86400 / 3600)
			strbuf_addf(out, "%" PRId64 "h", s % 86400 / 3600);
	}
}

void budget_describe(const struct budget *b, struct strbuf *out)
{
	const struct budget *t = budget_tightest(b);

	strbuf_addf(out, "%s ran out after ", t->name ? t->name : "a limit");
	format_duration_ms(out, mono_ms() - t->start);
}

/*
 * hist.c - the HDR-style histogram of hist.h: log buckets with linear
 * sub-buckets, counted per thread without locks, merged at the end.
 *
 * A value v >= 128 with its highest bit at b (7..63) is kept to its top 7
 * bits: shift = b - 6 puts v >> shift in [64, 128), so the bucket is
 * (shift, v >> shift) and is 2^shift wide, at least 64 * 2^shift from 0.
 */
#include <math.h>
#include <string.h>

#include "hist.h"
#include "banned.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned hist_bucket(uint64_t v)
{
	unsigned shift;

	if (v < HIST_EXACT)
		return (unsigned)v;
	shift = (unsigned)(63 - __builtin_clzll(v)) - 6;
	return HIST_EXACT + (shift - 1) * HIST_SUB +
	       (unsigned)((v >> shift) - HIST_SUB);
}

uint64_t hist_bucket_low(unsigned i)
{
	unsigned shift;

	if (i < HIST_EXACT)
		return i;
	shift = (i - HIST_EXACT) / HIST_SUB + 1;
	return (uint64_t)((i - HIST_EXACT) % HIST_SUB + HIST_SUB) << shift;
}

uint64_t hist_bucket_high(unsigned i)
{
	unsigned shift;

	if (i < HIST_EXACT)
		return i;
	shift = (i - HIST_EXACT) / HIST_SUB + 1;
	/* The top bucket ends at UINT64_MAX: computed without overflow. */
	return hist_bucket_low(i) + (((uint64_t)1 << shift) - 1);
}

void hist_add(struct hist *h, uint64_t v)
{
	h->count[hist_bucket(v)]++;
	h->total++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void hist_merge(struct hist *into, const struct hist *from)
{
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		into->count[i] += from->count[i];
	into->total += from->total;
	if (from->min < into->min)
		into->min = from->min;
	if (from->max > into->max)
		into->max = from->max;
}

/*
 * Walk the buckets to the one holding the value of the wanted rank and
 * give its middle: half a bucket (1/128 of its lower bound) from any value
 * in it.  The first and the last rank are the recorded minimum and
 * maximum, exact, and a middle is clamped to them.
 */
uint64_t hist_percentile(const struct hist *h, double pct)
{
	uint64_t rank, seen = 0, low, high, mid;

	if (!h->total)
		return 0;
	if (pct > 100)
		pct = 100;
	rank = (uint64_t)ceil(pct / 100.0 * (double)h->total);
	if (rank < 1)
		rank = 1;
	if (rank >= h->total)
		return h->max;
	if (rank == 1)
		return h->min;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen < rank)
			continue;
		low = hist_bucket_low(i);
		high = hist_bucket_high(i);
		mid = low + (high - low) / 2;
		if (mid < h->min)
			mid = h->min;
		if (mid > h->max)
			mid = h->max;
		return mid;
	}
	return h->max;
}

/*
 * hist.h - an HDR-style latency histogram: values below 128 each have a
 * bucket of their own, and every power of two above is cut into 64 linear
 * sub-buckets, so a bucket is at most 1/64 of its lower bound wide and
 * the value reported for it (its middle, clamped to what was recorded) is
 * within 1/128 (0.8%) of any value in it.  Every uint64_t fits: 0 and
 * UINT64_MAX included, nothing is clipped.
 *
 * One histogram per thread, filled without locks while measuring, and
 * merged by whoever joins the threads: the counts add, so a merge is
 * exactly the histogram of all the values.
 */
#ifndef SCHEDFARM_HIST_H
#define SCHEDFARM_HIST_H

#include <stdint.h>

#define HIST_EXACT 128 /* values below it have a bucket each */
#define HIST_SUB 64 /* linear sub-buckets per power of two above */
/* 128 exact, then 64 for each power of two from 2^7 to 2^63. */
#define HIST_BUCKETS (HIST_EXACT + (64 - 7) * HIST_SUB)

struct hist {
	uint64_t count[HIST_BUCKETS];
	uint64_t total; /* values recorded */
	uint64_t min, max; /* of the values recorded (min UINT64_MAX: none) */
};

/* An empty histogram. */
void hist_init(struct hist *h);
/* Count one value: a few instructions, no lock, no allocation. */
void hist_add(struct hist *h, uint64_t v);
/* Add from's counts, minimum and maximum into into (from unchanged). */
void hist_merge(struct hist *into, const struct hist *from);
/*
 * The pct-th percentile (0 < pct <= 100) by nearest rank: the value of
 * rank ceil(pct/100 * total) in sorted order, within 1/128 of it (exact
 * below 128, and for the first and the last rank).  0 when h is empty.
 */
uint64_t hist_percentile(const struct hist *h, double pct);
/* The bucket of v, and the lowest and highest values of bucket i. */
unsigned hist_bucket(uint64_t v);
uint64_t hist_bucket_low(unsigned i);
uint64_t hist_bucket_high(unsigned i);

#endif

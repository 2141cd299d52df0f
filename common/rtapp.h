/*
 * rtapp.h - rt-app task sets as a plan writes them, and the JSON rt-app
 * reads.  A plan gives the task set inline, as a YAML block string of one
 * flow mapping per task:
 *
 *   tasks: |
 *     - {name: video, period: 16ms, run: 4ms, policy: fifo, priority: 10}
 *     - {name: audio, period: 10ms, run: 1ms, instances: 2}
 *
 * Linked by both sides: the plan checker refuses a bad task set through
 * workload_check_value() before anything runs, and the agent turns the
 * same text into rt-app's JSON for the run.
 */
#ifndef SCHEDFARM_RTAPP_H
#define SCHEDFARM_RTAPP_H

#include <stdint.h>

#include "strbuf.h"

#define RTAPP_MAX_TASKS 64
#define RTAPP_MAX_INSTANCES 256

enum rtapp_policy { RTAPP_OTHER, RTAPP_FIFO, RTAPP_RR };

struct rtapp_task {
	char name[33]; /* [A-Za-z0-9_]{1,32} */
	int64_t period_us, run_us;
	enum rtapp_policy policy;
	int priority; /* FIFO/RR: 1..99; OTHER: 0 */
	int instances;
};

struct rtapp_taskset {
	struct rtapp_task tasks[RTAPP_MAX_TASKS];
	int n;
};

/*
 * Parse a task set (the text above: lines "- {key: value, ...}", blank
 * lines and "# comments" ignored).  Keys: name (required), period and run
 * (required; "10ms", "500us", "1s" or a number of microseconds; run <=
 * period), policy (other, fifo, rr; default other), priority (1..99,
 * fifo/rr only), instances (1..256; default 1).  Return 0 with *ret
 * filled, or -1 with err a sentence naming the task line at fault.
 */
int rtapp_taskset_parse(const char *text, struct rtapp_taskset *ret,
			struct strbuf *err);

/*
 * rt-app's JSON for ts (appended to out): each task periodic with its own
 * timer ("ref": "unique"), run for duration_s seconds, logging every
 * period to logdir/rt-TASK-N.log through a 2 MB buffer per thread
 * (rt-app 1.0's "file" mode left the logs empty when the duration ended
 * the run).  Tasks use "runtime" (time, not calibrated loops), so the
 * calibration is skipped with ns_per_loop when > 0 (rt-app otherwise
 * spends seconds calibrating on CPU0 first).
 */
void rtapp_json(const struct rtapp_taskset *ts, int64_t duration_s,
		const char *logdir, int ns_per_loop, struct strbuf *out);

/*
 * A one-line label for the task set text, for run labels and `plan
 * expand`: the task names in order (with *N for instances), and a digest
 * of what the set does ("[video,audio*2,ui]#3fa9c1"), so two sets with
 * the same names but other periods, runs or policies differ.  The digest
 * is of the parsed tasks, not the text, so a set written with other
 * spacing has the same label.  A text that does not parse is labelled
 * "[?]#" and the digest of the text.  Appends to out; no spaces.
 */
void rtapp_taskset_label(const char *text, struct strbuf *out);

#endif

/*
 * parsers_modern.c - the numbers of the workloads today's scheduler
 * reports use: dbench's tbench (its "Throughput" line), stress-ng's
 * --metrics --yaml file, and rt-app's per-thread logs.
 *
 * Output is untrusted text, as in parsers.c: work line by line on a copy
 * of bounded length, read numbers through parse.h, and return -1 with a
 * sentence when the headline figure is missing.  The fixtures in
 * tests/data/agent/ were captured from real runs of dbench 4.00,
 * stress-ng 0.15.06 and rt-app 1.0 (Debian bookworm).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "parse.h"
#include "rtapp.h"
#include "banned.h"

/* Call fn on each line of text (NUL-terminated, at most 4096 bytes). */
static void lines(const char *text, size_t len,
		  void (*fn)(char *line, void *data), void *data)
{
	const char *p = text, *end = text + len;
	struct strbuf l = STRBUF_INIT;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		strbuf_reset(&l);
		strbuf_add(&l, p, n > 4096 ? 4096 : n);
		for (size_t i = 0; i < l.len; i++)
			if (!l.buf[i] || l.buf[i] == '\r')
				l.buf[i] = ' ';
		fn(l.buf, data);
		p += n + 1;
	}
	strbuf_release(&l);
}

/* Split line at blanks into at most max words (in place); the count. */
static int words(char *line, char **w, int max)
{
	int n = 0;

	while (*line && n < max) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line)
			break;
		w[n++] = line;
		while (*line && *line != ' ' && *line != '\t')
			line++;
		if (*line)
			*line++ = '\0';
	}
	return n;
}

/* ---- tbench --------------------------------------------------------- */

/* "Throughput 191.626 MB/sec  1 clients  1 procs  max_latency=5.917 ms" */
struct tb_state {
	struct metrics *ms;
	int zero;
};

static void tb_line(char *line, void *data)
{
	struct tb_state *tb = data;
	struct metrics *ms = tb->ms;
	char *w[9], name[64];
	double mb, lat;
	int clients, n = words(line, w, 9);

	if (n < 7 || strcmp(w[0], "Throughput") || strcmp(w[2], "MB/sec") ||
	    strcmp(w[4], "clients") ||
	    parse_double(w[1], 0, 1e12, &mb, NULL) < 0 ||
	    parse_int(w[3], 1, 1 << 20, &clients, NULL) < 0)
		return;
	if (mb == 0) {
		/* tbench -t 1 ends before it measures anything */
		tb->zero = 1;
		return;
	}
	snprintf(name, sizeof(name), "throughput_mb_s.%d", clients);
	metrics_add(ms, name, mb, "MB/s", "higher");
	for (int i = 5; i < n; i++)
		if (starts_with(w[i], "max_latency=") &&
		    parse_double(w[i] + 12, 0, 1e12, &lat, NULL) == 0) {
			snprintf(name, sizeof(name), "max_latency_ms.%d",
				 clients);
			metrics_add(ms, name, lat, "ms", "lower");
		}
}

int parse_tbench(const char *text, size_t len, struct metrics *ms,
		 struct strbuf *err)
{
	struct tb_state tb = { ms, 0 };
	size_t before = ms->n;

	lines(text, len, tb_line, &tb);
	if (ms->n == before && tb.zero) {
		strbuf_addstr(err, "tbench measured 0 MB/sec (it measures "
				   "nothing in its first second: a longer "
				   "duration)");
		return -1;
	}
	if (ms->n == before) {
		strbuf_addstr(err, "tbench printed no \"Throughput N MB/sec "
				   "N clients\" line");
		return -1;
	}
	return 0;
}

/* ---- stress-ng --yaml ------------------------------------------------- */

struct sng_state {
	struct metrics *ms;
	int in_metrics, stressors;
};

/*
 * The metrics: section is a list of maps, "    - stressor: switch" then
 * "      bogo-ops-per-second-real-time: 75418.245458" lines; stress-ng
 * runs one stressor per run here, so its figures are the run's.
 */
static void sng_line(char *line, void *data)
{
	static const struct {
		const char *key, *metric, *unit;
	} keys[] = {
		{ "bogo-ops-per-second-real-time:", "bogo_ops_per_s", "1/s" },
		{ "bogo-ops-per-second-usr-sys-time:", "bogo_ops_per_s_cpu",
		  "1/s" },
		{ "bogo-ops:", "bogo_ops", "ops" },
	};
	struct sng_state *st = data;
	char *w[4];
	int n;
	double v;

	if (line[0] && line[0] != ' ') {
		st->in_metrics = !strcmp(line, "metrics:");
		return;
	}
	if (!st->in_metrics)
		return;
	n = words(line, w, 4);
	if (n == 3 && !strcmp(w[0], "-") && !strcmp(w[1], "stressor:")) {
		st->stressors++;
		return;
	}
	if (n != 2 || st->stressors != 1)
		return;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(w[0], keys[i].key) &&
		    parse_double(w[1], 0, 1e300, &v, NULL) == 0)
			metrics_add(st->ms, keys[i].metric, v, keys[i].unit,
				    "higher");
}

int parse_stress_ng_yaml(const char *text, size_t len, struct metrics *ms,
			 struct strbuf *err)
{
	struct sng_state st = { ms, 0, 0 };

	lines(text, len, sng_line, &st);
	if (st.stressors > 1) {
		strbuf_addf(err,
			    "stress-ng's metrics name %d stressors; one was "
			    "run",
			    st.stressors);
		return -1;
	}
	if (!metrics_find(ms, "bogo_ops_per_s")) {
		strbuf_addstr(err, "stress-ng's YAML has no metrics: entry "
				   "with bogo-ops-per-second-real-time");
		return -1;
	}
	return 0;
}

/* ---- rt-app logs -------------------------------------------------------- */

struct rt_task {
	char name[40];
	uint64_t rows, missed;
	double slack_sum, slack_min, wu_sum, wu_max, pi_sum, pi_min;
};

struct rt_state {
	struct rt_task *t;
	size_t n, alloc;
	struct rt_task *cur;
	int bad_rows;
	char first_bad[120];
};

/* "# task NAME" starts a task's rows (threads of one task share it). */
static void rt_task_start(struct rt_state *st, const char *name)
{
	for (size_t i = 0; i < st->n; i++)
		if (!strcmp(st->t[i].name, name)) {
			st->cur = &st->t[i];
			return;
		}
	if (st->n >= RTAPP_MAX_TASKS || strlen(name) >= sizeof(st->t->name)) {
		st->cur = NULL;
		return;
	}
	ALLOC_GROW(st->t, st->n + 1, st->alloc);
	st->cur = &st->t[st->n++];
	memset(st->cur, 0, sizeof(*st->cur));
	memcpy(st->cur->name, name, strlen(name) + 1);
}

/*
 * A log row: idx perf run period start end rel_st slack c_duration
 * c_period wu_lat (microseconds); the last row of a thread may have
 * c_period 0 (the run ended inside the phase) and is skipped.  rt-app prints
 * wu_lat unsigned, so a timer that had expired before the thread reached it (it
 * overran) shows as 2^64 - x: read as signed, that is no wake-up at all, 0.
 */
static void rt_line(char *line, void *data)
{
	struct rt_state *st = data;
	char *w[12];
	int n;
	int64_t slack, c_dur, c_per, wu;
	uint64_t wu_u;
	double pi;
	struct rt_task *t;

	if (starts_with(line, "# task ")) {
		char *name[2];

		if (words(line + 7, name, 2) == 1)
			rt_task_start(st, name[0]);
		else
			st->cur = NULL;
		return;
	}
	if (line[0] == '#' || !st->cur)
		return;
	snprintf(st->first_bad, st->bad_rows ? 0 : sizeof(st->first_bad), "%s",
		 line);
	n = words(line, w, 12);
	if (!n)
		return;
	if (n != 11 || parse_i64(w[7], -1000000000, 1000000000, &slack, NULL) ||
	    parse_i64(w[8], 0, 1000000000, &c_dur, NULL) ||
	    parse_i64(w[9], 0, 1000000000, &c_per, NULL)) {
		st->bad_rows++;
		return;
	}
	/* The phase the end of the run cut short: no timer reached, no
	 * period to measure (c_period 0). */
	if (c_per == 0)
		return;
	if (c_dur >= c_per) {
		st->bad_rows++;
		return;
	}
	wu_u = strtoull(w[10], NULL, 10);
	wu = wu_u > (uint64_t)INT64_MAX ? 0 : (int64_t)wu_u;
	t = st->cur;
	/* LISA's performance index: slack over the idle part of a period
	 * (1: no delay at all, 0: finished at the deadline, < 0: late). */
	pi = (double)slack / (double)(c_per - c_dur);
	if (!t->rows || slack < t->slack_min)
		t->slack_min = (double)slack;
	if (!t->rows || pi < t->pi_min)
		t->pi_min = pi;
	if ((double)wu > t->wu_max)
		t->wu_max = (double)wu;
	t->rows++;
	t->slack_sum += (double)slack;
	t->wu_sum += (double)wu;
	t->pi_sum += pi;
	if (slack < 0)
		t->missed++;
}

int parse_rt_app_logs(const char *text, size_t len, struct metrics *ms,
		      struct strbuf *err)
{
	struct rt_state st = { 0 };
	struct strbuf m = STRBUF_INIT;
	int rc = 0;

	lines(text, len, rt_line, &st);
	for (size_t i = 0; i < st.n; i++) {
		const struct rt_task *t = &st.t[i];
		double r = (double)t->rows;

		if (!t->rows) {
			strbuf_addf(err, "rt-app logged no period of task %s",
				    t->name);
			rc = -1;
			break;
		}
#define RT_ADD(suffix, v, unit, dir)                                           \
	do {                                                                   \
		strbuf_reset(&m);                                              \
		strbuf_addf(&m, "%s.%s", t->name, suffix);                     \
		metrics_add(ms, m.buf, v, unit, dir);                          \
	} while (0)
		/* slack is a margin, negative when the period overran: not a
		 * duration, which the store holds non-negative */
		RT_ADD("slack_avg_us", t->slack_sum / r, "us (signed)",
		       "higher");
		RT_ADD("slack_min_us", t->slack_min, "us (signed)", "higher");
		RT_ADD("wakeup_latency_avg_us", t->wu_sum / r, "us", "lower");
		RT_ADD("wakeup_latency_max_us", t->wu_max, "us", "lower");
		RT_ADD("perf_index", t->pi_sum / r, "ratio", "higher");
		RT_ADD("perf_index_min", t->pi_min, "ratio", "higher");
		RT_ADD("missed_periods", (double)t->missed, "count", "lower");
		RT_ADD("periods", r, "count", "none");
#undef RT_ADD
	}
	if (rc == 0 && !st.n) {
		strbuf_addstr(err, "no rt-app task log (\"# task NAME\" and "
				   "its rows)");
		rc = -1;
	}
	if (rc == 0 && st.bad_rows) {
		strbuf_addf(err,
			    "%d rt-app log rows are not 11 numbers with "
			    "c_duration < c_period (the first: \"%s\")",
			    st.bad_rows, st.first_bad);
		rc = -1;
	}
	free(st.t);
	strbuf_release(&m);
	return rc;
}

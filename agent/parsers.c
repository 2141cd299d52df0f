/*
 * parsers.c - read the numbers out of the wrapped programs' output.
 *
 * sysbench, hackbench and perf stat are parsed from output captured on real
 * runs here (tests/data/agent/); kernbench, re-aim, volanomark and numabench
 * from the exact shapes the source threads show (doc/seeds/).  Output
 * is untrusted text: every parser works line by line on a bounded buffer,
 * reads numbers through parse.h, and never indexes past what it checked.
 * Each returns -1 with a sentence when its headline number is missing, so a
 * run that printed nothing useful fails instead of reporting nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "parse.h"
#include "banned.h"

void metrics_init(struct metrics *ms)
{
	memset(ms, 0, sizeof(*ms));
	strvec_init(&ms->unsupported);
}

void metrics_release(struct metrics *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		free(ms->m[i].name);
	free(ms->m);
	strvec_clear(&ms->unsupported);
	metrics_init(ms);
}

void metrics_add(struct metrics *ms, const char *name, double v,
		 const char *unit, const char *dir)
{
	struct metric *m = NULL;

	for (size_t i = 0; i < ms->n; i++)
		if (!strcmp(ms->m[i].name, name))
			m = &ms->m[i];
	if (!m) {
		if (ms->n >= 10000)
			return;
		ALLOC_GROW(ms->m, ms->n + 1, ms->alloc);
		m = &ms->m[ms->n++];
		m->name = xstrdup(name);
	}
	m->value = v;
	m->unit = unit;
	m->direction = dir;
}

const struct metric *metrics_find(const struct metrics *ms, const char *name)
{
	for (size_t i = 0; i < ms->n; i++)
		if (!strcmp(ms->m[i].name, name))
			return &ms->m[i];
	return NULL;
}

/* Call fn on each line of text (without the newline, NUL-terminated). */
static void each_line(const char *text, size_t len,
		      void (*fn)(char *line, void *data), void *data)
{
	const char *p = text, *end = text + len;
	struct strbuf l = STRBUF_INIT;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		strbuf_reset(&l);
		strbuf_add(&l, p, n > 4096 ? 4096 : n);
		/* NUL bytes would end the line early: make them spaces. */
		for (size_t i = 0; i < l.len; i++)
			if (!l.buf[i] || l.buf[i] == '\r')
				l.buf[i] = ' ';
		fn(l.buf, data);
		p += n + (nl ? 1 : 0);
	}
	strbuf_release(&l);
}

static char *skip_sp(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The first whitespace-separated word of s, NUL-terminated in place; s is
 * advanced past it. */
static char *next_word(char **s)
{
	char *w = skip_sp(*s), *e = w;

	while (*e && *e != ' ' && *e != '\t')
		e++;
	if (*e)
		*e++ = '\0';
	*s = e;
	return w;
}

/* A number, possibly with a unit suffix we strip ("2.0003s", "7.94%"). */
static int num_suffix(const char *w, const char *suffix, double *ret)
{
	size_t n = strlen(w), sn = strlen(suffix);
	char *t;
	int r;

	if (sn && (n <= sn || strcmp(w + n - sn, suffix)))
		return -1;
	t = xstrndup(w, n - sn);
	r = parse_double(t, -1e300, 1e300, ret, NULL);
	free(t);
	return r;
}

int parse_grouped_number(const char *s, double *ret)
{
	struct strbuf t = STRBUF_INIT;
	int prev_digit = 0, seen_dot = 0, rc;
	const char *p = s;

	if (*p == '-')
		strbuf_addch(&t, *p++);
	for (; *p; p++) {
		if (*p >= '0' && *p <= '9') {
			strbuf_addch(&t, *p);
			prev_digit = 1;
		} else if (*p == ',' && prev_digit && !seen_dot &&
			   p[1] >= '0' && p[1] <= '9') {
			prev_digit = 0;
		} else if (*p == '.' && prev_digit && !seen_dot) {
			strbuf_addch(&t, '.');
			seen_dot = 1;
			prev_digit = 0;
		} else {
			strbuf_release(&t);
			return -1;
		}
	}
	rc = parse_double(t.buf, -1e300, 1e300, ret, NULL);
	strbuf_release(&t);
	return rc;
}

/* ---- sysbench ----------------------------------------------------------- */

struct sb_state {
	struct metrics *ms;
	int in_latency;
};

/* "transactions: 50514 (841.90 per sec.)" anywhere in the line. */
static void sb_rate(char *line, const char *what, const char *metric,
		    struct metrics *ms)
{
	char *p = strstr(line, what), *open, *w;
	double total, rate;

	if (!p)
		return;
	p += strlen(what);
	w = next_word(&p);
	if (parse_double(w, 0, 1e300, &total, NULL) < 0)
		return;
	open = strchr(p, '(');
	if (!open)
		return;
	p = open + 1;
	w = next_word(&p);
	if (parse_double(w, 0, 1e300, &rate, NULL) < 0 ||
	    !starts_with(skip_sp(p), "per sec"))
		return;
	metrics_add(ms, metric, rate, "1/s", "higher");
}

static void sb_line(char *line, void *data)
{
	struct sb_state *st = data;
	char *s = skip_sp(line);
	double v;

	if (starts_with(s, "Latency (ms):")) {
		st->in_latency = 1;
		return;
	}
	if (!*s || (st->in_latency && !strchr(s, ':'))) {
		st->in_latency = 0;
		return;
	}
	if (st->in_latency) {
		static const struct {
			const char *key, *metric;
		} lat[] = { { "min:", "latency_min_ms" },
			    { "avg:", "latency_avg_ms" },
			    { "max:", "latency_max_ms" },
			    { "95th percentile:", "latency_p95_ms" } };

		for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++)
			if (starts_with(s, lat[i].key)) {
				char *p = s + strlen(lat[i].key);

				if (parse_double(next_word(&p), 0, 1e300, &v,
						 NULL) == 0 &&
				    !*skip_sp(p))
					metrics_add(st->ms, lat[i].metric, v,
						    "ms", "lower");
			}
		return;
	}
	if (starts_with(s, "events per second:")) {
		char *p = s + 18;

		if (parse_double(next_word(&p), 0, 1e300, &v, NULL) == 0)
			metrics_add(st->ms, "events_per_s", v, "1/s", "higher");
	} else if (starts_with(s, "total time:")) {
		char *p = s + 11;

		if (num_suffix(next_word(&p), "s", &v) == 0)
			metrics_add(st->ms, "total_time_s", v, "s", "lower");
	} else if (starts_with(s, "total number of events:")) {
		char *p = s + 23;

		if (parse_double(next_word(&p), 0, 1e300, &v, NULL) == 0)
			metrics_add(st->ms, "events", v, "count", "higher");
	} else {
		sb_rate(s, "transactions:", "transactions_per_s", st->ms);
		sb_rate(s, "queries:", "queries_per_s", st->ms);
	}
}

int parse_sysbench(const char *text, size_t len, struct metrics *ms,
		   struct strbuf *err)
{
	struct sb_state st = { ms, 0 };

	each_line(text, len, sb_line, &st);
	if (!metrics_find(ms, "events_per_s") &&
	    !metrics_find(ms, "transactions_per_s") &&
	    !metrics_find(ms, "total_time_s")) {
		strbuf_addstr(err, "sysbench printed no \"events per second\", "
				   "\"transactions:\" or \"total time\" line");
		return -1;
	}
	return 0;
}

/* ---- hackbench ---------------------------------------------------------- */

static void hb_line(char *line, void *data)
{
	char *s = skip_sp(line);
	double v;

	if (starts_with(s, "Time:")) {
		char *p = s + 5;

		if (parse_double(next_word(&p), 0, 1e300, &v, NULL) == 0 &&
		    !*skip_sp(p))
			metrics_add(data, "time_s", v, "s", "lower");
	}
}

int parse_hackbench(const char *text, size_t len, struct metrics *ms,
		    struct strbuf *err)
{
	each_line(text, len, hb_line, ms);
	if (!metrics_find(ms, "time_s")) {
		strbuf_addstr(err, "hackbench printed no \"Time: N\" line");
		return -1;
	}
	return 0;
}

/* ---- perf stat -x, --------------------------------------------------- */

static void pc_line(char *line, void *data)
{
	struct metrics *ms = data;
	struct strvec f = STRVEC_INIT;
	double v, se;
	struct strbuf name = STRBUF_INIT;

	if (*line == '#' || !*skip_sp(line))
		return;
	strvec_split(&f, line, ',');
	if (f.nr < 3 || !*f.v[2] || strlen(f.v[2]) > 128)
		goto out;
	strbuf_addstr(&name, f.v[2]);
	if (starts_with(f.v[0], "<not")) {
		int dup = 0;

		for (size_t i = 0; i < ms->unsupported.nr; i++)
			dup |= !strcmp(ms->unsupported.v[i], name.buf);
		if (!dup && ms->unsupported.nr < 1000)
			strvec_push(&ms->unsupported, name.buf);
		goto out;
	}
	if (parse_double(f.v[0], -1e300, 1e300, &v, NULL) < 0)
		goto out;
	metrics_add(ms, name.buf, v, !strcmp(f.v[1], "msec") ? "ms" : "count",
		    "lower");
	if (f.nr >= 4 && num_suffix(f.v[3], "%", &se) == 0) {
		strbuf_addstr(&name, ".stderr_pct");
		metrics_add(ms, name.buf, se, "%", "none");
	}
out:
	strvec_clear(&f);
	strbuf_release(&name);
}

int parse_perf_stat_csv(const char *text, size_t len, struct metrics *ms,
			struct strbuf *err)
{
	each_line(text, len, pc_line, ms);
	if (!ms->n && !ms->unsupported.nr) {
		strbuf_addstr(err, "perf stat printed no counter lines");
		return -1;
	}
	return 0;
}

/* ---- perf stat table (seed 004) ------------------------------------- */

static void pt_line(char *line, void *data)
{
	struct metrics *ms = data;
	char *p, *w, *hash, *paren;
	double v, se;
	struct strbuf name = STRBUF_INIT;
	const char *unit = "count";

	/* mail archives turn non-breaking spaces into bytes >= 0x80 */
	for (p = line; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = ' ';
	paren = strstr(line, "( +-");
	hash = strchr(line, '#');
	if (hash && paren && hash > paren)
		hash = NULL;
	if (paren) {
		char *q = skip_sp(paren + 4), *e = strchr(q, '%');

		*paren = '\0';
		if (e) {
			*e = '\0';
			if (parse_double(q, 0, 1e300, &se, NULL) < 0)
				paren = NULL;
		} else {
			paren = NULL;
		}
	}
	if (hash)
		*hash = '\0';
	p = line;
	w = next_word(&p);
	if (!*w)
		goto out;
	if (starts_with(w, "<not")) {
		next_word(&p); /* "supported>" / "counted>" */
		w = next_word(&p);
		if (*w && strlen(w) < 128 && ms->unsupported.nr < 1000)
			strvec_push(&ms->unsupported, w);
		goto out;
	}
	if (parse_grouped_number(w, &v) < 0)
		goto out;
	w = next_word(&p);
	if (!strcmp(w,
		    "+-")) { /* "0.0007078 +- 0.0000196 seconds time elapsed" */
		next_word(&p);
		w = next_word(&p);
	}
	if (!strcmp(w, "msec")) {
		unit = "ms";
		w = next_word(&p);
	}
	if (!strcmp(w, "seconds") && starts_with(skip_sp(p), "time elapsed")) {
		strbuf_addstr(&name, "time_elapsed_s");
		unit = "s";
	} else if (*w && !*skip_sp(p) && strlen(w) < 128) {
		strbuf_addstr(&name, w);
		if (ends_with(w, "-msecs"))
			unit = "ms";
	} else {
		goto out;
	}
	metrics_add(ms, name.buf, v, unit, "lower");
	if (paren) {
		strbuf_addstr(&name, ".stderr_pct");
		metrics_add(ms, name.buf, se, "%", "none");
	}
out:
	strbuf_release(&name);
}

int parse_perf_stat_table(const char *text, size_t len, struct metrics *ms,
			  struct strbuf *err)
{
	each_line(text, len, pt_line, ms);
	if (!ms->n && !ms->unsupported.nr) {
		strbuf_addstr(err, "no perf stat counter lines");
		return -1;
	}
	return 0;
}

/* ---- kernbench and time -------------------------------------------------- */

static void kb_line(char *line, void *data)
{
	struct metrics *ms = data;
	static const struct {
		const char *key, *metric, *unit, *dir;
	} keys[] = { { "Elapsed Time", "elapsed_s", "s", "lower" },
		     { "User Time", "user_s", "s", "lower" },
		     { "System Time", "system_s", "s", "lower" },
		     { "Percent CPU", "cpu_pct", "%", "none" },
		     { "Context Switches", "context_switches", "count",
		       "lower" },
		     { "Sleeps", "sleeps", "count", "none" } };
	char *s = skip_sp(line);
	struct strvec w = STRVEC_INIT;
	double v[4];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (starts_with(s, keys[i].key)) {
			char *p = s + strlen(keys[i].key);
			double x;

			if (parse_double(next_word(&p), 0, 1e300, &x, NULL) ==
			    0)
				metrics_add(ms, keys[i].metric, x, keys[i].unit,
					    keys[i].dir);
			return;
		}
	/* seed 002: "NAME  19.676s  192.794s  42.678s  1197.4%" (first row) */
	if (metrics_find(ms, "elapsed_s"))
		return;
	{
		char *p = s;

		while (*skip_sp(p) && w.nr < 64)
			strvec_push(&w, next_word(&p));
	}
	if (w.nr >= 5 && num_suffix(w.v[w.nr - 4], "s", &v[0]) == 0 &&
	    num_suffix(w.v[w.nr - 3], "s", &v[1]) == 0 &&
	    num_suffix(w.v[w.nr - 2], "s", &v[2]) == 0 &&
	    num_suffix(w.v[w.nr - 1], "%", &v[3]) == 0) {
		metrics_add(ms, "elapsed_s", v[0], "s", "lower");
		metrics_add(ms, "user_s", v[1], "s", "lower");
		metrics_add(ms, "system_s", v[2], "s", "lower");
		metrics_add(ms, "cpu_pct", v[3], "%", "none");
	}
	strvec_clear(&w);
}

int parse_kernbench(const char *text, size_t len, struct metrics *ms,
		    struct strbuf *err)
{
	each_line(text, len, kb_line, ms);
	if (!metrics_find(ms, "elapsed_s")) {
		strbuf_addstr(err, "no kernbench elapsed time found");
		return -1;
	}
	return 0;
}

/* "1m53.033s" or "53.033s" or "0.5" to seconds. */
static int parse_min_sec(const char *w, double *ret)
{
	const char *m = strchr(w, 'm');
	double sec;

	if (m) {
		char *mins = xstrndup(w, (size_t)(m - w));
		int64_t mi;
		int r = parse_i64(mins, 0, 1000000, &mi, NULL);

		free(mins);
		if (r < 0 || num_suffix(m + 1, "s", &sec) < 0 || sec < 0)
			return -1;
		*ret = (double)mi * 60 + sec;
		return 0;
	}
	if (num_suffix(w, "s", &sec) == 0 ||
	    parse_double(w, 0, 1e300, &sec, NULL) == 0) {
		*ret = sec;
		return sec >= 0 ? 0 : -1;
	}
	return -1;
}

static void tm_line(char *line, void *data)
{
	struct metrics *ms = data;
	char *p = line, *key = next_word(&p), *val = next_word(&p);
	double v;

	if (*skip_sp(p) || parse_min_sec(val, &v) < 0)
		return;
	if (!strcmp(key, "real"))
		metrics_add(ms, "elapsed_s", v, "s", "lower");
	else if (!strcmp(key, "user"))
		metrics_add(ms, "user_s", v, "s", "lower");
	else if (!strcmp(key, "sys"))
		metrics_add(ms, "system_s", v, "s", "lower");
}

int parse_time_output(const char *text, size_t len, struct metrics *ms,
		      struct strbuf *err)
{
	const struct metric *r, *u, *s;

	each_line(text, len, tm_line, ms);
	r = metrics_find(ms, "elapsed_s");
	u = metrics_find(ms, "user_s");
	s = metrics_find(ms, "system_s");
	if (!r) {
		strbuf_addstr(err, "no \"real\" line");
		return -1;
	}
	if (u && s && r->value > 0)
		metrics_add(ms, "cpu_pct",
			    100 * (u->value + s->value) / r->value, "%",
			    "none");
	return 0;
}

/* ---- re-aim, volanomark, numabench ------------------------------------ */

static void ra_line(char *line, void *data)
{
	char *s = skip_sp(line);
	double v;

	if (starts_with(s, "Max Jobs per Minute")) {
		char *p = s + 19;

		if (parse_double(next_word(&p), 0, 1e300, &v, NULL) == 0 &&
		    !*skip_sp(p))
			metrics_add(data, "max_jpm", v, "jobs/min", "higher");
	}
}

int parse_reaim(const char *text, size_t len, struct metrics *ms,
		struct strbuf *err)
{
	each_line(text, len, ra_line, ms);
	if (!metrics_find(ms, "max_jpm")) {
		strbuf_addstr(
			err,
			"re-aim printed no \"Max Jobs per Minute N\" line");
		return -1;
	}
	return 0;
}

struct vm_state {
	double sum;
	int n;
};

static void vm_line(char *line, void *data)
{
	struct vm_state *st = data;
	char *s = strstr(line, "Average throughput = ");
	double v;

	if (!s)
		return;
	s += 21;
	if (parse_double(next_word(&s), 0, 1e300, &v, NULL) == 0 &&
	    starts_with(skip_sp(s), "messages per second") && st->n < 1000000) {
		st->sum += v;
		st->n++;
	}
}

int parse_volanomark(const char *text, size_t len, struct metrics *ms,
		     struct strbuf *err)
{
	struct vm_state st = { 0, 0 };

	each_line(text, len, vm_line, &st);
	if (!st.n) {
		strbuf_addstr(err, "no \"Average throughput = N messages per "
				   "second\" line");
		return -1;
	}
	metrics_add(ms, "messages_per_s", st.sum / st.n, "1/s", "higher");
	metrics_add(ms, "runs", st.n, "count", "none");
	return 0;
}

static void nb_line(char *line, void *data)
{
	struct metrics *ms = data;
	char *p = line, *name = next_word(&p), *val = next_word(&p), *open,
	     *close;
	double avg, sd;
	struct strbuf n = STRBUF_INIT;

	if (!*name || *skip_sp(p) || strlen(name) > 64)
		return;
	open = strchr(val, '(');
	close = open ? strchr(open, ')') : NULL;
	if (!open || !close || close[1])
		return;
	*open = '\0';
	*close = '\0';
	if (parse_double(val, -1e300, 1e300, &avg, NULL) < 0 ||
	    parse_double(open + 1, 0, 1e300, &sd, NULL) < 0)
		return;
	metrics_add(ms, name, avg, "s", "lower");
	strbuf_addf(&n, "%s.stddev", name);
	metrics_add(ms, n.buf, sd, "s", "none");
	strbuf_release(&n);
}

int parse_numabench(const char *text, size_t len, struct metrics *ms,
		    struct strbuf *err)
{
	each_line(text, len, nb_line, ms);
	if (!ms->n) {
		strbuf_addstr(err, "no \"Name avg(stddev)\" lines");
		return -1;
	}
	return 0;
}

/* ---- cyclictest ----------------------------------------------------- */

#define CT_MAX_THREADS 4096
#define CT_MAX_BUCKETS 1000001

/* One histogram row: a bucket (us) and its count summed over threads. */
struct ct_row {
	uint64_t bucket, count;
};

struct ct_state {
	struct ct_row *rows; /* as printed; sorted by bucket at the end */
	size_t nrows, alloc;
	uint64_t overflows;
	double min, max, avg_sum;
	int nthreads, have_min, have_max, have_avg, have_over, bad;
	double *v; /* a "# ...:" line's numbers (CT_MAX_THREADS); not static:
		    * together members parse in threads of one process */
};

/* The numbers after "# Name:" into v (at most CT_MAX_THREADS). */
static int ct_numbers(char *s, double *v, int *n)
{
	char *w;

	*n = 0;
	while (*(w = next_word(&s))) {
		if (*n >= CT_MAX_THREADS ||
		    parse_double(w, 0, 1e12, &v[*n], NULL) < 0)
			return -1;
		(*n)++;
	}
	return *n ? 0 : -1;
}

static void ct_line(char *line, void *data)
{
	struct ct_state *st = data;
	char *s = skip_sp(line);
	double *v = st->v;
	int n;

	if (*s >= '0' && *s <= '9') {
		char *p = s, *w = next_word(&p);
		int64_t bucket;
		double c;
		uint64_t sum = 0;

		if (parse_i64(w, 0, CT_MAX_BUCKETS - 1, &bucket, NULL) < 0)
			return;
		while (*(w = next_word(&p))) {
			if (parse_double(w, 0, 1e15, &c, NULL) < 0) {
				st->bad = 1;
				return;
			}
			sum += (uint64_t)c;
		}
		ALLOC_GROW(st->rows, st->nrows + 1, st->alloc);
		st->rows[st->nrows].bucket = (uint64_t)bucket;
		st->rows[st->nrows].count = sum;
		st->nrows++;
		return;
	}
	if (*s != '#')
		return;
	s = skip_sp(s + 1);
	if (starts_with(s, "Min Latencies:")) {
		if (ct_numbers(s + 14, v, &n) == 0) {
			st->min = v[0];
			for (int i = 1; i < n; i++)
				if (v[i] < st->min)
					st->min = v[i];
			st->have_min = 1;
		}
	} else if (starts_with(s, "Max Latencies:")) {
		if (ct_numbers(s + 14, v, &n) == 0) {
			st->max = 0;
			for (int i = 0; i < n; i++)
				if (v[i] > st->max)
					st->max = v[i];
			st->have_max = 1;
		}
	} else if (starts_with(s, "Avg Latencies:")) {
		if (ct_numbers(s + 14, v, &n) == 0) {
			st->avg_sum = 0;
			for (int i = 0; i < n; i++)
				st->avg_sum += v[i];
			st->nthreads = n;
			st->have_avg = 1;
		}
	} else if (starts_with(s, "Histogram Overflows:")) {
		if (ct_numbers(s + 20, v, &n) == 0) {
			st->overflows = 0;
			for (int i = 0; i < n; i++)
				st->overflows += (uint64_t)v[i];
			st->have_over = 1;
		}
	}
}

/*
 * The q-quantile (0 < q < 1) of the samples: the bucket where the
 * cumulative count first reaches ceil(q * total); samples past the
 * histogram count at the maximum, so such a percentile is its bound.
 */
static double ct_quantile(const struct ct_state *st, uint64_t total, double q)
{
	uint64_t rank = (uint64_t)(q * (double)total), cum = 0;

	if ((double)rank < q * (double)total)
		rank++;
	if (!rank)
		rank = 1;
	for (size_t r = 0; r < st->nrows; r++) {
		cum += st->rows[r].count;
		if (cum >= rank)
			return (double)st->rows[r].bucket;
	}
	return st->max;
}

static int ct_row_cmp(const void *a, const void *b)
{
	const struct ct_row *x = a, *y = b;

	return x->bucket < y->bucket ? -1 : x->bucket > y->bucket;
}

int parse_cyclictest(const char *text, size_t len, struct metrics *ms,
		     struct strbuf *err)
{
	struct ct_state st;
	uint64_t total = 0;
	int rc = -1;

	memset(&st, 0, sizeof(st));
	st.v = xcalloc(CT_MAX_THREADS, sizeof(*st.v));
	each_line(text, len, ct_line, &st);
	/* cyclictest prints its rows in order; sorting keeps the quantiles
	 * right for any order (a bucket printed twice adds up). */
	if (st.nrows)
		qsort(st.rows, st.nrows, sizeof(*st.rows), ct_row_cmp);
	for (size_t r = 0; r < st.nrows; r++)
		total += st.rows[r].count;
	total += st.overflows;
	if (st.bad) {
		strbuf_addstr(err, "cyclictest printed a histogram row that is "
				   "not numbers");
		goto out;
	}
	if (!st.nrows || !st.have_max || !total) {
		strbuf_addstr(err,
			      "cyclictest printed no histogram and \"# Max "
			      "Latencies\" line (it needs -h)");
		goto out;
	}
	if (st.have_min)
		metrics_add(ms, "latency_min_us", st.min, "us", "lower");
	if (st.have_avg && st.nthreads)
		metrics_add(ms, "latency_avg_us", st.avg_sum / st.nthreads,
			    "us", "lower");
	metrics_add(ms, "latency_p50_us", ct_quantile(&st, total, 0.5), "us",
		    "lower");
	metrics_add(ms, "latency_p99_us", ct_quantile(&st, total, 0.99), "us",
		    "lower");
	metrics_add(ms, "latency_p999_us", ct_quantile(&st, total, 0.999), "us",
		    "lower");
	metrics_add(ms, "latency_max_us", st.max, "us", "lower");
	metrics_add(ms, "samples", (double)total, "count", "none");
	if (st.have_over)
		metrics_add(ms, "overflows", (double)st.overflows, "count",
			    "lower");
	rc = 0;
out:
	free(st.rows);
	free(st.v);
	return rc;
}

/* ---- perf bench sched ------------------------------------------------- */

static void pb_line(char *line, void *data)
{
	struct metrics *ms = data;
	char *s = skip_sp(line), *p, *w;
	double v;

	if (starts_with(s, "Total time:")) {
		p = s + 11;
		if (parse_double(next_word(&p), 0, 1e300, &v, NULL) == 0 &&
		    !strcmp(next_word(&p), "[sec]"))
			metrics_add(ms, "time_s", v, "s", "lower");
		return;
	}
	p = s;
	w = next_word(&p);
	if (parse_double(w, 0, 1e300, &v, NULL) < 0)
		return;
	w = next_word(&p);
	if (!strcmp(w, "usecs/op") && !*skip_sp(p))
		metrics_add(ms, "usecs_per_op", v, "us", "lower");
	else if (!strcmp(w, "ops/sec") && !*skip_sp(p))
		metrics_add(ms, "ops_per_s", v, "1/s", "higher");
}

int parse_perf_bench(const char *text, size_t len, struct metrics *ms,
		     struct strbuf *err)
{
	each_line(text, len, pb_line, ms);
	if (!metrics_find(ms, "time_s")) {
		strbuf_addstr(err, "perf bench printed no \"Total time: N "
				   "[sec]\" line");
		return -1;
	}
	return 0;
}

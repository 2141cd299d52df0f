/*
 * rtapp.c - rt-app task sets: the plan's inline text parsed and checked,
 * and the JSON rt-app reads written; see rtapp.h.
 *
 * The text is a small, fixed subset of YAML (a block sequence of flow
 * mappings, one per line) read here by hand, since the agent is libc only
 * and cannot link libyaml; anything outside the subset is refused with
 * the line it is on, never guessed at.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "rtapp.h"
#include "banned.h"

/* "10ms", "500us", "1s", "1.5ms" or a bare number of microseconds. */
static int parse_us(const char *s, int64_t *ret)
{
	static const struct {
		const char *suffix;
		double mul;
	} units[] = { { "us", 1 }, { "ms", 1000 }, { "s", 1000000 } };
	size_t n = strlen(s);
	double d;

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t k = strlen(units[i].suffix);
		char num[32];

		if (n <= k || n - k >= sizeof(num) ||
		    strcmp(s + n - k, units[i].suffix))
			continue;
		memcpy(num, s, n - k);
		num[n - k] = '\0';
		if (parse_double(num, 0, 1e7, &d, NULL) < 0)
			return -1;
		d *= units[i].mul;
		if (d < 1 || d > 1e7 || d != (double)(int64_t)d)
			return -1;
		*ret = (int64_t)d;
		return 0;
	}
	return parse_i64(s, 1, 10000000, ret, NULL);
}

/* Trim spaces and tabs at both ends of [*b, *e). */
static void trim(const char **b, const char **e)
{
	while (*b < *e && (**b == ' ' || **b == '\t'))
		(*b)++;
	while (*e > *b && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
		(*e)--;
}

static int name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 32)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

/*
 * Set key of t to val (both NUL-terminated).  Return 0, or -1 with err
 * saying what the key wants.
 */
static int set_key(struct rtapp_task *t, const char *key, const char *val,
		   struct strbuf *err)
{
	int64_t v;

	if (!strcmp(key, "name")) {
		if (!name_ok(val)) {
			strbuf_addstr(err, "name is 1 to 32 of [A-Za-z0-9_]");
			return -1;
		}
		memcpy(t->name, val, strlen(val) + 1);
	} else if (!strcmp(key, "period") || !strcmp(key, "run")) {
		if (parse_us(val, &v) < 0) {
			strbuf_addf(err,
				    "%s is a duration of 1us..10s (like 10ms, "
				    "500us)",
				    key);
			return -1;
		}
		*(!strcmp(key, "period") ? &t->period_us : &t->run_us) = v;
	} else if (!strcmp(key, "policy")) {
		if (!strcmp(val, "other"))
			t->policy = RTAPP_OTHER;
		else if (!strcmp(val, "fifo"))
			t->policy = RTAPP_FIFO;
		else if (!strcmp(val, "rr"))
			t->policy = RTAPP_RR;
		else {
			strbuf_addstr(err, "policy is one of other|fifo|rr");
			return -1;
		}
	} else if (!strcmp(key, "priority")) {
		if (parse_int(val, 1, 99, &t->priority, NULL) < 0) {
			strbuf_addstr(err, "priority is an integer in 1..99");
			return -1;
		}
	} else if (!strcmp(key, "instances")) {
		if (parse_int(val, 1, RTAPP_MAX_INSTANCES, &t->instances,
			      NULL) < 0) {
			strbuf_addf(err, "instances is an integer in 1..%d",
				    RTAPP_MAX_INSTANCES);
			return -1;
		}
	} else {
		strbuf_addf(err,
			    "unknown key '%.40s' (keys: name, period, run, "
			    "policy, priority, instances)",
			    key);
		return -1;
	}
	return 0;
}

/* One "- {k: v, ...}" line [b, e) into t.  0, or -1 with err. */
static int parse_task(const char *b, const char *e, struct rtapp_task *t,
		      struct strbuf *err)
{
	memset(t, 0, sizeof(*t));
	t->instances = 1;
	if (e - b < 4 || b[0] != '-' || (b[1] != ' ' && b[1] != '\t')) {
		strbuf_addstr(err, "a task is a line \"- {name: ..., period: "
				   "..., run: ...}\"");
		return -1;
	}
	b += 2;
	trim(&b, &e);
	if (e - b < 2 || *b != '{' || e[-1] != '}') {
		strbuf_addstr(err,
			      "a task is a flow mapping {key: value, ...}");
		return -1;
	}
	b++;
	e--;
	while (b < e) {
		const char *comma = memchr(b, ',', (size_t)(e - b));
		const char *ie = comma ? comma : e, *colon;
		const char *kb = b, *ke, *vb, *ve = ie;
		char key[16], val[40];

		colon = memchr(b, ':', (size_t)(ie - b));
		if (!colon) {
			strbuf_addstr(err, "each item is key: value");
			return -1;
		}
		ke = colon;
		vb = colon + 1;
		trim(&kb, &ke);
		trim(&vb, &ve);
		if (ke - kb < 1 || ke - kb >= (long)sizeof(key) ||
		    ve - vb < 1 || ve - vb >= (long)sizeof(val)) {
			strbuf_addstr(err,
				      "a key or value is empty or too long");
			return -1;
		}
		memcpy(key, kb, (size_t)(ke - kb));
		key[ke - kb] = '\0';
		memcpy(val, vb, (size_t)(ve - vb));
		val[ve - vb] = '\0';
		if (set_key(t, key, val, err) < 0)
			return -1;
		b = comma ? comma + 1 : e;
	}
	if (!t->name[0] || !t->period_us || !t->run_us) {
		strbuf_addstr(err, "a task needs name, period and run");
		return -1;
	}
	if (t->run_us > t->period_us) {
		strbuf_addstr(err, "run is longer than period");
		return -1;
	}
	if ((t->policy == RTAPP_OTHER) != (t->priority == 0)) {
		strbuf_addstr(err, "priority goes with policy fifo or rr, and "
				   "they need one");
		return -1;
	}
	return 0;
}

int rtapp_taskset_parse(const char *text, struct rtapp_taskset *ret,
			struct strbuf *err)
{
	const char *p = text;
	int line = 0;

	ret->n = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		const char *b = p, *e = nl ? nl : p + strlen(p);
		size_t mark = err->len;

		line++;
		p = nl ? nl + 1 : e;
		trim(&b, &e);
		if (b == e || *b == '#')
			continue;
		if (ret->n >= RTAPP_MAX_TASKS) {
			strbuf_addf(err, "more than %d tasks", RTAPP_MAX_TASKS);
			return -1;
		}
		if (parse_task(b, e, &ret->tasks[ret->n], err) < 0) {
			struct strbuf msg = STRBUF_INIT;

			strbuf_addf(&msg, "task line %d: %s", line,
				    err->buf + mark);
			strbuf_setlen(err, mark);
			strbuf_addbuf(err, &msg);
			strbuf_release(&msg);
			return -1;
		}
		for (int i = 0; i < ret->n; i++)
			if (!strcmp(ret->tasks[i].name,
				    ret->tasks[ret->n].name)) {
				strbuf_addf(err,
					    "task line %d: name '%s' is "
					    "already used",
					    line, ret->tasks[i].name);
				return -1;
			}
		ret->n++;
	}
	if (!ret->n) {
		strbuf_addstr(err, "the task set has no task");
		return -1;
	}
	for (int i = 0, total = 0; i < ret->n; i++)
		if ((total += ret->tasks[i].instances) > RTAPP_MAX_INSTANCES) {
			strbuf_addf(err,
				    "more than %d threads in all (instances "
				    "summed over the tasks)",
				    RTAPP_MAX_INSTANCES);
			return -1;
		}
	return 0;
}

void rtapp_json(const struct rtapp_taskset *ts, int64_t duration_s,
		const char *logdir, int ns_per_loop, struct strbuf *out)
{
	static const char *const pol[] = { "SCHED_OTHER", "SCHED_FIFO",
					   "SCHED_RR" };

	strbuf_addstr(out, "{\n \"tasks\": {\n");
	for (int i = 0; i < ts->n; i++) {
		const struct rtapp_task *t = &ts->tasks[i];

		strbuf_addstr(out, "  ");
		strbuf_add_json_str(out, t->name);
		strbuf_addf(out,
			    ": {\"instance\": %d, \"loop\": -1, "
			    "\"policy\": \"%s\", ",
			    t->instances, pol[t->policy]);
		if (t->priority)
			strbuf_addf(out, "\"priority\": %d, ", t->priority);
		strbuf_addf(out,
			    "\"runtime\": %lld, \"timer\": {\"ref\": "
			    "\"unique\", \"period\": %lld}}%s\n",
			    (long long)t->run_us, (long long)t->period_us,
			    i + 1 < ts->n ? "," : "");
	}
	strbuf_addf(out, " },\n \"global\": {\"duration\": %lld, ",
		    (long long)duration_s);
	if (ns_per_loop > 0)
		strbuf_addf(out, "\"calibration\": %d, ", ns_per_loop);
	strbuf_addstr(out, "\"default_policy\": \"SCHED_OTHER\", "
			   "\"lock_pages\": false, \"log_size\": 2, "
			   "\"log_basename\": \"rt\", \"logdir\": ");
	strbuf_add_json_str(out, logdir);
	strbuf_addstr(out, "}\n}\n");
}

/* FNV-1a over len bytes, continuing from h. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

void rtapp_taskset_label(const char *text, struct strbuf *out)
{
	struct rtapp_taskset *ts = xcalloc(1, sizeof(*ts));
	struct strbuf err = STRBUF_INIT, canon = STRBUF_INIT;
	uint64_t h = 1469598103934665603ULL;

	if (rtapp_taskset_parse(text, ts, &err) < 0) {
		strbuf_addstr(out, "[?]");
		h = fnv1a(h, text, strlen(text));
	} else {
		strbuf_addch(out, '[');
		for (int i = 0; i < ts->n; i++) {
			const struct rtapp_task *t = &ts->tasks[i];

			strbuf_addf(out, "%s%s", i ? "," : "", t->name);
			if (t->instances > 1)
				strbuf_addf(out, "*%d", t->instances);
			strbuf_addf(&canon,
				    "%s/%" PRId64 "/%" PRId64 "/%d/%d/%d;",
				    t->name, t->period_us, t->run_us,
				    (int)t->policy, t->priority, t->instances);
		}
		strbuf_addch(out, ']');
		h = fnv1a(h, canon.buf, canon.len);
	}
	strbuf_addf(out, "#%06" PRIx64, (h ^ (h >> 32)) & 0xffffff);
	strbuf_release(&err);
	strbuf_release(&canon);
	free(ts);
}

/*
 * test-suggest.c - "did you mean": the edit distance, and which typos get
 * a suggestion; and the label of a run's non-default parameters that
 * `results` prints (common/workloads.c), which shares no module but is
 * as small.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "json.h"
#include "strbuf.h"
#include "suggest.h"
#include "workloads.h"

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("", ""), 0);
	assert_int_equal(suggest_distance("queue", "queue"), 0);
	assert_int_equal(suggest_distance("qeue", "queue"), 1); /* missing */
	assert_int_equal(suggest_distance("comapre", "compare"), 1); /* swap */
	assert_int_equal(suggest_distance("metrci", "metric"), 1);
	assert_int_equal(suggest_distance("jsno", "json"), 1);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("", "abc"), 3);
}

static void test_closest(void **state)
{
	static const char *const verbs[] = { "compare", "db",	   "help",
					     "host",	"import",  "job",
					     "kernel",	"plan",	   "queue",
					     "rerun",	"results", "run" };
	static const char *const opts[] = { "base",   "new",  "host",
					    "metric", "json", NULL };
	const size_t nv = sizeof(verbs) / sizeof(verbs[0]);

	(void)state;
	assert_string_equal(suggest_closest("comapre", verbs, nv), "compare");
	assert_string_equal(suggest_closest("qeue", verbs, nv), "queue");
	assert_string_equal(suggest_closest("kernal", verbs, nv), "kernel");
	assert_string_equal(suggest_closest("resluts", verbs, nv), "results");
	/* A known name is not a typo; nothing close is no suggestion. */
	assert_null(suggest_closest("run", verbs, nv));
	assert_null(suggest_closest("frobnicate", verbs, nv));
	/* Two equally close candidates: no guess. */
	assert_null(suggest_closest(
		"hos", (const char *const[]){ "host", "hose" }, 2));
	/* A unique prefix is suggested. */
	assert_string_equal(suggest_closest("metr", opts, 6), "metric");
	assert_string_equal(suggest_closest("metrci", opts, 6), "metric");
	assert_string_equal(suggest_closest("jsno", opts, 6), "json");
	assert_null(suggest_closest("", opts, 6));
}

static void label_of(const char *workload, const char *params,
		     struct strbuf *out)
{
	struct json_value *v = NULL;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(json_parse(params, strlen(params), NULL, &v, &err), 0);
	workload_params_label(workload, v, out);
	json_free(v);
	strbuf_release(&err);
}

static void test_params_label(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	/* memchunk's defaults: short 5, long 5, 10s, 256 slots, ... */
	label_of("memchunk",
		 "{\"cgroup\": \"/\", \"duration\": \"10s\", "
		 "\"chunk_slots\": 258, \"long_threads\": 5, "
		 "\"short_threads\": 1}",
		 &sb);
	assert_string_equal(sb.buf, "chunk_slots=258 short_threads=1");
	strbuf_reset(&sb);
	/* A duration is compared as a duration: 10000ms is the default. */
	label_of("memchunk", "{\"duration\": \"10000ms\", \"cgroup\": \"/a\"}",
		 &sb);
	assert_string_equal(sb.buf, "cgroup=/a");
	strbuf_reset(&sb);
	/* A workload the table does not know shows everything. */
	label_of("reaim", "{\"users\": 4}", &sb);
	assert_string_equal(sb.buf, "users=4");
	strbuf_reset(&sb);
	label_of("no-such-workload", "{\"a\": true, \"b\": 1.5}", &sb);
	assert_string_equal(sb.buf, "a=true b=1.5");
	strbuf_reset(&sb);
	/* An rt-app task set is one line, a together member's too. */
	label_of("rt-app",
		 "{\"tasks\": \"- {name: a, period: 10ms, run: 1ms}\\n"
		 "- {name: b, period: 5ms, run: 1ms}\\n\"}",
		 &sb);
	assert_null(strchr(sb.buf, '\n'));
	assert_true(!strncmp(sb.buf, "tasks=[a,b]#", 12));
	strbuf_reset(&sb);
	label_of("together",
		 "{\"rt\": \"rt-app\", \"rt.tasks\": \"- {name: v, "
		 "period: 16ms, run: 4ms}\\n\"}",
		 &sb);
	assert_true(!strncmp(sb.buf, "rt=rt-app rt.tasks=[v]#", 23));
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_closest),
		cmocka_unit_test(test_params_label),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

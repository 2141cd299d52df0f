/*
 * test-agent-modern.c - the readers of the modern workloads' output
 * (agent/parsers_modern.c) on output captured from real runs in
 * tests/data/agent (tbench, stress-ng --yaml, rt-app's logs), plus the
 * shapes a real run can take that a short capture does not show (rt-app's
 * unsigned negative wake-up latency, a phase cut by the end of the run);
 * and rt-app task sets (common/rtapp.c): parsed, refused, and written as
 * the JSON rt-app reads, also as the workload table checks them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "rtapp.h"
#include "unit-files.h"

/* Read tests/data/agent/NAME from the tree (cwd, or 3 above the binary). */
static void data(const char *name, struct strbuf *out)
{
	unit_tree_data("tests/data/agent", name, out);
}

/* Parse text with p expecting want_rc; err is left in *err. */
static void parse_text(output_parser p, const char *text, struct metrics *ms,
		       int want_rc, struct strbuf *err)
{
	int rc;

	metrics_init(ms);
	strbuf_reset(err);
	rc = p(text, strlen(text), ms, err);
	if (rc != want_rc)
		fail_msg("rc %d (%s)", rc, err->buf);
}

static void parse_file(output_parser p, const char *name, struct metrics *ms)
{
	struct strbuf t = STRBUF_INIT, err = STRBUF_INIT;

	data(name, &t);
	parse_text(p, t.buf, ms, 0, &err);
	strbuf_release(&t);
	strbuf_release(&err);
}

static double val(const struct metrics *ms, const char *name)
{
	const struct metric *m = metrics_find(ms, name);

	if (!m)
		fail_msg("no metric %s", name);
	return m->value;
}

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-6 * (fabs(b) > 1 ? fabs(b) : 1);
}

static void test_tbench(void **state)
{
	struct metrics ms;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	parse_file(parse_tbench, "tbench-1client.txt", &ms);
	assert_true(val(&ms, "throughput_mb_s.1") == 191.626);
	assert_true(val(&ms, "max_latency_ms.1") == 5.917);
	assert_string_equal(metrics_find(&ms, "throughput_mb_s.1")->unit,
			    "MB/s");
	assert_string_equal(metrics_find(&ms, "throughput_mb_s.1")->direction,
			    "higher");
	assert_int_equal(ms.n, 2);
	metrics_release(&ms);

	parse_file(parse_tbench, "tbench-2clients.txt", &ms);
	assert_true(val(&ms, "throughput_mb_s.2") == 274.042);
	assert_true(val(&ms, "max_latency_ms.2") == 13.898);
	metrics_release(&ms);

	/* tbench -t 1 measures nothing: a failure that says why */
	parse_text(parse_tbench,
		   "Throughput 0 MB/sec  1 clients  1 procs  "
		   "max_latency=0.000 ms\n",
		   &ms, -1, &err);
	assert_non_null(strstr(err.buf, "first second"));
	metrics_release(&ms);
	/* the per-operation table alone is no result */
	parse_text(parse_tbench, " NTCreateX      10289     0.031     4.486\n",
		   &ms, -1, &err);
	metrics_release(&ms);
	strbuf_release(&err);
}

static void test_stress_ng(void **state)
{
	struct metrics ms;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	parse_file(parse_stress_ng_yaml, "stress-ng-switch.yaml", &ms);
	assert_true(val(&ms, "bogo_ops_per_s") == 75418.245458);
	assert_true(val(&ms, "bogo_ops_per_s_cpu") == 75529.549608);
	assert_true(val(&ms, "bogo_ops") == 75551);
	assert_int_equal(ms.n, 3);
	metrics_release(&ms);

	/* system-info numbers are not metrics; no metrics: no result */
	parse_text(parse_stress_ng_yaml,
		   "---\nsystem-info:\n      bogo-ops: 5\n...\n", &ms, -1,
		   &err);
	assert_non_null(strstr(err.buf, "no metrics"));
	metrics_release(&ms);
	/* two stressors cannot be one run's figures */
	parse_text(parse_stress_ng_yaml,
		   "metrics:\n    - stressor: a\n"
		   "      bogo-ops-per-second-real-time: 1\n"
		   "    - stressor: b\n"
		   "      bogo-ops-per-second-real-time: 2\n",
		   &ms, -1, &err);
	assert_non_null(strstr(err.buf, "2 stressors"));
	metrics_release(&ms);
	strbuf_release(&err);
}

static void test_rt_app_logs(void **state)
{
	struct metrics ms;
	struct strbuf err = STRBUF_INIT;
	const char *syn;

	(void)state;
	/* a FIFO task of 1 thread and a fair one of 2, 20 periods each,
	 * the figures worked out with awk over the same file */
	parse_file(parse_rt_app_logs, "rt-app-logs.txt", &ms);
	assert_true(val(&ms, "video.periods") == 20);
	assert_true(near(val(&ms, "video.slack_avg_us"), 11660.2));
	assert_true(val(&ms, "video.slack_min_us") == 7325);
	assert_true(near(val(&ms, "video.wakeup_latency_avg_us"), 125.8));
	assert_true(val(&ms, "video.wakeup_latency_max_us") == 964);
	assert_true(near(val(&ms, "video.perf_index"), 0.971683333));
	assert_true(val(&ms, "video.missed_periods") == 0);
	assert_true(val(&ms, "audio.periods") == 40);
	assert_true(near(val(&ms, "audio.slack_avg_us"), 4581.05));
	assert_true(val(&ms, "audio.slack_min_us") == -26037);
	assert_true(near(val(&ms, "audio.perf_index_min"), -2.893));
	assert_true(val(&ms, "audio.missed_periods") == 4);
	assert_true(val(&ms, "audio.wakeup_latency_max_us") == 14730);
	assert_string_equal(
		metrics_find(&ms, "audio.missed_periods")->direction, "lower");
	assert_string_equal(metrics_find(&ms, "audio.slack_min_us")->unit,
			    "us (signed)");
	assert_int_equal(ms.n, 16);
	metrics_release(&ms);

	/* rt-app prints a negative wake-up latency unsigned (an overrun: the
	 * timer had expired): 0, not 1.8e19; the run's end cuts a phase
	 * (c_period 0): skipped */
	syn = "# task t\n"
	      "#idx perf run period start end rel_st slack c_duration "
	      "c_period wu_lat\n"
	      "0 1 2000 10000 1 2 3 -500 2000 10000 18446744073709541740\n"
	      "0 1 2000 10000 1 2 3 7000 2000 10000 100\n"
	      "1 1 3075 3076 1 2 3 0 1000 0 0\n";
	parse_text(parse_rt_app_logs, syn, &ms, 0, &err);
	assert_true(val(&ms, "t.periods") == 2);
	assert_true(val(&ms, "t.wakeup_latency_max_us") == 100);
	assert_true(val(&ms, "t.wakeup_latency_avg_us") == 50);
	assert_true(val(&ms, "t.missed_periods") == 1);
	assert_true(val(&ms, "t.slack_avg_us") == 3250);
	assert_true(near(val(&ms, "t.perf_index"), (-0.0625 + 0.875) / 2));
	metrics_release(&ms);

	/* a row that is not a row, and a log with no task line */
	parse_text(parse_rt_app_logs,
		   "# task t\n0 1 2 3\n0 1 2 3 4 5 6 7 8 10 0\n", &ms, -1,
		   &err);
	assert_non_null(strstr(err.buf, "not 11 numbers"));
	metrics_release(&ms);
	parse_text(parse_rt_app_logs, "0 1 2 3 4 5 6 7 8 9 10\n", &ms, -1,
		   &err);
	metrics_release(&ms);
	parse_text(parse_rt_app_logs, "# task t\n# Policy : SCHED_OTHER\n", &ms,
		   -1, &err);
	assert_non_null(strstr(err.buf, "no period of task t"));
	metrics_release(&ms);
	strbuf_release(&err);
}

static void test_rtapp_taskset(void **state)
{
	struct rtapp_taskset ts;
	struct strbuf err = STRBUF_INIT, json = STRBUF_INIT;
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "", "no task" },
		{ "- {name: a, period: 10ms}", "needs name, period and run" },
		{ "- {name: a, period: 1ms, run: 2ms}", "run is longer" },
		{ "- {name: a, period: 1ms, run: 1ms, policy: fifo}",
		  "priority goes with" },
		{ "- {name: a, period: 1ms, run: 1ms, priority: 3}",
		  "priority goes with" },
		{ "- {name: a, period: 1ms, run: 1ms, policy: deadline}",
		  "one of other|fifo|rr" },
		{ "- {name: a-b, period: 1ms, run: 1ms}", "[A-Za-z0-9_]" },
		{ "- {name: a, period: 1ms, run: 1ms, nice: 3}",
		  "unknown key 'nice'" },
		{ "- {name: a, period: 1ms, run: 1ms}\n"
		  "- {name: a, period: 2ms, run: 1ms}",
		  "task line 2: name 'a' is already used" },
		{ "name: a\nperiod: 1ms", "task line 1: a task is a line" },
		{ "- {name: a, period: 20s, run: 1ms}",
		  "period is a duration" },
		{ "- {name: a, period: 1ms, run: 1ms, instances: 200}\n"
		  "- {name: b, period: 1ms, run: 1ms, instances: 57}",
		  "more than 256 threads" },
	};

	(void)state;
	assert_int_equal(rtapp_taskset_parse(
				 "# two tasks\n"
				 "- {name: video, period: 16ms, run: 4ms, "
				 "policy: fifo, priority: 10}\n\n"
				 "  - {name: audio, period: 10000, run: 1.5ms, "
				 "instances: 2}\n",
				 &ts, &err),
			 0);
	assert_int_equal(ts.n, 2);
	assert_string_equal(ts.tasks[0].name, "video");
	assert_true(ts.tasks[0].period_us == 16000 &&
		    ts.tasks[0].run_us == 4000);
	assert_int_equal(ts.tasks[0].policy, RTAPP_FIFO);
	assert_int_equal(ts.tasks[0].priority, 10);
	assert_true(ts.tasks[1].period_us == 10000 &&
		    ts.tasks[1].run_us == 1500);
	assert_int_equal(ts.tasks[1].instances, 2);
	assert_int_equal(ts.tasks[1].policy, RTAPP_OTHER);

	rtapp_json(&ts, 3, "/tmp/x\"y", 100, &json);
	assert_non_null(strstr(json.buf,
			       "\"video\": {\"instance\": 1, \"loop\": -1, "
			       "\"policy\": \"SCHED_FIFO\", \"priority\": 10, "
			       "\"runtime\": 4000, \"timer\": {\"ref\": "
			       "\"unique\", \"period\": 16000}},"));
	assert_non_null(strstr(json.buf, "\"instance\": 2"));
	assert_non_null(strstr(json.buf, "\"duration\": 3, "
					 "\"calibration\": 100"));
	assert_non_null(strstr(json.buf, "\"logdir\": \"/tmp/x\\\"y\""));

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		if (rtapp_taskset_parse(bad[i].text, &ts, &err) != -1 ||
		    !strstr(err.buf, bad[i].why))
			fail_msg("'%s': got '%s', want '%s'", bad[i].text,
				 err.buf, bad[i].why);
	}
	strbuf_release(&err);
	strbuf_release(&json);
}

/* The table's rt-app "tasks" parameter: checked as the plan checker and
 * the agent's spec both check it; two texts are two values. */
static void test_table_entries(void **state)
{
	const struct wl_desc *rt = workload_find("rt-app");
	const struct wl_param *p;
	struct strbuf why = STRBUF_INIT;
	double a, b;

	(void)state;
	assert_non_null(rt);
	p = workload_param(rt, "tasks");
	assert_non_null(p);
	assert_int_equal(workload_check_value(p, p->def, &a, &why), 0);
	assert_int_equal(
		workload_check_value(p, "- {name: b, period: 5ms, run: 1ms}",
				     &b, &why),
		0);
	assert_true(a != b);
	assert_int_equal(workload_check_value(p, "- {name: b}", &b, &why), -1);
	assert_non_null(strstr(why.buf, "needs name, period and run"));
	strbuf_reset(&why);
	p = workload_param(workload_find("stress-ng"), "stressor");
	assert_int_equal(workload_check_value(p, "futex", NULL, &why), 0);
	assert_int_equal(workload_check_value(p, "cpu", NULL, &why), -1);
	assert_non_null(workload_find("tbench"));
	assert_non_null(wl_ops_find("tbench"));
	assert_non_null(wl_ops_find("stress-ng"));
	assert_non_null(wl_ops_find("rt-app"));
	strbuf_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tbench),
		cmocka_unit_test(test_stress_ng),
		cmocka_unit_test(test_rt_app_logs),
		cmocka_unit_test(test_rtapp_taskset),
		cmocka_unit_test(test_table_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test-agent-parsers.c - the agent's readers of counters and of wrapped
 * programs' output, on the files in tests/data/agent: schedstat v15/v16/v17
 * (the v16 idle/busy swap must not swap our numbers), /proc/stat and per
 * task files, real sysbench/hackbench/perf output captured here, and the
 * seeds' shapes for kernbench, time, re-aim, volanomark, numabench.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "json.h"
#include "unit-files.h"

/* Read tests/data/agent/NAME from the tree (cwd, or 3 above the binary). */
static void data(const char *name, struct strbuf *out)
{
	unit_tree_data("tests/data/agent", name, out);
}

static void parse_ss(const char *name, struct schedstat *ss)
{
	struct strbuf t = STRBUF_INIT, err = STRBUF_INIT;

	data(name, &t);
	if (schedstat_parse(t.buf, t.len, ss, &err) < 0)
		fail_msg("%s: %s", name, err.buf);
	strbuf_release(&t);
	strbuf_release(&err);
}

static void test_schedstat_versions(void **state)
{
	struct schedstat v15, v16, v17;

	(void)state;
	parse_ss("schedstat-v15.txt", &v15);
	parse_ss("schedstat-v16.txt", &v16);
	parse_ss("schedstat-v17.txt", &v17);
	assert_int_equal(v15.version, 15);
	assert_int_equal(v16.version, 16);
	assert_int_equal(v17.version, 17);
	assert_int_equal(v15.ncpus, 2);
	assert_int_equal(v15.ndoms, 4);
	assert_int_equal(v15.cpus[1].cpu, 1);
	assert_int_equal(v15.cpus[1].run_delay, 4000100);
	assert_int_equal(v15.cpus[1].pcount, 51);
	assert_int_equal(v15.cpus[0].rq_cpu_time, 7000000);
	assert_int_equal(v15.cpus[0].ttwu_count, 300);
	/* cpu1 domain1: values are c*10000 + d*1000 + type*100 + field. */
	assert_int_equal(v15.doms[3].cpu, 1);
	assert_int_equal(v15.doms[3].level, 1);
	assert_int_equal(v15.doms[3].lb_gained[LB_IDLE], 11004);
	assert_int_equal(v15.doms[3].lb_gained[LB_BUSY], 11104);
	assert_int_equal(v15.doms[3].lb_gained[LB_NEWIDLE], 11204);
	assert_int_equal(v15.doms[3].lb_count[LB_BUSY], 11100);
	/* v16 prints busy before idle; read by version, the numbers agree. */
	assert_int_equal(v16.doms[3].lb_gained[LB_IDLE], 11004);
	assert_int_equal(v16.doms[3].lb_gained[LB_BUSY], 11104);
	assert_int_equal(v16.doms[3].lb_imbalance[LB_IDLE], 11003);
	assert_int_equal(v16.doms[3].alb_pushed, 11902);
	assert_int_equal(v16.doms[3].ttwu_move_affine, 11910);
	/* v17: name before the mask, 11 fields per type, imbalance split in 4.
	 */
	assert_string_equal(v17.doms[1].name, "MC");
	assert_int_equal(v17.doms[3].lb_gained[LB_IDLE], 11007);
	assert_int_equal(v17.doms[3].lb_gained[LB_BUSY], 11107);
	assert_int_equal(v17.doms[3].lb_imbalance[LB_BUSY],
			 11103 + 11104 + 11105 + 11106);
	assert_int_equal(v17.doms[3].lb_nobusyg[LB_NEWIDLE], 11210);
	assert_int_equal(v17.doms[3].alb_pushed, 11902);
	schedstat_release(&v15);
	schedstat_release(&v16);
	schedstat_release(&v17);
}

static void ss_bad(const char *text, const char *want)
{
	struct schedstat ss;
	struct strbuf err = STRBUF_INIT;

	if (schedstat_parse(text, strlen(text), &ss, &err) == 0)
		fail_msg("accepted: %s", text);
	if (!strstr(err.buf, want))
		fail_msg("error '%s' lacks '%s'", err.buf, want);
	strbuf_release(&err);
}

static void test_schedstat_refusals(void **state)
{
	struct strbuf t = STRBUF_INIT;

	(void)state;
	ss_bad("", "empty");
	ss_bad("version 14\n", "version 14 is not one this agent knows");
	ss_bad("version 18\n", "version 18");
	ss_bad("cpu0 1 2 3\n", "expected \"version N\"");
	ss_bad("version 15\ncpu0 1 0 2 3 4 5 6 7\n",
	       "has 9 fields, expected 10");
	ss_bad("version 15\ncpu0 1 0 2 3 4 5 6 7 x\n", "not a counter");
	ss_bad("version 15\ndomain0 3 1 2\n", "before any cpu line");
	ss_bad("version 15\nbogus 1\n", "unexpected");
	/* A v17 domain line read as v16 has the wrong field count: refused. */
	data("schedstat-v17.txt", &t);
	t.buf[9] = '6';
	ss_bad(t.buf, "version 16 domain line has 48 fields, expected 38");
	strbuf_release(&t);
}

/* Collect what an emitter writes, through a pipe, as lines of JSON. */
struct capture {
	int fds[2];
	struct emitter em;
};

static void capture_start(struct capture *c)
{
	assert_int_equal(pipe(c->fds), 0);
	fcntl(c->fds[0], F_SETFL, O_NONBLOCK);
	emitter_init(&c->em, 5, c->fds[1]);
}

/* Return the value of the counter (scope, name), or -1 if absent. */
static double capture_find(struct strbuf *all, const char *scope,
			   const char *name)
{
	struct strvec lines = STRVEC_INIT;
	double ret = -1;

	strvec_split(&lines, all->buf, '\n');
	for (size_t i = 0; i < lines.nr; i++) {
		struct json_value *v;
		struct strbuf err = STRBUF_INIT;
		double d;

		if (!*lines.v[i])
			continue;
		if (json_parse(lines.v[i], strlen(lines.v[i]), NULL, &v, &err) <
		    0)
			fail_msg("bad line %s: %s", lines.v[i], err.buf);
		if (!strcmp(json_string(json_get(v, "scope")), scope) &&
		    !strcmp(json_string(json_get(v, "name")), name) &&
		    json_number(json_get(v, "value"), &d) == 0)
			ret = d;
		json_free(v);
		strbuf_release(&err);
	}
	strvec_clear(&lines);
	return ret;
}

static void capture_end(struct capture *c, struct strbuf *out)
{
	emit_flush(&c->em); /* counters are buffered until a flush */
	close(c->fds[1]);
	c->em.out_fd = -1;
	strbuf_read_fd(out, c->fds[0], 1 << 24);
	close(c->fds[0]);
	emitter_release(&c->em);
}

static void test_schedstat_delta(void **state)
{
	struct schedstat a, b;
	struct capture c;
	struct strbuf out = STRBUF_INIT;

	(void)state;
	parse_ss("schedstat-v15.txt", &a);
	parse_ss("schedstat-v15-after.txt", &b);
	capture_start(&c);
	schedstat_emit_delta(&c.em, &a, &b);
	capture_end(&c, &out);
	assert_true(capture_find(&out, "cpu1", "run_delay_ns") == 1500);
	assert_true(capture_find(&out, "cpu0", "pcount") == 3);
	assert_true(capture_find(&out, "all", "run_delay_ns") == 3000);
	/* gained grows by 3*(type+1) per cpu and level: idle 3, busy 6, newidle
	 * 9 */
	assert_true(capture_find(&out, "domain0/idle", "lb_gained") == 6);
	assert_true(capture_find(&out, "domain1/busy", "lb_gained") == 12);
	assert_true(capture_find(&out, "domain1/newidle", "lb_gained") == 18);
	assert_true(capture_find(&out, "domain0", "alb_pushed") == 6);
	/* migrations: sum of lb_gained over levels and types, plus alb_pushed
	 */
	assert_true(capture_find(&out, "all", "balancer_migrations") ==
		    2 * (6 + 12 + 18) + 2 * 6);
	strbuf_release(&out);
	schedstat_release(&a);
	schedstat_release(&b);
}

/* The same deltas when the second snapshot lists its cpus and domains in
 * another order than the first (matched by cpu and level, not index). */
static void test_schedstat_delta_reordered(void **state)
{
	struct schedstat a, b;
	struct capture c;
	struct strbuf out = STRBUF_INIT;

	(void)state;
	parse_ss("schedstat-v15.txt", &a);
	parse_ss("schedstat-v15-after.txt", &b);
	for (size_t i = 0, j = b.ncpus - 1; i < j; i++, j--) {
		struct schedstat_cpu t = b.cpus[i];

		b.cpus[i] = b.cpus[j];
		b.cpus[j] = t;
	}
	for (size_t i = 0, j = b.ndoms - 1; i < j; i++, j--) {
		struct schedstat_domain t = b.doms[i];

		b.doms[i] = b.doms[j];
		b.doms[j] = t;
	}
	capture_start(&c);
	schedstat_emit_delta(&c.em, &a, &b);
	capture_end(&c, &out);
	assert_true(capture_find(&out, "cpu1", "run_delay_ns") == 1500);
	assert_true(capture_find(&out, "cpu0", "pcount") == 3);
	assert_true(capture_find(&out, "domain1/newidle", "lb_gained") == 18);
	assert_true(capture_find(&out, "all", "balancer_migrations") ==
		    2 * (6 + 12 + 18) + 2 * 6);
	strbuf_release(&out);
	schedstat_release(&a);
	schedstat_release(&b);
}

static void test_procstat_and_tasks(void **state)
{
	const char *s1 =
		"cpu  100 5 50 1000 3 0 2 0 0 0\ncpu0 50 2 25 500 1 0 1 0 0 0\n"
		"intr 777 1 2\nctxt 1000\nbtime 1\nprocesses 40\n";
	const char *s2 =
		"cpu  200 5 60 1100 3 0 2 0 0 0\ncpu0 50 2 25 500 1 0 1 0 0 0\n"
		"intr 800 1 2\nctxt 1500\nbtime 1\nprocesses 42\n";
	struct procstat a, b;
	struct task_schedstat ts;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct capture c;
	uint64_t vol = 0, invol = 0;
	const char *status = "Name:\tx\nvoluntary_ctxt_switches:"
			     "\t12\nnonvoluntary_ctxt_switches:\t345\n";

	(void)state;
	assert_int_equal(procstat_parse(s1, strlen(s1), &a, &err), 0);
	assert_int_equal(procstat_parse(s2, strlen(s2), &b, &err), 0);
	assert_int_equal(a.ncpu_lines, 1);
	capture_start(&c);
	procstat_emit_delta(&c.em, &a, &b);
	capture_end(&c, &out);
	assert_true(capture_find(&out, "all", "ctxt") == 500);
	assert_true(capture_find(&out, "all", "processes") == 2);
	assert_true(capture_find(&out, "all", "user_s") ==
		    100.0 / sysconf(_SC_CLK_TCK));
	assert_int_equal(procstat_parse("intr 1\n", 7, &a, &err), -1);
	/* a bad number among the first ten of "cpu" is an error; a "cpu"
	 * line of fewer than four numbers is counted, not read; ctxt with
	 * two numbers and words too long for any number are ignored */
	assert_int_equal(procstat_parse("cpu 1 2 x 4\n", 12, &a, &err), -1);
	s1 = "cpu 1 2 3\ncpu \t 7 8 9 10 11 12 13 14 15 16 x\nctxt 5 6\n"
	     "processes 123456789012345678901234567890\nintr 9 1\n";
	assert_int_equal(procstat_parse(s1, strlen(s1), &a, &err), 0);
	assert_int_equal(a.ncpu_lines, 1);
	assert_int_equal(a.cpu[0], 7);
	assert_int_equal(a.cpu[9], 16);
	assert_int_equal(a.ctxt, 0);
	assert_int_equal(a.processes, 0);
	assert_int_equal(a.intr, 9);
	assert_int_equal(task_schedstat_parse("891194 12 3\n", 12, &ts), 0);
	assert_int_equal(ts.run_ns, 891194);
	assert_int_equal(ts.wait_ns, 12);
	assert_int_equal(ts.slices, 3);
	assert_int_equal(task_schedstat_parse("1 2\n", 4, &ts), -1);
	assert_int_equal(task_schedstat_parse("1 2 -3\n", 7, &ts), -1);
	assert_int_equal(task_schedstat_parse("1 2 3 4\n", 8, &ts), -1);
	assert_int_equal(ts.run_ns, 891194);
	assert_int_equal(
		task_status_switches(status, strlen(status), &vol, &invol), 0);
	assert_int_equal(vol, 12);
	assert_int_equal(invol, 345);
	assert_int_equal(task_status_switches("Name: x\n", 8, &vol, &invol),
			 -1);
	strbuf_release(&err);
	strbuf_release(&out);
}

/* Run parser on data file name; return the metrics (caller releases). */
static void parse_file(output_parser p, const char *name, struct metrics *ms,
		       int want_rc)
{
	struct strbuf t = STRBUF_INIT, err = STRBUF_INIT;
	int rc;

	data(name, &t);
	metrics_init(ms);
	rc = p(t.buf, t.len, ms, &err);
	if (rc != want_rc)
		fail_msg("%s: rc %d (%s)", name, rc, err.buf);
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

static void test_sysbench(void **state)
{
	struct metrics ms;

	(void)state;
	parse_file(parse_sysbench, "sysbench-cpu.txt", &ms, 0);
	assert_true(val(&ms, "events_per_s") == 5404.00);
	assert_true(val(&ms, "total_time_s") == 2.0003);
	assert_true(val(&ms, "events") == 10813);
	assert_true(val(&ms, "latency_avg_ms") == 0.37);
	assert_true(val(&ms, "latency_p95_ms") == 0.28);
	assert_true(val(&ms, "latency_max_ms") == 12.32);
	assert_string_equal(metrics_find(&ms, "events_per_s")->direction,
			    "higher");
	assert_string_equal(metrics_find(&ms, "latency_avg_ms")->direction,
			    "lower");
	/* "sum:" of the latency block is not a latency */
	assert_null(metrics_find(&ms, "latency_sum_ms"));
	metrics_release(&ms);
	parse_file(parse_sysbench, "sysbench-threads.txt", &ms, 0);
	assert_true(val(&ms, "total_time_s") == 2.0007);
	assert_true(val(&ms, "events") == 1404);
	assert_null(metrics_find(&ms, "events_per_s"));
	metrics_release(&ms);
	parse_file(parse_sysbench, "sysbench-mutex.txt", &ms, 0);
	assert_true(val(&ms, "latency_avg_ms") == 298.60);
	metrics_release(&ms);
	parse_file(parse_sysbench, "sysbench-oltp-ro.txt", &ms, 0);
	assert_non_null(metrics_find(&ms, "transactions_per_s"));
	assert_non_null(metrics_find(&ms, "queries_per_s"));
	metrics_release(&ms);
	parse_file(parse_sysbench, "sysbench-oltp-rw.txt", &ms, 0);
	assert_true(val(&ms, "transactions_per_s") == 278.62);
	assert_true(val(&ms, "queries_per_s") == 5598.64);
	assert_true(val(&ms, "latency_p95_ms") == 13.95);
	metrics_release(&ms);
	/* seed 001's doit-psql lines: "1: transactions: 50514 (841.90 per
	 * sec.)" */
	{
		const char *seed = "1: transactions: 50514 (841.90 per sec.)\n";
		struct strbuf err = STRBUF_INIT;

		metrics_init(&ms);
		assert_int_equal(parse_sysbench(seed, strlen(seed), &ms, &err),
				 0);
		assert_true(val(&ms, "transactions_per_s") == 841.90);
		metrics_release(&ms);
		metrics_init(&ms);
		assert_int_equal(parse_sysbench("FATAL: nope\n", 12, &ms, &err),
				 -1);
		assert_non_null(strstr(err.buf, "sysbench printed no"));
		metrics_release(&ms);
		strbuf_release(&err);
	}
}

static void test_hackbench_perf(void **state)
{
	struct metrics ms;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	parse_file(parse_hackbench, "hackbench-process.txt", &ms, 0);
	assert_true(val(&ms, "time_s") == 0.215);
	metrics_release(&ms);
	parse_file(parse_hackbench, "hackbench-thread-pipe.txt", &ms, 0);
	assert_true(val(&ms, "time_s") > 0);
	metrics_release(&ms);
	metrics_init(&ms);
	assert_int_equal(parse_hackbench("Time: soon\n", 11, &ms, &err), -1);
	metrics_release(&ms);

	parse_file(parse_perf_stat_csv, "perf-stat-x.txt", &ms, 0);
	assert_true(val(&ms, "task-clock") == 0.39);
	assert_string_equal(metrics_find(&ms, "task-clock")->unit, "ms");
	/* the +- column: standard error of the mean, in percent */
	assert_true(val(&ms, "task-clock.stderr_pct") == 7.94);
	assert_true(val(&ms, "page-faults") == 49);
	assert_true(val(&ms, "page-faults.stderr_pct") == 0.76);
	/* unsupported counters are listed, never reported as 0 */
	assert_null(metrics_find(&ms, "instructions"));
	assert_null(metrics_find(&ms, "cycles"));
	assert_int_equal(ms.unsupported.nr, 2);
	assert_string_equal(ms.unsupported.v[0], "instructions");
	metrics_release(&ms);

	parse_file(parse_perf_stat_table, "perf-stat-table.txt", &ms, 0);
	assert_true(val(&ms, "task-clock") == 0.39);
	assert_true(val(&ms, "task-clock.stderr_pct") == 4.69);
	assert_true(val(&ms, "context-switches") == 0);
	assert_null(metrics_find(&ms, "context-switches.stderr_pct"));
	assert_true(val(&ms, "time_elapsed_s") == 0.0007078);
	assert_true(val(&ms, "time_elapsed_s.stderr_pct") == 2.78);
	assert_int_equal(ms.unsupported.nr, 1);
	metrics_release(&ms);
	parse_file(parse_perf_stat_table, "perf-stat-seed004.txt", &ms, 0);
	assert_true(val(&ms, "instructions") == 994061050);
	assert_true(val(&ms, "instructions.stderr_pct") == 0.133);
	assert_true(val(&ms, "cycles") == 2414463154.0);
	assert_true(val(&ms, "cycles.stderr_pct") == 0.056);
	assert_true(val(&ms, "time_elapsed_s") == 2.251820874);
	metrics_release(&ms);
	parse_file(parse_perf_stat_table, "perf-stat-seed004-ingo.txt", &ms, 0);
	assert_true(val(&ms, "task-clock-msecs") == 630.908390);
	assert_true(val(&ms, "context-switches") == 200001);
	assert_true(val(&ms, "CPU-migrations.stderr_pct") == 66.667);
	metrics_release(&ms);
	strbuf_release(&err);
}

static void test_seed_shapes(void **state)
{
	struct metrics ms;
	struct strbuf err = STRBUF_INIT;
	double d;

	(void)state;
	parse_file(parse_kernbench, "kernbench-seed002.txt", &ms, 0);
	assert_true(val(&ms, "elapsed_s") == 19.676);
	assert_true(val(&ms, "user_s") == 192.794);
	assert_true(val(&ms, "system_s") == 42.678);
	assert_true(val(&ms, "cpu_pct") == 1197.4);
	metrics_release(&ms);
	parse_file(parse_kernbench, "kernbench-script.txt", &ms, 0);
	assert_true(val(&ms, "elapsed_s") == 19.676);
	assert_true(val(&ms, "context_switches") == 41231);
	metrics_release(&ms);
	parse_file(parse_time_output, "time-seed001.txt", &ms, 0);
	assert_true(val(&ms, "elapsed_s") == 113.033);
	assert_true(val(&ms, "user_s") == 88.785);
	assert_true(val(&ms, "system_s") == 22.224);
	assert_true(fabs(val(&ms, "cpu_pct") -
			 100 * (88.785 + 22.224) / 113.033) < 1e-9);
	metrics_release(&ms);
	parse_file(parse_reaim, "reaim-seed003.txt", &ms, 0);
	assert_true(val(&ms, "max_jpm") == 1467.06);
	assert_string_equal(metrics_find(&ms, "max_jpm")->direction, "higher");
	metrics_release(&ms);
	parse_file(parse_reaim, "reaim-seed003-summary.txt", &ms, 0);
	assert_true(val(&ms, "max_jpm") == 1375.63);
	metrics_release(&ms);
	parse_file(parse_reaim, "hackbench-process.txt", &ms, -1);
	metrics_release(&ms);
	parse_file(parse_volanomark, "volanomark-seed001.txt", &ms, 0);
	assert_true(fabs(val(&ms, "messages_per_s") -
			 (113350 + 112230 + 113125) / 3.0) < 1e-6);
	assert_true(val(&ms, "runs") == 3);
	metrics_release(&ms);
	parse_file(parse_numabench, "numabench-seed002.txt", &ms, 0);
	assert_true(val(&ms, "AverageUserTime") == 0.82);
	assert_true(val(&ms, "AverageUserTime.stddev") == 0.05);
	assert_true(val(&ms, "TotalSysTime") == 129.86);
	metrics_release(&ms);
	/* seed 000: Indian digit grouping, as its workload prints it */
	{
		struct strbuf t = STRBUF_INIT;

		data("memchunk-seed000.txt", &t);
		*strchr(t.buf, ' ') = '\0';
		assert_int_equal(parse_grouped_number(t.buf, &d), 0);
		assert_true(d == 4993368);
		strbuf_release(&t);
	}
	assert_int_equal(parse_grouped_number("1,374,978,900", &d), 0);
	assert_true(d == 1374978900.0);
	assert_int_equal(parse_grouped_number("630.908390", &d), 0);
	assert_int_equal(parse_grouped_number(",1", &d), -1);
	assert_int_equal(parse_grouped_number("1,,2", &d), -1);
	assert_int_equal(parse_grouped_number("1,", &d), -1);
	assert_int_equal(parse_grouped_number("1.2.3", &d), -1);
	strbuf_release(&err);
}

static void test_cyclictest(void **state)
{
	struct metrics ms;
	struct strbuf err = STRBUF_INIT;
	/* 1000 samples over 2 threads: 500 at 10 us, 490 at 20, 9 at 50,
	 * 1 past the histogram */
	const char *syn = "# Histogram\n"
			  "000010 000300\t000200\n"
			  "000020 000250\t000240\n"
			  "000050 000004\t000005\n"
			  "# Total: 000000554 000000445\n"
			  "# Min Latencies: 00009 00010\n"
			  "# Avg Latencies: 00016 00017\n"
			  "# Max Latencies: 00080 00130\n"
			  "# Histogram Overflows: 00000 00001\n";

	(void)state;
	metrics_init(&ms);
	assert_int_equal(parse_cyclictest(syn, strlen(syn), &ms, &err), 0);
	assert_true(val(&ms, "latency_p50_us") == 10);
	assert_true(val(&ms, "latency_p99_us") == 20);
	assert_true(val(&ms, "latency_p999_us") == 50);
	assert_true(val(&ms, "latency_max_us") == 130);
	assert_true(val(&ms, "latency_min_us") == 9);
	assert_true(val(&ms, "latency_avg_us") == 16.5);
	assert_true(val(&ms, "samples") == 1000);
	assert_true(val(&ms, "overflows") == 1);
	assert_string_equal(metrics_find(&ms, "latency_p99_us")->unit, "us");
	assert_string_equal(metrics_find(&ms, "latency_p99_us")->direction,
			    "lower");
	metrics_release(&ms);

	/* real output (2 threads, -h 400, a loaded VM): percentiles that fall
	 * past the histogram are bounded by the maximum */
	parse_file(parse_cyclictest, "cyclictest-h.txt", &ms, 0);
	assert_true(val(&ms, "samples") == 3412);
	assert_true(val(&ms, "latency_p50_us") == 123);
	assert_true(val(&ms, "latency_p99_us") == 17303);
	assert_true(val(&ms, "latency_max_us") == 17303);
	assert_true(val(&ms, "latency_min_us") == 36);
	assert_true(val(&ms, "latency_p50_us") <= val(&ms, "latency_p99_us"));
	metrics_release(&ms);

	/* rows out of order and a bucket far out: the same quantiles as
	 * in order (rows are kept as printed, not in a bucket array) */
	metrics_init(&ms);
	syn = "# Histogram\n"
	      "999999 000001\n"
	      "000020 000490\n"
	      "000010 000500\n"
	      "000050 000009\n"
	      "# Max Latencies: 999999\n";
	assert_int_equal(parse_cyclictest(syn, strlen(syn), &ms, &err), 0);
	assert_true(val(&ms, "latency_p50_us") == 10);
	assert_true(val(&ms, "latency_p99_us") == 20);
	assert_true(val(&ms, "latency_p999_us") == 50);
	assert_true(val(&ms, "samples") == 1000);
	metrics_release(&ms);

	metrics_init(&ms);
	assert_int_equal(
		parse_cyclictest("T: 0 ( 1) P: 0 I:1000\n", 22, &ms, &err), -1);
	assert_non_null(strstr(err.buf, "needs -h"));
	metrics_release(&ms);
	strbuf_release(&err);
}

static void test_perf_bench(void **state)
{
	struct metrics ms;

	(void)state;
	parse_file(parse_perf_bench, "perf-bench-messaging.txt", &ms, 0);
	assert_true(val(&ms, "time_s") == 3.974);
	assert_null(metrics_find(&ms, "ops_per_s"));
	metrics_release(&ms);
	parse_file(parse_perf_bench, "perf-bench-pipe.txt", &ms, 0);
	assert_true(val(&ms, "time_s") == 0.301);
	assert_true(val(&ms, "usecs_per_op") == 60.2796);
	assert_true(val(&ms, "ops_per_s") == 16589);
	assert_string_equal(metrics_find(&ms, "ops_per_s")->direction,
			    "higher");
	metrics_release(&ms);
	parse_file(parse_perf_bench, "hackbench-process.txt", &ms, -1);
	metrics_release(&ms);
}

/*
 * sysbench cpu through the regex command workload of
 * plans/workloads/sysbench-cpu-regex.yaml gives what the built-in
 * wrapper's parser gives on the same output: names, units, directions
 * and values.
 */
static void test_command_matches_sysbench(void **state)
{
	static const char *const pat[] = {
		"events per second:\\s*(?<events_per_s>[0-9.]+)",
		"total time:\\s*(?<total_time_s>[0-9.]+)s",
		"total number of events:\\s*(?<events>[0-9]+)",
		"^\\s*min:\\s*(?<latency_min_ms>[0-9.]+)$",
		"^\\s*avg:\\s*(?<latency_avg_ms>[0-9.]+)$",
		"^\\s*max:\\s*(?<latency_max_ms>[0-9.]+)$",
		"95th percentile:\\s*(?<latency_p95_ms>[0-9.]+)",
	};
	static const char *const m[][3] = {
		{ "events_per_s", "1/s", "higher" },
		{ "total_time_s", "s", "lower" },
		{ "events", "count", "higher" },
		{ "latency_min_ms", "ms", "lower" },
		{ "latency_avg_ms", "ms", "lower" },
		{ "latency_max_ms", "ms", "lower" },
		{ "latency_p95_ms", "ms", "lower" },
	};
	struct strbuf t = STRBUF_INIT, err = STRBUF_INIT;
	struct metrics ms;
	struct cmd_def d;
	double v[7];

	(void)state;
	cmd_def_init(&d);
	d.name = xstrdup("sysbench-cpu-regex");
	strvec_push(&d.argv, "sysbench");
	d.format = CMD_REGEX;
	for (size_t i = 0; i < 7; i++)
		strvec_push(&d.patterns, pat[i]);
	d.metrics = xcalloc(7, sizeof(*d.metrics));
	for (size_t i = 0; i < 7; i++) {
		d.metrics[i].name = xstrdup(m[i][0]);
		d.metrics[i].key = xstrdup(m[i][0]);
		d.metrics[i].unit = xstrdup(m[i][1]);
		d.metrics[i].direction = m[i][2];
	}
	d.nmetrics = 7;
	assert_int_equal(cmd_def_check(&d, &err, &err), 0);
	data("sysbench-cpu.txt", &t);
	assert_int_equal(cmd_parse_output(&d, t.buf, t.len, v, &err), 0);
	metrics_init(&ms);
	assert_int_equal(parse_sysbench(t.buf, t.len, &ms, &err), 0);
	assert_int_equal(ms.n, 7);
	for (size_t i = 0; i < 7; i++) {
		const struct metric *b = metrics_find(&ms, m[i][0]);

		assert_non_null(b);
		assert_true(b->value == v[i]);
		assert_string_equal(b->unit, d.metrics[i].unit);
		assert_string_equal(b->direction, d.metrics[i].direction);
	}
	metrics_release(&ms);
	cmd_def_release(&d);
	strbuf_release(&t);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cyclictest),
		cmocka_unit_test(test_perf_bench),
		cmocka_unit_test(test_command_matches_sysbench),
		cmocka_unit_test(test_schedstat_versions),
		cmocka_unit_test(test_schedstat_refusals),
		cmocka_unit_test(test_schedstat_delta),
		cmocka_unit_test(test_schedstat_delta_reordered),
		cmocka_unit_test(test_procstat_and_tasks),
		cmocka_unit_test(test_sysbench),
		cmocka_unit_test(test_hackbench_perf),
		cmocka_unit_test(test_seed_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

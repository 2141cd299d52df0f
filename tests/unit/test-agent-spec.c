/*
 * test-agent-spec.c - the agent's run spec checker (every refusal names its
 * field), fairness-loop's group syntax, the two workload tables agreeing,
 * cgroup detection from /proc texts (v1, co-mounted v1, v2, hybrid), the
 * /etc/passwd lookup, and the lines the emitter writes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "json.h"

static void spec_ok(const char *text, struct run_spec *s)
{
	struct strbuf field = STRBUF_INIT, err = STRBUF_INIT;

	run_spec_init(s);
	if (spec_parse(text, strlen(text), s, &field, &err) < 0)
		fail_msg("refused %s: %s (field %s)", text, err.buf, field.buf);
	strbuf_release(&field);
	strbuf_release(&err);
}

static void spec_bad(const char *text, const char *want_field,
		     const char *want_msg)
{
	struct strbuf field = STRBUF_INIT, err = STRBUF_INIT;
	struct run_spec s;

	run_spec_init(&s);
	if (spec_parse(text, strlen(text), &s, &field, &err) == 0)
		fail_msg("accepted %s", text);
	if (strcmp(field.buf, want_field))
		fail_msg("%s: field '%s', wanted '%s' (%s)", text, field.buf,
			 want_field, err.buf);
	if (!strstr(err.buf, want_msg))
		fail_msg("%s: error '%s' lacks '%s'", text, err.buf, want_msg);
	run_spec_release(&s);
	strbuf_release(&field);
	strbuf_release(&err);
}

static void test_spec_good(void **state)
{
	struct run_spec s;

	(void)state;
	spec_ok("{\"run_id\": 42, \"workload\": \"fairness-loop\", "
		"\"params\": {\"groups\": \"/a:5,/b:2\", \"duration\": "
		"\"10s\", "
		"\"converge_pct\": 5}, \"iterations\": 3, \"warmup\": 1, "
		"\"cgroups\": [{\"path\": \"/a\", \"weight\": 100}, "
		"{\"path\": \"/b\", \"weight\": 200, \"cpu_max_pct\": 50, "
		"\"cpus\": \"0-1\"}], "
		"\"results_file\": \"/tmp/x.jsonl\", \"deadline_s\": 600, "
		"\"parent_weight\": 1000}",
		&s);
	assert_int_equal(s.run_id, 42);
	assert_string_equal(s.wl->name, "fairness-loop");
	assert_int_equal(s.iterations, 3);
	assert_int_equal(s.warmup, 1);
	assert_int_equal(s.ncgroups, 2);
	assert_int_equal(s.cgroups[1].weight, 200);
	assert_true(s.cgroups[1].cpu_max_pct == 50);
	assert_string_equal(s.cgroups[1].cpus, "0-1");
	assert_null(s.cgroups[0].cpus);
	assert_string_equal(s.results_file, "/tmp/x.jsonl");
	assert_int_equal(s.deadline_s, 600);
	assert_int_equal(s.parent_weight, 1000);
	assert_int_equal(spec_param_ms(&s, "duration"), 10000);
	assert_int_equal(spec_param_ms(&s, "sample_interval"),
			 1000); /* default */
	assert_true(spec_param_double(&s, "converge_pct") == 5);
	assert_string_equal(spec_param(&s, "cgroup"), "/");
	run_spec_release(&s);
	/* defaults: 1 iteration, no warm-up, no file, no deadline */
	spec_ok("{\"run_id\": 1, \"workload\": \"hackbench\", \"params\": "
		"{\"pipe\": true}}",
		&s);
	assert_int_equal(s.iterations, 1);
	assert_int_equal(s.warmup, 0);
	assert_null(s.results_file);
	assert_int_equal(spec_param_bool(&s, "pipe"), 1);
	assert_int_equal(spec_param_i64(&s, "groups"), 10);
	run_spec_release(&s);
	/* a bare number is seconds for a duration */
	spec_ok("{\"run_id\": 1, \"workload\": \"memchunk\", \"params\": "
		"{\"duration\": 2}}",
		&s);
	assert_int_equal(spec_param_ms(&s, "duration"), 2000);
	run_spec_release(&s);
}

static void test_spec_bad(void **state)
{
	(void)state;
	spec_bad("", "", "unexpected end of input");
	spec_bad("[]", "", "expected a JSON object");
	spec_bad("{\"workload\": \"chat\"}", "run_id", "\"run_id\": required");
	spec_bad("{\"run_id\": 0, \"workload\": \"chat\"}", "run_id",
		 "expected an integer in 1..");
	spec_bad("{\"run_id\": \"7\", \"workload\": \"chat\"}", "run_id",
		 "got \"7\"");
	spec_bad("{\"run_id\": 1}", "workload", "\"workload\": required");
	spec_bad("{\"run_id\": 1, \"workload\": \"nope\"}", "workload",
		 "no workload named \"nope\"");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"colour\": 1}",
		 "colour", "unknown field \"colour\"");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"params\": "
		 "{\"room\": 3}}",
		 "params.room", "chat has no parameter room");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"params\": "
		 "{\"rooms\": 0}}",
		 "params.rooms", "expected an integer in 1..1000, got \"0\"");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"params\": "
		 "{\"rooms\": [1]}}",
		 "params.rooms", "got an array");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"params\": 5}",
		 "params", "expected an object");
	spec_bad("{\"run_id\": 1, \"workload\": \"sysbench\", \"params\": "
		 "{\"test\": \"disk\"}}",
		 "params.test",
		 "one of cpu|threads|mutex|oltp_read_only|oltp_read_write");
	spec_bad("{\"run_id\": 1, \"workload\": \"kernbench\"}", "params.tree",
		 "required");
	spec_bad("{\"run_id\": 1, \"workload\": \"memchunk\", \"params\": "
		 "{\"duration\": \"10 s\"}}",
		 "params.duration", "a duration");
	spec_bad("{\"run_id\": 1, \"workload\": \"memchunk\", \"params\": "
		 "{\"cgroup\": \"../etc\"}}",
		 "params.cgroup", "starting with '/'");
	spec_bad("{\"run_id\": 1, \"workload\": \"memchunk\", \"params\": "
		 "{\"cgroup\": \"/a/../b\"}}",
		 "params.cgroup", "plain names");
	spec_bad("{\"run_id\": 1, \"workload\": \"memchunk\", \"params\": "
		 "{\"short_threads\": 0, \"long_threads\": 0}}",
		 "params.short_threads", "at least 1");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"iterations\": 0}",
		 "iterations", "1..10000");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"warmup\": -1}",
		 "warmup", "0..1000");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"deadline_s\": 1.5}",
		 "deadline_s", "an integer");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"results_file\": "
		 "\"\"}",
		 "results_file", "a path");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"cgroups\": {}}",
		 "cgroups", "expected an array");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"cgroups\": "
		 "[{\"weight\": 5}]}",
		 "cgroups[0].path", "\"path\": required");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"cgroups\": "
		 "[{\"path\": \"/a\", \"weight\": 0}]}",
		 "cgroups[0].weight", "1..10000");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"cgroups\": "
		 "[{\"path\": \"/a\"}, {\"path\": \"/a\"}]}",
		 "cgroups[1].path", "named twice");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"cgroups\": "
		 "[{\"path\": \"/a\", \"cpus\": \"0;1\"}]}",
		 "cgroups[0].cpus", "CPU list");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"cgroups\": "
		 "[{\"path\": \"/a\", \"shares\": 1}]}",
		 "cgroups[0].shares", "unknown field \"shares\"");
	spec_bad("{\"run_id\": 1, \"workload\": \"fairness-loop\", \"params\": "
		 "{\"groups\": \"/a:x\"}}",
		 "params.groups", "PATH:N[:WEIGHT]");
	spec_bad("{\"run_id\": 1, \"workload\": \"pipe-pingpong\", \"params\": "
		 "{\"counters\": \"cycles,bogus\"}}",
		 "params.counters", "unknown counter \"bogus\"");
	spec_bad("{\"run_id\": 1, \"workload\": \"perf-stat\", \"params\": "
		 "{\"command\": \"   \"}}",
		 "params.command", "a program and its arguments");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"parent_weight\": "
		 "20000}",
		 "parent_weight", "1..10000");
	/* strict JSON underneath */
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"run_id\": 2}", "",
		 "duplicate key");
	spec_bad("{\"run_id\": NaN}", "", "unexpected character 'N'");
}

static void test_loop_groups(void **state)
{
	struct loop_group *g;
	size_t n;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(parse_loop_groups("/a:5,/b:2:300,/:1", &g, &n, &err),
			 0);
	assert_int_equal(n, 3);
	assert_string_equal(g[0].path, "/a");
	assert_int_equal(g[0].tasks, 5);
	assert_int_equal(g[0].weight, 0);
	assert_int_equal(g[1].weight, 300);
	assert_string_equal(g[2].path, "/");
	free_loop_groups(g, n);
	assert_int_equal(parse_loop_groups("/a:5,/a:2", &g, &n, &err), -1);
	assert_int_equal(parse_loop_groups("/a:0", &g, &n, &err), -1);
	assert_non_null(strstr(err.buf, "1..4096 loops"));
	assert_int_equal(parse_loop_groups("/a:4097", &g, &n, &err), -1);
	assert_int_equal(parse_loop_groups("a:1", &g, &n, &err), -1);
	assert_int_equal(parse_loop_groups("/a:1:0", &g, &n, &err), -1);
	assert_int_equal(parse_loop_groups("/a:1:2:3", &g, &n, &err), -1);
	strbuf_release(&err);
}

static void test_tables_agree(void **state)
{
	(void)state;
	for (size_t i = 0; i < workload_count; i++) {
		const struct wl_ops *ops = wl_ops_find(workload_table[i].name);

		if (!ops)
			fail_msg("workload %s has no implementation",
				 workload_table[i].name);
		assert_non_null(ops->run);
	}
	assert_null(wl_ops_find("nope"));
}

static void test_cg_detect(void **state)
{
	struct cg_system s;
	struct strbuf err = STRBUF_INIT, js = STRBUF_INIT;
	const char *v1_mounts =
		"cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
		"cgroup /sys/fs/cgroup/cpuacct cgroup rw,relatime,cpuacct 0 0\n"
		"cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0\n";
	const char *v1_self = "3:cpuset:/\n2:cpuacct:/x\n1:cpu:/x\n";
	const char *comount =
		"cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0\n";
	const char *comount_self = "4:cpu,cpuacct:/user.slice\n";

	(void)state;
	cg_detect(&s, v1_mounts, v1_self, &err);
	assert_int_equal(s.mode, CG_V1);
	assert_int_equal(s.use, 1);
	assert_string_equal(s.v1_cpu_self, "/x");
	assert_string_equal(s.v1_cpuset_self, "/");
	cg_describe_json(&s, &js);
	assert_non_null(strstr(js.buf, "\"mode\":\"v1\""));
	assert_non_null(strstr(js.buf, "\"used\":\"v1\""));
	cg_system_release(&s);
	cg_detect(&s, comount, comount_self, &err);
	assert_string_equal(s.v1_cpu, "/sys/fs/cgroup/cpu,cpuacct");
	assert_string_equal(s.v1_cpuacct, "/sys/fs/cgroup/cpu,cpuacct");
	assert_string_equal(s.v1_cpuacct_self, "/user.slice");
	assert_null(s.v1_cpuset);
	cg_system_release(&s);
	/* cgroup2 only, at a path whose controllers file is not here: no cpu */
	cg_detect(&s, "cgroup2 /nonexistent/cg cgroup2 rw 0 0\n", "0::/\n",
		  &err);
	assert_int_equal(s.mode, CG_V2);
	assert_int_equal(s.use, 0);
	assert_string_equal(s.v2_self, "/");
	cg_system_release(&s);
	/* hybrid: v1 cpu carries the weights */
	cg_detect(&s,
		  "cgroup /c cgroup rw,cpu 0 0\ncgroup2 /u cgroup2 rw 0 0\n",
		  "1:cpu:/\n0::/\n", &err);
	assert_int_equal(s.mode, CG_HYBRID);
	assert_int_equal(s.use, 1);
	cg_system_release(&s);
	cg_detect(&s, "proc /proc proc rw 0 0\n", "", &err);
	assert_int_equal(s.mode, CG_NONE);
	assert_int_equal(s.use, 0);
	cg_system_release(&s);
	assert_int_equal(cg_v1_shares(100), 1024);
	assert_int_equal(cg_v1_shares(1), 10);
	assert_int_equal(cg_v1_shares(10000), 102400);
	strbuf_release(&err);
	strbuf_release(&js);
}

static void test_passwd(void **state)
{
	const char *pw = "root:x:0:0:root:/root:/bin/bash\n"
			 "broken line\n"
			 "postgres:x:101:104:PostgreSQL "
			 "administrator,,,:/var/lib/postgresql:/bin/bash\n";
	uid_t u;
	gid_t g;
	struct strbuf home = STRBUF_INIT;

	(void)state;
	assert_int_equal(passwd_lookup(pw, "postgres", &u, &g, &home), 0);
	assert_int_equal(u, 101);
	assert_int_equal(g, 104);
	assert_string_equal(home.buf, "/var/lib/postgresql");
	assert_int_equal(passwd_lookup(pw, "nobody", &u, &g, NULL), -1);
	assert_int_equal(passwd_lookup(pw, "post", &u, &g, NULL), -1);
	assert_int_equal(passwd_lookup("x:x:-1:0:::\n", "x", &u, &g, NULL), -1);
	strbuf_release(&home);
}

/* Every line the emitter writes is one strict JSON object with its type. */
static void test_emitter(void **state)
{
	int fds[2];
	struct emitter em;
	struct strbuf out = STRBUF_INIT;
	struct strvec lines = STRVEC_INIT;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	emitter_init(&em, 9, fds[1]);
	em.iteration = 2;
	em.warmup = 1;
	emit_result(&em, "m\"x", 1.5, "s", "lower");
	emit_counter(&em, "stat", "all", "ctxt", 7);
	emit_counter_unavailable(&em, "schedstat", "all", "schedstat",
				 "absent\n");
	emit_sample(&em, "share./a", 0.5, 20);
	emit_sample(&em, "share./b", 0.5, INFINITY); /* non-finite: null */
	emit_error(&em, "bad", "params.x"); /* flushes the samples first */
	close(fds[1]);
	em.out_fd = -1;
	emitter_release(&em);
	strbuf_read_fd(&out, fds[0], 1 << 20);
	close(fds[0]);
	strvec_split(&lines, out.buf, '\n');
	assert_int_equal(lines.nr, 7); /* six lines and the empty tail */
	{
		const char *order[] = { "result", "counter", "counter",
					"sample", "sample",  "error" };

		for (size_t i = 0; i < 6; i++) {
			struct json_value *v;
			struct strbuf err = STRBUF_INIT;
			int64_t id;
			int b;

			if (json_parse(lines.v[i], strlen(lines.v[i]), NULL, &v,
				       &err) < 0)
				fail_msg("line %zu not JSON: %s", i, err.buf);
			assert_string_equal(json_string(json_get(v, "type")),
					    order[i]);
			assert_int_equal(
				json_get_i64(v, "run_id", 1, 100, &id, &err),
				0);
			assert_int_equal(id, 9);
			if (i == 0) {
				assert_string_equal(
					json_string(json_get(v, "metric")),
					"m\"x");
				assert_int_equal(
					json_get_bool(v, "warmup", &b, &err),
					0);
				assert_int_equal(b, 1);
			}
			if (i == 2) {
				assert_int_equal(
					json_get_bool(v, "available", &b, &err),
					0);
				assert_int_equal(b, 0);
				assert_null(json_get(v, "value"));
			}
			if (i == 4)
				assert_int_equal(
					json_type_of(json_get(v, "value")),
					JSON_NULL);
			json_free(v);
			strbuf_release(&err);
		}
	}
	strvec_clear(&lines);
	strbuf_release(&out);
}

/* A bad spec: one error line naming the field, done bad-spec, status 2. */
static void test_run_bad_spec(void **state)
{
	const char *spec = "{\"run_id\": 3, \"workload\": \"chat\", "
			   "\"iterations\": 99999}";
	int fds[2];
	struct strbuf out = STRBUF_INIT;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(agent_run(spec, strlen(spec), fds[1]), 2);
	close(fds[1]);
	strbuf_read_fd(&out, fds[0], 1 << 20);
	close(fds[0]);
	assert_non_null(strstr(
		out.buf, "{\"type\":\"error\",\"run_id\":3,\"message\":"
			 "\"\\\"iterations\\\": expected an integer in "
			 "1..10000, got 99999\",\"field\":\"iterations\"}\n"));
	assert_non_null(strstr(
		out.buf,
		"\"type\":\"done\",\"run_id\":3,\"status\":\"bad-spec\""));
	assert_null(strstr(out.buf, "hello"));
	strbuf_release(&out);
}

static void test_spec_together(void **state)
{
	struct run_spec s;

	(void)state;
	spec_ok("{\"run_id\": 7, \"iterations\": 2, \"together\": ["
		"{\"name\": \"a\", \"workload\": \"kernbench\", \"params\": "
		"{\"tree\": \"/src\", \"jobs\": 8, \"cgroup\": \"/a\"}},"
		"{\"name\": \"n\", \"background\": true, \"command\": "
		"{\"name\": \"hog\", \"argv\": [\"hog\", \"-n\", \"2\"], "
		"\"format\": \"keyvalue\", \"metrics\": [{\"name\": \"x\", "
		"\"key\": \"x\", \"unit\": \"\", \"direction\": \"none\"}]}, "
		"\"params\": {\"cgroup\": \"/n\"}}], \"sample_ms\": 250}",
		&s);
	assert_null(s.wl);
	assert_int_equal(s.nmembers, 2);
	assert_int_equal(s.sample_ms, 250);
	assert_string_equal(s.members[0].name, "a");
	assert_string_equal(s.members[0].wl->name, "kernbench");
	assert_int_equal(s.members[0].iterations, 2);
	assert_int_equal(s.members[0].run_id, 7);
	assert_int_equal(spec_param_i64(&s.members[0], "jobs"), 8);
	assert_string_equal(spec_param(&s.members[0], "target"), "vmlinux");
	assert_true(s.members[1].background);
	assert_non_null(s.members[1].cmd);
	assert_string_equal(s.members[1].cmd->argv.v[2], "2");
	assert_string_equal(spec_param(&s.members[1], "cgroup"), "/n");
	assert_ptr_equal(wl_ops_of(&s.members[1]), &wl_command);
	run_spec_release(&s);

	/* a together run samples once a second unless told */
	spec_ok("{\"run_id\": 1, \"together\": [{\"name\": \"x\", "
		"\"workload\": \"cpu-hog\"}]}",
		&s);
	assert_int_equal(s.sample_ms, 1000);
	run_spec_release(&s);
	spec_ok("{\"run_id\": 1, \"workload\": \"cpu-hog\"}", &s);
	assert_int_equal(s.sample_ms, 0);
	run_spec_release(&s);
}

static void test_spec_together_bad(void **state)
{
	(void)state;
	spec_bad("{\"run_id\": 1, \"together\": []}", "together",
		 "1..16 members");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"together\": "
		 "[{\"name\": \"a\", \"workload\": \"chat\"}]}",
		 "together", "no \"workload\"");
	spec_bad("{\"run_id\": 1, \"together\": [{\"name\": \"a b\", "
		 "\"workload\": \"chat\"}]}",
		 "together[0].name", "a member's name");
	spec_bad("{\"run_id\": 1, \"together\": [{\"name\": \"a\", "
		 "\"workload\": \"chat\"}, {\"name\": \"a\", "
		 "\"workload\": \"chat\"}]}",
		 "together[1].name", "given twice");
	spec_bad("{\"run_id\": 1, \"together\": [{\"name\": \"a\", "
		 "\"workload\": \"chat\", \"colour\": 1}]}",
		 "together[0].colour", "unknown field");
	spec_bad("{\"run_id\": 1, \"together\": [{\"name\": \"a\", "
		 "\"workload\": \"chat\", \"params\": {\"rooms\": 0}}]}",
		 "together[0].params.rooms", "expected an integer in 1..1000");
	spec_bad("{\"run_id\": 1, \"together\": [{\"name\": \"a\", "
		 "\"workload\": \"chat\", \"params\": {\"cgroup\": "
		 "\"/x\"}}, {\"name\": \"b\", \"workload\": \"chat\", "
		 "\"params\": {\"cgroup\": \"/x\"}}]}",
		 "together[1].params.cgroup", "a cgroup of its own");
	spec_bad("{\"run_id\": 1, \"together\": [{\"name\": \"a\", "
		 "\"workload\": \"chat\", \"background\": 1}]}",
		 "together[0].background", "");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"sample_ms\": "
		 "50}",
		 "sample_ms", "0 (off) or 100..60000");
	spec_bad("{\"run_id\": 1, \"command\": {\"name\": \"c\", "
		 "\"argv\": [\"p\"], \"format\": \"jsonl\", \"metrics\": "
		 "[{\"name\": \"a\", \"key\": \"a\", \"unit\": \"\", "
		 "\"direction\": \"none\"}]}, \"params\": {\"threads\": 2}}",
		 "params.threads", "c has no parameter threads");
	spec_bad("{\"run_id\": 1, \"workload\": \"chat\", \"command\": "
		 "{}}",
		 "command", "not both");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_together),
		cmocka_unit_test(test_spec_together_bad),
		cmocka_unit_test(test_spec_good),
		cmocka_unit_test(test_spec_bad),
		cmocka_unit_test(test_loop_groups),
		cmocka_unit_test(test_tables_agree),
		cmocka_unit_test(test_cg_detect),
		cmocka_unit_test(test_passwd),
		cmocka_unit_test(test_emitter),
		cmocka_unit_test(test_run_bad_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

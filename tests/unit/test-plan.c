/*
 * test-plan.c - plan parsing, checking and sweep expansion
 * (controller/plan/: yaml.c, check.c, sweep.c, plan.c).
 *
 * The error messages themselves are pinned by the golden files of
 * tests/integration/t4001; here: what a good plan becomes (every struct
 * field, the run order, the JSON the queue stores), the caps, and that
 * damaged input of every shape is refused without a crash.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string.h>

#include "cleanup.h"
#include "lab/host_kind.h"
#include "plan/plan.h"

static const char full_plan[] =
	"name: full-plan\n"
	"description: every section\n"
	"workloads:\n"
	"  - workload: sysbench\n"
	"    params:\n"
	"      test: oltp_read_only\n"
	"      threads: [1, 4, 16]\n"
	"      cgroup: [/, /foo]\n"
	"  - workload: memchunk\n"
	"    params: {duration: 2s}\n"
	"    variants:\n"
	"      - {short_threads: 5, long_threads: 5}\n"
	"      - {short_threads: [4, 8], long_threads: 2}\n"
	"iterations: 7\n"
	"warmup: 2\n"
	"boots: 4\n"
	"until: decided\n"
	"max_boots: 16\n"
	"cgroups:\n"
	"  - {path: /a, weight: 200, cpu_max_pct: 150%, cpus: 0-1}\n"
	"  - path: /b\n"
	"host:\n"
	"  kind: [ssh, libvirt]\n"
	"  min_sockets: 2\n"
	"  min_cpus: 8\n"
	"  min_memory_mb: 16384\n"
	"  tags: [numa, lab-2]\n"
	"kernel:\n"
	"  config: [farm-base.config, farm-vm.config]\n"
	"metrics:\n"
	"  transactions_per_s: {tau: 1.5%, direction: higher, decides: true}\n"
	"  \"latency_*\": {direction: none}\n"
	"timeouts: {power: 2m, boot: 5m, run: 30m, collect: 90s}\n";

static struct plan *must_parse(const char *text)
{
	struct strbuf err = STRBUF_INIT;
	struct plan *p = NULL;
	int rc = plan_parse("t.yaml", text, strlen(text), &p, &err);

	if (rc != 0)
		fail_msg("plan did not parse: %s", err.buf);
	assert_non_null(p);
	assert_int_equal(err.len, 0);
	strbuf_release(&err);
	return p;
}

/* Parse text that must fail; return the errors (caller releases). */
static void must_fail(const char *text, struct strbuf *err)
{
	struct plan *p = (struct plan *)1;

	assert_int_equal(plan_parse("t.yaml", text, strlen(text), &p, err),
			 -EINVAL);
	assert_null(p);
	assert_true(err->len > 0);
}

static void test_full_plan_fields(void **state)
{
	struct plan *p = must_parse(full_plan);

	(void)state;
	assert_string_equal(p->name, "full-plan");
	assert_string_equal(p->description, "every section");
	assert_string_equal(p->source, "t.yaml");
	assert_int_equal(p->iterations, 7);
	assert_int_equal(p->warmup, 2);
	assert_int_equal(p->boots, 4);
	assert_int_equal(p->until, PLAN_UNTIL_DECIDED);
	assert_int_equal(p->max_boots, 16);

	assert_int_equal(p->nr_cgroups, 2);
	assert_string_equal(p->cgroups[0].path, "/a");
	assert_int_equal(p->cgroups[0].weight, 200);
	assert_true(p->cgroups[0].cpu_max_pct == 150.0);
	assert_string_equal(p->cgroups[0].cpus, "0-1");
	assert_string_equal(p->cgroups[1].path, "/b");
	assert_int_equal(p->cgroups[1].weight, 100);
	assert_true(p->cgroups[1].cpu_max_pct == 0);
	assert_null(p->cgroups[1].cpus);

	assert_int_equal(p->host.kinds.nr, 2);
	assert_string_equal(p->host.kinds.v[0], "ssh");
	assert_string_equal(p->host.kinds.v[1], "libvirt");
	assert_int_equal(p->host.min_sockets, 2);
	assert_int_equal(p->host.min_cpus, 8);
	assert_int_equal(p->host.min_memory_mb, 16384);
	assert_int_equal(p->host.tags.nr, 2);
	assert_string_equal(p->host.tags.v[1], "lab-2");

	assert_int_equal(p->kernel_config.nr, 2);
	assert_string_equal(p->kernel_config.v[0], "farm-base.config");
	assert_string_equal(p->kernel_config.v[1], "farm-vm.config");

	assert_int_equal(p->nr_metrics, 2);
	assert_string_equal(p->metrics[0].name, "transactions_per_s");
	assert_true(p->metrics[0].tau_pct == 1.5);
	assert_int_equal(p->metrics[0].direction, PLAN_DIR_HIGHER);
	assert_int_equal(p->metrics[0].decides, 1);
	assert_string_equal(p->metrics[1].name, "latency_*");
	assert_true(p->metrics[1].tau_pct < 0);
	assert_int_equal(p->metrics[1].direction, PLAN_DIR_NONE);
	assert_int_equal(p->metrics[1].decides, 0);

	assert_int_equal(p->timeouts.power_ms, 120000);
	assert_int_equal(p->timeouts.boot_ms, 300000);
	assert_int_equal(p->timeouts.run_ms, 1800000);
	assert_int_equal(p->timeouts.collect_ms, 90000);
	/* No timeouts.job: the sum of what 4 boots of 9 runs may take. */
	assert_int_equal(p->timeouts.job_ms, 0);
	assert_int_equal(
		plan_job_budget_ms(p, 4),
		3 * 3600000 + 4 * (2 * 120000 + 300000 + 9 * 1800000 + 90000) +
			600000);
	plan_free(p);
}

/* build, stall and job are limits too; job replaces the sum. */
static void test_job_budget(void **state)
{
	struct plan *p = must_parse("workload: chat\n"
				    "timeouts: {build: 20m, stall: 15s, "
				    "job: 2h}\n");

	(void)state;
	assert_int_equal(p->timeouts.build_ms, 1200000);
	assert_int_equal(p->timeouts.stall_ms, 15000);
	assert_int_equal(p->timeouts.job_ms, 7200000);
	assert_int_equal(plan_job_budget_ms(p, 1), 7200000);
	assert_int_equal(plan_job_budget_ms(p, 50), 7200000);
	plan_free(p);
}

/* `expect:` (a crash-path test): panic, oops, nothing by default. */
static void test_expect(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct plan *p;

	(void)state;
	p = must_parse("workload: crash\n");
	assert_int_equal(p->expect, PLAN_EXPECT_NOTHING);
	plan_free(p);
	p = must_parse("workload: crash\nexpect: panic\n");
	assert_int_equal(p->expect, PLAN_EXPECT_PANIC);
	plan_free(p);
	p = must_parse("workload: memchunk\nexpect: oops\n");
	assert_int_equal(p->expect, PLAN_EXPECT_OOPS);
	plan_free(p);
	must_fail("workload: crash\nexpect: [panic]\n", &err);
	assert_non_null(strstr(err.buf, "expect: expected 'panic' or 'oops'"));
	strbuf_release(&err);
}

static void test_defaults(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct plan *p = NULL;
	const char text[] = "workload: chat\n";

	(void)state;
	assert_int_equal(
		plan_parse("dir/my-plan.yaml", text, strlen(text), &p, &err),
		0);
	assert_string_equal(p->name, "my-plan");
	assert_null(p->description);
	assert_int_equal(p->iterations, 3);
	assert_int_equal(p->warmup, 1);
	assert_int_equal(p->boots, 1);
	assert_int_equal(p->until, PLAN_UNTIL_FIXED);
	assert_int_equal(p->max_boots, 1);
	assert_int_equal(p->nr_cgroups, 0);
	assert_int_equal(p->host.kinds.nr, 0);
	assert_int_equal(p->host.min_cpus, 0);
	assert_int_equal(p->kernel_config.nr, 0);
	assert_int_equal(p->nr_metrics, 0);
	assert_int_equal(p->timeouts.power_ms, 300000);
	assert_int_equal(p->timeouts.boot_ms, 600000);
	assert_int_equal(p->timeouts.run_ms, 3600000);
	assert_int_equal(p->timeouts.collect_ms, 300000);
	assert_int_equal(p->timeouts.build_ms, 3 * 3600000);
	assert_int_equal(p->timeouts.stall_ms, 20000);
	assert_int_equal(p->nr_runs, 1);
	assert_int_equal(p->runs[0].nr_params, 0);
	plan_free(p);

	/* until: decided without max_boots: 20, or boots when above. */
	p = must_parse("workload: chat\nboots: 30\nuntil: decided\n");
	assert_int_equal(p->max_boots, 30);
	plan_free(p);
	p = must_parse("workload: chat\nboots: 3\nuntil: decided\n");
	assert_int_equal(p->max_boots, 20);
	plan_free(p);
	strbuf_release(&err);
}

static void test_expansion_order(void **state)
{
	struct plan *p = must_parse(full_plan);
	struct strbuf label = STRBUF_INIT;
	static const char *const want[] = {
		"sysbench test=oltp_read_only threads=1 cgroup=/",
		"sysbench test=oltp_read_only threads=1 cgroup=/foo",
		"sysbench test=oltp_read_only threads=4 cgroup=/",
		"sysbench test=oltp_read_only threads=4 cgroup=/foo",
		"sysbench test=oltp_read_only threads=16 cgroup=/",
		"sysbench test=oltp_read_only threads=16 cgroup=/foo",
		"memchunk duration=2s short_threads=5 long_threads=5",
		"memchunk duration=2s short_threads=4 long_threads=2",
		"memchunk duration=2s short_threads=8 long_threads=2",
	};

	(void)state;
	assert_int_equal(p->nr_runs, ARRAY_SIZE(want));
	for (size_t i = 0; i < p->nr_runs; i++) {
		strbuf_reset(&label);
		plan_run_label(&p->runs[i], &label);
		assert_string_equal(label.buf, want[i]);
		assert_int_equal(p->runs[i].index, i);
		assert_int_equal(p->runs[i].entry, i < 6 ? 0 : 1);
		assert_string_equal(p->runs[i].workload, p->runs[i].wl->name);
	}
	strbuf_release(&label);
	plan_free(p);
}

/*
 * An rt-app task set swept over two sets is labelled on one line each:
 * its task names and a digest, which differs when only a period does and
 * stays when only the spacing does; a together member's too.
 */
static void test_rtapp_label_one_line(void **state)
{
	struct plan *p = must_parse(
		"workloads:\n"
		"  - workload: rt-app\n"
		"    params:\n"
		"      tasks:\n"
		"        - \"- {name: a, period: 10ms, run: 1ms}\\n"
		"- {name: b, period: 5ms, run: 1ms, instances: 2}\"\n"
		"        - \"- {name: a, period: 20ms, run: 1ms}\\n"
		"- {name: b, period: 5ms, run: 1ms, instances: 2}\"\n"
		"        - \"-   {name: a,  period: 10ms, run: 1ms}\\n"
		"- {name: b, period: 5ms, run: 1ms, instances: 2}\"\n"
		"  - together:\n"
		"      - name: rt\n"
		"        workload: rt-app\n"
		"        params:\n"
		"          tasks: |\n"
		"            - {name: video, period: 16ms, run: 4ms}\n"
		"            - {name: ui, period: 33ms, run: 2ms}\n"
		"          cgroup: /rt\n"
		"      - name: hog\n"
		"        workload: cpu-hog\n"
		"        params: {cgroup: /hog}\n");
	struct strbuf l[4] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT,
			       STRBUF_INIT };

	(void)state;
	assert_int_equal(p->nr_runs, 4);
	for (size_t i = 0; i < 4; i++) {
		plan_run_label(&p->runs[i], &l[i]);
		assert_null(strchr(l[i].buf, '\n'));
	}
	assert_non_null(strstr(l[0].buf, "tasks=[a,b*2]#"));
	assert_string_not_equal(l[0].buf, l[1].buf);
	assert_string_equal(l[0].buf, l[2].buf);
	assert_non_null(strstr(l[3].buf, " rt.tasks=[video,ui]#"));
	for (size_t i = 0; i < 4; i++)
		strbuf_release(&l[i]);
	plan_free(p);
}

static void test_run_param_and_json(void **state)
{
	struct plan *p = must_parse(full_plan);
	struct strbuf js = STRBUF_INIT;
	const struct plan_run *r = &p->runs[3];

	(void)state;
	assert_string_equal(plan_run_param(r, "threads"), "4");
	assert_string_equal(plan_run_param(r, "cgroup"), "/foo");
	assert_string_equal(plan_run_param(r, "time"), "10s"); /* default */
	assert_string_equal(plan_run_param(r, "pg_conninfo"), "");
	assert_null(plan_run_param(r, "no_such_param"));
	assert_string_equal(plan_run_param(&p->runs[7], "cgroup"), "/");

	plan_run_params_json(p, r, PLAN_SECRETS_CLEAR, &js);
	assert_string_equal(
		js.buf, "{\"cgroup\":\"/foo\",\"test\":\"oltp_read_only\","
			"\"threads\":4,\"time\":\"10s\",\"pg_conninfo\":\"\","
			"\"tables\":1,\"table_size\":10000}");
	strbuf_reset(&js);
	plan_run_json(p, &p->runs[6], &js);
	assert_string_equal(js.buf,
			    "{\"index\":6,\"workload\":\"memchunk\",\"params\":"
			    "{\"cgroup\":\"/\",\"short_threads\":5,"
			    "\"long_threads\":5,\"duration\":\"2s\","
			    "\"chunk_slots\":256,\"sleep_every\":2800,"
			    "\"sleep_us\":9000},\"spec\":{\"workload\":"
			    "\"memchunk\",\"params\":{\"cgroup\":\"/\","
			    "\"short_threads\":5,\"long_threads\":5,"
			    "\"duration\":\"2s\",\"chunk_slots\":256,"
			    "\"sleep_every\":2800,\"sleep_us\":9000}}}");
	strbuf_reset(&js);
	plan_cgroups_json(p, &js);
	assert_string_equal(
		js.buf, "[{\"path\":\"/a\",\"weight\":200,\"cpu_max_pct\":150,"
			"\"cpus\":\"0-1\"},{\"path\":\"/b\",\"weight\":100}]");
	strbuf_reset(&js);
	plan_settings_json(p, &js);
	assert_string_equal(
		js.buf,
		"{\"name\":\"full-plan\",\"description\":\"every section\","
		"\"iterations\":7,\"warmup\":2,\"boots\":4,\"until\":"
		"\"decided\","
		"\"max_boots\":16,\"cgroups\":[{\"path\":\"/a\",\"weight\":200,"
		"\"cpu_max_pct\":150,\"cpus\":\"0-1\"},{\"path\":\"/b\","
		"\"weight\":100}],\"host\":{\"kinds\":[\"ssh\",\"libvirt\"],"
		"\"min_sockets\":2,\"min_cpus\":8,\"min_memory_mb\":16384,"
		"\"tags\":[\"numa\",\"lab-2\"]},\"kernel_config\":"
		"[\"farm-base.config\",\"farm-vm.config\"],\"metrics\":["
		"{\"name\":\"transactions_per_s\",\"tau_pct\":1.5,"
		"\"direction\":\"higher\",\"decides\":true},{\"name\":"
		"\"latency_*"
		"\","
		"\"tau_pct\":null,\"direction\":\"none\",\"decides\":false}],"
		"\"timeouts\":{\"power_ms\":120000,\"boot_ms\":300000,"
		"\"run_ms\":1800000,\"collect_ms\":90000,"
		"\"build_ms\":10800000,\"stall_ms\":20000,"
		"\"job_ms\":78720000},\"nr_runs\":9}");
	strbuf_release(&js);
	plan_free(p);
}

static void test_typed_json_values(void **state)
{
	struct plan *p = must_parse("workloads:\n"
				    "  - workload: hackbench\n"
				    "    params: {pipe: true, mode: thread}\n"
				    "  - workload: fairness-loop\n"
				    "    params: {converge_pct: 2.5}\n");
	struct strbuf js = STRBUF_INIT;

	(void)state;
	plan_run_params_json(p, &p->runs[0], PLAN_SECRETS_CLEAR, &js);
	assert_string_equal(js.buf, "{\"cgroup\":\"/\",\"groups\":10,"
				    "\"loops\":100,\"mode\":\"thread\","
				    "\"pipe\":true}");
	strbuf_reset(&js);
	plan_run_params_json(p, &p->runs[1], PLAN_SECRETS_CLEAR, &js);
	assert_non_null(strstr(js.buf, "\"converge_pct\":2.5"));
	assert_non_null(strstr(js.buf, "\"groups\":\"/a:5,/b:2\""));
	strbuf_release(&js);
	plan_free(p);
}

/* Exactly PLAN_MAX_RUNS is fine; one more sweep value is refused. */
static void test_run_cap(void **state)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct plan *p;

	(void)state;
	strbuf_addstr(&text, "workload: numa-bw\nparams:\n  jobs: [");
	for (int i = 1; i <= 100; i++)
		strbuf_addf(&text, "%s%d", i > 1 ? ", " : "", i);
	strbuf_addstr(&text, "]\n  passes: [");
	for (int i = 1; i <= 100; i++)
		strbuf_addf(&text, "%s%d", i > 1 ? ", " : "", i);
	strbuf_addstr(&text, "]\n");
	p = must_parse(text.buf);
	assert_int_equal(p->nr_runs, PLAN_MAX_RUNS);
	assert_string_equal(plan_run_param(&p->runs[PLAN_MAX_RUNS - 1], "jobs"),
			    "100");
	plan_free(p);

	strbuf_addstr(&text, "  cgroup: [/, /x]\n");
	must_fail(text.buf, &err);
	assert_non_null(strstr(err.buf, "expand to 20000 runs, more than the "
					"cap of 10000"));
	strbuf_release(&text);
	strbuf_release(&err);
}

/* The other caps: values in a sweep, workload entries, YAML values. */
static void test_structure_caps(void **state)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	strbuf_addstr(&text, "workload: numa-bw\nparams:\n  jobs: [");
	for (int i = 1; i <= PLAN_MAX_VALUES + 1; i++)
		strbuf_addf(&text, "%s%d", i > 1 ? ", " : "", i);
	strbuf_addstr(&text, "]\n");
	must_fail(text.buf, &err);
	assert_string_equal(err.buf, "t.yaml:3:9: error: params.jobs: sweep of "
				     "1025 values, more than 1024\n");

	strbuf_reset(&text);
	strbuf_reset(&err);
	strbuf_addstr(&text, "workloads:\n");
	for (int i = 0; i <= PLAN_MAX_WORKLOADS; i++)
		strbuf_addstr(&text, "  - workload: chat\n");
	must_fail(text.buf, &err);
	assert_string_equal(err.buf, "t.yaml:2:3: error: workloads: more than "
				     "64 entries\n");

	strbuf_reset(&text);
	strbuf_reset(&err);
	strbuf_addstr(&text, "workload: chat\nx:\n");
	for (int i = 0; i < PLAN_MAX_NODES; i++)
		strbuf_addstr(&text, "- 1\n");
	assert_true(text.len < PLAN_MAX_BYTES);
	must_fail(text.buf, &err);
	assert_non_null(
		strstr(err.buf, "error: more than 65536 YAML values\n"));
	strbuf_release(&text);
	strbuf_release(&err);
}

static void test_errors_append(void **state)
{
	struct strbuf err = STRBUF_INIT;
	const char *nl;

	(void)state;
	strbuf_addstr(&err, "earlier\n");
	must_fail("workload: chat\niterations: 0\n", &err);
	must_fail("workload: nope\n", &err);
	assert_true(starts_with(err.buf, "earlier\n"));
	nl = strchr(err.buf + 8, '\n');
	assert_non_null(nl);
	assert_true(
		starts_with(err.buf + 8, "t.yaml:2:13: error: iterations:"));
	assert_true(starts_with(nl + 1, "t.yaml:1:11: error: workload: the "
					"agent has no workload 'nope'"));
	strbuf_release(&err);
}

static void test_error_cap(void **state)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	size_t lines = 0;

	(void)state;
	strbuf_addstr(&text, "workload: chat\n");
	for (int i = 0; i < 200; i++)
		strbuf_addf(&text, "k%d: 1\n", i);
	must_fail(text.buf, &err);
	for (size_t i = 0; i < err.len; i++)
		lines += err.buf[i] == '\n';
	assert_int_equal(lines, PLAN_MAX_ERRORS + 1);
	assert_non_null(strstr(err.buf, "t.yaml: error: too many errors (200), "
					"stopping\n"));
	strbuf_release(&text);
	strbuf_release(&err);
}

/* The text need not be NUL-terminated: only len bytes are read. */
static void test_length_not_nul(void **state)
{
	static const char text[] = "workload: chat\nboots: 2\n"
				   "this is not YAML: [";
	struct strbuf err = STRBUF_INIT;
	struct plan *p = NULL;

	(void)state;
	assert_int_equal(plan_parse("t", text, 24, &p, &err), 0);
	assert_int_equal(p->boots, 2);
	plan_free(p);
	assert_int_equal(plan_parse("t", "workload: chat\0x", 16, &p, &err),
			 -EINVAL);
	strbuf_release(&err);
}

static void test_size_cap(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct plan *p = NULL;
	char *big = xcalloc(1, PLAN_MAX_BYTES + 2);

	(void)state;
	memset(big, '#', PLAN_MAX_BYTES + 1);
	assert_int_equal(plan_parse("big", big, PLAN_MAX_BYTES + 1, &p, &err),
			 -EINVAL);
	assert_null(p);
	assert_non_null(strstr(err.buf, "more than the cap"));
	free(big);
	strbuf_release(&err);
}

static void test_load(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct plan *p = NULL;

	(void)state;
	assert_int_equal(plan_load("/nonexistent/x.yaml", &p, &err), -ENOENT);
	assert_null(p);
	assert_string_equal(err.buf, "/nonexistent/x.yaml: error: cannot read: "
				     "No such file or directory\n");
	plan_free(NULL);
	strbuf_release(&err);
}

/*
 * Every prefix of a good plan, and the plan with each byte replaced by a
 * few hostile ones, either parses or fails with errors; never crashes
 * (this suite runs under ASan and UBSan) and never both.
 */
static void test_damaged_input(void **state)
{
	static const char bad[] = { '\0', '\t', '[', '{', '*',	 '&',
				    '\n', ':',	'-', '"', '\xff' };
	size_t len = strlen(full_plan);
	char *copy = xstrdup(full_plan);

	(void)state;
	for (size_t n = 0; n <= len; n++) {
		struct strbuf err = STRBUF_INIT;
		struct plan *p = NULL;
		int rc = plan_parse("t", full_plan, n, &p, &err);

		assert_true((rc == 0 && p && !err.len) ||
			    (rc < 0 && !p && err.len));
		plan_free(p);
		strbuf_release(&err);
	}
	for (size_t i = 0; i < len; i++) {
		for (size_t b = 0; b < sizeof(bad); b++) {
			struct strbuf err = STRBUF_INIT;
			struct plan *p = NULL;
			int rc;

			copy[i] = bad[b];
			rc = plan_parse("t", copy, len, &p, &err);
			assert_true((rc == 0 && p && !err.len) ||
				    (rc < 0 && !p && err.len));
			plan_free(p);
			strbuf_release(&err);
			copy[i] = full_plan[i];
		}
	}
	free(copy);
}

/*
 * Every plan shipped in plans/ parses.  The suite runs from the top of the
 * source tree (tests/run-tests.sh), so plans/ is relative to it.
 */
static void test_shipped_plans(void **state)
{
	static const char *const names[] = { "smoke",
					     "memchunk-thread-mix",
					     "sysbench-oltp-threads",
					     "chat-rooms-cgroup",
					     "fairness-loop-5-2",
					     "kernbench-two-cgroups",
					     "kernbench-numa",
					     "numa-bw-jobs",
					     "reaim-users",
					     "pipe-pingpong-counters",
					     "latency-under-load",
					     "sysbench-cpu-command" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct strbuf err = STRBUF_INIT;
		struct plan *p = NULL;
		char *path = xstrfmt("plans/%s.yaml", names[i]);

		if (plan_load(path, &p, &err) != 0)
			fail_msg("%s: %s", path, err.buf);
		assert_string_equal(p->name, names[i]);
		assert_true(p->nr_runs >= 1);
		plan_free(p);
		free(path);
		strbuf_release(&err);
	}
}

/* The values of run parameter name over all runs, joined by ','. */
static void values_of(const struct plan *p, const char *name,
		      struct strbuf *out)
{
	strbuf_reset(out);
	for (size_t i = 0; i < p->nr_runs; i++)
		strbuf_addf(out, "%s%s", i ? "," : "",
			    plan_run_param(&p->runs[i], name));
}

static void test_ranges(void **state)
{
	struct strbuf v = STRBUF_INIT, err = STRBUF_INIT;
	struct plan *p;

	(void)state;
	/* seed 001's 1..256 threads */
	p = must_parse("workload: sysbench\n"
		       "params: {threads: {from: 1, to: 256, times: 2}}\n");
	assert_int_equal(p->nr_runs, 9);
	values_of(p, "threads", &v);
	assert_string_equal(v.buf, "1,2,4,8,16,32,64,128,256");
	plan_free(p);
	p = must_parse("workload: sysbench\n"
		       "params:\n"
		       "  threads: {from: 2, to: 9, step: 3}\n"
		       "  time: {from: 1500ms, to: 3s, step: 500ms}\n");
	assert_int_equal(p->nr_runs, 3 * 4);
	values_of(p, "time", &v);
	assert_string_equal(v.buf, "1500ms,2s,2500ms,3s,1500ms,2s,2500ms,3s,"
				   "1500ms,2s,2500ms,3s");
	values_of(p, "threads", &v);
	assert_string_equal(v.buf, "2,2,2,2,5,5,5,5,8,8,8,8");
	plan_free(p);
	p = must_parse(
		"workload: fairness-loop\n"
		"params: {converge_pct: {from: 0.5, to: 2, times: 2}}\n");
	values_of(p, "converge_pct", &v);
	assert_string_equal(v.buf, "0.5,1,2");
	plan_free(p);
	must_fail("workload: sysbench\n"
		  "params: {threads: {from: 1, to: 5000, step: 1}}\n",
		  &err);
	assert_non_null(strstr(err.buf, "more than 1024 values"));
	strbuf_release(&v);
	strbuf_release(&err);
}

static void test_set_overrides(void **state)
{
	static const char plan[] = "workloads:\n"
				   "  - workload: memchunk\n"
				   "    params: {duration: 5s}\n"
				   "  - workload: pipe-pingpong\n"
				   "metrics:\n"
				   "  \"share./a\": {tau: 2%}\n";
	struct strvec sets = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT, v = STRBUF_INIT;
	struct plan *p = NULL;

	(void)state;
	strvec_pushl(&sets, "params.duration=2s", "boots=3",
		     "workloads[1].params.round_trips=[10, 20]",
		     "metrics.\"share./a\"=", "host.min_cpus=4",
		     "timeouts.run=5m", (char *)NULL);
	/* the metric is not reported by these workloads: the --set that
	 * empties its rule is checked, and the name check reports it */
	assert_int_equal(
		plan_parse_set("t.yaml", plan, strlen(plan), &sets, &p, &err),
		-EINVAL);
	assert_non_null(strstr(err.buf,
			       "t.yaml: error: --set metrics.\"share./a"
			       "\"=: metrics.share./a: expected a map"));
	strvec_pop(&sets);
	strvec_pop(&sets);
	strvec_pop(&sets);
	strvec_pushl(&sets, "host.min_cpus=4", "timeouts.run=5m",
		     "metrics={records_per_s: {tau: 1%}}", (char *)NULL);
	strbuf_reset(&err);
	assert_int_equal(
		plan_parse_set("t.yaml", plan, strlen(plan), &sets, &p, &err),
		0);
	assert_int_equal(p->boots, 3);
	assert_int_equal(p->host.min_cpus, 4);
	assert_int_equal(p->timeouts.run_ms, 300000);
	assert_int_equal(p->nr_runs, 3);
	assert_string_equal(plan_run_param(&p->runs[0], "duration"), "2s");
	assert_string_equal(plan_run_param(&p->runs[1], "round_trips"), "10");
	assert_string_equal(plan_run_param(&p->runs[2], "round_trips"), "20");
	assert_int_equal(p->nr_metrics, 1);
	assert_string_equal(p->metrics[0].name, "records_per_s");
	plan_free(p);

	/* a later --set wins; each error names its --set */
	strvec_clear(&sets);
	strvec_pushl(&sets, "metrics={elapsed_s: {tau: 3}}", "warmup=2",
		     "warmup=0", "iterations=x", (char *)NULL);
	strbuf_reset(&err);
	assert_int_equal(
		plan_parse_set("t.yaml", plan, strlen(plan), &sets, &p, &err),
		-EINVAL);
	assert_string_equal(err.buf,
			    "t.yaml: error: --set iterations=x: iterations: "
			    "expected an integer in 1..10000, got 'x'\n");
	strvec_pop(&sets);
	strbuf_reset(&err);
	assert_int_equal(
		plan_parse_set("t.yaml", plan, strlen(plan), &sets, &p, &err),
		0);
	assert_int_equal(p->warmup, 0);
	plan_free(p);
	strvec_clear(&sets);
	strbuf_release(&err);
	strbuf_release(&v);
}

static void test_together(void **state)
{
	struct strbuf js = STRBUF_INIT;
	struct plan *p;

	(void)state;
	p = must_parse(
		"workloads:\n"
		"  - together:\n"
		"      - {name: a, workload: kernbench, params: {tree: /s, "
		"cgroup: /a}}\n"
		"      - {name: n, workload: cpu-hog, background: true, "
		"params: {tasks: [1, 2], cgroup: /n}}\n"
		"    variants:\n"
		"      - {a.jobs: 8}\n"
		"      - {a.jobs: 7}\n"
		"    sample_interval: 500ms\n"
		"metrics:\n"
		"  elapsed_ratio: {decides: true}\n"
		"  a.elapsed_s: {tau: 3%}\n"
		"  \"share.*\": {direction: none}\n"
		"  n.passes: {direction: none}\n");
	assert_int_equal(p->nr_runs, 4);
	assert_null(p->runs[0].wl);
	assert_string_equal(p->runs[0].workload, "together");
	assert_int_equal(p->runs[0].nr_members, 2);
	assert_int_equal(p->runs[0].sample_ms, 500);
	assert_string_equal(plan_run_param(&p->runs[1], "n.tasks"), "2");
	assert_string_equal(plan_run_param(&p->runs[2], "a.jobs"), "7");
	assert_string_equal(plan_run_param(&p->runs[2], "a.target"),
			    "vmlinux"); /* a member's default */
	assert_null(plan_run_param(&p->runs[2], "z.jobs"));
	plan_run_spec_json(p, &p->runs[3], PLAN_SECRETS_CLEAR, &js);
	assert_string_equal(
		js.buf,
		"\"together\":[{\"name\":\"a\",\"workload\":\"kernbench\","
		"\"params\":{\"cgroup\":\"/a\",\"tree\":\"/s\",\"jobs\":7,"
		"\"target\":\"vmlinux\",\"clean\":true,\"objdir\":\"\"},"
		"\"background\":false},{\"name\":\"n\",\"workload\":"
		"\"cpu-hog\",\"params\":{\"cgroup\":\"/n\",\"tasks\":2,"
		"\"duration\":\"10s\"},\"background\":true}],\"sample_ms\":"
		"500");
	strbuf_reset(&js);
	plan_run_params_json(p, &p->runs[0], PLAN_SECRETS_MASKED, &js);
	assert_string_equal(
		js.buf,
		"{\"sample_ms\":500,\"a\":\"kernbench\",\"a.cgroup\":\"/a\","
		"\"a.tree\":\"/s\",\"a.jobs\":8,\"a.target\":\"vmlinux\","
		"\"a.clean\":true,\"a.objdir\":\"\",\"n\":\"cpu-hog\","
		"\"n.background\":true,\"n.cgroup\":\"/n\",\"n.tasks\":1,"
		"\"n.duration\":\"10s\"}");
	plan_free(p);
	strbuf_release(&js);
}

/* A together member's conninfo: clear only in the agent's spec. */
static void test_together_secrets(void **state)
{
	struct strbuf js = STRBUF_INIT;
	struct plan *p;

	(void)state;
	p = must_parse("workloads:\n"
		       "  - together:\n"
		       "      - {name: db, workload: sysbench, params: {test: "
		       "oltp_read_only, pg_conninfo: \"host=db "
		       "password=s3cret\"}}\n"
		       "      - {name: n, workload: cpu-hog, background: "
		       "true}\n");
	plan_run_spec_json(p, &p->runs[0], PLAN_SECRETS_CLEAR, &js);
	assert_non_null(strstr(js.buf, "password=s3cret"));
	strbuf_reset(&js);
	plan_run_spec_json(p, &p->runs[0], PLAN_SECRETS_MASKED, &js);
	assert_null(strstr(js.buf, "s3cret"));
	strbuf_reset(&js);
	plan_run_params_json(p, &p->runs[0], PLAN_SECRETS_MASKED, &js);
	assert_null(strstr(js.buf, "s3cret"));
	assert_non_null(strstr(js.buf, "\"db.pg_conninfo\":"));
	strbuf_reset(&js);
	plan_run_json(p, &p->runs[0], &js);
	assert_null(strstr(js.buf, "s3cret"));
	strbuf_reset(&js);
	plan_run_label(&p->runs[0], &js);
	assert_null(strstr(js.buf, "s3cret"));
	assert_non_null(strstr(js.buf, "db.pg_conninfo="));
	plan_free(p);
	strbuf_release(&js);
}

static void test_command_workload(void **state)
{
	struct strbuf js = STRBUF_INIT, err = STRBUF_INIT;
	struct plan *p;

	(void)state;
	p = must_parse(
		"commands:\n"
		"  bench:\n"
		"    command: [bench, \"-t{threads}\", \"--for={time}s\", "
		"\"{{literal}}\"]\n"
		"    timeout: 1m\n"
		"    params:\n"
		"      threads: {type: integer, min: 1, max: 8, default: "
		"1}\n"
		"      time: {type: duration, min: 1s, max: 1h, default: "
		"10s}\n"
		"      mode: {type: string, choices: [fast, slow], "
		"default: fast}\n"
		"    parse: {format: csv, separator: ';', stream: both}\n"
		"    metrics:\n"
		"      ops_per_s: {key: ops, unit: 1/s, direction: higher}\n"
		"workload: bench\n"
		"params: {threads: [2, 4], time: 1500ms}\n"
		"metrics: {ops_per_s: {tau: 1%}}\n");
	assert_int_equal(p->nr_runs, 2);
	assert_non_null(p->runs[0].cmd);
	assert_string_equal(p->runs[0].workload, "bench");
	plan_run_spec_json(p, &p->runs[1], PLAN_SECRETS_CLEAR, &js);
	assert_string_equal(
		js.buf,
		"\"command\":{\"name\":\"bench\",\"argv\":[\"bench\","
		"\"-t4\",\"--for=1.5s\",\"{literal}\"],\"timeout_ms\":60000,"
		"\"format\":\"csv\",\"stream\":\"both\",\"separator\":\";\","
		"\"metrics\":[{\"name\":\"ops_per_s\",\"key\":\"ops\","
		"\"unit\":\"1/s\",\"direction\":\"higher\"}]},\"params\":"
		"{\"cgroup\":\"/\"}");
	strbuf_reset(&js);
	plan_run_params_json(p, &p->runs[0], PLAN_SECRETS_MASKED, &js);
	assert_string_equal(js.buf, "{\"cgroup\":\"/\",\"threads\":2,"
				    "\"time\":\"1500ms\",\"mode\":\"fast\"}");
	plan_free(p);

	must_fail("commands:\n"
		  "  b:\n"
		  "    command: [b]\n"
		  "    parse: {format: jsonl}\n"
		  "    metrics: {x: {direction: higher}}\n"
		  "workload: b\n"
		  "params: {threads: 2}\n",
		  &err);
	assert_non_null(strstr(err.buf, "params: b has no parameter 'threads' "
					"(it takes: cgroup)"));
	strbuf_release(&js);
	strbuf_release(&err);
}

static void test_includes(void **state)
{
	static const char def[] = "name: inc\n"
				  "command: [inc]\n"
				  "parse: {format: keyvalue}\n"
				  "metrics: {x: {direction: lower}}\n";
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct plan *p = NULL;
	FILE *f;

	(void)state;
	mkdir("t-inc", 0755);
	mkdir("t-inc/w", 0755);
	f = fopen("t-inc/w/inc.yaml", "w");
	assert_non_null(f);
	fputs(def, f);
	fclose(f);
	f = fopen("t-inc/plan.yaml", "w");
	assert_non_null(f);
	fputs("include: [w/inc.yaml]\nworkload: inc\n", f);
	fclose(f);
	assert_int_equal(plan_load_text("t-inc/plan.yaml", &text, &err), 0);
	assert_non_null(strstr(text.buf, PLAN_INCLUDE_MARK "w/inc.yaml\n"
							   "name: inc\n"));
	/* the bundle parses anywhere: no file is read again */
	assert_int_equal(plan_parse("stored", text.buf, text.len, &p, &err), 0);
	assert_string_equal(p->runs[0].workload, "inc");
	plan_free(p);
	/* an error in an included file names that file */
	strbuf_reset(&text);
	strbuf_addf(&text,
		    "include: [w/inc.yaml]\nworkload: inc\n%s"
		    "w/inc.yaml\nname: inc\ncommand: [inc]\n"
		    "parse: {format: keyvalue}\nmetrics: {x: {}}\n",
		    PLAN_INCLUDE_MARK);
	assert_int_equal(plan_parse("d/p.yaml", text.buf, text.len, &p, &err),
			 -EINVAL);
	assert_string_equal(err.buf, "d/w/inc.yaml:4:14: error: metrics.x: "
				     "missing key 'direction'\n");
	/* the plan's text alone: include: names what was not read */
	strbuf_reset(&err);
	must_fail("include: [w/inc.yaml]\nworkload: inc\n", &err);
	assert_non_null(strstr(err.buf, "was not read with the plan"));
	assert_int_equal(unlink("t-inc/w/inc.yaml"), 0);
	assert_int_equal(unlink("t-inc/plan.yaml"), 0);
	assert_int_equal(rmdir("t-inc/w"), 0);
	assert_int_equal(rmdir("t-inc"), 0);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* Write text to path (the test's own scratch files). */
static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/*
 * plan_load_text() of a plan whose only include is inc: 0 and the bundle
 * in text, or the error in err.
 */
static int load_with(const char *inc, struct strbuf *text, struct strbuf *err)
{
	struct strbuf plan = STRBUF_INIT;
	int rc;

	strbuf_addf(&plan, "include: [%s]\nworkload: inc\n", inc);
	put("t-conf/p/plan.yaml", plan.buf);
	strbuf_reset(text);
	strbuf_reset(err);
	rc = plan_load_text("t-conf/p/plan.yaml", text, err);
	strbuf_release(&plan);
	return rc;
}

/*
 * include: reads only files in the plan's folder and below it: no
 * absolute path, no .. above it, no link out of it (a link inside is
 * fine), only .yaml/.yml regular files; and a file that is no definition
 * is named in the error, never quoted.
 */
static void test_include_confined(void **state)
{
	static const char def[] = "name: inc\n"
				  "command: [inc]\n"
				  "parse: {format: keyvalue}\n"
				  "metrics: {x: {direction: lower}}\n";
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct plan *p = NULL;
	char *abs;

	(void)state;
	assert_int_equal(mkdir("t-conf", 0755), 0);
	assert_int_equal(mkdir("t-conf/p", 0755), 0);
	assert_int_equal(mkdir("t-conf/p/w", 0755), 0);
	put("t-conf/p/w/inc.yaml", def);
	put("t-conf/secret.yaml", def);
	put("t-conf/p/w/text.yaml", "hunter2 secret line\n");
	put("t-conf/p/w/inc.txt", def);
	assert_int_equal(symlink("inc.yaml", "t-conf/p/w/in.yaml"), 0);
	assert_int_equal(symlink("../../secret.yaml", "t-conf/p/w/out.yaml"),
			 0);
	assert_int_equal(symlink("..", "t-conf/p/w/up"), 0);
	assert_int_equal(symlink("../..", "t-conf/p/w/top"), 0);
	assert_int_equal(mkfifo("t-conf/p/w/fifo.yaml", 0600), 0);

	/* inside: plain, through a link inside, with a .. that stays in */
	assert_int_equal(load_with("w/inc.yaml", &text, &err), 0);
	assert_int_equal(load_with("w/in.yaml", &text, &err), 0);
	assert_int_equal(load_with("./w/../w/inc.yaml", &text, &err), 0);
	assert_int_equal(plan_parse("x", text.buf, text.len, &p, &err), 0);
	plan_free(p);

	assert_int_equal(load_with("../secret.yaml", &text, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "climbs out of the plan's folder"));
	assert_int_equal(load_with("w/../../secret.yaml", &text, &err),
			 -EINVAL);
	assert_non_null(strstr(err.buf, "climbs out of the plan's folder"));
	abs = realpath("t-conf/secret.yaml", NULL);
	assert_non_null(abs);
	assert_int_equal(load_with(abs, &text, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "an absolute path"));
	free(abs);
	assert_int_equal(load_with("w/out.yaml", &text, &err), -EINVAL);
	assert_string_equal(err.buf,
			    "t-conf/p/plan.yaml:1:11: error: include: cannot "
			    "read t-conf/p/w/out.yaml: a symbolic link out of "
			    "the plan's folder\n");
	assert_int_equal(load_with("w/up/../secret.yaml", &text, &err),
			 -EINVAL);
	assert_non_null(strstr(err.buf, "a symbolic link out of"));
	assert_int_equal(load_with("w/top/secret.yaml", &text, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "a symbolic link out of"));
	assert_int_equal(load_with("w/inc.txt", &text, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "not a .yaml or .yml file"));
	assert_int_equal(load_with("w/fifo.yaml", &text, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "not a regular file"));
	assert_int_equal(load_with("w", &text, &err), -EINVAL);

	/* read, but no definition: named, its text not quoted */
	assert_int_equal(load_with("w/text.yaml", &text, &err), 0);
	assert_int_equal(
		plan_parse("t-conf/p/plan.yaml", text.buf, text.len, &p, &err),
		-EINVAL);
	assert_non_null(strstr(err.buf, "t-conf/p/plan.yaml:1:11: error: "
					"include[0]: w/text.yaml is not a "
					"workload definition (a text, not a "
					"map)\n"));
	assert_null(strstr(err.buf, "hunter2"));
	/* nor is a plan file that is no map */
	strbuf_reset(&err);
	must_fail("hunter2 secret line\n", &err);
	assert_null(strstr(err.buf, "hunter2"));
	assert_non_null(strstr(err.buf, "got a text"));

	assert_int_equal(unlink("t-conf/p/w/fifo.yaml"), 0);
	assert_int_equal(unlink("t-conf/p/w/up"), 0);
	assert_int_equal(unlink("t-conf/p/w/top"), 0);
	assert_int_equal(unlink("t-conf/p/w/out.yaml"), 0);
	assert_int_equal(unlink("t-conf/p/w/in.yaml"), 0);
	assert_int_equal(unlink("t-conf/p/w/inc.txt"), 0);
	assert_int_equal(unlink("t-conf/p/w/text.yaml"), 0);
	assert_int_equal(unlink("t-conf/p/w/inc.yaml"), 0);
	assert_int_equal(unlink("t-conf/p/plan.yaml"), 0);
	assert_int_equal(unlink("t-conf/secret.yaml"), 0);
	assert_int_equal(rmdir("t-conf/p/w"), 0);
	assert_int_equal(rmdir("t-conf/p"), 0);
	assert_int_equal(rmdir("t-conf"), 0);
	strbuf_release(&text);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_set_overrides),
		cmocka_unit_test(test_together),
		cmocka_unit_test(test_together_secrets),
		cmocka_unit_test(test_command_workload),
		cmocka_unit_test(test_includes),
		cmocka_unit_test(test_include_confined),
		cmocka_unit_test(test_full_plan_fields),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_job_budget),
		cmocka_unit_test(test_expect),
		cmocka_unit_test(test_expansion_order),
		cmocka_unit_test(test_rtapp_label_one_line),
		cmocka_unit_test(test_run_param_and_json),
		cmocka_unit_test(test_typed_json_values),
		cmocka_unit_test(test_run_cap),
		cmocka_unit_test(test_structure_caps),
		cmocka_unit_test(test_errors_append),
		cmocka_unit_test(test_error_cap),
		cmocka_unit_test(test_length_not_nul),
		cmocka_unit_test(test_size_cap),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_damaged_input),
		cmocka_unit_test(test_shipped_plans),
	};
	host_kind_publish(); /* plans' host.kind asks the kind table */
	return cmocka_run_group_tests(tests, NULL, NULL);
}

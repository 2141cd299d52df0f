/*
 * test-agent-cgroup.c - what the agent mounts of its own where no usable
 * cgroup hierarchy is mounted (cgroup_mount.c), from /proc/cgroups and
 * /proc/filesystems texts captured on the kinds of hosts the farm meets:
 * v1 hierarchies one per controller (this project's test machine), a
 * systemd host with cpu,cpuacct co-mounted and cgroup2 beside (hybrid), a
 * cgroup2-only kernel, a kernel without cgroup2 and one without v1, and
 * kernels without the cpu controller; then the filter that drops mounts hidden
 * under another mount, and the words `info` says about it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "agent.h"

static const char *const fs_both = "nodev\tsysfs\nnodev\ttmpfs\n"
				   "nodev\tcgroup\nnodev\tcgroup2\n"
				   "\text4\n";
static const char *const fs_v1 = "nodev\tsysfs\nnodev\tcgroup\n\text4\n";

/* This project's test machine: a v1 hierarchy per controller, cgroup2
 * at /sys/fs/cgroup/unified without controllers. */
static const char *const cg_split_v1 =
	"#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
	"cpuset\t3\t5\t1\ncpu\t1\t5\t1\ncpuacct\t2\t1\t1\n"
	"blkio\t7\t3\t1\nmemory\t4\t123\t1\ndevices\t5\t1\t1\n"
	"freezer\t6\t3\t1\nnet_cls\t0\t5\t1\nperf_event\t0\t5\t1\n"
	"net_prio\t0\t5\t1\nhugetlb\t0\t5\t1\npids\t8\t1\t1\n";

/* A systemd hybrid host: cpu,cpuacct and net_cls,net_prio co-mounted. */
static const char *const cg_comount =
	"#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
	"cpuset\t6\t1\t1\ncpu\t4\t80\t1\ncpuacct\t4\t80\t1\n"
	"blkio\t9\t80\t1\nmemory\t2\t120\t1\ndevices\t3\t80\t1\n"
	"freezer\t10\t1\t1\nnet_cls\t5\t1\t1\nperf_event\t8\t1\t1\n"
	"net_prio\t5\t1\t1\nhugetlb\t7\t1\t1\npids\t11\t88\t1\n";

/* cgroup2 only (or no cgroup mounted at all on a v2 kernel): every
 * controller bound to no v1 hierarchy. */
static const char *const cg_unbound =
	"#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
	"cpuset\t0\t1\t1\ncpu\t0\t1\t1\ncpuacct\t0\t1\t1\n"
	"memory\t0\t1\t1\npids\t0\t1\t1\n";

static void plan_ok(const char *cgroups, const char *fs, int v2,
		    const char *words)
{
	struct cg_mount_plan p;
	struct strbuf err = STRBUF_INIT, d = STRBUF_INIT;

	if (cg_mount_plan_make(cgroups, fs, &p, &err) < 0)
		fail_msg("no plan: %s", err.buf);
	assert_int_equal(p.v2, v2);
	cg_mount_plan_describe(&p, &d);
	assert_string_equal(d.buf, words);
	cg_mount_plan_release(&p);
	strbuf_release(&err);
	strbuf_release(&d);
}

static void plan_bad(const char *cgroups, const char *fs, const char *why)
{
	struct cg_mount_plan p;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(cg_mount_plan_make(cgroups, fs, &p, &err), -1);
	if (!strstr(err.buf, why))
		fail_msg("expected '%s' in '%s'", why, err.buf);
	cg_mount_plan_release(&p);
	strbuf_release(&err);
}

static void test_plan(void **state)
{
	(void)state;
	/* cpu bound to v1: its hierarchies again, never cgroup2 */
	plan_ok(cg_split_v1, fs_both, 0, "v1 cpu, v1 cpuacct, v1 cpuset");
	/* co-mounted: the same controllers together, once */
	plan_ok(cg_comount, fs_both, 0, "v1 cpu,cpuacct, v1 cpuset");
	/* bound nowhere: cgroup2 */
	plan_ok(cg_unbound, fs_both, 1, "cgroup2");
	/* ... unless the kernel has no cgroup2: a fresh v1 hierarchy */
	plan_ok(cg_unbound, fs_v1, 0, "v1 cpu,cpuacct");
	/* cpu bound to v1 while cpuacct is free: cpuacct on its own */
	plan_ok("cpu\t2\t1\t1\ncpuacct\t0\t1\t1\n", fs_both, 0,
		"v1 cpu, v1 cpuacct");
	/* a kernel without v1 (no /proc/cgroups, or only v1 controllers
	 * listed): cgroup2, whose mount says whether it has cpu */
	plan_ok("", fs_both, 1, "cgroup2");
	plan_ok("memory\t0\t1\t1\n", fs_both, 1, "cgroup2");
	/* a disabled cpuacct is not asked for */
	plan_ok("cpu\t2\t1\t1\ncpuacct\t0\t1\t0\n", fs_both, 0, "v1 cpu");
}

static void test_plan_refused(void **state)
{
	(void)state;
	/* cpu not listed, no cgroup2 to look in */
	plan_bad("#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
		 "memory\t0\t1\t1\n",
		 fs_v1, "no cpu cgroup controller");
	/* cgroup_disable=cpu */
	plan_bad("cpu\t0\t1\t0\nmemory\t0\t1\t1\n", fs_both,
		 "no cpu cgroup controller");
	plan_bad("", fs_v1, "no cpu cgroup controller");
	plan_bad(cg_unbound, "nodev\tsysfs\n", "neither the cgroup nor");
}

static void test_reachable(void **state)
{
	struct strbuf out = STRBUF_INIT;

	(void)state;
	/* Mount points that are not cgroup file systems (here: nowhere,
	 * or a plain folder, as under a test's empty tmpfs) are dropped;
	 * other lines stay. */
	cg_mounts_reachable("proc /proc proc rw 0 0\n"
			    "cgroup /nonexistent/cpu cgroup rw,cpu 0 0\n"
			    "cgroup2 / cgroup2 rw 0 0\n"
			    "tmpfs /tmp tmpfs rw 0 0\n",
			    &out);
	assert_string_equal(
		out.buf, "proc /proc proc rw 0 0\ntmpfs /tmp tmpfs rw 0 0\n");
	strbuf_release(&out);
}

static void test_describe(void **state)
{
	struct cg_system s;
	struct strbuf err = STRBUF_INIT, js = STRBUF_INIT;

	(void)state;
	cg_detect(&s, "proc /proc proc rw 0 0\n", "0::/\n", &err);
	s.unusable = xstrdup("mounting a cgroup hierarchy needs root");
	cg_describe_json(&s, &js);
	assert_non_null(strstr(js.buf, "\"used\":null"));
	assert_non_null(strstr(js.buf, "\"private\":null"));
	assert_non_null(strstr(js.buf, "\"unusable\":\"mounting a cgroup "
				       "hierarchy needs root\""));
	cg_system_release(&s);
	strbuf_reset(&js);
	cg_detect(&s, "cgroup /x/v1-0 cgroup rw,cpu 0 0\n", "1:cpu:/\n", &err);
	s.private_mount = xstrdup("v1 cpu");
	cg_describe_json(&s, &js);
	assert_non_null(strstr(js.buf, "\"used\":\"v1\""));
	assert_non_null(strstr(js.buf, "\"private\":\"v1 cpu\""));
	assert_non_null(strstr(js.buf, "\"unusable\":null"));
	cg_system_release(&s);
	strbuf_release(&err);
	strbuf_release(&js);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_refused),
		cmocka_unit_test(test_reachable),
		cmocka_unit_test(test_describe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

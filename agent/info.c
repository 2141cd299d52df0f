/*
 * info.c - what the agent knows about the machine it runs on (`info`, and
 * the `hello` line of every run), the `list` of workloads, and the
 * /etc/passwd lookup a static binary needs instead of getpwnam().
 *
 * Everything comes from /proc and /sys, so the same static binary describes
 * any kernel: release and version string, CPUs and their topology (sockets,
 * cores, threads, NUMA nodes), memory, the cgroup layout, the schedstat
 * version (or why there is none), which perf counters open, the frequency
 * governor, boost and SMT state.  Absent facts are null, never invented.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent.h"
#include "parse.h"
#include "banned.h"

int agent_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

/* Read a one-line sysfs file, trimmed; -1 if absent. */
static int read_line(const char *path, struct strbuf *out)
{
	strbuf_reset(out);
	if (strbuf_read_file(out, path, 65536) < 0)
		return -1;
	strbuf_trim(out);
	return 0;
}

static void add_str_or_null(struct strbuf *out, const char *key, const char *v)
{
	strbuf_addch(out, ',');
	strbuf_add_json_str(out, key);
	strbuf_addch(out, ':');
	strbuf_add_json_str(out, v);
}

/*
 * The highest CPU number the kernel can have ("0-3" in
 * /sys/devices/system/cpu/possible), so topology() does not probe 64
 * absent CPUs past the last; 4095 when unknown.
 */
static int last_possible_cpu(void)
{
	struct strbuf v = STRBUF_INIT;
	int last = 4095;

	if (read_line("/sys/devices/system/cpu/possible", &v) == 0) {
		const char *p = strrchr(v.buf, '-'), *q = strrchr(v.buf, ',');

		if (q && (!p || q > p))
			p = q;
		parse_int(p ? p + 1 : v.buf, 0, 4095, &last, NULL);
	}
	strbuf_release(&v);
	return last;
}

static void topology(struct strbuf *out)
{
	struct strbuf p = STRBUF_INIT, v = STRBUF_INIT;
	int64_t pkgs[4096], cores[4096 * 2];
	size_t npkg = 0, ncore = 0;
	int threads = 0, nodes = 0;
	DIR *d;
	struct dirent *e;

	for (int cpu = 0, misses = 0, last = last_possible_cpu();
	     cpu < 4096 && cpu <= last && misses < 64; cpu++) {
		int64_t pkg, core;

		strbuf_reset(&p);
		strbuf_addf(&p,
			    "/sys/devices/system/cpu/cpu%d/topology/"
			    "physical_package_id",
			    cpu);
		if (read_line(p.buf, &v) < 0) {
			misses++; /* offline CPUs leave holes; stop after a run
				   */
			continue;
		}
		misses = 0;
		if (parse_i64(v.buf, -1, INT32_MAX, &pkg, NULL) < 0)
			continue;
		strbuf_reset(&p);
		strbuf_addf(&p,
			    "/sys/devices/system/cpu/cpu%d/topology/core_id",
			    cpu);
		if (read_line(p.buf, &v) < 0 ||
		    parse_i64(v.buf, -1, INT32_MAX, &core, NULL) < 0)
			continue;
		threads++;
		{
			int seen = 0;

			for (size_t i = 0; i < npkg; i++)
				seen |= pkgs[i] == pkg;
			if (!seen)
				pkgs[npkg++] = pkg;
			seen = 0;
			for (size_t i = 0; i < ncore; i++)
				seen |= cores[i] == (pkg << 32 | core);
			if (!seen)
				cores[ncore++] = pkg << 32 | core;
		}
	}
	d = opendir("/sys/devices/system/node");
	while (d && (e = readdir(d))) {
		int n;

		if (starts_with(e->d_name, "node") &&
		    parse_int(e->d_name + 4, 0, 1 << 20, &n, NULL) == 0)
			nodes++;
	}
	if (d)
		closedir(d);
	strbuf_addf(out,
		    ",\"cpus\":{\"online\":%d,\"sockets\":%zu,\"cores\":%zu,"
		    "\"threads\":%d,\"numa_nodes\":%d",
		    agent_ncpus(), npkg, ncore, threads, nodes);
	if (read_line("/sys/devices/system/cpu/smt/control", &v) == 0)
		add_str_or_null(out, "smt", v.buf);
	else
		add_str_or_null(out, "smt", NULL);
	if (read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		      &v) == 0)
		add_str_or_null(out, "governor", v.buf);
	else
		add_str_or_null(out, "governor", NULL);
	if (read_line("/sys/devices/system/cpu/cpufreq/boost", &v) == 0)
		add_str_or_null(out, "boost", v.buf);
	else if (read_line("/sys/devices/system/cpu/intel_pstate/no_turbo",
			   &v) == 0)
		add_str_or_null(out, "boost", !strcmp(v.buf, "1") ? "0" : "1");
	else
		add_str_or_null(out, "boost", NULL);
	strbuf_addch(out, '}');
	strbuf_release(&p);
	strbuf_release(&v);
}

void agent_info_json(struct strbuf *out, const struct cg_system *known)
{
	/* task-clock first of the software ones: they use its answer */
	static const char *const counters[] = {
		"instructions",	 "cycles",	     "branches",
		"branch-misses", "cache-references", "cache-misses",
		"task-clock",	 "context-switches", "cpu-migrations",
		"page-faults"
	};
#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))
	struct utsname u;
	struct strbuf c = STRBUF_INIT, e = STRBUF_INIT;
	struct cg_system cg;
	int fds[NCOUNTERS], task_clock_ok = 0;
	char task_clock_why[96] = "not probed";

	strbuf_addstr(out, "{\"kernel\":{");
	if (uname(&u) == 0) {
		strbuf_addstr(out, "\"release\":");
		strbuf_add_json_str(out, u.release);
		strbuf_addstr(out, ",\"version\":");
		strbuf_add_json_str(out, u.version);
		strbuf_addstr(out, ",\"machine\":");
		strbuf_add_json_str(out, u.machine);
		strbuf_addstr(out, ",\"hostname\":");
		strbuf_add_json_str(out, u.nodename);
	}
	strbuf_addch(out, '}');
	topology(out);
	/* memory */
	strbuf_addstr(out, ",\"memory_kb\":");
	{
		int64_t kb = -1;

		if (strbuf_read_file(&c, "/proc/meminfo", 1 << 20) >= 0) {
			struct strvec l = STRVEC_INIT;

			strvec_split(&l, c.buf, '\n');
			for (size_t i = 0; i < l.nr; i++)
				if (starts_with(l.v[i], "MemTotal:")) {
					char *s = l.v[i] + 9, *end;

					while (*s == ' ')
						s++;
					end = strchr(s, ' ');
					if (end)
						*end = '\0';
					parse_i64(s, 0, INT64_MAX, &kb, NULL);
				}
			strvec_clear(&l);
		}
		if (kb >= 0)
			strbuf_addf(out, "%lld", (long long)kb);
		else
			strbuf_addstr(out, "null");
	}
	/* cgroups */
	strbuf_addstr(out, ",\"cgroup\":");
	if (known) {
		cg_describe_json(known, out);
	} else {
		cg_detect_here(&cg, &e);
		cg_private_assess(&cg); /* what a run would mount */
		cg_describe_json(&cg, out);
		cg_system_release(&cg);
	}
	/* schedstat */
	strbuf_addstr(out, ",\"schedstat\":");
	strbuf_reset(&c);
	if (strbuf_read_file(&c, "/proc/schedstat", 16 << 20) >= 0) {
		struct schedstat ss;

		strbuf_reset(&e);
		if (schedstat_parse(c.buf, c.len, &ss, &e) == 0) {
			struct strbuf en = STRBUF_INIT;

			strbuf_addf(out, "{\"available\":true,\"version\":%d",
				    ss.version);
			if (strbuf_read_file(
				    &en, "/proc/sys/kernel/sched_schedstats",
				    64) >= 0) {
				strbuf_trim(&en);
				strbuf_addf(out, ",\"enabled\":%s",
					    !strcmp(en.buf, "1") ? "true"
								 : "false");
			}
			strbuf_addch(out, '}');
			strbuf_release(&en);
			schedstat_release(&ss);
		} else {
			strbuf_addstr(out, "{\"available\":false,\"note\":");
			strbuf_add_json_str(out, e.buf);
			strbuf_addch(out, '}');
		}
	} else {
		strbuf_addstr(out, "{\"available\":false,\"note\":");
		strbuf_add_json_str(out,
				    "/proc/schedstat is absent: the kernel was "
				    "built without CONFIG_SCHEDSTATS");
		strbuf_addch(out, '}');
	}
	/* perf: software events share task-clock's probe (perf.c) */
	strbuf_addstr(out, ",\"perf\":{");
	for (size_t i = 0; i < NCOUNTERS; i++) {
		char why[96];
		int ok;

		if (i)
			strbuf_addch(out, ',');
		strbuf_add_json_str(out, counters[i]);
		strbuf_addch(out, ':');
		fds[i] = -1;
		if (perf_shares_probe(counters[i])) {
			ok = task_clock_ok;
			memcpy(why, task_clock_why, sizeof(why));
		} else {
			ok = perf_probe(counters[i], why, sizeof(why),
					&fds[i]) == 0;
		}
		if (!strcmp(counters[i], "task-clock")) {
			task_clock_ok = ok;
			memcpy(task_clock_why, why, sizeof(why));
		}
		if (ok)
			strbuf_addstr(out, "\"supported\"");
		else {
			strbuf_reset(&c);
			strbuf_addf(&c, "unsupported: %s", why);
			strbuf_add_json_str(out, c.buf);
		}
	}
	for (size_t i = 0; i < NCOUNTERS; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	strbuf_addstr(out, "}}");
	strbuf_release(&c);
	strbuf_release(&e);
#undef NCOUNTERS
}

void agent_list(struct strbuf *out)
{
	for (size_t i = 0; i < workload_count; i++) {
		const struct wl_desc *d = &workload_table[i];
		struct strbuf why = STRBUF_INIT;

		strbuf_addf(out, "%s (%s): %s\n", d->name,
			    d->kind == WL_BUILTIN ? "built-in" : "wrapped",
			    d->summary);
		if (wl_available(d, &why) == 0)
			strbuf_addstr(out, "  runs here: yes\n");
		else
			strbuf_addf(out, "  runs here: no (%s)\n", why.buf);
		strbuf_addstr(out, "  metrics:");
		for (size_t m = 0; d->metrics && d->metrics[m]; m++)
			strbuf_addf(out, "%s %s", m ? "," : "", d->metrics[m]);
		strbuf_addch(out, '\n');
		for (const struct wl_param *p = d->params;; p++) {
			const struct wl_param *pp =
				p->name ? p : &workload_cgroup_param;
			struct strbuf t = STRBUF_INIT;

			workload_describe_type(pp, &t);
			strbuf_addf(out, "  %-16s %s; default %s%s%s%s\n",
				    pp->name, t.buf, pp->def ? "\"" : "",
				    pp->def ? pp->def : "(required)",
				    pp->def ? "\"" : "", "");
			strbuf_addf(out, "  %-16s   %s\n", "", pp->help);
			strbuf_release(&t);
			if (!p->name)
				break;
		}
		strbuf_release(&why);
	}
}

int passwd_lookup(const char *passwd_text, const char *user, uid_t *ret_uid,
		  gid_t *ret_gid, struct strbuf *home)
{
	struct strvec lines = STRVEC_INIT;
	int rc = -1;

	strvec_split(&lines, passwd_text, '\n');
	for (size_t i = 0; i < lines.nr && rc < 0; i++) {
		struct strvec f = STRVEC_INIT;
		int64_t uid, gid;

		strvec_split(&f, lines.v[i], ':');
		if (f.nr >= 7 && !strcmp(f.v[0], user) &&
		    parse_i64(f.v[2], 0, UINT32_MAX - 1, &uid, NULL) == 0 &&
		    parse_i64(f.v[3], 0, UINT32_MAX - 1, &gid, NULL) == 0) {
			*ret_uid = (uid_t)uid;
			*ret_gid = (gid_t)gid;
			if (home)
				strbuf_addstr(home, f.v[5]);
			rc = 0;
		}
		strvec_clear(&f);
	}
	strvec_clear(&lines);
	return rc;
}

/*
 * cgroup.c - the run's cgroups on v1 (cpu, cpuacct, cpuset) or v2 (cpu,
 * cpuset), whichever the kernel mounts.
 *
 * A run never touches groups it did not make: everything it creates lives
 * under one parent, "schedfarm-<run_id>-<pid>", made inside the agent's
 * own group, and spec paths ("/a", "/foo") are relative to that parent.  So
 * two runs (or two test scripts) on one host cannot collide, and removal is
 * "rmdir what we made, deepest first".  Weights use the v2 scale (1..10000,
 * default 100) and map to v1 cpu.shares as weight*1024/100.  When both a v1
 * cpu hierarchy and cgroup2 are mounted (hybrid), the v1 hierarchy carries
 * the cpu controller, so it is the one used.  Where nothing usable is
 * mounted, a run mounts a hierarchy of its own (cgroup_mount.c) and
 * detects again.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "parse.h"
#include "banned.h"

const char *cg_mode_name(enum cg_mode m)
{
	switch (m) {
	case CG_V1:
		return "v1";
	case CG_V2:
		return "v2";
	case CG_HYBRID:
		return "hybrid";
	default:
		return "none";
	}
}

void cg_system_release(struct cg_system *sys)
{
	free(sys->v1_cpu);
	free(sys->v1_cpuacct);
	free(sys->v1_cpuset);
	free(sys->v1_cpu_self);
	free(sys->v1_cpuacct_self);
	free(sys->v1_cpuset_self);
	free(sys->v2);
	free(sys->v2_self);
	free(sys->v2_controllers);
	free(sys->private_mount);
	free(sys->unusable);
	memset(sys, 0, sizeof(*sys));
}

/* Is word one of the comma-separated items of list? */
static int has_item(const char *list, const char *word)
{
	size_t n = strlen(word);

	while (*list) {
		size_t len = strcspn(list, ",");

		if (len == n && !strncmp(list, word, n))
			return 1;
		list += len;
		if (*list == ',')
			list++;
	}
	return 0;
}

/* Our path in the hierarchy whose controllers include ctl ("" = v2). */
static char *self_path(const char *proc_self_cgroup, const char *ctl)
{
	struct strvec lines = STRVEC_INIT;
	char *ret = NULL;

	strvec_split(&lines, proc_self_cgroup, '\n');
	for (size_t i = 0; i < lines.nr && !ret; i++) {
		struct strvec f = STRVEC_INIT;

		/* "ID:controllers:path"; the path may contain ':'. */
		const char *l = lines.v[i], *c1 = strchr(l, ':'), *c2;

		if (c1 && (c2 = strchr(c1 + 1, ':'))) {
			char *ctls = xstrndup(c1 + 1, (size_t)(c2 - c1 - 1));

			if ((!*ctl && !*ctls) || (*ctl && has_item(ctls, ctl)))
				ret = xstrdup(c2 + 1);
			free(ctls);
		}
		strvec_clear(&f);
	}
	strvec_clear(&lines);
	return ret;
}

int cg_detect(struct cg_system *sys, const char *proc_mounts,
	      const char *proc_self_cgroup, struct strbuf *err)
{
	struct strvec lines = STRVEC_INIT;
	int has_v1 = 0;

	memset(sys, 0, sizeof(*sys));
	strvec_split(&lines, proc_mounts, '\n');
	for (size_t i = 0; i < lines.nr; i++) {
		struct strvec f = STRVEC_INIT;

		strvec_split(&f, lines.v[i], ' ');
		if (f.nr >= 4 && !strcmp(f.v[2], "cgroup")) {
			if (has_item(f.v[3], "cpu") && !sys->v1_cpu)
				sys->v1_cpu = xstrdup(f.v[1]);
			if (has_item(f.v[3], "cpuacct") && !sys->v1_cpuacct)
				sys->v1_cpuacct = xstrdup(f.v[1]);
			if (has_item(f.v[3], "cpuset") && !sys->v1_cpuset)
				sys->v1_cpuset = xstrdup(f.v[1]);
			has_v1 = 1;
		} else if (f.nr >= 4 && !strcmp(f.v[2], "cgroup2") &&
			   !sys->v2) {
			sys->v2 = xstrdup(f.v[1]);
		}
		strvec_clear(&f);
	}
	strvec_clear(&lines);
	if (sys->v1_cpu)
		sys->v1_cpu_self = self_path(proc_self_cgroup, "cpu");
	if (sys->v1_cpuacct)
		sys->v1_cpuacct_self = self_path(proc_self_cgroup, "cpuacct");
	if (sys->v1_cpuset)
		sys->v1_cpuset_self = self_path(proc_self_cgroup, "cpuset");
	if (sys->v2)
		sys->v2_self = self_path(proc_self_cgroup, "");
	if (sys->v2) {
		struct strbuf p = STRBUF_INIT, c = STRBUF_INIT;

		strbuf_addf(&p, "%s%s/cgroup.controllers", sys->v2,
			    sys->v2_self && strcmp(sys->v2_self, "/")
				    ? sys->v2_self
				    : "");
		if (strbuf_read_file(&c, p.buf, 4096) >= 0) {
			struct strvec w = STRVEC_INIT;

			strbuf_trim(&c);
			strvec_split(&w, c.buf, ' ');
			for (size_t i = 0; i < w.nr; i++) {
				sys->v2_cpu |= !strcmp(w.v[i], "cpu");
				sys->v2_cpuset |= !strcmp(w.v[i], "cpuset");
			}
			strvec_clear(&w);
			sys->v2_controllers = strbuf_detach(&c, NULL);
		}
		strbuf_release(&p);
		strbuf_release(&c);
	}
	if (has_v1 && sys->v2)
		sys->mode = CG_HYBRID;
	else if (has_v1)
		sys->mode = CG_V1;
	else if (sys->v2)
		sys->mode = CG_V2;
	if (sys->v1_cpu && sys->v1_cpu_self)
		sys->use = 1;
	else if (sys->v2 && sys->v2_cpu && sys->v2_self)
		sys->use = 2;
	(void)err;
	return 0;
}

void cg_describe_json(const struct cg_system *sys, struct strbuf *out)
{
	strbuf_addstr(out, "{\"mode\":");
	strbuf_add_json_str(out, cg_mode_name(sys->mode));
	strbuf_addstr(out, ",\"v1\":[");
	{
		int first = 1;
		const char *names[] = { "cpu", "cpuacct", "cpuset" };
		const char *mnt[] = { sys->v1_cpu, sys->v1_cpuacct,
				      sys->v1_cpuset };

		for (int i = 0; i < 3; i++) {
			if (!mnt[i])
				continue;
			if (!first)
				strbuf_addch(out, ',');
			strbuf_add_json_str(out, names[i]);
			first = 0;
		}
	}
	strbuf_addstr(out, "],\"v2_controllers\":");
	strbuf_add_json_str(
		out, sys->v2 ? (sys->v2_controllers ? sys->v2_controllers : "")
			     : NULL);
	strbuf_addstr(out, ",\"used\":");
	strbuf_add_json_str(out, sys->use == 1	 ? "v1"
				 : sys->use == 2 ? "v2"
						 : NULL);
	strbuf_addstr(out, ",\"private\":");
	strbuf_add_json_str(out, sys->private_mount);
	strbuf_addstr(out, ",\"unusable\":");
	strbuf_add_json_str(out, sys->unusable);
	strbuf_addch(out, '}');
}

int cg_v1_shares(int weight)
{
	long s = (long)weight * 1024 / 100;

	return s < 2 ? 2 : (int)s;
}

void cg_run_init(struct cg_run *r, struct cg_system *sys, int64_t run_id)
{
	memset(r, 0, sizeof(*r));
	r->sys = sys;
	r->base = xstrfmt("schedfarm-%lld-%ld", (long long)run_id,
			  (long)getpid());
	strvec_init(&r->dirs);
}

void cg_run_release(struct cg_run *r)
{
	for (size_t i = 0; i < r->ngroups; i++) {
		free(r->groups[i].path);
		free(r->groups[i].cpus);
	}
	free(r->groups);
	free(r->base);
	strvec_clear(&r->dirs);
	memset(r, 0, sizeof(*r));
}

void cg_run_add(struct cg_run *r, const char *path, int weight,
		double cpu_max_pct, const char *cpus)
{
	struct cg_group *g = NULL;

	if (!strcmp(path, "/"))
		return;
	for (size_t i = 0; i < r->ngroups; i++)
		if (!strcmp(r->groups[i].path, path))
			g = &r->groups[i];
	if (!g) {
		r->groups = xrealloc(r->groups, (r->ngroups + 1) * sizeof(*g));
		g = &r->groups[r->ngroups++];
		memset(g, 0, sizeof(*g));
		g->path = xstrdup(path);
		g->weight = 100;
	}
	if (weight)
		g->weight = weight;
	if (cpu_max_pct > 0)
		g->cpu_max_pct = cpu_max_pct;
	if (cpus) {
		free(g->cpus);
		g->cpus = xstrdup(cpus);
	}
}

void cg_run_need_rt(struct cg_run *r, const char *path, int us)
{
	if (!strcmp(path, "/"))
		return;
	cg_run_add(r, path, 0, 0, NULL);
	for (size_t i = 0; i < r->ngroups; i++)
		if (!strcmp(r->groups[i].path, path) &&
		    r->groups[i].rt_runtime_us < us)
			r->groups[i].rt_runtime_us = us;
}

/*
 * The RT time the group at path (NULL: the base) and those below need:
 * the sum over them, since the kernel refuses children whose runtimes
 * add up to more than their parent's (two groups that each run an RT
 * task, rt-app's and cyclictest's, side by side).
 */
static int rt_need(const struct cg_run *r, const char *path)
{
	int need = 0;

	for (size_t i = 0; i < r->ngroups; i++) {
		const char *p = r->groups[i].path;
		size_t n = path ? strlen(path) : 0;

		if ((!path ||
		     (!strncmp(p, path, n) && (p[n] == '\0' || p[n] == '/'))) &&
		    r->groups[i].rt_runtime_us > 0)
			need += r->groups[i].rt_runtime_us;
	}
	return need;
}

/* Directory of spec path in a hierarchy (mount + self + base + path). */
static void group_dir(struct strbuf *sb, const char *mnt, const char *self,
		      const char *base, const char *path)
{
	strbuf_addstr(sb, mnt);
	if (self && strcmp(self, "/"))
		strbuf_addstr(sb, self);
	if (base) {
		strbuf_addch(sb, '/');
		strbuf_addstr(sb, base);
		if (path && strcmp(path, "/"))
			strbuf_addstr(sb, path);
	}
}

static int write_file(const char *dir, const char *file, const char *val,
		      struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int fd, rc = 0;

	strbuf_addf(&p, "%s/%s", dir, file);
	fd = open(p.buf, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val)) {
		strbuf_addf(err, "cannot write \"%s\" to %s: %s", val, p.buf,
			    strerror(errno));
		rc = -1;
	}
	if (fd >= 0)
		close(fd);
	strbuf_release(&p);
	return rc;
}

/* Give the v1 cpu group dir us of RT time per period, where it has RT
 * group scheduling at all (no cpu.rt_runtime_us: nothing to do). */
static int set_rt(const char *dir, int us, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT, v = STRBUF_INIT;
	int rc = 0;

	strbuf_addf(&p, "%s/cpu.rt_runtime_us", dir);
	if (us > 0 && access(p.buf, W_OK) == 0) {
		strbuf_addf(&v, "%d", us);
		if (write_file(dir, "cpu.rt_runtime_us", v.buf, err) < 0) {
			strbuf_addstr(err, " (real-time time for a task that "
					   "raises itself to SCHED_FIFO; the "
					   "parent group has too little)");
			rc = -1;
		}
	}
	strbuf_release(&p);
	strbuf_release(&v);
	return rc;
}

/* The distinct v1 hierarchies we use: up to 3 (mount, self) pairs. */
static size_t v1_hier(const struct cg_system *sys, const char **mnt,
		      const char **self)
{
	const char *m[] = { sys->v1_cpu, sys->v1_cpuacct, sys->v1_cpuset };
	const char *s[] = { sys->v1_cpu_self, sys->v1_cpuacct_self,
			    sys->v1_cpuset_self };
	size_t n = 0;

	for (int i = 0; i < 3; i++) {
		int dup = 0;

		if (!m[i] || !s[i])
			continue;
		for (size_t j = 0; j < n; j++)
			dup |= !strcmp(mnt[j], m[i]);
		if (dup)
			continue;
		mnt[n] = m[i];
		self[n] = s[i];
		n++;
	}
	return n;
}

static int make_dir(struct cg_run *r, const char *dir, struct strbuf *err)
{
	if (mkdir(dir, 0755) < 0) {
		strbuf_addf(err, "cannot create cgroup %s: %s", dir,
			    strerror(errno));
		return -1;
	}
	strvec_push(&r->dirs, dir);
	return 0;
}

/* v1 cpuset groups start empty: copy the parent's cpus and mems. */
static int cpuset_inherit(const char *dir, struct strbuf *err)
{
	struct strbuf parent = STRBUF_INIT, v = STRBUF_INIT, p = STRBUF_INIT;
	const char *files[] = { "cpuset.cpus", "cpuset.mems" };
	int rc = 0;

	strbuf_addstr(&parent, dir);
	while (parent.len && parent.buf[parent.len - 1] != '/')
		parent.len--;
	strbuf_setlen(&parent, parent.len ? parent.len - 1 : 0);
	for (int i = 0; i < 2 && !rc; i++) {
		strbuf_reset(&p);
		strbuf_reset(&v);
		strbuf_addf(&p, "%s/%s", parent.buf, files[i]);
		if (strbuf_read_file(&v, p.buf, 65536) < 0) {
			strbuf_addf(err, "cannot read %s", p.buf);
			rc = -1;
			break;
		}
		strbuf_trim(&v);
		if (v.len)
			rc = write_file(dir, files[i], v.buf, err);
	}
	strbuf_release(&parent);
	strbuf_release(&v);
	strbuf_release(&p);
	return rc;
}

/* Every prefix of the spec paths, parents first ("/foo", "/foo/bar"). */
static void all_paths(struct cg_run *r, struct strvec *out)
{
	for (size_t i = 0; i < r->ngroups; i++) {
		const char *p = r->groups[i].path;

		for (const char *c = p + 1;; c++) {
			if (*c == '/' || !*c) {
				char *pre = xstrndup(p, (size_t)(c - p));
				int dup = 0;

				for (size_t j = 0; j < out->nr; j++)
					dup |= !strcmp(out->v[j], pre);
				if (!dup)
					strvec_push(out, pre);
				free(pre);
			}
			if (!*c)
				break;
		}
	}
}

static struct cg_group *find_group(struct cg_run *r, const char *path)
{
	for (size_t i = 0; i < r->ngroups; i++)
		if (!strcmp(r->groups[i].path, path))
			return &r->groups[i];
	return NULL;
}

static int setup_v1(struct cg_run *r, const struct strvec *paths,
		    struct strbuf *err)
{
	const char *mnt[3], *self[3];
	size_t nh = v1_hier(r->sys, mnt, self);
	struct strbuf d = STRBUF_INIT, v = STRBUF_INIT;
	int rc = -1;

	for (size_t h = 0; h < nh; h++) {
		int is_cpuset =
			r->sys->v1_cpuset && !strcmp(mnt[h], r->sys->v1_cpuset);

		strbuf_reset(&d);
		group_dir(&d, mnt[h], self[h], r->base, NULL);
		if (make_dir(r, d.buf, err) < 0 ||
		    (is_cpuset && cpuset_inherit(d.buf, err) < 0))
			goto out;
		if (r->base_weight && r->sys->v1_cpu &&
		    !strcmp(mnt[h], r->sys->v1_cpu)) {
			strbuf_reset(&v);
			strbuf_addf(&v, "%d", cg_v1_shares(r->base_weight));
			if (write_file(d.buf, "cpu.shares", v.buf, err) < 0)
				goto out;
		}
		if (r->sys->v1_cpu && !strcmp(mnt[h], r->sys->v1_cpu) &&
		    set_rt(d.buf, rt_need(r, NULL), err) < 0)
			goto out;
		for (size_t i = 0; i < paths->nr; i++) {
			struct cg_group *g = find_group(r, paths->v[i]);
			int is_cpu = r->sys->v1_cpu &&
				     !strcmp(mnt[h], r->sys->v1_cpu);

			strbuf_reset(&d);
			group_dir(&d, mnt[h], self[h], r->base, paths->v[i]);
			if (make_dir(r, d.buf, err) < 0 ||
			    (is_cpuset && cpuset_inherit(d.buf, err) < 0) ||
			    (is_cpu &&
			     set_rt(d.buf, rt_need(r, paths->v[i]), err) < 0))
				goto out;
			if (!g)
				continue;
			if (is_cpu) {
				strbuf_reset(&v);
				strbuf_addf(&v, "%d", cg_v1_shares(g->weight));
				if (write_file(d.buf, "cpu.shares", v.buf,
					       err) < 0)
					goto out;
				if (g->cpu_max_pct > 0) {
					strbuf_reset(&v);
					strbuf_addf(&v, "%lld",
						    (long long)(g->cpu_max_pct *
								1000));
					if (write_file(d.buf,
						       "cpu.cfs_period_us",
						       "100000", err) < 0 ||
					    write_file(d.buf,
						       "cpu.cfs_quota_us",
						       v.buf, err) < 0)
						goto out;
				}
			}
			if (is_cpuset && g->cpus &&
			    write_file(d.buf, "cpuset.cpus", g->cpus, err) < 0)
				goto out;
		}
	}
	if (!r->sys->v1_cpuset)
		for (size_t i = 0; i < r->ngroups; i++)
			if (r->groups[i].cpus) {
				strbuf_addstr(err,
					      "a group names cpus but no "
					      "cpuset hierarchy is mounted");
				goto out;
			}
	rc = 0;
out:
	strbuf_release(&d);
	strbuf_release(&v);
	return rc;
}

static int setup_v2(struct cg_run *r, const struct strvec *paths,
		    struct strbuf *err)
{
	struct strbuf d = STRBUF_INIT, v = STRBUF_INIT;
	const char *ctl = "+cpu";
	int want_cpuset = 0, rc = -1;

	for (size_t i = 0; i < r->ngroups; i++)
		want_cpuset |= r->groups[i].cpus != NULL;
	if (want_cpuset && !r->sys->v2_cpuset) {
		strbuf_addstr(err, "a group names cpus but cgroup2 offers no "
				   "cpuset controller here");
		goto out;
	}
	if (want_cpuset)
		ctl = "+cpu +cpuset";
	group_dir(&d, r->sys->v2, r->sys->v2_self, NULL, NULL);
	if (write_file(d.buf, "cgroup.subtree_control", ctl, err) < 0)
		goto out;
	strbuf_reset(&d);
	group_dir(&d, r->sys->v2, r->sys->v2_self, r->base, NULL);
	if (make_dir(r, d.buf, err) < 0 ||
	    write_file(d.buf, "cgroup.subtree_control", ctl, err) < 0)
		goto out;
	if (r->base_weight) {
		strbuf_addf(&v, "%d", r->base_weight);
		if (write_file(d.buf, "cpu.weight", v.buf, err) < 0)
			goto out;
	}
	for (size_t i = 0; i < paths->nr; i++) {
		struct cg_group *g = find_group(r, paths->v[i]);

		strbuf_reset(&d);
		group_dir(&d, r->sys->v2, r->sys->v2_self, r->base,
			  paths->v[i]);
		if (make_dir(r, d.buf, err) < 0)
			goto out;
		/* A group with children hands the controllers down. */
		for (size_t j = 0; j < paths->nr; j++)
			if (starts_with(paths->v[j], paths->v[i]) &&
			    paths->v[j][strlen(paths->v[i])] == '/') {
				if (write_file(d.buf, "cgroup.subtree_control",
					       ctl, err) < 0)
					goto out;
				break;
			}
		if (!g)
			continue;
		strbuf_reset(&v);
		strbuf_addf(&v, "%d", g->weight);
		if (write_file(d.buf, "cpu.weight", v.buf, err) < 0)
			goto out;
		if (g->cpu_max_pct > 0) {
			strbuf_reset(&v);
			strbuf_addf(&v, "%lld 100000",
				    (long long)(g->cpu_max_pct * 1000));
			if (write_file(d.buf, "cpu.max", v.buf, err) < 0)
				goto out;
		}
		if (g->cpus &&
		    write_file(d.buf, "cpuset.cpus", g->cpus, err) < 0)
			goto out;
	}
	rc = 0;
out:
	strbuf_release(&d);
	strbuf_release(&v);
	return rc;
}

int cg_run_create(struct cg_run *r, struct strbuf *err)
{
	struct strvec paths = STRVEC_INIT;
	int rc;

	if (!r->ngroups)
		return 0;
	if (!r->sys || !r->sys->use) {
		strbuf_addstr(err, "the run asks for cgroups but neither a "
				   "cgroup v1 cpu hierarchy nor a cgroup2 cpu "
				   "controller is available here");
		return -1;
	}
	all_paths(r, &paths);
	rc = r->sys->use == 1 ? setup_v1(r, &paths, err)
			      : setup_v2(r, &paths, err);
	strvec_clear(&paths);
	r->base_created = r->dirs.nr > 0;
	return rc;
}

int cg_run_attach(struct cg_run *r, const char *path, pid_t pid,
		  struct strbuf *err)
{
	struct strbuf d = STRBUF_INIT, v = STRBUF_INIT;
	int rc = 0;

	if (!path || !strcmp(path, "/"))
		return 0;
	if (!find_group(r, path) || !r->base_created) {
		strbuf_addf(err, "internal error: cgroup %s was not created",
			    path);
		return -1;
	}
	strbuf_addf(&v, "%ld", (long)pid);
	if (r->sys->use == 1) {
		const char *mnt[3], *self[3];
		size_t nh = v1_hier(r->sys, mnt, self);

		for (size_t h = 0; h < nh && !rc; h++) {
			strbuf_reset(&d);
			group_dir(&d, mnt[h], self[h], r->base, path);
			rc = write_file(d.buf, "cgroup.procs", v.buf, err);
		}
	} else {
		group_dir(&d, r->sys->v2, r->sys->v2_self, r->base, path);
		rc = write_file(d.buf, "cgroup.procs", v.buf, err);
	}
	strbuf_release(&d);
	strbuf_release(&v);
	return rc;
}

int cg_run_procs_files(struct cg_run *r, const char *path, struct strvec *out,
		       struct strbuf *err)
{
	struct strbuf d = STRBUF_INIT;

	if (!find_group(r, path) || !r->base_created) {
		strbuf_addf(err, "internal error: cgroup %s was not created",
			    path);
		return -1;
	}
	if (r->sys->use == 1) {
		const char *mnt[3], *self[3];
		size_t nh = v1_hier(r->sys, mnt, self);

		for (size_t h = 0; h < nh; h++) {
			strbuf_reset(&d);
			group_dir(&d, mnt[h], self[h], r->base, path);
			strbuf_addstr(&d, "/cgroup.procs");
			strvec_push(out, d.buf);
		}
	} else {
		group_dir(&d, r->sys->v2, r->sys->v2_self, r->base, path);
		strbuf_addstr(&d, "/cgroup.procs");
		strvec_push(out, d.buf);
	}
	strbuf_release(&d);
	return 0;
}

int cg_run_usage(struct cg_run *r, const char *path, uint64_t *ret_ns,
		 struct strbuf *err)
{
	struct strbuf d = STRBUF_INIT, c = STRBUF_INIT;
	int rc = -1;
	int64_t v;
	const char *base = strcmp(path, "/") ? r->base : NULL;

	if (r->sys && r->sys->use == 1 && r->sys->v1_cpuacct) {
		group_dir(&d, r->sys->v1_cpuacct, r->sys->v1_cpuacct_self, base,
			  path);
		strbuf_addstr(&d, "/cpuacct.usage");
		if (strbuf_read_file(&c, d.buf, 4096) >= 0) {
			strbuf_trim(&c);
			if (parse_i64(c.buf, 0, INT64_MAX, &v, NULL) == 0) {
				*ret_ns = (uint64_t)v;
				rc = 0;
			}
		}
	} else if (r->sys && r->sys->use == 2) {
		group_dir(&d, r->sys->v2, r->sys->v2_self, base, path);
		strbuf_addstr(&d, "/cpu.stat");
		if (strbuf_read_file(&c, d.buf, 65536) >= 0) {
			struct strvec lines = STRVEC_INIT;

			strvec_split(&lines, c.buf, '\n');
			for (size_t i = 0; i < lines.nr; i++)
				if (starts_with(lines.v[i], "usage_usec ") &&
				    parse_i64(lines.v[i] + 11, 0,
					      INT64_MAX / 1000, &v,
					      NULL) == 0) {
					*ret_ns = (uint64_t)v * 1000;
					rc = 0;
				}
			strvec_clear(&lines);
		}
	}
	if (rc < 0)
		strbuf_addf(err, "no CPU usage readable for cgroup %s%s%s",
			    path, d.len ? " at " : "", d.buf);
	strbuf_release(&d);
	strbuf_release(&c);
	return rc;
}

int cg_run_usage_open(struct cg_run *r, const char *path, struct strbuf *err)
{
	struct strbuf d = STRBUF_INIT;
	const char *base = strcmp(path, "/") ? r->base : NULL;
	int fd = -1;

	if (r->sys && r->sys->use == 1 && r->sys->v1_cpuacct) {
		group_dir(&d, r->sys->v1_cpuacct, r->sys->v1_cpuacct_self, base,
			  path);
		strbuf_addstr(&d, "/cpuacct.usage");
	} else if (r->sys && r->sys->use == 2) {
		group_dir(&d, r->sys->v2, r->sys->v2_self, base, path);
		strbuf_addstr(&d, "/cpu.stat");
	}
	if (d.len)
		fd = open(d.buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		strbuf_addf(err, "no CPU usage readable for cgroup %s%s%s%s%s",
			    path, d.len ? " at " : "", d.buf, d.len ? ": " : "",
			    d.len ? strerror(errno) : "");
	strbuf_release(&d);
	return fd;
}

int cg_usage_read(const struct cg_run *r, int fd, uint64_t *ret_ns)
{
	char buf[1024];
	int n = read_small(fd, buf, sizeof(buf));
	const char *p;

	if (n <= 0)
		return -1;
	if (r->sys->use == 1) {
		*ret_ns = read_leading_u64(buf, n);
		return buf[0] >= '0' && buf[0] <= '9' ? 0 : -1;
	}
	/* cpu.stat starts with usage_usec; look for it anywhere anyway. */
	p = strstr(buf, "usage_usec ");
	if (!p || (p != buf && p[-1] != '\n'))
		return -1;
	p += 11;
	*ret_ns = read_leading_u64(p, n - (int)(p - buf)) * 1000;
	return 0;
}

/*
 * Kill what still runs in dir (a run's own group: everything in it was
 * started by this run), then move any survivor to the group we run in,
 * so that rmdir works and nothing of the run is left behind.
 */
static void evict(struct cg_run *r, const char *dir)
{
	struct strbuf p = STRBUF_INIT, c = STRBUF_INIT, home = STRBUF_INIT,
		      ignore = STRBUF_INIT;
	struct strvec pids = STRVEC_INIT;

	strbuf_addf(&p, "%s/cgroup.procs", dir);
	if (strbuf_read_file(&c, p.buf, 1 << 20) < 0 || !c.len)
		goto out;
	/* The group's own top: everything up to our base. */
	strbuf_addstr(&home, dir);
	{
		char *b = strstr(home.buf, r->base);

		if (b && b > home.buf)
			strbuf_setlen(&home, (size_t)(b - home.buf - 1));
	}
	strbuf_trim(&c);
	strvec_split(&pids, c.buf, '\n');
	for (size_t i = 0; i < pids.nr; i++) {
		int pid;

		if (parse_int(pids.v[i], 2, INT32_MAX, &pid, NULL) == 0 &&
		    pid != getpid())
			kill(pid, SIGKILL);
	}
	for (size_t i = 0; i < pids.nr; i++)
		write_file(home.buf, "cgroup.procs", pids.v[i], &ignore);
out:
	strbuf_release(&p);
	strbuf_release(&c);
	strbuf_release(&home);
	strbuf_release(&ignore);
	strvec_clear(&pids);
}

int cg_run_remove(struct cg_run *r, struct strbuf *err)
{
	int rc = 0;

	for (size_t i = r->dirs.nr; i-- > 0;) {
		const char *dir = r->dirs.v[i];
		int ok = 0;

		for (int tries = 0; tries < 100 && !ok; tries++) {
			if (rmdir(dir) == 0 || errno == ENOENT) {
				ok = 1;
				break;
			}
			evict(r, dir);
			{
				struct timespec ts = { 0, 10 * 1000 * 1000 };

				nanosleep(&ts, NULL);
			}
		}
		if (!ok) {
			strbuf_addf(err, "%scannot remove cgroup %s: %s",
				    rc ? "; " : "", dir, strerror(errno));
			rc = -1;
		}
	}
	strvec_clear(&r->dirs);
	r->base_created = 0;
	return rc;
}

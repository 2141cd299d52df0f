/*
 * cgroup_mount.c - a cgroup hierarchy of the run's own, where the target
 * mounts none that carries the cpu controller (a micro-VM without
 * /sys/fs/cgroup, a container or a test that hides it).
 *
 * What to mount comes from the kernel, not from guesses: /proc/cgroups
 * says whether the cpu controller exists and which v1 hierarchy (if any)
 * holds it.  A controller bound to a v1 hierarchy cannot be enabled in
 * cgroup2, but mounting that hierarchy again with the same controllers
 * gives the same hierarchy; so a cpu bound to v1 (hybrid hosts, hosts that
 * hide their mounts) means v1 mounts of cpu's, cpuacct's and cpuset's
 * hierarchies, and a cpu bound nowhere means cgroup2 (or a fresh v1 cpu
 * hierarchy on a kernel without cgroup2).
 *
 * The agent, as root, enters a private mount namespace first (nothing it
 * mounts is seen outside it, and a crash takes the mounts with it), then
 * mounts under a folder of its own, <state>/cgroup-<pid>/ (state:
 * $SCHEDFARM_AGENT_STATE, else /run/schedfarm-agent, else
 * /tmp/schedfarm-agent).  cg_detect() reads the new mounts as it reads any.
 * At the end everything is unmounted and the folder removed; each start
 * removes the folders of agents that died (unmounting first, for one that
 * could not have a namespace of its own).  Nothing here prints.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "agent.h"
#include "fs.h"
#include "parse.h"
#include "banned.h"

#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0ebUL
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270UL
#endif

void cg_mount_plan_release(struct cg_mount_plan *p)
{
	strvec_clear(&p->v1);
	memset(p, 0, sizeof(*p));
}

/* One /proc/cgroups row: "name hierarchy num_cgroups enabled". */
struct subsys {
	char *name;
	int hier, enabled;
};

/* The rows of proc_cgroups into *ret (*ret_n of them; free with
 * subsys_free()).  Lines that do not parse are skipped. */
static struct subsys *subsys_parse(const char *proc_cgroups, size_t *ret_n)
{
	struct strvec lines = STRVEC_INIT;
	struct subsys *s = NULL;
	size_t n = 0;

	strvec_split(&lines, proc_cgroups, '\n');
	for (size_t i = 0; i < lines.nr; i++) {
		struct strvec f = STRVEC_INIT;
		char *l = lines.v[i];
		int h, en;

		for (char *c = l; *c; c++)
			if (*c == '\t')
				*c = ' ';
		strvec_split(&f, l, ' ');
		if (l[0] != '#' && f.nr >= 4 &&
		    parse_int(f.v[1], 0, INT32_MAX, &h, NULL) == 0 &&
		    parse_int(f.v[3], 0, 1, &en, NULL) == 0) {
			s = xrealloc(s, (n + 1) * sizeof(*s));
			s[n].name = xstrdup(f.v[0]);
			s[n].hier = h;
			s[n].enabled = en;
			n++;
		}
		strvec_clear(&f);
	}
	strvec_clear(&lines);
	*ret_n = n;
	return s;
}

static void subsys_free(struct subsys *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].name);
	free(s);
}

static const struct subsys *subsys_find(const struct subsys *s, size_t n,
					const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].name, name))
			return &s[i];
	return NULL;
}

/* Does /proc/filesystems (text) list file system type fs? */
static int has_fs(const char *proc_filesystems, const char *fs)
{
	struct strvec lines = STRVEC_INIT;
	int found = 0;

	strvec_split(&lines, proc_filesystems, '\n');
	for (size_t i = 0; i < lines.nr && !found; i++) {
		const char *t = strrchr(lines.v[i], '\t');

		t = t ? t + 1 : lines.v[i];
		while (*t == ' ')
			t++;
		found = !strcmp(t, fs);
	}
	strvec_clear(&lines);
	return found;
}

/* The options that mount v1 hierarchy hier again: its controllers. */
static void hier_opts(const struct subsys *s, size_t n, int hier,
		      struct strbuf *out)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].hier == hier && s[i].enabled) {
			if (out->len)
				strbuf_addch(out, ',');
			strbuf_addstr(out, s[i].name);
		}
}

int cg_mount_plan_make(const char *proc_cgroups, const char *proc_filesystems,
		       struct cg_mount_plan *ret, struct strbuf *err)
{
	static const char *const want[] = { "cpu", "cpuacct", "cpuset" };
	size_t n;
	struct subsys *s = subsys_parse(proc_cgroups, &n);
	const struct subsys *cpu = subsys_find(s, n, "cpu");
	const struct subsys *acct = subsys_find(s, n, "cpuacct");
	int done[3] = { 0, 0, 0 }, rc = -1;

	memset(ret, 0, sizeof(*ret));
	strvec_init(&ret->v1);
	if (cpu && !cpu->enabled) {
		strbuf_addstr(err, "the kernel has no cpu cgroup controller "
				   "(/proc/cgroups lists it disabled)");
		goto out;
	}
	/* Kernels without v1 list only v1 controllers there, or have no
	 * /proc/cgroups at all: cgroup2 may still hold cpu, which its
	 * mount tells (cg_private_start()). */
	if (!cpu && has_fs(proc_filesystems, "cgroup2")) {
		ret->v2 = 1;
	} else if (!cpu) {
		strbuf_addstr(err, "the kernel has no cpu cgroup controller "
				   "(/proc/cgroups does not list it, and there "
				   "is no cgroup2)");
		goto out;
	} else if (cpu->hier == 0 && has_fs(proc_filesystems, "cgroup2")) {
		ret->v2 = 1;
	} else if (cpu->hier == 0) {
		if (!has_fs(proc_filesystems, "cgroup")) {
			strbuf_addstr(err,
				      "the kernel knows neither the "
				      "cgroup nor the cgroup2 file system");
			goto out;
		}
		strvec_push(&ret->v1, acct && acct->enabled && !acct->hier
					      ? "cpu,cpuacct"
					      : "cpu");
	} else {
		/* cpu is bound to v1: its hierarchies, each mounted once */
		for (int w = 0; w < 3; w++) {
			const struct subsys *x = subsys_find(s, n, want[w]);
			struct strbuf o = STRBUF_INIT;
			int dup = 0;

			if (!x || !x->enabled)
				continue;
			for (int k = 0; k < w; k++) {
				const struct subsys *y =
					subsys_find(s, n, want[k]);

				dup |= done[k] && y && x->hier &&
				       y->hier == x->hier;
			}
			if (dup)
				continue;
			if (x->hier)
				hier_opts(s, n, x->hier, &o);
			else if (!strcmp(want[w], "cpuacct"))
				strbuf_addstr(&o, "cpuacct");
			if (o.len) {
				strvec_push(&ret->v1, o.buf);
				done[w] = 1;
			}
			strbuf_release(&o);
		}
	}
	rc = 0;
out:
	subsys_free(s, n);
	return rc;
}

void cg_mount_plan_describe(const struct cg_mount_plan *p, struct strbuf *out)
{
	if (p->v2) {
		strbuf_addstr(out, "cgroup2");
		return;
	}
	for (size_t i = 0; i < p->v1.nr; i++)
		strbuf_addf(out, "%sv1 %s", i ? ", " : "", p->v1.v[i]);
}

int cg_private_plan(struct cg_mount_plan *ret, struct strbuf *err)
{
	struct strbuf c = STRBUF_INIT, f = STRBUF_INIT;
	int rc = -1;

	memset(ret, 0, sizeof(*ret));
	strvec_init(&ret->v1);
	if (geteuid() != 0) {
		strbuf_addf(err,
			    "mounting a cgroup hierarchy needs root (the agent "
			    "runs as uid %ld)",
			    (long)geteuid());
		goto out;
	}
	/* No /proc/cgroups: a kernel without v1, cgroup2 alone decides. */
	strbuf_read_file(&c, "/proc/cgroups", 1 << 16);
	strbuf_read_file(&f, "/proc/filesystems", 1 << 16);
	rc = cg_mount_plan_make(c.buf, f.buf, ret, err);
out:
	strbuf_release(&c);
	strbuf_release(&f);
	return rc;
}

/* The agent's state folder, made (0700) if need be when make is 1 (else
 * the first that exists); NULL when none can be made (or none exists).
 * The caller frees it. */
static char *state_dir(int make)
{
	const char *env = getenv("SCHEDFARM_AGENT_STATE");
	const char *cand[] = { env && *env ? env : NULL, "/run/schedfarm-agent",
			       "/tmp/schedfarm-agent" };
	struct strbuf ignore = STRBUF_INIT;
	struct stat st;
	char *ret = NULL;

	for (size_t i = 0; i < 3 && !ret; i++)
		if (cand[i] && (make ? mkdir_p(cand[i], 0700, &ignore) == 0
				     : stat(cand[i], &st) == 0))
			ret = xstrdup(cand[i]);
	strbuf_release(&ignore);
	return ret;
}

/* Unmount whatever is mounted in folder dir's subfolders, remove them and
 * dir.  Errors are ignored: what stays is tried again by the next start. */
static void remove_mount_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct strbuf p = STRBUF_INIT;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", dir, e->d_name);
		if (umount2(p.buf, 0) < 0)
			umount2(p.buf, MNT_DETACH);
		rmdir(p.buf);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	strbuf_release(&p);
}

void cg_private_sweep(void)
{
	char *state = state_dir(0);
	DIR *d = state ? opendir(state) : NULL;
	struct dirent *e;
	struct strbuf p = STRBUF_INIT;

	while (d && (e = readdir(d))) {
		int pid;

		if (!starts_with(e->d_name, "cgroup-") ||
		    parse_int(e->d_name + 7, 1, INT32_MAX, &pid, NULL) < 0 ||
		    pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", state, e->d_name);
		remove_mount_dir(p.buf);
	}
	if (d)
		closedir(d);
	free(state);
	strbuf_release(&p);
}

/* Make folder path and mount a hierarchy there; its path joins p->mounts.
 * opts NULL: cgroup2. */
static int mount_one(struct cg_private *p, const char *path, const char *opts,
		     struct strbuf *err)
{
	if (mkdir(path, 0700) < 0 && errno != EEXIST) {
		strbuf_addf(err, "cannot make %s: %s", path, strerror(errno));
		return -1;
	}
	if (mount("cgroup", path, opts ? "cgroup" : "cgroup2", 0, opts) < 0) {
		strbuf_addf(err, "cannot mount %s%s at %s: %s",
			    opts ? "a cgroup v1 hierarchy of " : "cgroup2",
			    opts ? opts : "", path, strerror(errno));
		rmdir(path);
		return -1;
	}
	strvec_push(&p->mounts, path);
	return 0;
}

int cg_private_mount(struct cg_private *p, const struct cg_mount_plan *plan,
		     struct strbuf *err)
{
	struct strbuf sub = STRBUF_INIT;
	char *state = state_dir(1);
	int rc = -1;

	memset(p, 0, sizeof(*p));
	strvec_init(&p->mounts);
	if (!state) {
		strbuf_addstr(err, "no folder for a private cgroup mount (none "
				   "of $SCHEDFARM_AGENT_STATE, "
				   "/run/schedfarm-agent, /tmp/schedfarm-agent "
				   "can be made)");
		goto out;
	}
	cg_private_sweep();
	/* A namespace of our own: the mounts vanish with the agent. */
	if (unshare(CLONE_NEWNS) == 0 &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
		p->own_ns = 1;
	p->dir = xstrfmt("%s/cgroup-%ld", state, (long)getpid());
	if (mkdir(p->dir, 0700) < 0 && errno != EEXIST) {
		strbuf_addf(err, "cannot make %s: %s", p->dir, strerror(errno));
		goto out;
	}
	if (plan->v2) {
		strbuf_addf(&sub, "%s/v2", p->dir);
		if (mount_one(p, sub.buf, NULL, err) < 0)
			goto out;
	}
	for (size_t i = 0; i < plan->v1.nr; i++) {
		strbuf_reset(&sub);
		strbuf_addf(&sub, "%s/v1-%zu", p->dir, i);
		if (mount_one(p, sub.buf, plan->v1.v[i], err) < 0)
			goto out;
	}
	rc = 0;
out:
	if (rc < 0)
		cg_private_unmount(p, NULL);
	free(state);
	strbuf_release(&sub);
	return rc;
}

int cg_private_unmount(struct cg_private *p, struct strbuf *err)
{
	int rc = 0;

	for (size_t i = p->mounts.nr; i-- > 0;) {
		const char *m = p->mounts.v[i];

		if (umount2(m, 0) < 0 && umount2(m, MNT_DETACH) < 0) {
			if (err)
				strbuf_addf(err, "%scannot unmount %s: %s",
					    rc ? "; " : "", m, strerror(errno));
			rc = -1;
			continue;
		}
		rmdir(m);
	}
	if (p->dir)
		rmdir(p->dir);
	strvec_clear(&p->mounts);
	free(p->dir);
	p->dir = NULL;
	return rc;
}

void cg_private_assess(struct cg_system *sys)
{
	struct cg_mount_plan plan;
	struct strbuf e = STRBUF_INIT, d = STRBUF_INIT;

	if (sys->use)
		return;
	free(sys->private_mount);
	free(sys->unusable);
	sys->private_mount = sys->unusable = NULL;
	if (cg_private_plan(&plan, &e) < 0) {
		sys->unusable = strbuf_detach(&e, NULL);
	} else {
		cg_mount_plan_describe(&plan, &d);
		sys->private_mount = strbuf_detach(&d, NULL);
	}
	cg_mount_plan_release(&plan);
	strbuf_release(&e);
	strbuf_release(&d);
}

int cg_private_start(struct cg_system *sys, struct cg_private *p,
		     struct strbuf *err)
{
	struct cg_mount_plan plan;
	struct strbuf d = STRBUF_INIT;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	strvec_init(&p->mounts);
	if (cg_private_plan(&plan, err) < 0 ||
	    cg_private_mount(p, &plan, err) < 0)
		goto out;
	cg_mount_plan_describe(&plan, &d);
	cg_system_release(sys);
	cg_detect_here(sys, err);
	sys->private_mount = strbuf_detach(&d, NULL);
	if (!sys->use) {
		strbuf_addf(err,
			    "no cpu cgroup controller here: the %s we "
			    "mounted offers none to our group",
			    sys->private_mount);
		cg_private_unmount(p, NULL);
		goto out;
	}
	rc = 0;
out:
	cg_mount_plan_release(&plan);
	strbuf_release(&d);
	return rc;
}

/* Is path the root of a mounted cgroup or cgroup2 file system we can
 * reach (not a mount hidden under another, as in a test's namespace)? */
static int cgroup_fs_at(const char *path)
{
	struct statfs st;

	return statfs(path, &st) == 0 &&
	       ((unsigned long)st.f_type == CGROUP_SUPER_MAGIC ||
		(unsigned long)st.f_type == CGROUP2_SUPER_MAGIC);
}

void cg_mounts_reachable(const char *proc_mounts, struct strbuf *out)
{
	struct strvec lines = STRVEC_INIT;

	strvec_split(&lines, proc_mounts, '\n');
	for (size_t i = 0; i < lines.nr; i++) {
		struct strvec f = STRVEC_INIT;

		strvec_split(&f, lines.v[i], ' ');
		if (!*lines.v[i])
			; /* the empty string after the last newline */
		else if (f.nr < 3 ||
			 (strcmp(f.v[2], "cgroup") &&
			  strcmp(f.v[2], "cgroup2")) ||
			 cgroup_fs_at(f.v[1]))
			strbuf_addf(out, "%s\n", lines.v[i]);
		strvec_clear(&f);
	}
	strvec_clear(&lines);
}

int cg_detect_here(struct cg_system *sys, struct strbuf *err)
{
	struct strbuf m = STRBUF_INIT, s = STRBUF_INIT, r = STRBUF_INIT;
	int rc;

	if (strbuf_read_file(&m, "/proc/self/mounts", 1 << 20) < 0 ||
	    strbuf_read_file(&s, "/proc/self/cgroup", 1 << 20) < 0)
		strbuf_addstr(err, "cannot read /proc/self/mounts or "
				   "/proc/self/cgroup");
	cg_mounts_reachable(m.buf, &r);
	rc = cg_detect(sys, r.buf, s.buf, err);
	strbuf_release(&m);
	strbuf_release(&s);
	strbuf_release(&r);
	return rc;
}

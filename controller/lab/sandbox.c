/*
 * sandbox.c - confined steps for untrusted code; see sandbox.h.
 *
 * bubblewrap does the confinement, not code of ours.  A root controller
 * runs bwrap as root (it needs no user namespace then) with every
 * capability dropped but the three setpriv(1) needs to become the farm's
 * user inside; setpriv then sets no_new_privs, clears the bounding set
 * and the groups, and execs the step as that user.  A controller that is
 * not root runs bwrap in a user namespace of its own and stays itself.
 * prlimit(1) puts the resource limits on bwrap, which every process of
 * the step inherits.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/sandbox.h"
#include "cleanup.h"
#include "log.h"
#include "banned.h"

/* Limits of every process of a confined step: CPU seconds (a compile of
 * one file is minutes at worst; the build's own timeout bounds the
 * whole), address space, file size, processes of the farm's user. */
#define SANDBOX_CPU_S (6 * 3600)
#define SANDBOX_AS_BYTES (16ull << 30)
#define SANDBOX_FSIZE_BYTES (16ull << 30)
#define SANDBOX_NPROC 4096
#define PROBE_TIMEOUT_MS 30000

static int trust_submitters;

/* bubblewrap: $SCHEDFARM_BWRAP names another program (a test names one
 * that is not there, to see the farm without its sandbox). */
static const char *bwrap_program(void)
{
	const char *e = getenv("SCHEDFARM_BWRAP");

	return e && *e ? e : "bwrap";
}

void sandbox_set_trust_submitters(int yes)
{
	trust_submitters = yes;
}

void sandbox_paths_release(struct sandbox_paths *p)
{
	strvec_clear(&p->ro);
	strvec_clear(&p->rw);
	strvec_clear(&p->ro_at);
	strvec_clear(&p->rw_at);
}

/*
 * Run one of the system's tools for the farm (useradd, chown): argv,
 * timeout_ms; 0, or -1 with err saying what failed, what it printed and
 * what for.
 */
static int run_tool(const char *const *argv, int timeout_ms, const char *what,
		    struct strbuf *err)
{
	struct child_process cp;
	int r;

	child_process_init(&cp);
	strvec_pushv(&cp.args, argv);
	cp.capture_out = cp.capture_err = 1;
	cp.timeout_ms = timeout_ms;
	r = run_command(&cp, err);
	if (r < 0) {
		strbuf_trim(&cp.err);
		if (cp.err.len)
			strbuf_addf(err, ": %s", cp.err.buf);
		strbuf_addf(err, " (%s)", what);
	}
	child_process_clear(&cp);
	return r;
}

int sandbox_user(uid_t *ret_uid, gid_t *ret_gid, struct strbuf *err)
{
	static int known;
	static uid_t uid;
	static gid_t gid;
	struct passwd *pw;

	if (known) {
		*ret_uid = uid;
		*ret_gid = gid;
		return 0;
	}
	if (geteuid() != 0) {
		strbuf_addstr(err, "only a root controller has a farm user");
		return -1;
	}
	pw = getpwnam(SANDBOX_USER);
	if (!pw) {
		const char *argv[] = { "useradd",      "--system",
				       "--user-group", "--no-create-home",
				       "--home-dir",   "/nonexistent",
				       "--shell",      "/usr/sbin/nologin",
				       "--comment",    "schedfarm builds",
				       SANDBOX_USER,   NULL };

		if (run_tool(argv, 60000, "making the farm's build user", err) <
		    0)
			return -1;
		pw = getpwnam(SANDBOX_USER);
		if (!pw) {
			strbuf_addf(err, "useradd made no user '%s'",
				    SANDBOX_USER);
			return -1;
		}
	}
	if (pw->pw_uid == 0 || pw->pw_gid == 0) {
		strbuf_addf(err,
			    "the farm's build user '%s' is root (uid %u gid "
			    "%u): refused",
			    SANDBOX_USER, (unsigned)pw->pw_uid,
			    (unsigned)pw->pw_gid);
		return -1;
	}
	uid = pw->pw_uid;
	gid = pw->pw_gid;
	known = 1;
	*ret_uid = uid;
	*ret_gid = gid;
	return 0;
}

void sandbox_env(struct strvec *env, const char *home, const char *user)
{
	static const char *const keep[] = { "LANG", "LC_ALL", "TZ",
					    "SOURCE_DATE_EPOCH" };

	strvec_push(env, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:"
			 "/usr/bin:/sbin:/bin");
	strvec_pushf(env, "HOME=%s", home);
	strvec_pushf(env, "USER=%s", user);
	strvec_pushf(env, "LOGNAME=%s", user);
	for (size_t i = 0; i < ARRAY_SIZE(keep); i++) {
		const char *v = getenv(keep[i]);

		if (v && *v && strlen(v) < 256 && !strpbrk(v, "\n"))
			strvec_pushf(env, "%s=%s", keep[i], v);
	}
}

/* The system's top folders, bound read-only (or linked as they are). */
static void add_system(struct strvec *a, struct strvec *made)
{
	static const char *const tops[] = { "/bin",   "/sbin",	"/lib",
					    "/lib32", "/lib64", "/libx32" };

	strvec_pushl(a, "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc",
		     "/etc", (char *)NULL);
	strvec_pushl(made, "/usr/", "/etc/", (char *)NULL);
	for (size_t i = 0; i < ARRAY_SIZE(tops); i++) {
		char target[PATH_MAX];
		struct stat st;
		ssize_t n;

		if (lstat(tops[i], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(tops[i], target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			strvec_pushl(a, "--symlink", target, tops[i],
				     (char *)NULL);
		} else if (S_ISDIR(st.st_mode)) {
			strvec_pushl(a, "--ro-bind", tops[i], tops[i],
				     (char *)NULL);
		}
		strvec_pushf(made, "%s/", tops[i]);
	}
	strvec_pushl(a, "--proc", "/proc", "--dev", "/dev", "--perms", "1777",
		     "--tmpfs", "/tmp", (char *)NULL);
	strvec_push(made, "/tmp");
}

/*
 * Is path already in the sandbox's root: a folder made there (made, by
 * its whole path: a tmpfs or --dir is empty), or at or below a folder
 * bound from the host (made entries that end in '/')?
 */
static int under_made(const struct strvec *made, const char *path)
{
	for (size_t i = 0; i < made->nr; i++) {
		size_t n = strlen(made->v[i]);

		if (n > 1 && made->v[i][n - 1] == '/') {
			if (!strncmp(path, made->v[i], n - 1) &&
			    (path[n - 1] == '\0' || path[n - 1] == '/'))
				return 1;
		} else if (!strcmp(path, made->v[i])) {
			return 1;
		}
	}
	return 0;
}

/*
 * Make the folders above path in the sandbox's root, each 0755 (bwrap
 * would make them 0700, which the farm's user cannot pass).  -1 with err
 * for a path that is not plain and absolute.
 */
static int add_parents(struct strvec *a, struct strvec *made, const char *path,
		       struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;

	if (path[0] != '/' || strstr(path, "/../") || strstr(path, "//") ||
	    strstr(path, "/./")) {
		strbuf_addf(err,
			    "cannot confine a step to %s: not a plain "
			    "absolute path",
			    path);
		return -1;
	}
	for (const char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
		strbuf_reset(&p);
		strbuf_add(&p, path, (size_t)(s - path));
		if (!under_made(made, p.buf)) {
			strvec_pushl(a, "--perms", "0755", "--dir", p.buf,
				     (char *)NULL);
			strvec_push(made, p.buf);
		}
	}
	strbuf_release(&p);
	return 0;
}

/* Bind each path of list at itself (ro: read-only); a path through a
 * symbolic link is bound from where it leads.  With pairs, list holds
 * FROM, AT: each FROM is bound at AT. */
static int add_binds(struct strvec *a, struct strvec *made,
		     const struct strvec *list, int ro, int pairs,
		     struct strbuf *err)
{
	size_t step = pairs ? 2 : 1;

	for (size_t i = 0; i + step <= list->nr; i += step) {
		const char *p = list->v[i], *at = list->v[i + step - 1];
		_cleanup_free_ char *real = realpath(p, NULL);

		if (!real) {
			strbuf_addf(err, "cannot confine a step to %s: %s", p,
				    strerror(errno));
			return -1;
		}
		if (add_parents(a, made, at, err) < 0)
			return -1;
		strvec_pushl(a, ro ? "--ro-bind" : "--bind", real, at,
			     (char *)NULL);
		strvec_pushf(made, "%s/", at);
	}
	return 0;
}

/*
 * cp's argv becomes prefix (taken: it is left empty), "--", then the old
 * argv.  The step's name outlives the old argv: it points into the new
 * one's copy of it.
 */
static void prefix_args(struct child_process *cp, struct strvec *prefix)
{
	strvec_push(prefix, "--");
	for (size_t i = 0; i < cp->args.nr; i++)
		strvec_push(prefix, cp->args.v[i]);
	if (!cp->name)
		cp->name = prefix->v[prefix->nr - cp->args.nr];
	strvec_clear(&cp->args);
	cp->args = *prefix;
	strvec_init(prefix);
}

/*
 * An unconfined step that must still see folders at other paths (a
 * layer's, see sandbox_paths): unshare(1) gives it a private mount
 * namespace, a fixed sh script binds each FROM at its AT there, changes
 * to cp's folder (after the binds: it may be one of them) and execs the
 * step.  The script is a constant; every path reaches it as an argument.
 * Only root may do it.  0, or -1 with err.
 */
static const char moved_script[] =
	"d=$1; shift; "
	"while [ \"$1\" != -- ]; do "
	"mount --bind \"$1\" \"$2\" || exit 125; shift 2; done; "
	"shift; cd \"$d\" || exit 125; exec \"$@\"";

static int wrap_moved(struct child_process *cp,
		      const struct sandbox_paths *paths, struct strbuf *err)
{
	struct strvec a = STRVEC_INIT;

	if (!paths->ro_at.nr && !paths->rw_at.nr)
		return 0;
	if (geteuid() != 0) {
		strbuf_addstr(err, "only a root controller can show a step "
				   "a folder at another path without the "
				   "sandbox");
		return -1;
	}
	strvec_pushl(&a, "unshare", "--mount", "--propagation", "private", "--",
		     "sh", "-c", moved_script, "sh", cp->dir ? cp->dir : ".",
		     (char *)NULL);
	for (size_t i = 0; i + 1 < paths->ro_at.nr; i += 2)
		strvec_pushl(&a, paths->ro_at.v[i], paths->ro_at.v[i + 1],
			     (char *)NULL);
	for (size_t i = 0; i + 1 < paths->rw_at.nr; i += 2)
		strvec_pushl(&a, paths->rw_at.v[i], paths->rw_at.v[i + 1],
			     (char *)NULL);
	prefix_args(cp, &a);
	return 0;
}

int sandbox_wrap(struct child_process *cp, const struct sandbox_paths *paths,
		 int confined, struct strbuf *err)
{
	struct strvec a = STRVEC_INIT, env = STRVEC_INIT, made = STRVEC_INIT;
	int root = geteuid() == 0;
	uid_t uid = 0;
	gid_t gid = 0;

	sandbox_env(&env, "/tmp", SANDBOX_USER);
	for (size_t i = 0; i < cp->env.nr; i++)
		if (strchr(cp->env.v[i], '='))
			strvec_push(&env, cp->env.v[i]);
	strvec_clear(&cp->env);
	cp->clear_env = 1;
	if (!confined) {
		/* The environment alone: the allow-list and our additions. */
		for (size_t i = 0; i < env.nr; i++)
			strvec_push(&cp->env, env.v[i]);
		strvec_clear(&env);
		return wrap_moved(cp, paths, err);
	}
	if (root && sandbox_user(&uid, &gid, err) < 0)
		goto fail;
	strvec_push(&a, "prlimit");
	strvec_pushf(&a, "--cpu=%d", SANDBOX_CPU_S);
	strvec_pushf(&a, "--as=%llu", (unsigned long long)SANDBOX_AS_BYTES);
	strvec_pushf(&a, "--fsize=%llu",
		     (unsigned long long)SANDBOX_FSIZE_BYTES);
	strvec_pushf(&a, "--nproc=%d", SANDBOX_NPROC);
	strvec_pushl(&a, "--core=0", "--", bwrap_program(), "--unshare-ipc",
		     "--unshare-pid", "--unshare-net", "--unshare-uts",
		     "--unshare-cgroup-try", "--die-with-parent",
		     "--new-session", (char *)NULL);
	if (!root)
		strvec_push(&a, "--unshare-user");
	add_system(&a, &made);
	if (add_binds(&a, &made, &paths->ro, 1, 0, err) < 0 ||
	    add_binds(&a, &made, &paths->ro_at, 1, 1, err) < 0 ||
	    add_binds(&a, &made, &paths->rw, 0, 0, err) < 0 ||
	    add_binds(&a, &made, &paths->rw_at, 0, 1, err) < 0)
		goto fail;
	/* bwrap's own --chdir is taken before setpriv, as a root that has
	 * no CAP_DAC_OVERRIDE left: the output folder is the build user's,
	 * 0700.  That user changes folder itself (env --chdir, below). */
	if (cp->dir && !root) {
		strvec_pushl(&a, "--chdir", cp->dir, (char *)NULL);
		cp->dir = NULL;
	}
	strvec_push(&a, "--clearenv");
	for (size_t i = 0; i < env.nr; i++) {
		char *eq = strchr(env.v[i], '=');

		strvec_push(&a, "--setenv");
		strvec_pushf(&a, "%.*s", (int)(eq - env.v[i]), env.v[i]);
		strvec_push(&a, eq + 1);
	}
	if (root) {
		strvec_pushl(&a, "--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
			     "--cap-add", "CAP_SETGID", "--cap-add",
			     "CAP_SETPCAP", "--", "setpriv", (char *)NULL);
		strvec_pushf(&a, "--reuid=%u", (unsigned)uid);
		strvec_pushf(&a, "--regid=%u", (unsigned)gid);
		strvec_pushl(&a, "--clear-groups", "--no-new-privs",
			     "--bounding-set=-all", "--inh-caps=-all",
			     (char *)NULL);
		if (cp->dir) {
			strvec_pushl(&a, "--", "env", (char *)NULL);
			strvec_pushf(&a, "--chdir=%s", cp->dir);
			cp->dir = NULL;
		}
	}
	prefix_args(cp, &a);
	strvec_push(&cp->env, "PATH=/usr/bin:/bin");
	strvec_clear(&env);
	strvec_clear(&made);
	return 0;
fail:
	strvec_clear(&a);
	strvec_clear(&env);
	strvec_clear(&made);
	return -1;
}

int sandbox_available(struct strbuf *why)
{
	static int state; /* 0 unknown, 1 yes, -1 no */
	static struct strbuf reason = STRBUF_INIT;

	if (!state) {
		struct sandbox_paths none = SANDBOX_PATHS_INIT;
		struct child_process cp;
		struct strbuf err = STRBUF_INIT;

		child_process_init(&cp);
		strvec_push(&cp.args, "true");
		cp.capture_out = cp.capture_err = 1;
		cp.timeout_ms = PROBE_TIMEOUT_MS;
		if (!program_exists(bwrap_program())) {
			strbuf_addf(&reason, "bubblewrap (%s) is not installed",
				    bwrap_program());
		} else if (!program_exists("prlimit") ||
			   !program_exists("setpriv")) {
			strbuf_addstr(&reason,
				      "prlimit or setpriv (util-linux) "
				      "is not installed");
		} else if (sandbox_wrap(&cp, &none, 1, &err) < 0 ||
			   run_command(&cp, &err) < 0) {
			strbuf_trim(&cp.err);
			strbuf_addf(&reason,
				    "bubblewrap cannot make a sandbox "
				    "here: %s%s%s",
				    err.buf, cp.err.len ? ": " : "",
				    cp.err.buf);
		}
		state = reason.len ? -1 : 1;
		child_process_clear(&cp);
		strbuf_release(&err);
	}
	if (state < 0)
		strbuf_addbuf(why, &reason);
	return state > 0;
}

int sandbox_allow(int has_patches, struct strbuf *err)
{
	static int warned;
	struct strbuf why = STRBUF_INIT;

	if (sandbox_available(&why)) {
		strbuf_release(&why);
		return 1;
	}
	if (has_patches && !trust_submitters) {
		strbuf_addf(err,
			    "refusing to build submitted patches without the "
			    "sandbox (%s); install bubblewrap, or run the "
			    "controller with --trust-submitters to build them "
			    "unconfined, as the controller's user",
			    why.buf);
		strbuf_release(&why);
		return -1;
	}
	if (!warned) {
		log_warn("kernel builds run unconfined, as the controller's "
			 "user (%s)%s",
			 why.buf,
			 has_patches ? ": --trust-submitters says so" : "");
		warned = 1;
	}
	strbuf_release(&why);
	return 0;
}

int sandbox_give_dir(const char *dir, struct strbuf *err)
{
	uid_t uid;
	gid_t gid;
	struct stat st = { 0 };

	if (geteuid() != 0)
		return 0;
	if (sandbox_user(&uid, &gid, err) < 0)
		return -1;
	if (mkdir(dir, 0700) == 0 && chown(dir, uid, gid) == 0)
		return 0;
	/* Nobody else reads what the build writes (the controller is root). */
	if (chmod(dir, 0700) < 0) {
		strbuf_addf(err, "cannot close %s to others: %s", dir,
			    strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		strbuf_addf(err, "cannot hand %s to the build user: %s", dir,
			    S_ISDIR(st.st_mode) ? strerror(errno)
						: "not a folder");
		return -1;
	}
	if (st.st_uid == uid)
		return 0;
	{
		/* A folder an earlier, unconfined build filled: all of it. */
		char owner[32];
		const char *argv[] = { "chown", "-R", "-P", "-h",
				       owner,	"--", dir,  NULL };

		snprintf(owner, sizeof(owner), "%u:%u", (unsigned)uid,
			 (unsigned)gid);
		if (run_tool(argv, 10 * 60000,
			     "handing a folder to the build "
			     "user",
			     err) < 0)
			return -1;
	}
	return 0;
}

int sandbox_share_dir(const char *dir, struct strbuf *err)
{
	uid_t uid;
	gid_t gid;
	struct stat st = { 0 };

	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		strbuf_addf(err, "cannot open %s to the build: %s", dir,
			    S_ISDIR(st.st_mode) ? strerror(errno)
						: "not a folder");
		return -1;
	}
	if (geteuid() != 0)
		return chmod(dir, 0700) < 0 ? -1 : 0;
	if (sandbox_user(&uid, &gid, err) < 0)
		return -1;
	if ((st.st_gid != gid && lchown(dir, (uid_t)-1, gid) < 0) ||
	    ((st.st_mode & 07777) != 0750 && chmod(dir, 0750) < 0)) {
		strbuf_addf(err, "cannot open %s to the build user: %s", dir,
			    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * home.c - the farm's state folder and the folders in it; see home.h.
 *
 * The only code that knows where the farm keeps its files: store/db.c is
 * handed the resolved folder for pg/, and every other writer asks for its
 * folder here.  The checks are made with lstat() on each hand-out, not
 * once, because a folder can be replaced by a link between two runs.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "home.h"
#include "banned.h"

/* The default state folder of this user (see home.h). */
static int default_home(int is_root, char **ret, struct strbuf *err)
{
	const char *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");

	if (is_root) {
		*ret = xstrdup("/var/lib/schedfarm");
		return 0;
	}
	if (xdg && *xdg == '/') {
		*ret = xstrfmt("%s/schedfarm", xdg);
		return 0;
	}
	if (!home || *home != '/') {
		struct passwd *pw = getpwuid(getuid());

		home = pw && pw->pw_dir && *pw->pw_dir == '/' ? pw->pw_dir
							      : NULL;
	}
	if (!home) {
		strbuf_addstr(err, "no state folder: this user has no home "
				   "folder; give --home DIR or set "
				   "SCHEDFARM_HOME");
		return -1;
	}
	*ret = xstrfmt("%s/.local/share/schedfarm", home);
	return 0;
}

/* Make path absolute (relative to the cwd) without resolving links. */
static char *absolute_path(const char *path)
{
	char *abs = path_absolute(path);

	return abs ? abs : xstrdup(path);
}

int home_resolve(const char *cli_home, char **ret_home, struct strbuf *err)
{
	const char *env_home = getenv("SCHEDFARM_HOME");
	char *home;
	size_t n;

	*ret_home = NULL;
	if (cli_home && *cli_home)
		home = absolute_path(cli_home);
	else if (env_home && *env_home)
		home = absolute_path(env_home);
	else if (default_home(geteuid() == 0, &home, err) < 0)
		return -1;
	n = strlen(home);
	while (n > 1 && home[n - 1] == '/')
		home[--n] = '\0';
	*ret_home = home;
	return 0;
}

/* "name (uid N)" of a uid, for messages. */
static void add_user(struct strbuf *sb, uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	if (pw)
		strbuf_addf(sb, "%s (uid %u)", pw->pw_name, (unsigned)uid);
	else
		strbuf_addf(sb, "uid %u", (unsigned)uid);
}

int home_check_owned(const char *path, int follow, int want_dir,
		     struct strbuf *err)
{
	struct stat st;
	uid_t me = geteuid();

	if ((follow ? stat(path, &st) : lstat(path, &st)) < 0) {
		strbuf_addf(err, "cannot use %s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		strbuf_addf(err,
			    "%s is a symbolic link, and the farm's %s must be "
			    "real ones (fix: rm '%s'; the farm makes it "
			    "again)",
			    path, want_dir ? "folders" : "files", path);
		return -1;
	}
	if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
		strbuf_addf(err, "%s is not a %s: move it out of the way", path,
			    want_dir ? "folder" : "regular file");
		return -1;
	}
	if (st.st_uid != me) {
		strbuf_addf(err, "%s belongs to ", path);
		add_user(err, st.st_uid);
		strbuf_addstr(err, ", not to ");
		add_user(err, me);
		strbuf_addf(err,
			    " that the farm runs as (fix: chown %u '%s', or "
			    "choose another --home)",
			    (unsigned)me, path);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		strbuf_addf(err,
			    "%s can be written by %s (mode %04o; fix: chmod "
			    "go-w '%s')",
			    path,
			    (st.st_mode & S_IWOTH) ? "anyone" : "its group",
			    (unsigned)(st.st_mode & 07777), path);
		return -1;
	}
	return 0;
}

/* A folder of the farm's (a link to one only when follow). */
static int check_folder(const char *path, int follow, struct strbuf *err)
{
	return home_check_owned(path, follow, 1, err);
}

/*
 * mkdir path with exactly mode when it is missing (the umask does not
 * narrow or the caller's umask widen it), then check it.
 */
static int make_folder(const char *path, mode_t mode, int follow,
		       struct strbuf *err)
{
	if (mkdir(path, mode) == 0) {
		if (chmod(path, mode) < 0) {
			strbuf_addf(err, "cannot set the mode of %s: %s", path,
				    strerror(errno));
			return -1;
		}
	} else if (errno != EEXIST) {
		strbuf_addf(err, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	return check_folder(path, follow, err);
}

int home_ensure(const char *home, struct strbuf *err)
{
	const char *slash = strrchr(home, '/');

	if (slash && slash != home) {
		struct strbuf parent = STRBUF_INIT;
		struct stat st;
		int r = 0;

		strbuf_add(&parent, home, (size_t)(slash - home));
		if (stat(parent.buf, &st) < 0)
			r = mkdir_p(parent.buf, 0755, err);
		strbuf_release(&parent);
		if (r < 0)
			return -1;
	}
	return make_folder(home, 0700, 1, err);
}

/* HOME/name with mode mode when it has to be made. */
static int subdir(const char *home, const char *name, mode_t mode,
		  char **ret_path, struct strbuf *err)
{
	char *path;

	*ret_path = NULL;
	if (home_ensure(home, err) < 0)
		return -1;
	path = xstrfmt("%s/%s", home, name);
	if (make_folder(path, mode, 0, err) < 0) {
		free(path);
		return -1;
	}
	*ret_path = path;
	return 0;
}

int home_subdir(const char *home, const char *name, char **ret_path,
		struct strbuf *err)
{
	return subdir(home, name, 0700, ret_path, err);
}

/* Let others search path (o+x) when they cannot yet. */
static int allow_search(const char *path, struct strbuf *err)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		strbuf_addf(err, "cannot use %s: %s", path, strerror(errno));
		return -1;
	}
	if ((st.st_mode & S_IXOTH) ||
	    chmod(path, (st.st_mode & 07777) | S_IXOTH) == 0)
		return 0;
	strbuf_addf(err, "cannot make %s searchable (chmod o+x): %s", path,
		    strerror(errno));
	return -1;
}

int home_kernel_cache(const char *home, const char *dir, char **ret_path,
		      struct strbuf *err)
{
	const char *env = getenv("SCHEDFARM_KERNEL_CACHE");
	char *path;

	*ret_path = NULL;
	if (!dir || !*dir)
		dir = env;
	if (dir && *dir) {
		path = absolute_path(dir);
		if (mkdir_p(path, 0711, err) < 0 ||
		    check_folder(path, 1, err) < 0) {
			free(path);
			return -1;
		}
		*ret_path = path;
		return 0;
	}
	if (subdir(home, HOME_KERNELS, 0711, &path, err) < 0)
		return -1;
	if (allow_search(home, err) < 0 || allow_search(path, err) < 0) {
		free(path);
		return -1;
	}
	*ret_path = path;
	return 0;
}

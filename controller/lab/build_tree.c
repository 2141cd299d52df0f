/*
 * build_tree.c - the incremental build tree of one base and config, for
 * bisection steps (and the series they cut) to rebuild only what changed.
 *
 * Layout, beside the per-key builds of build.c:
 *   trees/TKEY/src      the sources: hard links to the pristine base (a
 *                       file a patch changes is a new file, never written
 *                       through a link), or a git worktree
 *   trees/TKEY/out      make O= output, kept from build to build
 *   trees/TKEY/stage    scratch: the files a series touches, patched
 *   trees/TKEY/state    "file PATH" per file that differs from the base
 *   out/.schedfarm-building  present while make runs
 *
 * A new series (a tarball or folder base) is laid in by patching copies
 * of the files it and the last series touch, in stage/, and writing each
 * one into src/ only when its bytes differ (write_file_if_changed), so
 * a file keeps its mtime when its content is what the last build saw,
 * and make's dependency tracking rebuilds exactly the objects of the
 * files that changed.  A git base is switched with `git checkout`, which
 * likewise rewrites only the files that differ.  A build that was killed
 * (SIGKILL leaves make no time to delete half-written objects) leaves
 * the marker; the next build deletes everything under out/ newer than it
 * (but .config), so those objects are made again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fs.h"
#include "lab/build-int.h"
#include "banned.h"

#define MARKER ".schedfarm-building"

static int is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* -p1: drop the first component; refuse what leaves the tree. */
static int add_path(struct strvec *files, const char *p, size_t n,
		    struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	const char *slash;
	int r = 0;

	/* "a/x\tdate" (diff -u) or "a/x" (git) */
	for (size_t i = 0; i < n; i++)
		if (p[i] == '\t') {
			n = i;
			break;
		}
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\r'))
		n--;
	strbuf_add(&path, p, n);
	if (!strcmp(path.buf, "/dev/null"))
		goto out;
	slash = strchr(path.buf, '/');
	if (!slash || !slash[1] || slash[1] == '/' || strstr(slash, "/../") ||
	    ends_with(slash, "/..") || starts_with(slash + 1, "../")) {
		strbuf_addf(err,
			    "a patch names the path '%s', outside the "
			    "tree",
			    path.buf);
		r = -1;
		goto out;
	}
	for (size_t i = 0; i < files->nr; i++)
		if (!strcmp(files->v[i], slash + 1))
			goto out;
	strvec_push(files, slash + 1);
out:
	strbuf_release(&path);
	return r;
}

int build_patch_paths(const char *patch_file, struct strvec *files,
		      struct strbuf *err)
{
	struct strbuf body = STRBUF_INIT;
	const char *p, *end;
	int r = strbuf_read_file(&body, patch_file, 64u << 20);

	if (r < 0) {
		strbuf_addf(err, "cannot read patch %s: %s", patch_file,
			    strerror(-r));
		strbuf_release(&body);
		return -1;
	}
	r = 0;
	p = body.buf;
	end = p + body.len;
	while (p < end && !r) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (l > 4 && (!memcmp(p, "--- ", 4) || !memcmp(p, "+++ ", 4)))
			r = add_path(files, p + 4, l - 4, err);
		else if (l > 12 && !memcmp(p, "rename from ", 12)) {
			/* git renames carry no a/ b/ prefix. */
			struct strbuf q = STRBUF_INIT;

			strbuf_addstr(&q, "a/");
			strbuf_add(&q, p + 12, l - 12);
			r = add_path(files, q.buf, q.len, err);
			strbuf_release(&q);
		} else if (l > 10 && !memcmp(p, "rename to ", 10)) {
			struct strbuf q = STRBUF_INIT;

			strbuf_addstr(&q, "b/");
			strbuf_add(&q, p + 10, l - 10);
			r = add_path(files, q.buf, q.len, err);
			strbuf_release(&q);
		}
		p += l + 1;
	}
	strbuf_release(&body);
	return r;
}

/* The files state says differ from the base. */
static void read_state(const char *tree, struct strvec *files)
{
	struct strbuf p = STRBUF_INIT, body = STRBUF_INIT;
	struct strvec lines = STRVEC_INIT;

	strbuf_addf(&p, "%s/state", tree);
	if (strbuf_read_file(&body, p.buf, 16u << 20) == 0) {
		strvec_split(&lines, body.buf, '\n');
		for (size_t i = 0; i < lines.nr; i++)
			if (starts_with(lines.v[i], "file "))
				strvec_push(files, lines.v[i] + 5);
	}
	strvec_clear(&lines);
	strbuf_release(&p);
	strbuf_release(&body);
}

/* Replace the tree's state: the files that differ from the base. */
static int write_state(const char *tree, const struct strvec *files,
		       struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT, body = STRBUF_INIT;
	int r;

	for (size_t i = 0; i < files->nr; i++)
		strbuf_addf(&body, "file %s\n", files->v[i]);
	strbuf_addf(&p, "%s/state", tree);
	r = write_file_atomic(p.buf, body.buf, body.len, 0644, FS_SYNC, err);
	strbuf_release(&p);
	strbuf_release(&body);
	return r;
}

int build_tree_mark(const char *tree, int building, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int r = 0;

	strbuf_addf(&p, "%s/out/%s", tree, MARKER);
	if (building)
		r = write_file_atomic(p.buf, "", 0, 0644, FS_SYNC, err);
	else if (unlink(p.buf) < 0 && errno != ENOENT) {
		strbuf_addf(err, "cannot remove %s: %s", p.buf,
			    strerror(errno));
		r = -1;
	}
	strbuf_release(&p);
	return r;
}

/* A build was killed: delete what it may have half written. */
static int clean_killed(const struct kernel_build_spec *spec, const char *tree,
			struct strbuf *log, struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT, marker = STRBUF_INIT;
	struct child_process cp;
	int r = 0;

	strbuf_addf(&out, "%s/out", tree);
	strbuf_addf(&marker, "%s/%s", out.buf, MARKER);
	if (access(marker.buf, F_OK) == 0) {
		strbuf_addstr(log, "the last build in this tree was killed: "
				   "removing what it wrote\n");
		child_process_init(&cp);
		strvec_pushl(&cp.args, "find", out.buf, "-type", "f", "-newer",
			     marker.buf, "!", "-name", ".config", "-delete",
			     (char *)NULL);
		cp.timeout_ms = 10 * 60000;
		r = build_run_logged(spec, &cp, log, err);
		child_process_clear(&cp);
	}
	strbuf_release(&out);
	strbuf_release(&marker);
	return r;
}

/* Read a file into sb; -ENOENT when it is not there. */
static int read_whole(const char *path, struct strbuf *sb, mode_t *ret_mode)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	*ret_mode = st.st_mode & 0777;
	return strbuf_read_file(sb, path, 256u << 20);
}

/*
 * A tarball or folder base: patch copies of the files touched now or by
 * the last series in stage/, then write into src/ the ones that changed.
 */
static int sync_series(const struct kernel_build_spec *spec,
		       const char *pristine, const char *tree,
		       struct strbuf *log, struct strbuf *err)
{
	struct strvec touched = STRVEC_INIT, affected = STRVEC_INIT;
	struct strbuf stage = STRBUF_INIT, a = STRBUF_INIT, b = STRBUF_INIT,
		      data = STRBUF_INIT;
	size_t changed = 0, removed = 0;
	int r = -1;

	for (size_t i = 0; i < spec->patches.nr; i++)
		if (build_patch_paths(spec->patches.v[i], &touched, err) < 0)
			goto out;
	read_state(tree, &affected);
	for (size_t i = 0; i < touched.nr; i++) {
		size_t j;

		for (j = 0; j < affected.nr; j++)
			if (!strcmp(affected.v[j], touched.v[i]))
				break;
		if (j == affected.nr)
			strvec_push(&affected, touched.v[i]);
	}
	/* Until src/ is in sync, every file either series touched may
	 * differ from the base: say so first, in case we are killed. */
	if (write_state(tree, &affected, err) < 0)
		goto out;
	strbuf_addf(&stage, "%s/stage", tree);
	if (remove_tree(stage.buf, err) < 0 ||
	    mkdir_p(stage.buf, BUILD_CACHE_DIR_MODE, err) < 0)
		goto out;
	for (size_t i = 0; i < affected.nr; i++) {
		struct stat st;

		strbuf_reset(&a);
		strbuf_reset(&b);
		strbuf_addf(&a, "%s/%s", pristine, affected.v[i]);
		strbuf_addf(&b, "%s/%s", stage.buf, affected.v[i]);
		if (lstat(a.buf, &st) < 0 || !S_ISREG(st.st_mode))
			continue; /* the series creates it */
		*strrchr(b.buf, '/') = '\0';
		if (mkdir_p(b.buf, BUILD_CACHE_DIR_MODE, err) < 0)
			goto out;
		strbuf_reset(&b);
		strbuf_addf(&b, "%s/%s", stage.buf, affected.v[i]);
		if (copy_file_atomic(a.buf, b.buf, st.st_mode & 0777, 0, err) <
		    0)
			goto out;
	}
	if (build_apply_series(spec, stage.buf, 0, log, err) < 0)
		goto out;
	for (size_t i = 0; i < affected.nr; i++) {
		mode_t mode = 0644;
		int w;

		strbuf_reset(&a);
		strbuf_reset(&b);
		strbuf_reset(&data);
		strbuf_addf(&a, "%s/%s", stage.buf, affected.v[i]);
		strbuf_addf(&b, "%s/src/%s", tree, affected.v[i]);
		w = read_whole(a.buf, &data, &mode);
		if (w == -ENOENT) {
			if (unlink(b.buf) == 0)
				removed++;
			else if (errno != ENOENT) {
				strbuf_addf(err, "cannot remove %s: %s", b.buf,
					    strerror(errno));
				goto out;
			}
			continue;
		}
		if (w < 0) {
			strbuf_addf(err, "cannot read %s: %s", a.buf,
				    strerror(-w));
			goto out;
		}
		{
			char *slash = strrchr(b.buf, '/');

			*slash = '\0';
			if (mkdir_p(b.buf, BUILD_CACHE_DIR_MODE, err) < 0)
				goto out;
			*slash = '/';
		}
		w = write_file_if_changed(b.buf, data.buf, data.len, mode, 0,
					  err);
		if (w < 0)
			goto out;
		if (w == 1) {
			changed++;
			strbuf_addf(log, "changed: %s\n", affected.v[i]);
		}
	}
	strbuf_addf(log,
		    "incremental tree: %zu file(s) touched by the series, %zu "
		    "rewritten, %zu removed; make rebuilds what depends on "
		    "them\n",
		    touched.nr, changed, removed);
	r = write_state(tree, &touched, err);
out:
	strvec_clear(&touched);
	strvec_clear(&affected);
	strbuf_release(&stage);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&data);
	return r;
}

/* A git base: check the commit out (only differing files are written),
 * drop what an earlier series left, apply this one. */
static int sync_git(const struct kernel_build_spec *spec,
		    const struct kernel_build_result *res, const char *src,
		    struct strbuf *log, struct strbuf *err)
{
	struct child_process cp;
	int r;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "git", "-C", src, "checkout", "--quiet",
		     "--force", "--detach", res->base_id + strlen("git:"),
		     (char *)NULL);
	r = build_run_logged(spec, &cp, log, err);
	child_process_clear(&cp);
	if (r < 0)
		return -1;
	child_process_init(&cp);
	strvec_pushl(&cp.args, "git", "-C", src, "clean", "-fdq", (char *)NULL);
	r = build_run_logged(spec, &cp, log, err);
	child_process_clear(&cp);
	if (r < 0 || !spec->patches.nr)
		return r;
	/* patch -p1, not git am: no commits piling up in the worktree. */
	return build_apply_series(spec, src, 0, log, err);
}

int build_tree_prepare(const struct kernel_build_spec *spec,
		       const struct kernel_build_result *res, const char *tree,
		       int *ret_fresh, struct strbuf *log, struct strbuf *err)
{
	struct strbuf src = STRBUF_INIT, out = STRBUF_INIT,
		      pristine = STRBUF_INIT;
	int git = starts_with(res->base_id, "git:"), r = -1;
	struct child_process cp;

	*ret_fresh = 0;
	strbuf_addf(&src, "%s/src", tree);
	strbuf_addf(&out, "%s/out", tree);
	if (!git && build_base_pristine(spec, res, &pristine, log, err) < 0)
		goto done;
	if (!is_dir(src.buf)) {
		*ret_fresh = 1;
		if (remove_tree(tree, err) < 0 ||
		    mkdir_p(tree, BUILD_CACHE_DIR_MODE, err) < 0)
			goto done;
		child_process_init(&cp);
		if (git) {
			/* A stale registration would refuse the path. */
			strvec_pushl(&cp.args, "git", "-C", spec->base,
				     "worktree", "prune", (char *)NULL);
			cp.quiet = 1;
			run_command(&cp, err);
			strbuf_reset(err);
			child_process_clear(&cp);
			child_process_init(&cp);
			strvec_pushl(&cp.args, "git", "-C", spec->base,
				     "worktree", "add", "--force", "--detach",
				     src.buf, res->base_id + strlen("git:"),
				     (char *)NULL);
		} else {
			strvec_pushl(&cp.args, "cp", "-al", pristine.buf,
				     src.buf, (char *)NULL);
		}
		r = build_run_logged(spec, &cp, log, err);
		child_process_clear(&cp);
		if (r < 0)
			goto done;
		r = -1;
	}
	if (mkdir_p(out.buf, BUILD_CACHE_DIR_MODE, err) < 0 ||
	    clean_killed(spec, tree, log, err) < 0)
		goto done;
	if (git)
		r = sync_git(spec, res, src.buf, log, err);
	else
		r = sync_series(spec, pristine.buf, tree, log, err);
done:
	strbuf_release(&src);
	strbuf_release(&out);
	strbuf_release(&pristine);
	return r;
}

/*
 * include.c - a plan's text with the files its include: names, as the
 * queue stores it and a job parses it: plan_load_text().  Each included
 * file follows the plan after a PLAN_INCLUDE_MARK line.  Only .yaml/.yml
 * regular files whose real path lies in the plan's folder or below it
 * are read (absolute paths, ".." above it and links out refused before
 * anything is opened; the descriptor checked again).  What the files
 * define is checked by command.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"
#include "plan/plan-int.h"
#include "banned.h"

/* The include: paths of the plan text (one YAML parse, errors dropped). */
static void include_paths(const char *text, size_t len, struct strvec *out,
			  struct strvec *where)
{
	struct strbuf ignore = STRBUF_INIT;
	struct ctx c = { .name = "", .err = &ignore };
	struct ynode *root = NULL;
	const struct ynode *n;

	if (yaml_to_tree(&c, 0, text, len, &root) == 0 && root &&
	    (n = ymap_get(root, "include"))) {
		size_t nr = n->kind == Y_SEQ ? n->nr : 1;

		for (size_t i = 0; n->kind != Y_MAP && i < nr; i++) {
			const struct ynode *x =
				n->kind == Y_SEQ ? n->kids[i] : n;

			if (x->kind != Y_SCALAR || !*x->text ||
			    out->nr >= PLAN_MAX_INCLUDES)
				continue;
			strvec_push(out, x->text);
			strvec_pushf(where, "%u:%u", x->line, x->col);
		}
	}
	flush_errors(&c);
	ctx_release_sources(&c);
	ynode_free(root);
	strbuf_release(&ignore);
}

/* Does text hold a line that starts with PLAN_INCLUDE_MARK? */
static int has_include_mark(const char *text)
{
	static const char mark[] = "\n" PLAN_INCLUDE_MARK;

	return strstr(text, mark) != NULL;
}

/*
 * Why the include: path inc may not be read, or NULL: it must be a
 * relative path to a .yaml or .yml file that never climbs above the
 * plan's folder (each ".." undoes one folder named before it).  Links are
 * checked on the file opened (read_include()).
 */
static const char *include_path_problem(const char *inc)
{
	const char *s = inc;
	int depth = 0;

	if (inc[0] == '/')
		return "an absolute path (an include names a file in the "
		       "plan's folder or below it)";
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n == 2 && s[0] == '.' && s[1] == '.') {
			if (--depth < 0)
				return "it climbs out of the plan's folder "
				       "(..)";
		} else if (n && !(n == 1 && s[0] == '.')) {
			depth++;
		}
		s += n;
		while (*s == '/')
			s++;
	}
	if (!ends_with(inc, ".yaml") && !ends_with(inc, ".yml"))
		return "not a .yaml or .yml file";
	return NULL;
}

/* Is path (links resolved) root itself or below it? */
static int path_under(const char *path, const char *root)
{
	size_t rlen = strlen(root);

	if (rlen == 1 && root[0] == '/')
		return 1;
	return !strncmp(path, root, rlen) &&
	       (path[rlen] == '/' || path[rlen] == '\0');
}

/*
 * Read the include inc of a plan in folder dir ("" or ending in '/') into
 * one, its path as named in file.  Its real path (links resolved) must
 * lie below the plan's real folder before it is opened, so nothing
 * outside is even opened; the file is then opened by that path without
 * following a link, must be a regular file, and is checked again by what
 * the descriptor names (/proc/self/fd), so a link swapped in between is
 * caught too.  0; -errno when it cannot be read; -EPERM with *ret_why
 * saying which rule refused it.
 */
static int read_include(const char *dir, const char *inc, struct strbuf *file,
			struct strbuf *one, const char **ret_why)
{
	char *root = NULL, *real = NULL, *opened = NULL, *fdlink = NULL;
	struct stat st, rst;
	int fd = -1, rc = -EPERM;

	*ret_why = include_path_problem(inc);
	strbuf_reset(file);
	strbuf_addstr(file, dir);
	strbuf_addstr(file, inc);
	if (*ret_why)
		return -EPERM;
	root = realpath(*dir ? dir : ".", NULL);
	real = realpath(file->buf, NULL);
	if (!root || !real) {
		rc = -errno;
		goto out;
	}
	if (!path_under(real, root)) {
		*ret_why = "a symbolic link out of the plan's folder";
		goto out;
	}
	fd = open(real,
		  O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0) {
		rc = errno == ELOOP ? -EPERM : -errno;
		if (errno == ELOOP)
			*ret_why = "it changed while it was read";
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*ret_why = "not a regular file";
		goto out;
	}
	/* What was opened: the kernel's name for it, else its inode
	 * against the path's. */
	fdlink = xstrfmt("/proc/self/fd/%d", fd);
	opened = realpath(fdlink, NULL);
	if (opened ? !path_under(opened, root)
		   : stat(real, &rst) < 0 || rst.st_dev != st.st_dev ||
			     rst.st_ino != st.st_ino) {
		*ret_why = "it changed while it was read";
		goto out;
	}
	rc = strbuf_read_fd(one, fd, PLAN_MAX_BYTES);
out:
	free(root);
	free(real);
	free(opened);
	free(fdlink);
	if (fd >= 0)
		close(fd);
	return rc;
}

int plan_load_text(const char *path, struct strbuf *text, struct strbuf *err)
{
	struct strvec inc = STRVEC_INIT, where = STRVEC_INIT;
	struct strbuf dir = STRBUF_INIT, file = STRBUF_INIT, one = STRBUF_INIT;
	int rc;

	rc = strbuf_read_file(text, path, PLAN_MAX_BUNDLE);
	if (rc < 0 && rc != -EFBIG) {
		strbuf_addf(err, "%s: error: cannot read: %s\n", path,
			    strerror(-rc));
		goto out;
	}
	/* A file that holds its includes already (the text the queue
	 * stores, written out by the answer step as HOME/plans/NAME.yaml
	 * for `schedfarm run`) is taken as it is; the checker holds its
	 * plan part to PLAN_MAX_BYTES. */
	if (rc == 0 && has_include_mark(text->buf))
		goto out;
	if (rc == -EFBIG || text->len > PLAN_MAX_BYTES) {
		strbuf_addf(
			err,
			"%s: error: plan is more than the cap of %d bytes\n",
			path, PLAN_MAX_BYTES);
		rc = -EFBIG;
		goto out;
	}
	include_paths(text->buf, text->len, &inc, &where);
	if (!inc.nr)
		goto out;
	strbuf_addstr(&dir, path);
	while (dir.len && dir.buf[dir.len - 1] != '/')
		dir.len--;
	strbuf_setlen(&dir, dir.len);
	if (text->len && text->buf[text->len - 1] != '\n')
		strbuf_addch(text, '\n');
	for (size_t i = 0; i < inc.nr && !rc; i++) {
		const char *why = NULL;

		strbuf_reset(&one);
		rc = read_include(dir.buf, inc.v[i], &file, &one, &why);
		if (rc < 0 || strstr(one.buf, PLAN_INCLUDE_MARK) ||
		    memchr(one.buf, '\0', one.len) ||
		    text->len + one.len + 256 > PLAN_MAX_BUNDLE) {
			strbuf_addf(
				err,
				"%s:%s: error: include: cannot read %s: %s\n",
				path, where.v[i], file.buf,
				why	       ? why
				: rc == -EFBIG ? "more than the cap of a plan"
				: rc < 0       ? strerror(-rc)
				: memchr(one.buf, '\0', one.len)
					? "a NUL byte in it"
				: strstr(one.buf, PLAN_INCLUDE_MARK)
					? "it holds an include mark line"
					: "the plan and its files are too big");
			rc = -EINVAL;
			break;
		}
		strbuf_addf(text, "%s%s\n", PLAN_INCLUDE_MARK, inc.v[i]);
		strbuf_addbuf(text, &one);
		if (one.len && one.buf[one.len - 1] != '\n')
			strbuf_addch(text, '\n');
	}
out:
	strvec_clear(&inc);
	strvec_clear(&where);
	strbuf_release(&dir);
	strbuf_release(&file);
	strbuf_release(&one);
	return rc < 0 ? rc : 0;
}

/*
 * fs.c - folders, whole-file writes and lock files; see fs.h.  libc only
 * (the static agent links it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "banned.h"

char *path_absolute(const char *path)
{
	char *cwd;
	char *ret;

	if (path[0] == '/')
		return xstrdup(path);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return NULL;
	ret = xstrfmt("%s/%s", cwd, path);
	free(cwd);
	return ret;
}

int mkdir_p(const char *path, mode_t mode, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	int r = -1;

	if (!*path) {
		strbuf_addstr(err, "cannot create a folder with an empty name");
		return -1;
	}
	strbuf_addstr(&p, path);
	for (char *s = p.buf + 1;; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p.buf, mode) < 0 && errno != EEXIST) {
			strbuf_addf(err, "cannot create %s: %s", p.buf,
				    strerror(errno));
			goto out;
		}
		*s = c;
		if (!c)
			break;
	}
	/* EEXIST above also covers a file in the way: say so. */
	if (stat(path, &st) < 0) {
		strbuf_addf(err, "cannot create %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		strbuf_addf(err,
			    "cannot create %s: it is not a folder (a file is "
			    "in the way)",
			    path);
		goto out;
	}
	r = 0;
out:
	strbuf_release(&p);
	return r;
}

int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * A fresh temporary file in path's folder, ".NAME.XXXXXX" (hidden, so a
 * folder listing or a web server does not show it).  mkostemp creates it
 * with O_EXCL: a link or file planted at any name is never followed or
 * reused.  Returns the fd with the name in tmp, or -1.
 */
static int open_temp_beside(const char *path, struct strbuf *tmp,
			    struct strbuf *err)
{
	const char *slash = strrchr(path, '/');
	int fd;

	strbuf_reset(tmp);
	if (slash)
		strbuf_add(tmp, path, (size_t)(slash - path) + 1);
	strbuf_addf(tmp, ".%s.XXXXXX", slash ? slash + 1 : path);
	fd = mkostemp(tmp->buf, O_CLOEXEC);
	if (fd < 0)
		strbuf_addf(err, "cannot create a temporary file for %s: %s",
			    path, strerror(errno));
	return fd;
}

/* fsync the folder that holds path, so a rename in it is durable. */
static int sync_folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	struct strbuf dir = STRBUF_INIT;
	int fd, r = -1;

	if (!slash)
		strbuf_addch(&dir, '.');
	else
		strbuf_add(&dir, path,
			   slash == path ? 1 : (size_t)(slash - path));
	fd = open(dir.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		r = fsync(fd);
		close(fd);
	}
	strbuf_release(&dir);
	return r;
}

/*
 * Give the temporary file fd (named tmp) its mode, sync it when asked, and
 * rename it over path.  Always closes fd; removes tmp on failure.
 */
static int finish_temp(int fd, const char *tmp, const char *path, mode_t mode,
		       unsigned flags, struct strbuf *err)
{
	const char *what = "write";

	if (fchmod(fd, mode) < 0) {
		what = "set the mode of";
		goto fail;
	}
	if ((flags & FS_SYNC) && fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		what = "rename a temporary file to";
		goto fail;
	}
	if ((flags & FS_SYNC) && sync_folder_of(path) < 0) {
		strbuf_addf(err, "cannot sync the folder of %s: %s", path,
			    strerror(errno));
		return -1;
	}
	return 0;
fail:
	strbuf_addf(err, "cannot %s %s: %s", what, path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return -1;
}

int write_file_atomic(const char *path, const void *data, size_t len,
		      mode_t mode, unsigned flags, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd = open_temp_beside(path, &tmp, err), r = -1;

	if (fd < 0)
		goto out;
	if (write_all(fd, data, len) < 0) {
		strbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		unlink(tmp.buf);
		goto out;
	}
	r = finish_temp(fd, tmp.buf, path, mode, flags, err);
out:
	strbuf_release(&tmp);
	return r;
}

/* 1 when path is a regular file (not a link) holding exactly data. */
static int holds_exactly(const char *path, const void *data, size_t len)
{
	struct strbuf old = STRBUF_INIT;
	struct stat st;
	int fd, same = 0;

	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size != len)
		return 0;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (strbuf_read_fd(&old, fd, len + 1) == 0 && old.len == len &&
	    !memcmp(old.buf, data, len))
		same = 1;
	close(fd);
	strbuf_release(&old);
	return same;
}

int write_file_if_changed(const char *path, const void *data, size_t len,
			  mode_t mode, unsigned flags, struct strbuf *err)
{
	if (holds_exactly(path, data, len))
		return 0;
	return write_file_atomic(path, data, len, mode, flags, err) < 0 ? -1
									: 1;
}

int copy_file_atomic(const char *src, const char *dst, mode_t mode,
		     unsigned flags, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	char buf[65536];
	int in, out = -1, r = -1;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		strbuf_addf(err, "cannot open %s: %s", src, strerror(errno));
		goto out;
	}
	out = open_temp_beside(dst, &tmp, err);
	if (out < 0)
		goto out;
	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			strbuf_addf(err, "cannot read %s: %s", src,
				    strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (write_all(out, buf, (size_t)n) < 0) {
			strbuf_addf(err, "cannot write %s: %s", dst,
				    strerror(errno));
			n = -1;
			break;
		}
	}
	if (n < 0) {
		close(out);
		unlink(tmp.buf);
		goto out;
	}
	r = finish_temp(out, tmp.buf, dst, mode, flags, err);
out:
	if (in >= 0)
		close(in);
	strbuf_release(&tmp);
	return r;
}

int lock_file(const char *path, struct strbuf *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0) {
		strbuf_addf(err, "cannot open the lock file %s: %s", path,
			    errno == ELOOP ? "it is a symbolic link (refused)"
					   : strerror(errno));
		return -1;
	}
	/* EINTR is a failure too: a signal while waiting (a job told to
	 * stop) must not leave the caller blocked behind another holder. */
	if (flock(fd, LOCK_EX) < 0) {
		strbuf_addf(err, "cannot lock %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Empty the folder open at dfd (named path, for messages), depth first,
 * never following a link: each entry is opened relative to its parent
 * with O_NOFOLLOW, so a link planted in the tree (or swapped in while we
 * walk it) is removed as a link, never entered.  Closes dfd.
 */
static int empty_folder_at(int dfd, const char *path, struct strbuf *err)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int r = 0;

	if (!d) {
		strbuf_addf(err, "cannot read %s: %s", path, strerror(errno));
		close(dfd);
		return -1;
	}
	while (r == 0 && (errno = 0, e = readdir(d))) {
		struct strbuf sub = STRBUF_INIT;
		int fd;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0 || errno == ENOENT)
			continue;
		strbuf_addf(&sub, "%s/%s", path, e->d_name);
		if (errno != EISDIR && errno != EPERM) {
			strbuf_addf(err, "cannot remove %s: %s", sub.buf,
				    strerror(errno));
			r = -1;
		} else if ((fd = openat(dirfd(d), e->d_name,
					O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
						O_CLOEXEC)) < 0) {
			strbuf_addf(err, "cannot open %s: %s", sub.buf,
				    strerror(errno));
			r = -1;
		} else if (empty_folder_at(fd, sub.buf, err) < 0) {
			r = -1;
		} else if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) < 0 &&
			   errno != ENOENT) {
			strbuf_addf(err, "cannot remove %s: %s", sub.buf,
				    strerror(errno));
			r = -1;
		}
		strbuf_release(&sub);
	}
	if (r == 0 && errno) {
		strbuf_addf(err, "cannot read %s: %s", path, strerror(errno));
		r = -1;
	}
	closedir(d);
	return r;
}

int remove_tree(const char *path, struct strbuf *err)
{
	struct stat st;
	int fd;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		strbuf_addf(err, "cannot remove %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) < 0 && errno != ENOENT) {
			strbuf_addf(err, "cannot remove %s: %s", path,
				    strerror(errno));
			return -1;
		}
		return 0;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		strbuf_addf(err, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (empty_folder_at(fd, path, err) < 0)
		return -1;
	if (rmdir(path) < 0 && errno != ENOENT) {
		strbuf_addf(err, "cannot remove %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

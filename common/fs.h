/*
 * fs.h - folders, whole-file writes and lock files, safely.
 *
 * A file the farm writes is never opened by a predictable name that
 * someone else could have planted a link at: it is written to a fresh
 * temporary file beside the target (mkstemp: O_CREAT|O_EXCL, so nothing
 * that was there is followed or reused), then renamed over the target, so
 * a reader sees the old file or the whole new one, never half.  Lock files
 * are opened with O_NOFOLLOW.  Linked into both the controller and the
 * static agent: libc only.  Functions return 0 (or a count) or -1 and
 * describe the failure in the caller's err; nothing here prints.
 */
#ifndef SCHEDFARM_FS_H
#define SCHEDFARM_FS_H

#include <stddef.h>
#include <sys/types.h>

#include "strbuf.h"

/* fsync the file before the rename and its folder after it: the new
 * contents survive a crash or power loss (costs a disk flush per file). */
#define FS_SYNC 1u

/*
 * path made absolute against the current folder, links not resolved;
 * NULL (errno set) when the current folder cannot be read.  The caller
 * frees it.
 */
char *path_absolute(const char *path);

/*
 * mkdir -p: create path and each missing folder above it with mode (less
 * the umask, as mkdir(2) does).  Folders that exist are left as they are.
 * 0, or -1 when a part cannot be made or is not a folder.
 */
int mkdir_p(const char *path, mode_t mode, struct strbuf *err);

/*
 * Replace path with the len bytes at data: a temporary file in path's
 * folder (".NAME.XXXXXX"), permission bits exactly mode, renamed over
 * path.  A link at path is replaced, not followed.  flags: FS_SYNC or 0.
 * 0, or -1 (the temporary file is removed).
 */
int write_file_atomic(const char *path, const void *data, size_t len,
		      mode_t mode, unsigned flags, struct strbuf *err);

/*
 * As write_file_atomic(), unless path is already a regular file holding
 * exactly these bytes: then nothing is written.  For outputs rewritten
 * often whose readers notice a new mtime (a report folder, a web
 * server's cache).  1 written, 0 unchanged, -1 on failure.
 */
int write_file_if_changed(const char *path, const void *data, size_t len,
			  mode_t mode, unsigned flags, struct strbuf *err);

/*
 * Copy the file src to dst the same way (temporary beside dst, renamed),
 * streaming, so large files (kernel images) are not held in memory.
 * 0, or -1.
 */
int copy_file_atomic(const char *src, const char *dst, mode_t mode,
		     unsigned flags, struct strbuf *err);

/*
 * Open the lock file path (created mode 0600 when missing; a link there is
 * refused) and take an exclusive flock() on it, waiting as long as
 * another holder keeps it (a signal that interrupts the wait is a
 * failure).  Returns the descriptor (close it to release the lock) or -1.
 */
int lock_file(const char *path, struct strbuf *err);

/*
 * Write all len bytes at data to fd, through EINTR and short writes.
 * 0, or -1 (errno set by write(2)) when a write fails or writes nothing.
 */
int write_all(int fd, const void *data, size_t len);

/*
 * rm -rf path, in process (no rm, no shell): path and, when it is a
 * folder, everything below it, depth first.  Links are removed, never
 * followed (each folder is opened O_NOFOLLOW relative to its parent, so
 * a link swapped in during the walk is not entered either).  Nothing at
 * path is 0.  0, or -1 with err naming what could not be removed.
 */
int remove_tree(const char *path, struct strbuf *err);

#endif

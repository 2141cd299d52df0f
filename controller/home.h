/*
 * home.h - the farm's state folder: where it is, and the folders in it.
 *
 * Everything the farm keeps on this machine hangs off one folder, so that
 * `--home DIR` moves all of it and nothing goes to /tmp or /var/tmp:
 *
 *   pg/        the embedded PostgreSQL cluster (store/db.c; owned by the
 *              server's user, which is `postgres` when root runs the farm)
 *   kernels/   the kernel cache (lab/build.c): unpacked bases, build
 *              trees, series, results
 *   console/   console logs of libvirt boots, SOL captures of IPMI boots
 *              (lab/boot.c, lab/sol.c)
 *   locks/     one lock file per BMC (lab/ipmi.c)
 *   run/       spec, results and pid files of agents on `local` hosts
 *              (lab/runner.c)
 *   report/    where `schedfarm report` writes without --out (and the
 *              controllers write after an answer, unless [report] dir)
 *   plans/     plans of submissions waiting for base results, as files
 *              the command their answer names can run (answer/answer.c)
 *
 * Where it is: --home, else $SCHEDFARM_HOME, else /var/lib/schedfarm for
 * root and $XDG_DATA_HOME/schedfarm or ~/.local/share/schedfarm for
 * others.  It is created mode 0700 (store/db.c adds o+x, search only, when
 * root's cluster runs as `postgres`, who must reach pg/), and must belong
 * to the user the farm runs as and not be writable by group or others.
 * The folders in it are handed out by home_subdir(): made mode 0700 and,
 * every time, checked to be real folders (not links) of that user that
 * nobody else can write to; an error names the command that fixes it.
 * Nothing here prints.
 */
#ifndef SCHEDFARM_HOME_H
#define SCHEDFARM_HOME_H

#include "strbuf.h"

#define HOME_KERNELS "kernels"
#define HOME_CONSOLE "console"
#define HOME_LOCKS "locks"
#define HOME_RUN "run"
#define HOME_REPORT "report"
#define HOME_PLANS "plans"

/*
 * Work out the state folder from cli_home (--home; NULL or "" when not
 * given), then $SCHEDFARM_HOME, then the default above.  *ret_home gets
 * an absolute path without a trailing slash (the caller frees it); links
 * are not resolved and nothing is created.  -1 with err only when there
 * is no default to fall back on (no home folder for this user).
 */
int home_resolve(const char *cli_home, char **ret_home, struct strbuf *err);

/*
 * Make the state folder when it is missing (mode 0700; missing folders
 * above it 0755, so that the users who must pass through, postgres and a
 * libvirt host's qemu, can) and check it: a folder (or a link to one: an
 * administrator may point it at a larger disk) of the user the farm runs
 * as, not writable by group or others.  0, or -1 with err naming the fix.
 */
int home_ensure(const char *home, struct strbuf *err);

/*
 * HOME/name (one of the HOME_* names), created when missing (the state
 * folder too) with mode 0700, and checked: refused when it is a link, is
 * not a folder, belongs to another user, or can be written by group or
 * others; so is a state folder that belongs to another user or can be
 * written by others.  *ret_path gets the path (the caller frees it).
 */
int home_subdir(const char *home, const char *name, char **ret_path,
		struct strbuf *err);

/*
 * The kernel cache: dir when given (`kernel build --cache DIR`), else
 * $SCHEDFARM_KERNEL_CACHE when set (a cache shared between farms or kept
 * across test runs), each created when missing and checked like a folder
 * of the state folder except that it may be a link; else HOME/kernels.
 * A cache anyone else can write to (/var/tmp, a group-writable share) is
 * refused: an entry planted there would be taken as a built kernel.
 * Unlike the other folders, HOME/kernels and the state folder get search
 * permission for others (o+x: enter, not list, not write): the qemu of a
 * libvirt host runs as its own user and opens a built vmlinux by its
 * path.  *ret_path gets the path (caller frees).
 */
int home_kernel_cache(const char *home, const char *dir, char **ret_path,
		      struct strbuf *err);

/*
 * Is path one of the farm's own: a folder (want_dir) or a regular file
 * (a link to one only when follow), belonging to the user the farm runs
 * as, that neither group nor others can write?  0, or -1 with a sentence
 * naming the chmod or chown that fixes it.  For what the farm trusts
 * because it wrote it (the state folder, kernel cache entries).
 */
int home_check_owned(const char *path, int follow, int want_dir,
		     struct strbuf *err);

#endif

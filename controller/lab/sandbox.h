/*
 * sandbox.h - the trust boundary: where a submitter's code runs.
 *
 * A kernel build runs the code of whoever wrote the tree: its Makefiles,
 * Kconfig scripts and host tools, changed by any patch the farm takes.
 * Every such step runs here: under bubblewrap (Debian's bubblewrap), in
 * new pid, network, IPC, UTS and cgroup namespaces (no network), on a
 * root of the system's /usr and /etc read-only, a private /tmp, and only
 * the folders the step names bound in (the tree read-only, make's output
 * folder writable); as the farm's own unprivileged user (SANDBOX_USER,
 * made on first use by a root controller, as PostgreSQL has its own),
 * with no capability, no_new_privs, an environment built from an
 * allow-list (never a password or the database's conninfo) and resource
 * limits (CPU time, address space, file size, processes; no core).
 * A controller that is not root runs the step as itself under bubblewrap's
 * user namespace.
 *
 * When the machine cannot give the sandbox (bubblewrap missing, no
 * namespaces), sandbox_allow() says so once and refuses the builds of
 * submitted patches unless the operator said --trust-submitters; a build
 * of a base alone (a trusted input) then runs unconfined, its environment
 * scrubbed all the same.  Nothing here prints but that one warning.
 */
#ifndef SCHEDFARM_SANDBOX_H
#define SCHEDFARM_SANDBOX_H

#include <sys/types.h>

#include "run-command.h"
#include "strbuf.h"
#include "strvec.h"

#define SANDBOX_USER "schedfarm"

/*
 * What a confined step may see: host folders bound at their own path, and
 * folders seen at another path (a build layer's merged folders at its
 * tree's own paths, so that every path in the build's command lines is
 * the tree's): pairs FROM, AT.
 */
struct sandbox_paths {
	struct strvec ro; /* read-only (the tree, a fragment file) */
	struct strvec rw; /* writable (make's O= folder) */
	struct strvec ro_at; /* FROM, AT pairs: read-only */
	struct strvec rw_at; /* FROM, AT pairs: writable */
};

#define SANDBOX_PATHS_INIT                                                     \
	{                                                                      \
		STRVEC_INIT, STRVEC_INIT, STRVEC_INIT, STRVEC_INIT             \
	}

void sandbox_paths_release(struct sandbox_paths *p);

/* The operator's --trust-submitters: unconfined builds of patches are
 * allowed where the sandbox cannot be had.  Process-wide. */
void sandbox_set_trust_submitters(int yes);

/*
 * The farm's unprivileged user: its uid and gid, the user made first
 * (useradd --system) when missing.  Only for a root controller: -1 with
 * err otherwise, or when it cannot be made.
 */
int sandbox_user(uid_t *ret_uid, gid_t *ret_gid, struct strbuf *err);

/*
 * Whether confined steps can run here (probed once per process, by
 * running a confined `true`): 1, or 0 with the reason in why.
 */
int sandbox_available(struct strbuf *why);

/*
 * May a build with (has_patches) or without submitted patches run now?
 * 1: confined; 0: unconfined (the sandbox is missing: a base alone, or
 * patches the operator trusts; said once on stderr); -1 with err: patches
 * and no sandbox, refused with the reason and the way out.
 */
int sandbox_allow(int has_patches, struct strbuf *err);

/*
 * Hand a folder the confined steps write (make's O= folder) to the farm's
 * user: chown when the controller is root, nothing otherwise.  The folder
 * must be the controller's own fresh or kept output folder.
 */
int sandbox_give_dir(const char *dir, struct strbuf *err);

/*
 * Open a tree the confined steps read (a build's src) to the farm's user
 * and nobody else: root's, group the farm user's, 0750 (0700 for a
 * controller that is not root, which reads it as itself).  Its own files
 * and folders keep their modes (a kernel tree's are world-readable).
 */
int sandbox_share_dir(const char *dir, struct strbuf *err);

/*
 * The environment of an untrusted child: PATH, HOME, USER and LOGNAME
 * (user), the locale and TZ, and nothing else of the controller's
 * (appended to env as NAME=value).  For steps that run unconfined too,
 * and the local agent.
 */
void sandbox_env(struct strvec *env, const char *home, const char *user);

/*
 * Turn cp (args, env additions, dir) into the same step confined: its
 * argv becomes prlimit ... bwrap ... [setpriv ...] -- ARGV, its
 * environment the allow-list plus cp's own NAME=value additions, and
 * only paths are visible beside the system's.  confined 0: the
 * environment is scrubbed (sandbox_allow() said unconfined), and the
 * folders of ro_at and rw_at, if any, are still seen at their AT paths:
 * the step runs in a private mount namespace of its own (unshare(1),
 * root only) that binds them there first.  0, or -1 with err (a path
 * that cannot be bound).
 */
int sandbox_wrap(struct child_process *cp, const struct sandbox_paths *paths,
		 int confined, struct strbuf *err);

#endif

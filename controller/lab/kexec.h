/*
 * kexec.h - switch a running host to another kernel with kexec, over SSH.
 *
 * A real multi-socket box takes minutes through its firmware for every
 * power cycle; a host that is up on its known-good kernel switches kernels
 * in seconds with kexec (0-day/LKP boot this way).  kexec_switch() checks
 * that the host answers and runs the release it should, copies the kernel
 * image and initrd into a staging folder of its own there (mktemp -d, so
 * no other user's folder is used and nobody else can swap an image
 * between the check and the load), verified by sha256 on the host, loads
 * them with `kexec -l` and the command line, removes the staging folder
 * and executes `kexec -e`.
 * Anything that fails before `kexec -e` leaves the host as it was, and the
 * caller (boot.c) falls back to a power cycle through the BMC; what the new
 * kernel then does is watched on the console like any boot.  The host needs
 * kexec-tools (the farm's guest image has it) and a kernel built with
 * CONFIG_KEXEC.  Nothing here prints.
 */
#ifndef SCHEDFARM_KEXEC_H
#define SCHEDFARM_KEXEC_H

#include <stdint.h>

#include "lab/ssh.h"
#include "strbuf.h"

/*
 * The folder on the host a private staging folder is made in (mktemp -d:
 * a fresh DIR/schedfarm-kexec.XXXXXX, mode 0700, of the SSH user) when
 * the host row names none.  The images go into that staging folder only,
 * never into a folder someone else may have made or may write to, and it
 * is removed once `kexec -l` has read them.
 */
#define KEXEC_DEFAULT_DIR "/tmp"
#define KEXEC_STAGE_PREFIX "schedfarm-kexec."

struct kexec_request {
	const struct ssh_target *ssh; /* the running host */
	/* uname -r the host must report (its known-good kernel's release);
	 * NULL: any. */
	const char *expect_release;
	const char *image; /* the kernel image on this machine (bzImage) */
	const char *initrd; /* on this machine, or NULL */
	const char *cmdline;
	const char *dir; /* on the host, to stage in; NULL: KEXEC_DEFAULT_DIR */
	int timeout_ms; /* each remote step; 0: 60 s */
	int64_t ret_exec_ms; /* out: mono_ms() when `kexec -e` was sent */
};

/*
 * Switch the host to rq's kernel.  0: `kexec -e` was issued and did not
 * come back (the host is starting the new kernel).  -1 with err saying
 * which step failed ("the host does not answer over SSH: ...", "the host
 * runs X, not its known-good kernel Y", "kexec -l refused the image: ...",
 * ...): the host still runs its kernel, or is in a state only a power
 * cycle fixes.  Each step is a line in log.
 */
int kexec_switch(struct kexec_request *rq, struct strbuf *log,
		 struct strbuf *err);

/*
 * The remote command lines kexec_switch() runs around the images, kept
 * apart so that they can be checked without a host.
 *
 * kexec_stage_cmd(): append to cmd the command that makes the staging
 * folder in dir and prints its path (mktemp -d, the template quoted).
 * kexec_stage_parse(): take the path mktemp printed (out, its newline
 * allowed) into ret_path: 0 when it is one line naming
 * dir/KEXEC_STAGE_PREFIX and six or more letters or digits, else -1 with
 * err (the path is used in later commands, so nothing else is taken).
 * kexec_cleanup_cmd(): append the command that removes the staging
 * folder stage (rm -rf, stage quoted).
 */
void kexec_stage_cmd(const char *dir, struct strbuf *cmd);
int kexec_stage_parse(const char *dir, const char *out, struct strbuf *ret_path,
		      struct strbuf *err);
void kexec_cleanup_cmd(const char *stage, struct strbuf *cmd);

#endif

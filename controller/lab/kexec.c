/*
 * kexec.c - kexec over SSH; see kexec.h.  The host is reached only
 * through ssh.h (libssh, its known_hosts enforced).
 */
#include <string.h>

#include "lab/kexec.h"
#include "run-command.h"
#include "time-util.h"
#include "banned.h"

#define KEXEC_IMAGE_MAX (512u << 20)
/* How long `kexec -e` must stay silent to count as gone into the new
 * kernel: a refusal comes back at once with an exit status. */
#define KEXEC_EXEC_GRACE_MS 3000

/* The sha256 of a file on this machine (sha256sum, as build.c does). */
static int local_sha256(const char *path, struct strbuf *ret,
			struct strbuf *err)
{
	const char *argv[] = { "sha256sum", "--", path, NULL };
	struct strbuf out = STRBUF_INIT;
	int r = run_capture(argv, 600000, &out, err);

	if (!r && out.len < 64) {
		strbuf_addf(err, "sha256sum printed no digest for %s", path);
		r = -1;
	}
	if (!r)
		strbuf_add(ret, out.buf, 64);
	strbuf_release(&out);
	return r;
}

void kexec_stage_cmd(const char *dir, struct strbuf *cmd)
{
	struct strbuf tmpl = STRBUF_INIT;

	strbuf_addf(&tmpl, "%s/%sXXXXXX", dir, KEXEC_STAGE_PREFIX);
	strbuf_addstr(cmd, "mktemp -d ");
	ssh_quote(cmd, tmpl.buf);
	strbuf_release(&tmpl);
}

int kexec_stage_parse(const char *dir, const char *out, struct strbuf *ret_path,
		      struct strbuf *err)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t dlen = strlen(dir), plen = strlen(KEXEC_STAGE_PREFIX);
	size_t len = strcspn(out, "\n"), head = dlen + 1 + plen;

	strbuf_reset(ret_path);
	if ((out[len] && out[len + 1]) || len < head + 6 ||
	    strncmp(out, dir, dlen) || out[dlen] != '/' ||
	    strncmp(out + dlen + 1, KEXEC_STAGE_PREFIX, plen) ||
	    strspn(out + head, alnum) != len - head) {
		strbuf_addf(err,
			    "making the staging folder: mktemp -d printed "
			    "no folder in %.200s",
			    dir);
		return -1;
	}
	strbuf_add(ret_path, out, len);
	return 0;
}

void kexec_cleanup_cmd(const char *stage, struct strbuf *cmd)
{
	strbuf_addstr(cmd, "rm -rf -- ");
	ssh_quote(cmd, stage);
}

/* Run cmd on c; its stdout in out.  On failure err says what step did. */
static int remote(struct ssh_conn *c, const char *step, const char *cmd,
		  int timeout_ms, struct strbuf *out, struct strbuf *err)
{
	struct strbuf se = STRBUF_INIT, e = STRBUF_INIT;
	int status = -1, r;

	r = ssh_run(c, cmd, NULL, 0, timeout_ms, 1u << 20, out, &se, &status,
		    NULL, &e);
	if (r < 0) {
		/* kexec -l follows its one-line reason with a dump of its
		 * segments: the reason is what a person needs. */
		char *nl;

		strbuf_trim(&se);
		nl = strchr(se.buf, '\n');
		if (nl)
			strbuf_setlen(&se, (size_t)(nl - se.buf));
		strbuf_addf(err, "%s: %.300s", step, se.len ? se.buf : e.buf);
	}
	strbuf_release(&se);
	strbuf_release(&e);
	return r;
}

/* Copy path to the host as remote, and check it arrived whole. */
static int put_verified(struct ssh_conn *c, const char *path,
			const char *remote_path, int timeout_ms,
			struct strbuf *log, struct strbuf *err)
{
	struct strbuf data = STRBUF_INIT, sum = STRBUF_INIT, cmd = STRBUF_INIT,
		      out = STRBUF_INIT;
	int64_t t0 = mono_ms();
	int r = -1;

	if (strbuf_read_file(&data, path, KEXEC_IMAGE_MAX) < 0) {
		strbuf_addf(err, "cannot read %s (or it is over %u MiB)", path,
			    KEXEC_IMAGE_MAX >> 20);
		goto out;
	}
	if (local_sha256(path, &sum, err) < 0)
		goto out;
	if (ssh_put_file(c, remote_path, data.buf, data.len, 0600, timeout_ms,
			 &out) < 0) {
		strbuf_addf(err, "copying %s to the host: %s", path, out.buf);
		goto out;
	}
	strbuf_addstr(&cmd, "sha256sum ");
	ssh_quote(&cmd, remote_path);
	if (remote(c, "checking the copy", cmd.buf, timeout_ms, &out, err) < 0)
		goto out;
	if (out.len < 64 || memcmp(out.buf, sum.buf, 64)) {
		strbuf_addf(err,
			    "the copy of %s on the host is corrupt (sha256 "
			    "%.64s, expected %s)",
			    path, out.len >= 64 ? out.buf : "none", sum.buf);
		goto out;
	}
	strbuf_addf(log,
		    "kexec: %s copied to %s (%zu bytes, sha256 %.16s...) "
		    "in %.1f s\n",
		    path, remote_path, data.len, sum.buf,
		    (double)(mono_ms() - t0) / 1000.0);
	r = 0;
out:
	strbuf_release(&data);
	strbuf_release(&sum);
	strbuf_release(&cmd);
	strbuf_release(&out);
	return r;
}

/*
 * Remove the staging folder *stage on the host (and forget it): a failure
 * is a line in log, not the switch's failure, since the images in it
 * are no use to anyone else (the folder is the SSH user's, mode 0700).
 */
static void remove_stage(struct ssh_conn *c, struct strbuf *stage, int tmo,
			 struct strbuf *log)
{
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT, e = STRBUF_INIT;

	/* Not the long copy timeout: a host that dropped the connection
	 * must not hold up the power cycle that follows. */
	if (tmo > 10000)
		tmo = 10000;
	kexec_cleanup_cmd(stage->buf, &cmd);
	if (remote(c, "removing the staging folder", cmd.buf, tmo, &out, &e) <
	    0)
		strbuf_addf(log, "kexec: warning: %s\n", e.buf);
	strbuf_reset(stage);
	strbuf_release(&cmd);
	strbuf_release(&out);
	strbuf_release(&e);
}

/*
 * `kexec -e` on its own channel: a refusal exits at once with a status
 * and a message; success never returns (the host is gone into the new
 * kernel), so silence for KEXEC_EXEC_GRACE_MS, or a connection that drops,
 * means it went.
 */
static int exec_loaded(struct ssh_conn *c, int64_t *ret_exec_ms,
		       struct strbuf *err)
{
	struct ssh_exec *e = NULL;
	struct strbuf out = STRBUF_INIT, e2 = STRBUF_INIT;
	int64_t end = mono_ms() + KEXEC_EXEC_GRACE_MS;
	int status = -1, r = 0, rd = 0;

	*ret_exec_ms = mono_ms();
	if (ssh_exec_start(c, "kexec -e", &e, err) < 0)
		return -1;
	while (mono_ms() < end) {
		rd = ssh_exec_read(e, &out, 200, &e2);
		if (rd == 2 || rd < 0)
			break;
	}
	if (rd == 2) {
		/* Its stdout ended: it is exiting, so it failed. */
		strbuf_addf(err,
			    "kexec -e came back: the kernel refused to "
			    "execute the loaded image (%.200s)",
			    ssh_exec_stderr(e));
		ssh_exec_end(e, &status);
		e = NULL;
		r = -1;
	}
	if (e) {
		/* Gone, or going: do not wait for an exit status that will
		 * never come. */
		ssh_exec_end(e, &status);
	}
	strbuf_release(&out);
	strbuf_release(&e2);
	return r;
}

int kexec_switch(struct kexec_request *rq, struct strbuf *log,
		 struct strbuf *err)
{
	const char *dir = rq->dir ? rq->dir : KEXEC_DEFAULT_DIR;
	int tmo = rq->timeout_ms > 0 ? rq->timeout_ms : 60000;
	struct ssh_target t = *rq->ssh;
	struct strbuf out = STRBUF_INIT, cmd = STRBUF_INIT, kpath = STRBUF_INIT,
		      ipath = STRBUF_INIT, stage = STRBUF_INIT, e = STRBUF_INIT;
	struct ssh_conn *c = NULL;
	int r = -1;

	if (!rq->image) {
		strbuf_addstr(err, "the kernel has no image to kexec");
		return -1;
	}
	/* A host that is off or hung must not cost the boot its whole SSH
	 * timeout: the power cycle is waiting. */
	if (!t.connect_timeout_ms || t.connect_timeout_ms > 10000)
		t.connect_timeout_ms = 10000;
	if (ssh_open(&t, &c, NULL, &e) < 0) {
		strbuf_addf(err, "the host does not answer over SSH: %s",
			    e.buf);
		goto out;
	}
	if (remote(c, "asking the host", "uname -r; command -v kexec || true",
		   tmo, &out, err) < 0)
		goto out;
	{
		char *nl = strchr(out.buf, '\n');
		const char *rel = out.buf;

		if (nl)
			*nl = '\0';
		if (rq->expect_release && strcmp(rel, rq->expect_release)) {
			strbuf_addf(err,
				    "the host runs %s, not its known-good "
				    "kernel %s",
				    rel, rq->expect_release);
			goto out;
		}
		if (!nl || !strstr(nl + 1, "kexec")) {
			strbuf_addf(err,
				    "the host (on %s) has no kexec: install "
				    "kexec-tools there",
				    rel);
			goto out;
		}
		strbuf_addf(log, "kexec: the host is up on %s\n", rel);
	}
	/* A folder of its own, made fresh (mktemp -d: mode 0700, never one
	 * that was there): nobody else can plant or swap an image in it
	 * between the sha256 check and kexec -l. */
	kexec_stage_cmd(dir, &cmd);
	strbuf_reset(&out);
	if (remote(c, "making the staging folder", cmd.buf, tmo, &out, err) <
		    0 ||
	    kexec_stage_parse(dir, out.buf, &stage, err) < 0)
		goto out;
	strbuf_addf(log, "kexec: staging in %s\n", stage.buf);
	strbuf_addf(&kpath, "%s/kernel", stage.buf);
	strbuf_addf(&ipath, "%s/initrd", stage.buf);
	if (put_verified(c, rq->image, kpath.buf, tmo, log, err) < 0 ||
	    (rq->initrd &&
	     put_verified(c, rq->initrd, ipath.buf, tmo, log, err) < 0))
		goto out;
	strbuf_reset(&cmd);
	strbuf_addstr(&cmd, "kexec -l ");
	ssh_quote(&cmd, kpath.buf);
	if (rq->initrd) {
		strbuf_addstr(&cmd, " --initrd=");
		ssh_quote(&cmd, ipath.buf);
	}
	strbuf_addstr(&cmd, " --command-line=");
	ssh_quote(&cmd, rq->cmdline ? rq->cmdline : "");
	strbuf_reset(&out);
	if (remote(c, "kexec -l refused the image", cmd.buf, tmo, &out, err) <
	    0)
		goto out;
	strbuf_addstr(log, "kexec: image loaded (kexec -l)\n");
	/* The kernel holds the images now: remove them before kexec -e,
	 * after which the host no longer answers. */
	remove_stage(c, &stage, tmo, log);
	if (exec_loaded(c, &rq->ret_exec_ms, err) < 0)
		goto out;
	strbuf_addstr(log, "kexec: kexec -e issued\n");
	r = 0;
out:
	if (c && stage.len)
		remove_stage(c, &stage, tmo, log);
	ssh_close(c);
	strbuf_release(&out);
	strbuf_release(&cmd);
	strbuf_release(&kpath);
	strbuf_release(&ipath);
	strbuf_release(&stage);
	strbuf_release(&e);
	return r;
}

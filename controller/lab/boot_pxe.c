/*
 * boot_pxe.c - the power phase every kind behind a BMC shares (ipmi; a
 * Redfish kind the same way): the BMC asked first, the kind's console
 * capture started, then -- when the host is on and answers SSH on its
 * known-good kernel -- kexec into the new kernel (kexec.h), else the PXE
 * script, the kind's one-time PXE override and its power cycle (or power
 * on).  A kexec that fails before `kexec -e` falls back to the power
 * cycle; why is kept in boots.fallback.  The kind's BMC is reached only
 * through its struct boot_bmc_ops; the host only through ssh.h.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "lab/boot-int.h"
#include "fs.h"
#include "lab/kexec.h"
#include "time-util.h"
#include "banned.h"

static uint64_t console_size(const char *path)
{
	struct stat st;

	return !stat(path, &st) ? (uint64_t)st.st_size : 0;
}

/*
 * PXE: write TFTP_DIR/NAME.ipxe, an iPXE script that loads
 * tftp://SERVER/NAME.kernel and NAME.initrd (copied there) with cmdline.
 * server is the TFTP server's address as the host sees it.
 */
static int pxe_write_script(const char *tftp_dir, const char *name,
			    const char *server, const char *kernel,
			    const char *initrd, const char *cmdline,
			    struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT, body = STRBUF_INIT;
	int r = -1;

	if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789-_.") != strlen(name) ||
	    name[0] == '.') {
		strbuf_addf(err, "host name '%s' cannot name a PXE file", name);
		return -1;
	}
	if (strchr(cmdline, '\n') || strchr(server, '\n')) {
		strbuf_addstr(err, "a kernel command line is one line");
		return -1;
	}
	strbuf_addf(&p, "%s/%s.kernel", tftp_dir, name);
	if (copy_file_atomic(kernel, p.buf, 0644, 0, err) < 0)
		goto out;
	strbuf_addf(&body, "#!ipxe\nkernel tftp://%s/%s.kernel %s\n", server,
		    name, cmdline);
	if (initrd) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s.initrd", tftp_dir, name);
		if (copy_file_atomic(initrd, p.buf, 0644, 0, err) < 0)
			goto out;
		strbuf_addf(&body, "initrd tftp://%s/%s.initrd\n", server,
			    name);
	}
	strbuf_addstr(&body, "boot\n");
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/%s.ipxe", tftp_dir, name);
	/* The TFTP server (another user) reads all three. */
	r = write_file_atomic(p.buf, body.buf, body.len, 0644, 0, err);
out:
	strbuf_release(&p);
	strbuf_release(&body);
	return r;
}

/*
 * Try kexec: 1 when `kexec -e` went (the console offset noted before it,
 * times counted from it), 0 when the power cycle must do it (why in
 * res->fallback, or nothing when kexec was not for this boot), -1 never.
 */
static int try_kexec(struct boot_ctx *c, int on, const char *cmdline,
		     uint64_t *ret_offset)
{
	struct boot_result *res = c->res;
	struct kexec_request rq;
	struct ssh_target st;
	struct strbuf log = STRBUF_INIT, e = STRBUF_INIT;
	int64_t off = 0;
	int r = 0;

	/* Off: the power cycle is the way, and nothing failed. */
	if (!c->kexec || !c->known_good || !c->known_good_release || !on)
		return 0;
	memset(&st, 0, sizeof(st));
	st.address = res->ssh_addr;
	st.port = res->ssh_port;
	st.user = res->ssh_user;
	st.key_file = res->key_file;
	st.known_hosts = res->known_hosts;
	memset(&rq, 0, sizeof(rq));
	rq.ssh = &st;
	rq.expect_release = c->known_good_release;
	rq.image = c->kernel_image;
	rq.initrd = c->kernel_initrd ? c->kernel_initrd
				     : boot_cfg_str(c, "initrd", NULL);
	rq.cmdline = cmdline;
	rq.dir = boot_cfg_str(c, "kexec_dir", NULL);
	rq.timeout_ms =
		(int)boot_cfg_i64(c, "kexec_timeout_ms", 1000, 3600000, 120000);
	boot_event(c, "kexec: the host is on; switching it to %s over SSH",
		   c->kernel_name);
	/* The new kernel's first line may come before kexec_switch()
	 * returns: everything after this point is the new boot. */
	off = (int64_t)console_size(res->console_path);
	if (kexec_switch(&rq, &log, &e) == 0) {
		*ret_offset = (uint64_t)off;
		c->origin = rq.ret_exec_ms;
		c->method = "kexec";
		r = 1;
	} else {
		res->fallback = strbuf_detach(&e, NULL);
	}
	for (char *line = log.buf, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		boot_event(c, "%s", line);
	}
	if (!r)
		boot_event(c, "kexec failed: %s; falling back to a power cycle",
			   res->fallback);
	strbuf_release(&log);
	strbuf_release(&e);
	return r;
}

/* Power on, or cycle a machine that is on, recorded as a power operation. */
static int power_up(struct db *db, struct boot_ctx *c,
		    const struct boot_bmc_ops *ops, struct strbuf *err)
{
	struct boot_result *res = c->res;
	int on, r;
	int64_t op;

	if (ops->power_status(c, &on, err) < 0)
		return -1;
	c->origin = mono_ms();
	if (on) {
		op = boot_power_op_begin(db, res, "cycle");
		boot_event(c, "BMC %s:%d: power is on; cycling",
			   res->bmc_address, res->bmc_port);
		r = ops->power_cycle(c, err);
	} else {
		op = boot_power_op_begin(db, res, "on");
		r = ops->power_on(c, err);
	}
	boot_power_op_end(db, op, r, err);
	if (r < 0)
		return -1;
	boot_event(c, "BMC %s:%d: power on confirmed", res->bmc_address,
		   res->bmc_port);
	return 0;
}

int boot_bmc_pxe(struct db *db, struct boot_ctx *c, const char *cmdline,
		 const struct boot_bmc_ops *ops, uint64_t *ret_offset,
		 struct strbuf *err)
{
	struct boot_result *res = c->res;
	const char *tftp = boot_cfg_str(c, "tftp_dir", NULL);
	const char *server = boot_cfg_str(c, "tftp_server", "10.0.2.2");
	const char *initrd = c->kernel_initrd ? c->kernel_initrd
					      : boot_cfg_str(c, "initrd", NULL);
	int on;

	if (!tftp) {
		strbuf_addf(err, "host %s has no boot_config.tftp_dir",
			    res->host_name);
		return -1;
	}
	if (!c->kernel_image) {
		strbuf_addf(err, "kernel %s has no image for PXE",
			    c->kernel_name);
		return -1;
	}
	/* The BMC first: one that does not answer is retried here, and is
	 * the host's failure before anything else is tried. */
	if (ops->power_status(c, &on, err) < 0)
		return -1;
	if (ops->console_start && ops->console_start(c, err) < 0)
		return -1;
	if (try_kexec(c, on, cmdline, ret_offset) == 1)
		return 0;
	if (pxe_write_script(tftp, res->host_name, server, c->kernel_image,
			     initrd, cmdline, err) < 0)
		return -1;
	boot_event(c, "PXE script %s/%s.ipxe written", tftp, res->host_name);
	*ret_offset = console_size(res->console_path);
	if (ops->pxe_next(c, err) < 0)
		return -1;
	return power_up(db, c, ops, err);
}

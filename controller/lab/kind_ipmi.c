/*
 * kind_ipmi.c - the power phase of an IPMI host's boot; see boot.h.
 *
 * In order: the console (Serial-over-LAN through sol.h, unless the host
 * row names a console log file a lab console server writes), then -- when
 * the BMC says the host is on and the host answers SSH on its known-good
 * kernel -- kexec into the new kernel (kexec.h), else the PXE script, the
 * BMC's boot device and a power cycle.  A kexec that fails before `kexec
 * -e` falls back to the power cycle; why is kept in boots.fallback.
 * ipmitool is reached only through ipmi.h, the host only through ssh.h.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "lab/boot-int.h"
#include "lab/ipmi.h"
#include "lab/kexec.h"
#include "lab/sol.h"
#include "time-util.h"
#include "banned.h"

static uint64_t console_size(const char *path)
{
	struct stat st;

	return !stat(path, &st) ? (uint64_t)st.st_size : 0;
}

/*
 * The console of an IPMI boot: a SOL capture into res->console_path
 * (boot.c named it in the state folder's console/), started before any
 * power change so the capture runs from power-on (or from the kexec) to
 * power-off.  A host with boot_config.console_log is read from that file.
 */
static int start_console(struct boot_ctx *c, struct strbuf *err)
{
	struct boot_result *res = c->res;
	struct ipmi_target t;

	if (!c->use_sol)
		return 0;
	boot_ipmi_target_of(res, &t);
	if (sol_open(&t, res->console_path, &res->sol, err) < 0) {
		strbuf_addstr(err, " (the Serial-over-LAN console)");
		return -1;
	}
	boot_event(c, "console: Serial-over-LAN from BMC %s:%d into %s",
		   t.address, t.port, res->console_path);
	return 0;
}

/*
 * Try kexec: 1 when `kexec -e` went (the console offset noted before it,
 * times counted from it), 0 when the power cycle must do it (why in
 * res->fallback, or nothing when kexec was not for this boot), -1 never.
 */
static int try_kexec(struct boot_ctx *c, enum ipmi_power p, const char *cmdline,
		     uint64_t *ret_offset)
{
	struct boot_result *res = c->res;
	struct kexec_request rq;
	struct ssh_target st;
	struct strbuf log = STRBUF_INIT, e = STRBUF_INIT;
	int64_t off = 0;
	int r = 0;

	/* Off: the power cycle is the way, and nothing failed. */
	if (!c->kexec || !c->known_good || !c->known_good_release ||
	    p != IPMI_POWER_ON)
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

/*
 * `chassis bootdev pxe` as the host row says (hosts.bmc_bootdev): a BMC
 * that refuses it fails the boot, unless the row says the BMC does not
 * support it; then the refusal is a warning and the machine's boot order
 * must do.
 */
static int set_bootdev(struct boot_ctx *c, const struct ipmi_target *t,
		       struct strbuf *err)
{
	int efi = !strcmp(c->bmc_bootdev, "pxe-efi");
	int b;

	if (!strcmp(boot_cfg_str(c, "bootdev", "pxe"), "none")) {
		boot_event(c,
			   "BMC %s:%d: no bootdev sent (boot_config.bootdev "
			   "is none)",
			   t->address, t->port);
		return 0;
	}
	b = ipmi_bootdev(t, "pxe", efi, err);
	if (b == IPMI_REFUSED && !strcmp(c->bmc_bootdev, "unsupported")) {
		boot_event(c,
			   "warning: %s (the host row says this BMC does not "
			   "support bootdev pxe); relying on the host's boot "
			   "order",
			   err->buf);
		strbuf_reset(err);
		return 0;
	}
	if (b == IPMI_REFUSED) {
		strbuf_addstr(err, " (bootdev pxe; if this BMC never takes it, "
				   "say so with `schedfarm host set NAME "
				   "--bmc-bootdev unsupported`)");
		return -1;
	}
	if (b < 0)
		return -1;
	boot_event(c, "BMC %s:%d: next boot from pxe%s", t->address, t->port,
		   efi ? " (options=efiboot)" : "");
	return 0;
}

int boot_power_ipmi(struct db *db, struct boot_ctx *c, const char *cmdline,
		    uint64_t *ret_offset, struct strbuf *err)
{
	struct boot_result *res = c->res;
	const char *tftp = boot_cfg_str(c, "tftp_dir", NULL);
	const char *server = boot_cfg_str(c, "tftp_server", "10.0.2.2");
	const char *initrd = c->kernel_initrd ? c->kernel_initrd
					      : boot_cfg_str(c, "initrd", NULL);
	struct ipmi_target t;
	enum ipmi_power p;

	boot_ipmi_target_of(res, &t);
	/* The plan's power limit bounds each BMC operation: a third of it
	 * per call (three tries), all of it for the confirm. */
	if (c->req->power_ms > 0) {
		int64_t lim =
			c->req->power_ms > 3600000 ? 3600000 : c->req->power_ms;

		t.confirm_timeout_ms = (int)lim;
		if (lim / 3 < 10000)
			t.call_timeout_ms =
				(int)(lim / 3 > 1000 ? lim / 3 : 1000);
	}
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
	if (ipmi_power_status(&t, &p, err) < 0)
		return -1;
	if (start_console(c, err) < 0)
		return -1;
	if (try_kexec(c, p, cmdline, ret_offset) == 1)
		return 0;
	if (ipmi_write_pxe(tftp, res->host_name, server, c->kernel_image,
			   initrd, cmdline, err) < 0)
		return -1;
	boot_event(c, "PXE script %s/%s.ipxe written", tftp, res->host_name);
	*ret_offset = console_size(res->console_path);
	if (set_bootdev(c, &t, err) < 0)
		return -1;
	if (ipmi_power_status(&t, &p, err) < 0)
		return -1;
	c->origin = mono_ms();
	if (p == IPMI_POWER_ON) {
		int64_t op = boot_power_op_begin(db, res, "cycle");
		int r;

		boot_event(c, "BMC %s:%d: power is on; cycling", t.address,
			   t.port);
		r = ipmi_power_cycle(&t, err);
		boot_power_op_end(db, op, r, err);
		if (r < 0)
			return -1;
	} else {
		int64_t op = boot_power_op_begin(db, res, "on");
		int r = ipmi_power_set(&t, IPMI_POWER_ON, NULL, err);

		boot_power_op_end(db, op, r, err);
		if (r < 0)
			return -1;
	}
	boot_event(c, "BMC %s:%d: power on confirmed", t.address, t.port);
	return 0;
}

/* Keep the SOL capture alive while the boot watches; see boot-int.h. */
void boot_ipmi_console_check(struct boot_ctx *c)
{
	struct strbuf e = STRBUF_INIT;
	int before;

	if (!c->res->sol)
		return;
	before = sol_reopened(c->res->sol);
	if (sol_check(c->res->sol, &e) < 0)
		boot_event(c, "console: %s", e.buf);
	else if (sol_reopened(c->res->sol) != before)
		boot_event(c, "console: the SOL session was reopened");
	strbuf_release(&e);
}

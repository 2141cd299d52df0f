/*
 * kind_ipmi.c - the ipmi host kind: a machine behind a BMC that speaks
 * IPMI (ipmitool -I lanplus, through ipmi.h).  Its console is the BMC's
 * Serial-over-LAN (sol.h), captured from power-on to power-off, unless the
 * host row names a console log file a lab console server writes
 * (boot_config.console_log); it switches kernels by kexec unless
 * boot_config.kexec is false.  The boot itself is boot_pxe.c's, shared by
 * every BMC kind: this file gives it the BMC's power, boot device and
 * console (struct boot_bmc_ops).
 */
#include <string.h>

#include "json.h"
#include "lab/boot-int.h"
#include "lab/host_kind.h"
#include "lab/ipmi.h"
#include "lab/sol.h"
#include "banned.h"

/* The BMC of the host res was read from. */
static void target_of(const struct boot_result *res, struct ipmi_target *t)
{
	memset(t, 0, sizeof(*t));
	t->address = res->bmc_address;
	t->port = res->bmc_port;
	t->user = res->bmc_user;
	t->password_file = res->bmc_password_file;
	t->lock_dir = res->bmc_lock_dir;
}

/* The BMC as a boot calls it: the plan's power limit bounds each BMC
 * operation, a third of it per call (three tries), all of it for the
 * confirm. */
static void boot_target(struct boot_ctx *c, struct ipmi_target *t)
{
	target_of(c->res, t);
	if (c->req->power_ms > 0) {
		int64_t lim =
			c->req->power_ms > 3600000 ? 3600000 : c->req->power_ms;

		t->confirm_timeout_ms = (int)lim;
		if (lim / 3 < 10000)
			t->call_timeout_ms =
				(int)(lim / 3 > 1000 ? lim / 3 : 1000);
	}
}

static int prepare(struct boot_ctx *c, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;
	int v = 1;

	(void)err;
	c->use_sol = !boot_cfg_str(c, "console_log", NULL);
	if (json_get_bool(c->cfg, "kexec", &v, &e) < 0)
		v = 1;
	c->kexec = v;
	strbuf_release(&e);
	c->capture_console = c->use_sol;
	c->needs_locks = 1;
	return 0;
}

static int power_status(struct boot_ctx *c, int *ret_on, struct strbuf *err)
{
	struct ipmi_target t;
	enum ipmi_power p;

	boot_target(c, &t);
	if (ipmi_power_status(&t, &p, err) < 0)
		return -1;
	*ret_on = p == IPMI_POWER_ON;
	return 0;
}

/*
 * The console of an IPMI boot: a SOL capture into res->console_path
 * (boot.c named it in the state folder's console/), started before any
 * power change so the capture runs from power-on (or from the kexec) to
 * power-off.  A host with boot_config.console_log is read from that file.
 */
static int console_start(struct boot_ctx *c, struct strbuf *err)
{
	struct boot_result *res = c->res;
	struct sol_console *sol = NULL;
	struct ipmi_target t;

	if (!c->use_sol)
		return 0;
	target_of(res, &t);
	if (sol_open(&t, res->console_path, &sol, err) < 0) {
		strbuf_addstr(err, " (the Serial-over-LAN console)");
		return -1;
	}
	res->kind_data = sol;
	boot_event(c, "console: Serial-over-LAN from BMC %s:%d into %s",
		   t.address, t.port, res->console_path);
	return 0;
}

/*
 * `chassis bootdev pxe` as the host row says (hosts.bmc_bootdev): a BMC
 * that refuses it fails the boot, unless the row says the BMC does not
 * support it; then the refusal is a warning and the machine's boot order
 * must do.
 */
static int pxe_next(struct boot_ctx *c, struct strbuf *err)
{
	int efi = !strcmp(c->bmc_bootdev, "pxe-efi");
	struct ipmi_target t;
	int b;

	boot_target(c, &t);
	if (!strcmp(boot_cfg_str(c, "bootdev", "pxe"), "none")) {
		boot_event(c,
			   "BMC %s:%d: no bootdev sent (boot_config.bootdev "
			   "is none)",
			   t.address, t.port);
		return 0;
	}
	b = ipmi_bootdev(&t, "pxe", efi, err);
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
	boot_event(c, "BMC %s:%d: next boot from pxe%s", t.address, t.port,
		   efi ? " (options=efiboot)" : "");
	return 0;
}

static int bmc_power_on(struct boot_ctx *c, struct strbuf *err)
{
	struct ipmi_target t;

	boot_target(c, &t);
	return ipmi_power_set(&t, IPMI_POWER_ON, NULL, err);
}

static int bmc_power_cycle(struct boot_ctx *c, struct strbuf *err)
{
	struct ipmi_target t;

	boot_target(c, &t);
	return ipmi_power_cycle(&t, err);
}

static const struct boot_bmc_ops ipmi_bmc = {
	.power_status = power_status,
	.console_start = console_start,
	.pxe_next = pxe_next,
	.power_on = bmc_power_on,
	.power_cycle = bmc_power_cycle,
};

static int power_on(struct db *db, struct boot_ctx *c, const char *cmdline,
		    uint64_t *ret_offset, struct strbuf *err)
{
	return boot_bmc_pxe(db, c, cmdline, &ipmi_bmc, ret_offset, err);
}

/* Keep the SOL capture alive; see host_kind.h. */
static void console_keep(struct boot_result *res, struct strbuf *note)
{
	struct sol_console *sol = res->kind_data;
	struct strbuf e = STRBUF_INIT;
	int before;

	if (!sol)
		return;
	before = sol_reopened(sol);
	if (sol_check(sol, &e) < 0)
		strbuf_addf(note, "console: %s", e.buf);
	else if (sol_reopened(sol) != before)
		strbuf_addstr(note, "console: the SOL session was reopened");
	strbuf_release(&e);
}

static void release(struct boot_result *res)
{
	sol_close(res->kind_data);
	res->kind_data = NULL;
}

static int power_off(struct db *db, struct boot_result *res,
		     enum host_kind_off why, struct strbuf *err)
{
	struct ipmi_target t;
	int64_t op = boot_power_op_begin(db, res, "off");
	int r;

	target_of(res, &t);
	if (why == HOST_KIND_OFF_FAILED)
		t.tries = 2;
	r = ipmi_power_set(&t, IPMI_POWER_OFF, NULL, err);
	boot_power_op_end(db, op, r, err);
	/* From power-on to power-off: the capture ends here. */
	release(res);
	return r;
}

const struct host_kind kind_ipmi = {
	.name = "ipmi",
	.boots = 1,
	.boot_method = "ipmi-pxe",
	.bmc_port = 623,
	.boot_prepare = prepare,
	.power_on = power_on,
	.console_keep = console_keep,
	.power_off = power_off,
	.release = release,
};

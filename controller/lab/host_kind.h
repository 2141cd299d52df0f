/*
 * host_kind.h - the host kinds as a table: one `struct host_kind` per kind
 * of machine the farm drives, each in a file of its own (lab/kind_<name>.c),
 * listed once in lab/host_kind.c.  Everything that depends on a host's kind
 * asks the table: `host add` (which kinds exist, which fields each needs,
 * whether the agent is asked for the host's facts), the job path (whether
 * the kind builds and boots the job's kernel: job/jobexec.c), the runner
 * (local or over SSH), the boot driver (lab/boot.c: the power phase, the
 * console, power-off), the sweep of what dead controllers left on.  The
 * folders below lab/ (store/, plan/) get the names and which kinds boot
 * through common/kind_names.h, which host_kind_publish() fills.
 *
 * Adding a kind: write lab/kind_<name>.c defining
 * `const struct host_kind kind_<name> = { ... };` and add it to the table
 * in lab/host_kind.c (its declaration and its entry).  Nothing else:
 * hosts.kind and boots.method have no CHECK listing kinds (schema 015),
 * `host add --kind`, plans' host.kind and the queue ask the table.
 *
 * A kind that boots (.boots = 1) gets the whole boot path for free: the
 * build of the job's kernel, the boots rows, the console scan (a panic,
 * the "Linux version" line, the agent's beacon), SSH, the health rules,
 * hang retries, the known-good check after a failed boot (job/host_check.c
 * and job/boot_job.c are kind-blind).  It supplies only the hooks below;
 * they get a `struct boot_ctx` (lab/boot-int.h: the host and kernel rows,
 * boot_config parsed) and may call the shared steps declared there
 * (boot_event(), boot_cfg_str(), boot_power_op_begin()/_end(),
 * boot_pump_console(), and for machines behind a BMC boot_bmc_pxe(): kexec
 * when the host is up on its known-good kernel, else the PXE script, the
 * kind's one-time PXE override and its power on or cycle).  The hooks
 * never call boot.c's driver functions (boot_host(), boot_power_off()):
 * the driver calls the hooks, the hooks call the steps, never both ways.
 */
#ifndef SCHEDFARM_HOST_KIND_H
#define SCHEDFARM_HOST_KIND_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

struct boot_ctx;
struct boot_result;
struct host_fields;

/* Why a booted host is powered off (the power_off hook). */
enum host_kind_off {
	/* The boot was used (the plan ran, or the check passed) or stopped:
	 * off for good, politely first when the kind can (libvirt: the
	 * guest's `poweroff -f`), confirmed; err says why not. */
	HOST_KIND_OFF_DONE,
	/* The boot failed: off at once, best effort (the failure is already
	 * the error to report; a BMC call gets fewer tries). */
	HOST_KIND_OFF_FAILED,
	/* The sweep: a host a dead controller left on.  res holds only the
	 * host row (no boot, no console capture, no domain); confirmed. */
	HOST_KIND_OFF_SWEEP,
};

struct host_kind {
	/* hosts.kind: a word; listed by `host add --kind`, plans' host.kind. */
	const char *name;
	/* 1: the job's kernel is built and booted on every boot round
	 * (build and boot phases, boots rows); 0: the host runs the kernel
	 * it has, and the plan's boot rounds are repetitions. */
	int boots;
	/* 1: the agent runs on the controller's own machine (no SSH; the
	 * run files in the state folder).  0: it is reached over SSH. */
	int local;
	/* 1: `host add` asks the agent for the host's facts (topology)
	 * before the row is committed (unless --no-contact).  Kinds that
	 * boot cannot be asked before a boot: their numbers come by hand. */
	int contact_at_add;
	/* boots.method of a boot that powers the machine on ("libvirt",
	 * "ipmi-pxe"); a boot that switched kernels by kexec says "kexec"
	 * whatever the kind.  NULL for kinds that do not boot. */
	const char *boot_method;
	/* The BMC's port when the host row gives none (res->bmc_port):
	 * ipmi 623; 0: 623 as well (kinds without a BMC ignore it). */
	int bmc_port;

	/*
	 * `host add` (adding 1: f->kind is this kind) and `host set`
	 * (adding 0: only the fields given are set): refuse fields this kind
	 * cannot use or lacks.  0, or -1 with a one-line reason in err (the
	 * verb makes it a usage error).  NULL: anything goes.
	 */
	int (*check_fields)(const struct host_fields *f, int adding,
			    struct strbuf *err);

	/* ---- kinds that boot (boots = 1): all but release required ---- */

	/*
	 * Before anything of the boot happens, the host row read: decide
	 * from boot_config (c->cfg; boot_cfg_str()) what this boot needs:
	 * c->capture_console = 1 when the kind writes the console into a
	 * file of the state folder's console/ (the driver names it
	 * res->console_path = HOME/console/boot-ID.log before power_on);
	 * 0 when it is read from a file someone else writes
	 * (boot_config.console_log, a lab console server's), or there is
	 * none (then boot_config.console_log is required: the boot is
	 * watched through its console).  c->needs_locks = 1 when the kind
	 * serialises calls to a BMC through lock files (res->bmc_lock_dir,
	 * the state folder's locks/).  0, or -1 with err (the host's fault).
	 */
	int (*boot_prepare)(struct boot_ctx *c, struct strbuf *err);

	/*
	 * The power phase: start the console capture (when
	 * capture_console), put cmdline and the kernel (c->kernel_image,
	 * _vmlinux, _initrd) where the machine boots it from, and power it
	 * on (or cycle it); each power operation recorded with
	 * boot_power_op_begin()/_end() before it is tried.  *ret_offset:
	 * where this boot's output starts in res->console_path (its size
	 * just before the power went on).  c->origin may be moved to the
	 * moment the new kernel was started (kexec).  c->req->power_ms
	 * bounds each call.  0, or -1 with err: the host's fault (the
	 * driver then calls power_off with HOST_KIND_OFF_FAILED).
	 */
	int (*power_on)(struct db *db, struct boot_ctx *c, const char *cmdline,
			uint64_t *ret_offset, struct strbuf *err);

	/*
	 * About every 100 ms while the boot waits, and about every second
	 * while the plan runs (watch.c): keep the console capture alive
	 * (reopen a session the BMC dropped).  Anything worth a line of the
	 * boot's log is appended to note.  NULL: nothing to keep.
	 */
	void (*console_keep)(struct boot_result *res, struct strbuf *note);

	/*
	 * 1 when the machine stopped by itself (a libvirt guest that powered
	 * off, rebooted or crashed destroys its domain), 0 when it runs or
	 * cannot tell.  NULL: cannot tell (a BMC's power state says nothing
	 * of a kernel that reset).
	 */
	int (*machine_gone)(struct boot_result *res);

	/*
	 * Power the host off (see enum host_kind_off) and end the console
	 * capture (the console is whole from power-on to power-off).  Its
	 * power operations recorded with boot_power_op_begin()/_end().
	 * Safe to call when power_on never ran.  0, or -1 with err.
	 */
	int (*power_off)(struct db *db, struct boot_result *res,
			 enum host_kind_off why, struct strbuf *err);

	/* Free what the kind keeps in res->kind_data (a console capture).
	 * NULL when it keeps nothing there. */
	void (*release)(struct boot_result *res);
};

/* The kind called name, or NULL (name NULL included). */
const struct host_kind *host_kind_find(const char *name);

/* 1 when kind name runs the agent on the controller's machine (local). */
int host_kind_is_local(const char *name);

/* The kinds in table order, *ret_n of them. */
const struct host_kind *const *host_kind_all(size_t *ret_n);

/*
 * The kinds' names in table order into out, joined by ", " and the last
 * by last_sep (" or ": "local, ssh, libvirt or ipmi"); only the kinds
 * that boot when booting_only.
 */
void host_kind_names(struct strbuf *out, const char *last_sep,
		     int booting_only);

/* Hand the table's names to common/kind_names.h (for store/ and plan/):
 * once, first thing in main(), and in tests that need it. */
void host_kind_publish(void);

#endif

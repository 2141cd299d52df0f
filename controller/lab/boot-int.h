/*
 * boot-int.h - what the files of one boot share (boot.c, the
 * shared steps in boot_step.c, the kinds' power phases kind_libvirt.c and
 * kind_ipmi.c): the context read from the host and kernel rows, progress
 * events, the host's boot_config.  Private to controller/lab/.
 */
#ifndef SCHEDFARM_BOOT_INT_H
#define SCHEDFARM_BOOT_INT_H

#include <stdint.h>

#include "json.h"
#include "lab/boot.h"
#include "strbuf.h"

/* The last this much of a boot's console is kept in its row. */
#define CONSOLE_DB_MAX (1u << 20)

/* What one boot needs to know, read from the host and kernel rows. */
struct boot_ctx {
	const struct boot_request *req;
	struct boot_result *res;
	int sockets, cores, threads, numa_nodes;
	int64_t memory_mb, known_good;
	char *health;
	char *boot_config; /* jsonb text */
	char *kernel_image, *kernel_vmlinux, *kernel_initrd, *expected_release;
	char *kernel_name;
	struct json_value *cfg;
	int64_t t0;
	/* What the boot's times (linux_ms ...) count from: the power-on,
	 * or the moment `kexec -e` was sent. */
	int64_t origin;
	const char *method; /* boots.method: the kind's, or kexec */
	/* Set by the kind's boot_prepare (host_kind.h): the console is
	 * written into the state folder's console/ by the kind; the kind's
	 * BMC calls are serialised by lock files in its locks/. */
	int capture_console, needs_locks;
	/* IPMI: the console through SOL (no boot_config.console_log).
	 * BMC kinds (boot_pxe.c): kexec when the host is up on its
	 * known-good kernel (whose release that is); how the BMC takes
	 * bootdev (hosts.bmc_bootdev). */
	int use_sol, kexec;
	char *known_good_release;
	char *bmc_bootdev;
	char farm[16];
};

/* A progress line: into res->log and to req->on_event. */
void boot_event(struct boot_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A string from boot_config (pointing into c->cfg), or def when absent. */
const char *boot_cfg_str(struct boot_ctx *c, const char *key, const char *def);
/* A number from boot_config within [min, max], or def. */
int64_t boot_cfg_i64(struct boot_ctx *c, const char *key, int64_t min,
		     int64_t max, int64_t def);

/*
 * Record a power operation on the booted host under its controller
 * (store/controllers.h) before it is tried; the id to close it with
 * (boot_power_op_end(), r < 0: failed, why says how), 0 when it could not
 * be recorded (the operation goes ahead: a bookkeeping failure is never a
 * reason to leave a machine on).
 */
int64_t boot_power_op_begin(struct db *db, const struct boot_result *res,
			    const char *op);
void boot_power_op_end(struct db *db, int64_t id, int r,
		       const struct strbuf *why);

/* Feed what was appended to the console file fd since *off to cs
 * (now: ms since the boot's origin); *off moves on. */
void boot_pump_console(int fd, uint64_t *off, struct console_scanner *cs,
		       int64_t now);
/* The console text of a boot from offset off (its last MiB or so) into out. */
void boot_read_console(const char *path, uint64_t off, struct strbuf *out);

/*
 * A BMC as the shared PXE boot (boot_pxe.c) drives it: each call 0, or -1
 * with err; each bounded by c->req->power_ms when set.  power_status: 1 in
 * *ret_on when the machine is on.  console_start (may be NULL): start the
 * console capture into c->res->console_path when c->capture_console, the
 * handle in c->res->kind_data, before any power change.  pxe_next: the
 * next boot (only) from the network.  power_on, power_cycle: confirmed.
 */
struct boot_bmc_ops {
	int (*power_status)(struct boot_ctx *c, int *ret_on,
			    struct strbuf *err);
	int (*console_start)(struct boot_ctx *c, struct strbuf *err);
	int (*pxe_next)(struct boot_ctx *c, struct strbuf *err);
	int (*power_on)(struct boot_ctx *c, struct strbuf *err);
	int (*power_cycle)(struct boot_ctx *c, struct strbuf *err);
};

/*
 * The power phase of a machine behind a BMC (a kind's power_on hook,
 * host_kind.h): the BMC asked, the console started, kexec when the host is
 * up on its known-good kernel and boot_config.kexec allows (c->kexec),
 * else the iPXE script and the kernel copied into boot_config.tftp_dir
 * (tftp_server: the TFTP server as the host sees it), ops->pxe_next and a power
 * cycle or on, recorded as power operations.  Arguments and result as the
 * power_on hook's.
 */
int boot_bmc_pxe(struct db *db, struct boot_ctx *c, const char *cmdline,
		 const struct boot_bmc_ops *ops, uint64_t *ret_offset,
		 struct strbuf *err);

#endif

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
#include "lab/ipmi.h"
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
	const char *method; /* boots.method: libvirt, ipmi-pxe, kexec */
	/* IPMI: the console through SOL (no boot_config.console_log);
	 * kexec when the host is up on its known-good kernel (whose
	 * release that is); how the BMC takes bootdev (hosts.bmc_bootdev). */
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

/* The BMC of the host res was read from. */
void boot_ipmi_target_of(const struct boot_result *res, struct ipmi_target *t);

/* Power phase, IPMI: *ret_offset is where this boot's console starts.
 * Its power operations are recorded under the boot's controller. */
int boot_power_ipmi(struct db *db, struct boot_ctx *c, const char *cmdline,
		    uint64_t *ret_offset, struct strbuf *err);

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

/* While the boot watches its console: keep an IPMI host's SOL capture
 * alive (a no-op for other consoles). */
void boot_ipmi_console_check(struct boot_ctx *c);

/* Feed what was appended to the console file fd since *off to cs
 * (now: ms since the boot's origin); *off moves on. */
void boot_pump_console(int fd, uint64_t *off, struct console_scanner *cs,
		       int64_t now);
/* The console text of a boot from offset off (its last MiB or so) into out. */
void boot_read_console(const char *path, uint64_t off, struct strbuf *out);

/* libvirt (kind_libvirt.c): the power phase, the domain destroyed (and its
 * record closed with reason), whether the guest went away by itself. */
struct virt_conn;
int boot_power_libvirt(struct db *db, struct boot_ctx *c, const char *cmdline,
		       uint64_t *ret_offset, struct strbuf *err);
int boot_destroy_domain(struct db *db, struct virt_conn *vc,
			const struct boot_result *res, const char *reason,
			struct strbuf *err);
int boot_domain_gone(struct boot_ctx *c);

#endif

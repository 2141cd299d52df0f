/*
 * kind_libvirt.c - the power phase of a libvirt host's boot: a transient
 * domain created paused (recorded under the boot's controller before it
 * exists, after the domains a dead controller left on the host are taken
 * down), its console log noted, resumed; destroyed at power-off.  libvirt
 * is reached only through virt.h.  The kind's entry, kind_libvirt, is at
 * the end.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "lab/boot-int.h"
#include "lab/host_kind.h"
#include "lab/sweep_host.h"
#include "lab/virt.h"
#include "parse.h"
#include "store/controllers.h"
#include "store/hosts.h"
#include "time-util.h"
#include "banned.h"

/* Destroy the boot's domain and close its record; err gets why not. */
static int destroy_domain(struct db *db, struct virt_conn *vc,
			  const struct boot_result *res, const char *reason,
			  struct strbuf *err)
{
	int64_t op = boot_power_op_begin(db, res, "destroy");
	struct strbuf e = STRBUF_INIT;
	int r = virt_destroy(vc, res->domain, err);

	boot_power_op_end(db, op, r, err);
	if (r == 0 && db)
		controllers_domain_gone(db, res->domain, res->controller_id,
					reason, &e);
	strbuf_release(&e);
	return r;
}

/* Power phase, libvirt: paused domain, console opened, resumed. */
static int power_libvirt(struct db *db, struct boot_ctx *c, const char *cmdline,
			 uint64_t *ret_offset, struct strbuf *err)
{
	struct boot_result *res = c->res;
	struct virt_domain_spec s;
	struct virt_conn *vc = NULL;
	struct stat st;
	int r = -1;

	memset(&s, 0, sizeof(s));
	/* A job's domain is named after its attempt as well: the domain of
	 * an attempt whose controller died may still be up when the next
	 * attempt boots, until a sweep takes it down. */
	if (c->req->job_id)
		res->domain =
			xstrfmt(VIRT_DOMAIN_PREFIX "%s-%" PRId64 "-a%d",
				c->farm, c->req->job_id,
				c->req->attempt > 0 ? c->req->attempt : 1);
	else
		res->domain = xstrfmt(VIRT_DOMAIN_PREFIX "%s-%s-boot%" PRId64,
				      c->farm, res->host_name, res->boot_id);
	s.name = res->domain;
	s.type = boot_cfg_str(c, "accel", "qemu");
	s.sockets = c->sockets;
	s.cores = c->cores;
	s.threads = c->threads;
	s.numa_nodes = c->numa_nodes;
	s.memory_mb = c->memory_mb;
	s.kernel = c->kernel_vmlinux ? c->kernel_vmlinux : c->kernel_image;
	s.initrd = c->kernel_initrd ? c->kernel_initrd
				    : boot_cfg_str(c, "initrd", NULL);
	s.console_log = res->console_path;
	s.ssh_addr = res->ssh_addr;
	s.ssh_port = res->ssh_port;
	s.emulator = boot_cfg_str(c, "emulator", NULL);
	if (!s.ssh_port) {
		strbuf_addf(err, "host %s has no port for SSH", res->host_name);
		return -1;
	}
	if (virt_open(res->libvirt_uri, &vc, err) < 0)
		return -1;
	/* A domain a dead controller left on this host would hold its
	 * console and its SSH port: it goes first -- before this boot's own
	 * domain is recorded, which the sweep would otherwise take for an
	 * old job's. */
	{
		struct strbuf gone = STRBUF_INIT;

		if (sweep_host(db, res->controller_id, res->host_id,
			       c->req->job_id != 0, vc, &gone) > 0) {
			strbuf_rtrim(&gone);
			boot_event(c, "taken down first: %s", gone.buf);
		}
		strbuf_release(&gone);
	}
	/* Recorded before it exists, so that no sweep ever sees a domain
	 * of ours without knowing whose it is. */
	if (controllers_domain_add(db, res->domain, res->libvirt_uri,
				   res->host_id, res->job_id, res->boot_id,
				   res->controller_id, err) < 0) {
		virt_close(vc);
		return -1;
	}
	{
		int64_t op = boot_power_op_begin(db, res, "create");
		struct strbuf cl = STRBUF_INIT;

		/* Under TCG a loaded machine can make the kernel's check of
		 * the IO-APIC timer fail ("IO-APIC + timer doesn't work!", a
		 * panic before init).  A KVM guest's kernel skips that check
		 * by itself (kvmclock); a TCG guest is told to skip it. */
		strbuf_addstr(&cl, cmdline);
		if (strcmp(s.type, "kvm") &&
		    !strstr(cmdline, "no_timer_check")) {
			strbuf_addstr(&cl, " no_timer_check");
			boot_event(c, "TCG guest: no_timer_check added to the "
				      "command line");
		}
		s.cmdline = cl.buf;

		/* libvirt's create blocks, for tens of seconds on a loaded
		 * machine under TCG: start it with the whole lease ahead (a
		 * lease already lost stops the boot at the loop's first
		 * tick, blaming nobody). */
		if (c->req->tick)
			(void)c->req->tick(c->req->ctx);
		r = virt_create_paused(vc, &s, err);
		boot_power_op_end(db, op, r, err);
		s.cmdline = NULL;
		strbuf_release(&cl);
		if (r < 0)
			goto out;
		r = -1;
	}
	/* "Attach" the console: note where this boot's output starts. */
	*ret_offset = !stat(res->console_path, &st) ? (uint64_t)st.st_size : 0;
	boot_event(
		c,
		"domain %s created paused (%d sockets x %d cores x %d threads, "
		"%d NUMA nodes, %" PRId64 " MiB); console %s",
		res->domain, s.sockets, s.cores, s.threads, s.numa_nodes,
		s.memory_mb, res->console_path);
	if (virt_resume(vc, res->domain, err) < 0)
		goto out;
	r = 0;
out:
	if (r < 0) {
		struct strbuf e2 = STRBUF_INIT;

		destroy_domain(db, vc, res,
			       "its boot failed in the power phase", &e2);
		strbuf_release(&e2);
	}
	virt_close(vc);
	return r;
}

/* 1 when a libvirt guest has gone away (powered off, rebooted or crashed:
 * the domain destroys itself), 0 otherwise. */
static int domain_gone(struct boot_result *res)
{
	struct virt_conn *vc = NULL;
	struct strbuf e = STRBUF_INIT;
	int active = 1;

	if (virt_open(res->libvirt_uri, &vc, &e) == 0) {
		active = virt_is_active(vc, res->domain, &e);
		virt_close(vc);
	}
	strbuf_release(&e);
	return active == 0;
}

/*
 * Destroy the boot's domain.  After a used boot, politely first: the
 * guest's init has nothing to save, but a clean power-off proves ACPI
 * works.  No domain (the power phase never made one): nothing to do.
 */
static int power_off(struct db *db, struct boot_result *res,
		     enum host_kind_off why, struct strbuf *err)
{
	struct virt_conn *vc = NULL;
	int r;

	if (!res->domain)
		return 0;
	if (why == HOST_KIND_OFF_FAILED) {
		if (virt_open(res->libvirt_uri, &vc, err) < 0)
			return -1;
		r = destroy_domain(db, vc, res, "its boot failed", err);
		virt_close(vc);
		return r;
	}
	if (res->outcome == BOOT_READY) {
		struct strbuf out = STRBUF_INIT, e = STRBUF_INIT;

		boot_ssh_run(res, "poweroff -f", 5000, &out, &e);
		strbuf_release(&out);
		strbuf_release(&e);
	}
	if (virt_open(res->libvirt_uri, &vc, err) < 0)
		return -1;
	for (int i = 0; i < 50 && virt_is_active(vc, res->domain, err) == 1;
	     i++)
		sleep_ms(100);
	r = destroy_domain(db, vc, res, "powered off after its boot", err);
	virt_close(vc);
	return r;
}

/* Its console is a file libvirt writes in the state folder's console/. */
static int prepare(struct boot_ctx *c, struct strbuf *err)
{
	(void)err;
	c->capture_console = 1;
	c->needs_locks = 0;
	return 0;
}

/*
 * A libvirt host's --address is the IPv4 address its SSH forward listens
 * on: it goes into qemu's -netdev options.
 */
static int check_fields(const struct host_fields *f, int adding,
			struct strbuf *err)
{
	(void)adding;
	if (f->address && !virt_address_ok(f->address)) {
		strbuf_addf(err,
			    "a libvirt host's --address is the IPv4 address "
			    "its SSH forward listens on (like 127.0.0.1), "
			    "nothing else: this one is %s",
			    virt_address_problem(f->address));
		return -1;
	}
	return 0;
}

const struct host_kind kind_libvirt = {
	.name = "libvirt",
	.boots = 1,
	.boot_method = "libvirt",
	.check_fields = check_fields,
	.boot_prepare = prepare,
	.power_on = power_libvirt,
	.machine_gone = domain_gone,
	.power_off = power_off,
};

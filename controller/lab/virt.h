/*
 * virt.h - libvirt guests as farm hosts (the only user of libvirt's API).
 *
 * A libvirt host row describes a machine shape (sockets, cores, threads,
 * NUMA nodes, memory); each boot creates a transient domain of that shape
 * named after the job (farm-JOB), boots the kernel directly (<kernel>,
 * <initrd>, <cmdline>), logs the serial console to a file (append='on', so
 * a restart never truncates what was seen), has an isa panic device and
 * explicit on_poweroff/on_reboot/on_crash (destroy: a guest that powers
 * off, reboots or crashes is gone, and the farm notices), and reaches the
 * guest's sshd through qemu's user network with restrict=on (the guest can
 * reach nothing) and one hostfwd from a loopback port.  Domains are
 * created paused so the console log is opened before the first byte.
 * Nothing here prints: libvirt's own error printing is turned off and its
 * messages go to the err buffer.
 */
#ifndef SCHEDFARM_VIRT_H
#define SCHEDFARM_VIRT_H

#include <stdint.h>

#include "strbuf.h"
#include "strvec.h"

#define VIRT_DOMAIN_PREFIX "farm-"

struct virt_domain_spec {
	const char *name; /* farm-JOB */
	const char *type; /* "qemu" (TCG) or "kvm" */
	int sockets, cores, threads; /* vcpus = their product */
	int numa_nodes; /* 0 or 1: no <numa>; else cells split evenly */
	int64_t memory_mb;
	const char *kernel, *initrd, *cmdline;
	const char *console_log; /* serial console file */
	const char *ssh_addr; /* loopback address for the forward */
	int ssh_port; /* 0: no network at all */
	const char *emulator; /* NULL: libvirt's default */
};

/* Validate spec and append the domain XML (every value escaped). */
int virt_domain_xml(const struct virt_domain_spec *spec, struct strbuf *xml,
		    struct strbuf *err);

struct virt_conn;

/* Connect to uri (NULL: libvirt's default). */
int virt_open(const char *uri, struct virt_conn **ret, struct strbuf *err);
void virt_close(struct virt_conn *c);

/*
 * The names of the running (or paused) domains whose name starts with
 * prefix, appended to names.  Which of them are orphans is not libvirt's
 * to say: the sweep asks the database (lab/boot.c).
 */
int virt_list_prefix(struct virt_conn *c, const char *prefix,
		     struct strvec *names, struct strbuf *err);

/* Create the transient domain paused (any old one of that name destroyed). */
int virt_create_paused(struct virt_conn *c, const struct virt_domain_spec *spec,
		       struct strbuf *err);
int virt_resume(struct virt_conn *c, const char *name, struct strbuf *err);

/* 1 running/paused, 0 gone or shut off, -1 error. */
int virt_is_active(struct virt_conn *c, const char *name, struct strbuf *err);

/* Hard power off (destroy); 0 also when it was not running. */
int virt_destroy(struct virt_conn *c, const char *name, struct strbuf *err);

#endif

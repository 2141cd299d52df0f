/*
 * virt.c - libvirt domains for farm boots; see virt.h.  The only file that
 * includes libvirt's headers; libvirt itself is loaded by the first
 * virt_open().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "cleanup.h"
#include "dynlib.h"
#include "lab/virt.h"
#include "parse.h"
#include "banned.h"

/*
 * libvirt's functions, loaded when a connection is first opened
 * (dynlib.h: the library and its dozens of dependencies would otherwise
 * load with every schedfarm process).  Typed from libvirt's own headers.
 */
#define LV(name) __typeof__(vir##name) *name;
static struct {
	LV(ConnectClose)
	LV(ConnectListAllDomains)
	LV(ConnectOpen)
	LV(DomainCreateXML)
	LV(DomainDestroy)
	LV(DomainFree)
	LV(DomainGetName)
	LV(DomainIsActive)
	LV(DomainLookupByName)
	LV(DomainResume)
	LV(DomainSuspend)
	LV(GetLastError)
	LV(GetLastErrorMessage)
	LV(SetErrorFunc)
} lv;
#undef LV

/* libvirt loaded; -1 with err (once per failure) when it cannot be. */
static int libvirt_ready(struct strbuf *err)
{
#define LV(name) { "vir" #name, (void **)&lv.name },
	static const struct dynlib_sym syms[] = {
		LV(ConnectClose) LV(ConnectListAllDomains) LV(ConnectOpen)
			LV(DomainCreateXML) LV(DomainDestroy) LV(DomainFree)
				LV(DomainGetName) LV(DomainIsActive) LV(
					DomainLookupByName) LV(DomainResume)
					LV(DomainSuspend) LV(GetLastError)
						LV(GetLastErrorMessage)
							LV(SetErrorFunc)
	};
#undef LV
	static int loaded;

	if (loaded)
		return 0;
	if (dynlib_load("libvirt.so.0", "libvirt0", syms, ARRAY_SIZE(syms),
			err) < 0)
		return -1;
	loaded = 1;
	return 0;
}

struct virt_conn {
	virConnectPtr conn;
};

/* libvirt prints every error to stderr unless told not to. */
static void quiet_error(void *data, virErrorPtr e)
{
	(void)data;
	(void)e;
}

static void add_virt_error(struct strbuf *err, const char *what)
{
	const char *m = lv.GetLastErrorMessage();

	strbuf_addf(err, "%s: %s", what, m ? m : "unknown libvirt error");
}

static void add_xml_escaped(struct strbuf *sb, const char *s)
{
	strbuf_add_html(sb, s);
}

int virt_domain_xml(const struct virt_domain_spec *s, struct strbuf *xml,
		    struct strbuf *err)
{
	int vcpus;

	if (!s->name || !starts_with(s->name, VIRT_DOMAIN_PREFIX) ||
	    strlen(s->name) > 64 ||
	    strspn(s->name, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_.") != strlen(s->name)) {
		strbuf_addf(err, "bad domain name '%s' (farm-[A-Za-z0-9._-]+)",
			    s->name ? s->name : "");
		return -1;
	}
	if (s->sockets < 1 || s->sockets > 64 || s->cores < 1 ||
	    s->cores > 256 || s->threads < 1 || s->threads > 8) {
		strbuf_addf(err,
			    "bad topology %d sockets x %d cores x %d threads",
			    s->sockets, s->cores, s->threads);
		return -1;
	}
	vcpus = s->sockets * s->cores * s->threads;
	if (vcpus > 512) {
		strbuf_addf(err, "%d vcpus is too many", vcpus);
		return -1;
	}
	if (s->numa_nodes < 0 || s->numa_nodes > vcpus ||
	    (s->numa_nodes > 1 && vcpus % s->numa_nodes)) {
		strbuf_addf(err, "%d NUMA nodes do not divide %d vcpus",
			    s->numa_nodes, vcpus);
		return -1;
	}
	if (s->memory_mb < 64 || s->memory_mb > (1 << 22) ||
	    (s->numa_nodes > 1 && s->memory_mb % s->numa_nodes)) {
		strbuf_addf(err, "bad memory %lld MiB for %d NUMA nodes",
			    (long long)s->memory_mb, s->numa_nodes);
		return -1;
	}
	if (!s->kernel || !s->console_log) {
		strbuf_addstr(err, "a domain needs a kernel and a console log");
		return -1;
	}
	if (s->ssh_port < 0 || s->ssh_port > 65535) {
		strbuf_addf(err, "bad ssh port %d", s->ssh_port);
		return -1;
	}
	/* The address goes into qemu's -netdev option string, where a
	 * comma starts another option (a second hostfwd, a guestfwd that
	 * runs a command here): only a plain IPv4 address may. */
	if (s->ssh_port && s->ssh_addr && !virt_address_ok(s->ssh_addr)) {
		strbuf_addf(err, "the SSH forward's address is %s",
			    virt_address_problem(s->ssh_addr));
		return -1;
	}
	strbuf_addf(
		xml,
		"<domain type='%s' "
		"xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n",
		s->type && !strcmp(s->type, "kvm") ? "kvm" : "qemu");
	strbuf_addstr(xml, "  <name>");
	add_xml_escaped(xml, s->name);
	strbuf_addstr(xml, "</name>\n");
	strbuf_addf(xml, "  <memory unit='MiB'>%lld</memory>\n",
		    (long long)s->memory_mb);
	strbuf_addf(xml, "  <vcpu placement='static'>%d</vcpu>\n", vcpus);
	strbuf_addstr(
		xml, "  <os>\n    <type arch='x86_64' machine='pc'>hvm</type>\n"
		     "    <kernel>");
	add_xml_escaped(xml, s->kernel);
	strbuf_addstr(xml, "</kernel>\n");
	if (s->initrd) {
		strbuf_addstr(xml, "    <initrd>");
		add_xml_escaped(xml, s->initrd);
		strbuf_addstr(xml, "</initrd>\n");
	}
	if (s->cmdline) {
		strbuf_addstr(xml, "    <cmdline>");
		add_xml_escaped(xml, s->cmdline);
		strbuf_addstr(xml, "</cmdline>\n");
	}
	strbuf_addstr(xml, "  </os>\n  <features><acpi/></features>\n");
	strbuf_addf(xml,
		    "  <cpu>\n    <topology sockets='%d' dies='1' cores='%d' "
		    "threads='%d'/>\n",
		    s->sockets, s->cores, s->threads);
	if (s->numa_nodes > 1) {
		int per = vcpus / s->numa_nodes;

		strbuf_addstr(xml, "    <numa>\n");
		for (int n = 0; n < s->numa_nodes; n++)
			strbuf_addf(xml,
				    "      <cell id='%d' cpus='%d-%d' "
				    "memory='%lld' "
				    "unit='MiB'/>\n",
				    n, n * per, n * per + per - 1,
				    (long long)(s->memory_mb / s->numa_nodes));
		strbuf_addstr(xml, "    </numa>\n");
	}
	strbuf_addstr(xml, "  </cpu>\n  <clock offset='utc'/>\n"
			   "  <on_poweroff>destroy</on_poweroff>\n"
			   "  <on_reboot>destroy</on_reboot>\n"
			   "  <on_crash>destroy</on_crash>\n  <devices>\n");
	if (s->emulator) {
		strbuf_addstr(xml, "    <emulator>");
		add_xml_escaped(xml, s->emulator);
		strbuf_addstr(xml, "</emulator>\n");
	}
	strbuf_addstr(xml, "    <serial type='file'>\n      <source path='");
	add_xml_escaped(xml, s->console_log);
	strbuf_addstr(xml, "' append='on'/>\n      <target port='0'/>\n"
			   "    </serial>\n"
			   "    <panic model='isa'><address type='isa' "
			   "iobase='0x505'/></panic>\n"
			   "    <rng model='virtio'><backend model='random'>"
			   "/dev/urandom</backend></rng>\n"
			   "    <memballoon model='none'/>\n  </devices>\n");
	if (s->ssh_port) {
		strbuf_addstr(
			xml, "  <qemu:commandline>\n"
			     "    <qemu:arg value='-netdev'/>\n"
			     "    <qemu:arg value='user,id=farmnet,restrict=on,"
			     "hostfwd=tcp:");
		add_xml_escaped(xml, s->ssh_addr ? s->ssh_addr : "127.0.0.1");
		strbuf_addf(xml,
			    ":%d-:22'/>\n"
			    "    <qemu:arg value='-device'/>\n"
			    "    <qemu:arg "
			    "value='e1000,netdev=farmnet,romfile=,bus=pci.0,"
			    "addr=0x1f'/>\n"
			    "  </qemu:commandline>\n",
			    s->ssh_port);
	}
	strbuf_addstr(xml, "</domain>\n");
	return 0;
}

int virt_open(const char *uri, struct virt_conn **ret, struct strbuf *err)
{
	struct virt_conn *c;

	if (libvirt_ready(err) < 0)
		return -1;
	lv.SetErrorFunc(NULL, quiet_error);
	c = xcalloc(1, sizeof(*c));
	c->conn = lv.ConnectOpen(uri);
	if (!c->conn) {
		add_virt_error(err, uri ? uri : "libvirt");
		free(c);
		return -1;
	}
	*ret = c;
	return 0;
}

void virt_close(struct virt_conn *c)
{
	if (!c)
		return;
	lv.ConnectClose(c->conn);
	free(c);
}

int virt_list_prefix(struct virt_conn *c, const char *prefix,
		     struct strvec *names, struct strbuf *err)
{
	virDomainPtr *doms = NULL;
	int n;

	n = lv.ConnectListAllDomains(c->conn, &doms,
				     VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	if (n < 0) {
		add_virt_error(err, "listing domains");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const char *name = lv.DomainGetName(doms[i]);

		if (name && starts_with(name, prefix))
			strvec_push(names, name);
		lv.DomainFree(doms[i]);
	}
	free(doms);
	return 0;
}

int virt_create_paused(struct virt_conn *c, const struct virt_domain_spec *spec,
		       struct strbuf *err)
{
	struct strbuf xml = STRBUF_INIT;
	virDomainPtr d;
	int r = -1;

	if (virt_domain_xml(spec, &xml, err) < 0)
		goto out;
	if (virt_destroy(c, spec->name, err) < 0)
		goto out;
	d = lv.DomainCreateXML(c->conn, xml.buf, VIR_DOMAIN_START_PAUSED);
	if (!d) {
		virErrorPtr e = lv.GetLastError();

		/* A driver that cannot start paused (libvirt's test driver):
		 * start, then suspend at once. */
		if (e && e->code == VIR_ERR_INVALID_ARG &&
		    (d = lv.DomainCreateXML(c->conn, xml.buf, 0)) &&
		    lv.DomainSuspend(d) < 0) {
			add_virt_error(err, "suspending the new domain");
			lv.DomainDestroy(d);
			lv.DomainFree(d);
			goto out;
		}
	}
	if (!d) {
		add_virt_error(err, "creating the domain");
		goto out;
	}
	lv.DomainFree(d);
	r = 0;
out:
	strbuf_release(&xml);
	return r;
}

int virt_resume(struct virt_conn *c, const char *name, struct strbuf *err)
{
	virDomainPtr d = lv.DomainLookupByName(c->conn, name);
	int r;

	if (!d) {
		add_virt_error(err, name);
		return -1;
	}
	r = lv.DomainResume(d);
	if (r < 0)
		add_virt_error(err, "resuming the domain");
	lv.DomainFree(d);
	return r < 0 ? -1 : 0;
}

int virt_is_active(struct virt_conn *c, const char *name, struct strbuf *err)
{
	virDomainPtr d = lv.DomainLookupByName(c->conn, name);
	int r;

	if (!d) {
		virErrorPtr e = lv.GetLastError();

		if (e && e->code == VIR_ERR_NO_DOMAIN)
			return 0;
		add_virt_error(err, name);
		return -1;
	}
	r = lv.DomainIsActive(d);
	if (r < 0)
		add_virt_error(err, name);
	lv.DomainFree(d);
	return r;
}

int virt_destroy(struct virt_conn *c, const char *name, struct strbuf *err)
{
	virDomainPtr d = lv.DomainLookupByName(c->conn, name);
	int r = 0;

	if (!d) {
		virErrorPtr e = lv.GetLastError();

		if (e && e->code == VIR_ERR_NO_DOMAIN)
			return 0;
		add_virt_error(err, name);
		return -1;
	}
	if (lv.DomainIsActive(d) == 1 && lv.DomainDestroy(d) < 0 &&
	    lv.DomainIsActive(d) == 1) {
		add_virt_error(err, "destroying the domain");
		r = -1;
	}
	lv.DomainFree(d);
	return r;
}

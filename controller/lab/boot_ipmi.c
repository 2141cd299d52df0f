/*
 * boot_ipmi.c - the power phase of an IPMI host's boot: the PXE script,
 * the BMC's boot device, power on or cycle; see boot.h.  ipmitool is
 * reached only through ipmi.h.
 */
#include <string.h>
#include <sys/stat.h>

#include "lab/boot-int.h"
#include "lab/ipmi.h"
#include "banned.h"

/* Power phase, IPMI: PXE script, bootdev pxe, power on or cycle. */
int boot_power_ipmi(struct boot_ctx *c, const char *cmdline,
		    uint64_t *ret_offset, struct strbuf *err)
{
	struct boot_result *res = c->res;
	const char *tftp = boot_cfg_str(c, "tftp_dir", NULL);
	const char *server = boot_cfg_str(c, "tftp_server", "10.0.2.2");
	const char *initrd = c->kernel_initrd ? c->kernel_initrd
					      : boot_cfg_str(c, "initrd", NULL);
	struct ipmi_target t;
	enum ipmi_power p;
	struct stat st;

	boot_ipmi_target_of(res, &t);
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
	if (ipmi_write_pxe(tftp, res->host_name, server, c->kernel_image,
			   initrd, cmdline, err) < 0)
		return -1;
	boot_event(c, "PXE script %s/%s.ipxe written", tftp, res->host_name);
	*ret_offset = !stat(res->console_path, &st) ? (uint64_t)st.st_size : 0;
	if (strcmp(boot_cfg_str(c, "bootdev", "pxe"), "none")) {
		int b = ipmi_bootdev(&t, boot_cfg_str(c, "bootdev", "pxe"), err);

		if (b == IPMI_REFUSED) {
			boot_event(c, "%s; relying on the host's boot order",
			      err->buf);
			strbuf_reset(err);
		} else if (b < 0) {
			return -1;
		} else {
			boot_event(c, "BMC %s:%d: next boot from %s", t.address,
			      t.port, boot_cfg_str(c, "bootdev", "pxe"));
		}
	}
	if (ipmi_power_status(&t, &p, err) < 0)
		return -1;
	if (p == IPMI_POWER_ON) {
		boot_event(c, "BMC %s:%d: power is on; cycling", t.address, t.port);
		if (ipmi_power_cycle(&t, err) < 0)
			return -1;
	} else if (ipmi_power_set(&t, IPMI_POWER_ON, NULL, err) < 0) {
		return -1;
	}
	boot_event(c, "BMC %s:%d: power on confirmed", t.address, t.port);
	return 0;
}


/*
 * kind_ssh.c - the ssh host kind: a machine that runs the kernel it has,
 * reached over SSH (lab/ssh.c: libssh, its known_hosts file enforced);
 * `host add` asks its agent for the machine's facts.
 */
#include "lab/host_kind.h"
#include "store/hosts.h"
#include "banned.h"

/* Without an address and a known_hosts file it could never be reached:
 * host keys are never accepted unverified. */
static int check_fields(const struct host_fields *f, int adding,
			struct strbuf *err)
{
	if (adding && (!f->address || !f->known_hosts)) {
		strbuf_addstr(err,
			      "an ssh host needs --address and --known-hosts");
		return -1;
	}
	return 0;
}

const struct host_kind kind_ssh = {
	.name = "ssh",
	.contact_at_add = 1,
	.check_fields = check_fields,
};

/*
 * host_kind.c - the table of host kinds; see host_kind.h.  A new kind is
 * one file, lab/kind_<name>.c, plus its two lines here.
 */
#include <stddef.h>
#include <string.h>

#include "kind_names.h"
#include "lab/host_kind.h"
#include "banned.h"

extern const struct host_kind kind_local, kind_ssh, kind_libvirt, kind_ipmi;
extern const struct host_kind kind_redfish;

static const struct host_kind *const kinds[] = {
	&kind_local, &kind_ssh, &kind_libvirt, &kind_ipmi, &kind_redfish,
};

#define NR_KINDS (sizeof(kinds) / sizeof(kinds[0]))

const struct host_kind *host_kind_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < NR_KINDS; i++)
		if (!strcmp(kinds[i]->name, name))
			return kinds[i];
	return NULL;
}

int host_kind_is_local(const char *name)
{
	const struct host_kind *hk = host_kind_find(name);

	return hk && hk->local;
}

const struct host_kind *const *host_kind_all(size_t *ret_n)
{
	*ret_n = NR_KINDS;
	return kinds;
}

void host_kind_names(struct strbuf *out, const char *last_sep, int booting_only)
{
	size_t n = 0, total = 0;

	for (size_t i = 0; i < NR_KINDS; i++)
		total += !booting_only || kinds[i]->boots;
	for (size_t i = 0; i < NR_KINDS; i++) {
		if (booting_only && !kinds[i]->boots)
			continue;
		if (n)
			strbuf_addstr(out, n + 1 == total ? last_sep : ", ");
		strbuf_addstr(out, kinds[i]->name);
		n++;
	}
}

void host_kind_publish(void)
{
	static const char *all[NR_KINDS + 1], *booting[NR_KINDS + 1];
	size_t nb = 0;

	for (size_t i = 0; i < NR_KINDS; i++) {
		all[i] = kinds[i]->name;
		if (kinds[i]->boots)
			booting[nb++] = kinds[i]->name;
	}
	all[NR_KINDS] = booting[nb] = NULL;
	kind_names_set(all, booting);
}

/*
 * kind_names.c - the host kinds' names as lab/host_kind.c's table hands
 * them in; see kind_names.h.
 */
#include <stddef.h>
#include <string.h>

#include "kind_names.h"
#include "banned.h"

static const char *const none[] = { NULL };
static const char *const *all_kinds = none, *const *booting_kinds = none;

void kind_names_set(const char *const *all, const char *const *booting)
{
	all_kinds = all ? all : none;
	booting_kinds = booting ? booting : none;
}

static int in_list(const char *const *list, const char *name)
{
	if (!name)
		return 0;
	for (; *list; list++)
		if (!strcmp(*list, name))
			return 1;
	return 0;
}

int kind_name_known(const char *name)
{
	return in_list(all_kinds, name);
}

int kind_name_boots(const char *name)
{
	return in_list(booting_kinds, name);
}

const char *const *kind_names_all(void)
{
	return all_kinds;
}

const char *const *kind_names_booting(void)
{
	return booting_kinds;
}

void kind_names_join(struct strbuf *out, const char *const *list,
		     const char *last_sep)
{
	for (size_t i = 0; list[i]; i++) {
		if (i)
			strbuf_addstr(out, list[i + 1] ? ", " : last_sep);
		strbuf_addstr(out, list[i]);
	}
}

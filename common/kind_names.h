/*
 * kind_names.h - the names of the host kinds, and which of them boot a
 * kernel per job, for the code below lab/ in the layers (store/, plan/)
 * that may not include lab/host_kind.h, the table that owns the kinds.
 *
 * The table hands its names in once, first thing in main()
 * (host_kind_publish()); until then no kind is known.  The lists are the
 * table's own (static, NULL-ended): nothing here copies or frees them.
 */
#ifndef SCHEDFARM_KIND_NAMES_H
#define SCHEDFARM_KIND_NAMES_H

#include "strbuf.h"

/* all: every kind a host may be added as; booting: those that boot. */
void kind_names_set(const char *const *all, const char *const *booting);

/* 1 when name is a kind of the table, 0 otherwise (NULL included). */
int kind_name_known(const char *name);
/* 1 when kind name boots a kernel per job, 0 otherwise (NULL included). */
int kind_name_boots(const char *name);

/* The NULL-ended lists handed in (an empty list before that). */
const char *const *kind_names_all(void);
const char *const *kind_names_booting(void);

/* The names of list joined into out by ", " and, before the last, by
 * last_sep (" or ": "libvirt or ipmi"). */
void kind_names_join(struct strbuf *out, const char *const *list,
		     const char *last_sep);

#endif

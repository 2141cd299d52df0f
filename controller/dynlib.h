/*
 * dynlib.h - a shared library loaded when it is first needed, not when
 * the program starts.
 *
 * libvirt and libcurl are used by few verbs (boots of libvirt hosts;
 * mail), and each pulls dozens of libraries of its own (glib, gnutls,
 * libxml2, ICU, Kerberos, ...): linked in, they cost every `schedfarm`
 * process about 35 ms of start-up on a 2-core machine, the CLI's and the
 * job's alike (bench/overhead).  Their wrapper files (lab/virt.c,
 * lab/curl.c) compile against the headers as before and call through a
 * table of function pointers that dynlib_load() fills on first use, so
 * the compiler still checks every call against the library's prototypes.
 */
#ifndef SCHEDFARM_DYNLIB_H
#define SCHEDFARM_DYNLIB_H

#include <stddef.h>

#include "strbuf.h"

/* One function: its name in the library, and where its address goes. */
struct dynlib_sym {
	const char *name;
	void **slot;
};

/*
 * Load soname (RTLD_NOW: a missing symbol is found here, not at a later
 * call) and set every *syms[i].slot.  0, or -1 with err saying which
 * library or function is missing and which Debian package (deb) has it;
 * no slot is left set then.  The caller calls it once (its own flag):
 * loading again only costs a reference.
 */
int dynlib_load(const char *soname, const char *deb,
		const struct dynlib_sym *syms, size_t n, struct strbuf *err);

#endif

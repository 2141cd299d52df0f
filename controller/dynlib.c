/*
 * dynlib.c - shared libraries loaded on first use; see dynlib.h.
 */
#include <dlfcn.h>

#include "dynlib.h"
#include "banned.h"

int dynlib_load(const char *soname, const char *deb,
		const struct dynlib_sym *syms, size_t n, struct strbuf *err)
{
	/* Never closed: the library's threads and handlers may outlive any
	 * one call, and the process ends soon enough. */
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		strbuf_addf(err, "cannot load %s (package %s): %s", soname, deb,
			    dlerror());
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		void *p;

		dlerror();
		p = dlsym(h, syms[i].name);
		if (!p) {
			const char *why = dlerror();

			strbuf_addf(err, "%s has no function %s: %s", soname,
				    syms[i].name, why ? why : "null address");
			for (size_t j = 0; j < i; j++)
				*syms[j].slot = NULL;
			return -1;
		}
		*syms[i].slot = p;
	}
	return 0;
}

/*
 * curl.c - libcurl, loaded on first use; see curl.h.
 *
 * libcurl is loaded (dynlib.h) and curl_global_init() called once per
 * process, before the first handle, as libcurl requires.
 */
#include <curl/curl.h>

#include "cleanup.h"
#include "dynlib.h"
#include "lab/curl.h"
#include "banned.h"

struct libcurl_fns lc;

int curl_ready(struct strbuf *err)
{
#define LC(name) { "curl_" #name, (void **)&lc.name },
	static const struct dynlib_sym syms[] = {
		LC(global_init) LC(easy_strerror) LC(slist_append) LC(easy_init)
			LC(easy_setopt) LC(easy_perform) LC(easy_getinfo)
				LC(easy_cleanup) LC(slist_free_all)
	};
#undef LC
	static int loaded, done;
	CURLcode c;

	if (done)
		return 0;
	if (!loaded && dynlib_load("libcurl.so.4", "libcurl4", syms,
				   ARRAY_SIZE(syms), err) < 0)
		return -1;
	loaded = 1;
	c = lc.global_init(CURL_GLOBAL_DEFAULT);
	if (c != CURLE_OK) {
		strbuf_addf(err, "libcurl did not initialise: %s",
			    lc.easy_strerror(c));
		return -1;
	}
	done = 1;
	return 0;
}

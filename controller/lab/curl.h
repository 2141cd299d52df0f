/*
 * curl.h - libcurl, loaded on first use (dynlib.h); libcurl lives only in
 * curl.c.
 *
 * The function table and its loader, moved unchanged from mail.c so that
 * a second user (the Redfish client) does not load libcurl a second way.
 */
#ifndef SCHEDFARM_LAB_CURL_H
#define SCHEDFARM_LAB_CURL_H

#include <curl/curl.h>

#include "strbuf.h"

/* libcurl's functions, loaded by the first mail (dynlib.h), typed from
 * libcurl's own headers. */
#define LC(name) __typeof__(curl_##name) *name;
struct libcurl_fns {
	LC(global_init)
	LC(easy_strerror)
	LC(slist_append)
	LC(easy_init)
	LC(easy_setopt)
	LC(easy_perform)
	LC(easy_getinfo)
	LC(easy_cleanup)
	LC(slist_free_all)
};
#undef LC
extern struct libcurl_fns lc;

/* Load libcurl and call curl_global_init() once per process: 0, or -1
 * with err saying why. */
int curl_ready(struct strbuf *err);

#endif

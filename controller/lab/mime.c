/*
 * mime.c - GMime, loaded on first use, and a mail read with it; see
 * mime.h.
 *
 * GMime is compiled against (its headers give the functions' types) but
 * loaded with dynlib.h, like libcurl and libvirt: a controller that never
 * reads a list does not load it and GLib with it.  g_free() and
 * g_object_unref() come from the libraries GMime itself links, which
 * dlsym() searches through its handle.
 */
#include <gmime/gmime.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "dynlib.h"
#include "lab/mime.h"
#include "banned.h"

#define GM(name) __typeof__(name) *name;
static struct {
	GM(g_mime_init)
	GM(g_mime_stream_mem_new_with_buffer)
	GM(g_mime_parser_new_with_stream)
	GM(g_mime_parser_construct_message)
	GM(g_mime_message_get_subject)
	GM(g_mime_message_get_message_id)
	GM(g_mime_message_get_from)
	GM(g_mime_message_get_reply_to)
	GM(g_mime_message_get_addresses)
	GM(g_mime_message_foreach)
	GM(g_mime_object_get_header)
	GM(g_mime_object_get_content_type)
	GM(g_mime_content_type_is_type)
	GM(g_mime_text_part_get_text)
	GM(g_mime_utils_header_decode_text)
	GM(g_mime_references_parse)
	GM(g_mime_references_length)
	GM(g_mime_references_get_message_id)
	GM(g_mime_references_free)
	GM(internet_address_list_length)
	GM(internet_address_list_get_address)
	GM(internet_address_to_string)
	GM(internet_address_list_to_string)
	GM(g_object_unref)
	GM(g_free)
} gm;
#undef GM

int mime_load(struct strbuf *err)
{
#define GM(name) { #name, (void **)&gm.name },
	static const struct dynlib_sym syms[] = {
		GM(g_mime_init) GM(g_mime_stream_mem_new_with_buffer) GM(
			g_mime_parser_new_with_stream) GM(g_mime_parser_construct_message)
			GM(g_mime_message_get_subject) GM(g_mime_message_get_message_id) GM(
				g_mime_message_get_from) GM(g_mime_message_get_reply_to)
				GM(g_mime_message_get_addresses) GM(g_mime_message_foreach) GM(
					g_mime_object_get_header) GM(g_mime_object_get_content_type)
					GM(g_mime_content_type_is_type) GM(
						g_mime_text_part_get_text) GM(g_mime_utils_header_decode_text)
						GM(g_mime_references_parse) GM(
							g_mime_references_length) GM(g_mime_references_get_message_id)
							GM(g_mime_references_free) GM(
								internet_address_list_length)
								GM(internet_address_list_get_address) GM(
									internet_address_to_string)
									GM(internet_address_list_to_string)
										GM(g_object_unref)
											GM(g_free)
	};
#undef GM
	static int done;

	if (done)
		return 0;
	if (dynlib_load("libgmime-3.0.so.0", "libgmime-3.0-0", syms,
			ARRAY_SIZE(syms), err) < 0)
		return -1;
	gm.g_mime_init();
	done = 1;
	return 0;
}

void mail_msg_init(struct mail_msg *m)
{
	memset(m, 0, sizeof(*m));
	strvec_init(&m->references);
	strvec_init(&m->to);
	strvec_init(&m->cc);
	strbuf_init(&m->body, 0);
}

void mail_msg_release(struct mail_msg *m)
{
	free(m->message_id);
	free(m->subject);
	free(m->from);
	free(m->reply_to);
	free(m->original_from);
	free(m->in_reply_to);
	strvec_clear(&m->references);
	strvec_clear(&m->to);
	strvec_clear(&m->cc);
	strbuf_release(&m->body);
	mail_msg_init(m);
}

/* A string GMime allocated, copied into our allocator and freed. */
static char *take_g(char *s)
{
	char *r = s ? xstrdup(s) : NULL;

	if (s)
		gm.g_free(s);
	return r;
}

/* A list of addresses as one decoded string; NULL when empty. */
static char *addr_string(InternetAddressList *l)
{
	if (!l || gm.internet_address_list_length(l) == 0)
		return NULL;
	return take_g(gm.internet_address_list_to_string(l, NULL, FALSE));
}

static void addr_each(InternetAddressList *l, struct strvec *ret)
{
	int n = l ? gm.internet_address_list_length(l) : 0;

	for (int i = 0; i < n; i++) {
		char *s = gm.internet_address_to_string(
			gm.internet_address_list_get_address(l, i), NULL,
			FALSE);

		if (s)
			strvec_push(ret, s);
		gm.g_free(s);
	}
}

/* The Message-IDs of a References or In-Reply-To value, oldest first. */
static void add_ids(const char *value, struct strvec *ret)
{
	GMimeReferences *refs;

	if (!value)
		return;
	refs = gm.g_mime_references_parse(NULL, value);
	if (!refs)
		return;
	for (int i = 0; i < gm.g_mime_references_length(refs); i++)
		strvec_push(ret, gm.g_mime_references_get_message_id(refs, i));
	gm.g_mime_references_free(refs);
}

/* g_mime_message_foreach()'s callback: each text part's decoded text. */
static void add_text(GMimeObject *parent, GMimeObject *part, gpointer data)
{
	struct strbuf *body = data;
	GMimeContentType *ct = gm.g_mime_object_get_content_type(part);
	char *text;

	(void)parent;
	if (!ct || !gm.g_mime_content_type_is_type(ct, "text", "*"))
		return;
	text = gm.g_mime_text_part_get_text((GMimeTextPart *)part);
	if (!text)
		return;
	if (body->len && body->buf[body->len - 1] != '\n')
		strbuf_addch(body, '\n');
	strbuf_addstr(body, text);
	gm.g_free(text);
}

int mime_parse(const char *data, size_t len, struct mail_msg *ret,
	       struct strbuf *err)
{
	GMimeStream *stream;
	GMimeParser *parser;
	GMimeMessage *msg;
	GMimeObject *obj;
	const char *v;
	struct strvec irt = STRVEC_INIT;

	if (mime_load(err) < 0)
		return -1;
	stream = gm.g_mime_stream_mem_new_with_buffer(data, len);
	parser = gm.g_mime_parser_new_with_stream(stream);
	gm.g_object_unref(stream);
	msg = gm.g_mime_parser_construct_message(parser, NULL);
	gm.g_object_unref(parser);
	if (!msg) {
		strbuf_addstr(err, "not a mail GMime can read");
		return -1;
	}
	obj = (GMimeObject *)msg;
	v = gm.g_mime_message_get_message_id(msg);
	if (!v || !*v) {
		strbuf_addstr(err, "no Message-ID");
		gm.g_object_unref(msg);
		return -1;
	}
	ret->message_id = xstrdup(v);
	v = gm.g_mime_message_get_subject(msg);
	ret->subject = xstrdup(v ? v : "");
	ret->from = addr_string(gm.g_mime_message_get_from(msg));
	if (!ret->from)
		ret->from = xstrdup("");
	ret->reply_to = addr_string(gm.g_mime_message_get_reply_to(msg));
	v = gm.g_mime_object_get_header(obj, "X-Original-From");
	if (v)
		ret->original_from =
			take_g(gm.g_mime_utils_header_decode_text(NULL, v));
	add_ids(gm.g_mime_object_get_header(obj, "In-Reply-To"), &irt);
	if (irt.nr)
		ret->in_reply_to = xstrdup(irt.v[0]);
	strvec_clear(&irt);
	add_ids(gm.g_mime_object_get_header(obj, "References"),
		&ret->references);
	addr_each(gm.g_mime_message_get_addresses(msg, GMIME_ADDRESS_TYPE_TO),
		  &ret->to);
	addr_each(gm.g_mime_message_get_addresses(msg, GMIME_ADDRESS_TYPE_CC),
		  &ret->cc);
	gm.g_mime_message_foreach(msg, add_text, &ret->body);
	gm.g_object_unref(msg);
	return 0;
}

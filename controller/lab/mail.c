/*
 * mail.c - one mail over SMTP with libcurl; see mail.h.
 *
 * libcurl speaks the protocol (EHLO, STARTTLS, AUTH, MAIL FROM, RCPT TO,
 * DATA with dot-stuffing); this file builds the message text, sets the
 * options and turns curl's result and the server's last reply code into
 * one sentence.  libcurl is loaded (dynlib.h) and curl_global_init()
 * called once per process, before the first handle, as libcurl requires.
 */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cleanup.h"
#include "dynlib.h"
#include "lab/mail.h"
#include "banned.h"

/* libcurl's functions, loaded by the first mail (dynlib.h), typed from
 * libcurl's own headers. */
#define LC(name) __typeof__(curl_##name) *name;
static struct {
	LC(global_init)
	LC(easy_strerror)
	LC(slist_append)
	LC(easy_init)
	LC(easy_setopt)
	LC(easy_perform)
	LC(easy_getinfo)
	LC(easy_cleanup)
	LC(slist_free_all)
} lc;
#undef LC

/* RFC 5322: at most 998 bytes per line, CRLF excluded. */
#define MAIL_LINE_MAX 990

int mail_address(const char *s, struct strbuf *out)
{
	const char *lt = strrchr(s, '<'), *gt;
	const char *b = s, *e = s + strlen(s);
	size_t n;

	/* A line break anywhere could start another SMTP command. */
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < ' ' && *p != '\t')
			return -1;
	if (lt && (gt = strchr(lt, '>'))) {
		b = lt + 1;
		e = gt;
	}
	while (b < e && (*b == ' ' || *b == '\t'))
		b++;
	while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	n = (size_t)(e - b);
	if (!n || n > 254 || !memchr(b, '@', n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)b[i];

		if (c <= ' ' || c == 0x7f || c == '<' || c == '>' || c == ',' ||
		    c == '"')
			return -1;
	}
	strbuf_add(out, b, n);
	return 0;
}

static int is_ascii_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return 0;
	return 1;
}

/*
 * A header value: as is when printable ASCII, else RFC 2047 base64
 * encoded-words of at most 45 input bytes each (whole UTF-8 sequences),
 * folded onto continuation lines.
 */
static void add_header_text(struct strbuf *out, const char *s)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn"
				  "opqrstuvwxyz0123456789+/";
	size_t len = strlen(s), i = 0;

	if (is_ascii_printable(s)) {
		strbuf_addstr(out, s);
		return;
	}
	while (i < len) {
		size_t n = len - i > 45 ? 45 : len - i;

		/* Do not cut a UTF-8 sequence. */
		while (n < len - i && n > 1 &&
		       ((unsigned char)s[i + n] & 0xc0) == 0x80)
			n--;
		if (i)
			strbuf_addstr(out, "\r\n ");
		strbuf_addstr(out, "=?UTF-8?B?");
		for (size_t j = 0; j < n; j += 3) {
			unsigned v = (unsigned char)s[i + j] << 16;

			if (j + 1 < n)
				v |= (unsigned char)s[i + j + 1] << 8;
			if (j + 2 < n)
				v |= (unsigned char)s[i + j + 2];
			strbuf_addch(out, b64[(v >> 18) & 63]);
			strbuf_addch(out, b64[(v >> 12) & 63]);
			strbuf_addch(out, j + 1 < n ? b64[(v >> 6) & 63] : '=');
			strbuf_addch(out, j + 2 < n ? b64[v & 63] : '=');
		}
		strbuf_addstr(out, "?=");
		i += n;
	}
}

/* Header values may not carry line breaks from input. */
static void add_header_line(struct strbuf *out, const char *name,
			    const char *value)
{
	struct strbuf v = STRBUF_INIT;

	strbuf_addstr(&v, value);
	for (size_t i = 0; i < v.len; i++)
		if (v.buf[i] == '\r' || v.buf[i] == '\n')
			v.buf[i] = ' ';
	strbuf_addf(out, "%s: ", name);
	add_header_text(out, v.buf);
	strbuf_addstr(out, "\r\n");
	strbuf_release(&v);
}

void mail_format(const struct mail_message *m, struct strbuf *out)
{
	struct strbuf to = STRBUF_INIT;
	char date[64];
	time_t t = (time_t)m->date;
	struct tm tm;
	const char *p, *end;

	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S +0000", &tm);
	for (size_t i = 0; i < m->to->nr; i++)
		strbuf_addf(&to, "%s%s", i ? ", " : "", m->to->v[i]);
	strbuf_addf(out, "Date: %s\r\n", date);
	add_header_line(out, "From", m->from);
	add_header_line(out, "To", to.buf);
	add_header_line(out, "Subject", m->subject);
	add_header_line(out, "Message-ID", m->message_id);
	strbuf_addstr(out, "MIME-Version: 1.0\r\n"
			   "Content-Type: text/plain; charset=UTF-8\r\n"
			   "Content-Transfer-Encoding: 8bit\r\n"
			   "Auto-Submitted: auto-generated\r\n"
			   "X-Mailer: schedfarm\r\n\r\n");
	/* Body: CRLF line ends, long lines cut (never inside UTF-8). */
	p = m->body;
	end = p + strlen(p);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		while (l > MAIL_LINE_MAX) {
			size_t cut = MAIL_LINE_MAX;

			while (cut > 1 &&
			       ((unsigned char)p[cut] & 0xc0) == 0x80)
				cut--;
			strbuf_add(out, p, cut);
			strbuf_addstr(out, "\r\n");
			p += cut;
			l -= cut;
		}
		if (l && p[l - 1] == '\r')
			l--;
		strbuf_add(out, p, l);
		strbuf_addstr(out, "\r\n");
		p = nl ? nl + 1 : end;
	}
	strbuf_release(&to);
}

struct upload {
	const char *data;
	size_t len, off;
};

static size_t read_cb(char *buf, size_t size, size_t nmemb, void *ctx)
{
	struct upload *u = ctx;
	size_t room = size * nmemb, n = u->len - u->off;

	if (n > room)
		n = room;
	memcpy(buf, u->data + u->off, n);
	u->off += n;
	return n;
}

static int curl_ready(struct strbuf *err)
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

int mail_send(const struct mail_server *s, const struct mail_message *m,
	      struct strbuf *err)
{
	char errbuf[CURL_ERROR_SIZE] = "";
	struct strbuf text = STRBUF_INIT, from = STRBUF_INIT,
		      addr = STRBUF_INIT;
	struct curl_slist *rcpt = NULL;
	struct upload up = { NULL, 0, 0 };
	CURL *h = NULL;
	CURLcode c;
	long code = 0;
	int r = -1;

	if (!s->url || !*s->url) {
		strbuf_addstr(err, "no SMTP server configured (mail.smtp)");
		return -1;
	}
	if (mail_address(m->from, &from) < 0) {
		strbuf_addf(err, "the sender '%s' is not a mail address",
			    m->from);
		goto out;
	}
	if (!m->to->nr) {
		strbuf_addstr(err, "no recipients");
		goto out;
	}
	if (curl_ready(err) < 0)
		goto out;
	for (size_t i = 0; i < m->to->nr; i++) {
		struct curl_slist *n;

		strbuf_reset(&addr);
		if (mail_address(m->to->v[i], &addr) < 0) {
			strbuf_addf(err,
				    "the recipient '%s' is not a mail "
				    "address",
				    m->to->v[i]);
			goto out;
		}
		n = lc.slist_append(rcpt, addr.buf);
		if (!n) {
			strbuf_addstr(err, "out of memory");
			goto out;
		}
		rcpt = n;
	}
	mail_format(m, &text);
	up.data = text.buf;
	up.len = text.len;
	h = lc.easy_init();
	if (!h) {
		strbuf_addstr(err, "libcurl could not make a handle");
		goto out;
	}
	lc.easy_setopt(h, CURLOPT_URL, s->url);
	lc.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	lc.easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	lc.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	lc.easy_setopt(h, CURLOPT_TIMEOUT_MS,
		       (long)(s->timeout_ms > 0 ? s->timeout_ms : 30000));
	lc.easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
		       (long)(s->timeout_ms > 0 && s->timeout_ms < 10000
				      ? s->timeout_ms
				      : 10000));
	if (!starts_with(s->url, "smtps://"))
		lc.easy_setopt(h, CURLOPT_USE_SSL,
			       (long)(s->starttls == 2	 ? CURLUSESSL_ALL
				      : s->starttls == 1 ? CURLUSESSL_TRY
							 : CURLUSESSL_NONE));
	if (s->ca_file)
		lc.easy_setopt(h, CURLOPT_CAINFO, s->ca_file);
	if (s->user) {
		lc.easy_setopt(h, CURLOPT_USERNAME, s->user);
		lc.easy_setopt(h, CURLOPT_PASSWORD,
			       s->password ? s->password : "");
	}
	lc.easy_setopt(h, CURLOPT_MAIL_FROM, from.buf);
	lc.easy_setopt(h, CURLOPT_MAIL_RCPT, rcpt);
	lc.easy_setopt(h, CURLOPT_READFUNCTION, read_cb);
	lc.easy_setopt(h, CURLOPT_READDATA, &up);
	lc.easy_setopt(h, CURLOPT_UPLOAD, 1L);
	c = lc.easy_perform(h);
	lc.easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	if (c != CURLE_OK) {
		strbuf_addf(err, "%s: %s", s->url,
			    errbuf[0] ? errbuf : lc.easy_strerror(c));
		strbuf_rtrim(err);
		if (code)
			strbuf_addf(err, " (last reply %ld)", code);
		goto out;
	}
	r = 0;
out:
	if (h)
		lc.easy_cleanup(h);
	if (rcpt)
		lc.slist_free_all(rcpt);
	strbuf_release(&text);
	strbuf_release(&from);
	strbuf_release(&addr);
	return r;
}

/*
 * config.c - the farm's settings file; see config.h.
 *
 * The keys are one table (config_keys[]): section, name, type, and where
 * the value goes in struct farm_config, so parsing, checking and showing
 * walk the same list and a new key is one line.  Defaults are set before
 * the file is read; a key given twice keeps the last value (as git-config
 * does), except `to`, whose lists add up.
 *
 * The file and the password file are trusted only as OpenSSH trusts its
 * own: a regular file owned by the controller's user or root that nobody
 * else may write (a conf others can change could point password_file at
 * /etc/shadow and smtp at their own server).  The password has one
 * source, password_file, read at send time: never the URL (refused, and
 * the refusal does not repeat it), never the environment, which every
 * child would inherit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "config.h"
#include "mailbox.h"
#include "parse.h"
#include "banned.h"

enum key_type {
	KEY_STRING, /* any text */
	KEY_PATH, /* an absolute path */
	KEY_URL, /* smtp:// or smtps:// */
	KEY_BASE_URL, /* any URL prefix of the report */
	KEY_BOOL, /* yes/no, true/false, on/off, 1/0 */
	KEY_TLS, /* no, try, required */
	KEY_LIST, /* comma-separated mailboxes */
	KEY_MAILBOX, /* one mailbox: "Name <addr>" or "addr" */
	KEY_DURATION, /* 30s, 5m, 1h */
	KEY_INT, /* an integer within min..max */
	KEY_SIZE, /* bytes: 5G, 500M (parse_size_bytes) within min..max */
	KEY_ORIGIN, /* a KCIDB origin: ^[a-z0-9_]+$ */
	KEY_HTTPS_URL, /* https://HOST[...], no user or password in it */
};

struct config_key {
	const char *section, *name;
	enum key_type type;
	size_t off; /* offsetof(struct farm_config, field) */
	int64_t min, max; /* KEY_INT, KEY_DURATION (ms), KEY_SIZE */
	const char *help;
};

#define F(field) offsetof(struct farm_config, field)

static const struct config_key config_keys[] = {
	{ "report", "dir", KEY_PATH, F(report_dir), 0, 0,
	  "where the controllers write the report (default: HOME/report)" },
	{ "report", "base_url", KEY_BASE_URL, F(base_url), 0, 0,
	  "the URL the report folder is served under, for links in mails" },
	{ "mail", "smtp", KEY_URL, F(smtp), 0, 0,
	  "smtp://HOST[:PORT] or smtps://HOST[:PORT]; unset: no mail" },
	{ "mail", "starttls", KEY_TLS, F(starttls), 0, 0,
	  "no, try (default) or required" },
	{ "mail", "user", KEY_STRING, F(user), 0, 0,
	  "SMTP login (needs TLS unless insecure_auth = yes)" },
	{ "mail", "password_file", KEY_PATH, F(password_file), 0, 0,
	  "a file whose first line is the SMTP password (the one source)" },
	{ "mail", "insecure_auth", KEY_BOOL, F(insecure_auth), 0, 0,
	  "allow the login without TLS (default no)" },
	{ "mail", "ca_file", KEY_PATH, F(ca_file), 0, 0,
	  "CA certificates for the server's TLS certificate" },
	{ "mail", "from", KEY_MAILBOX, F(from), 0, 0, "the sender" },
	{ "mail", "to", KEY_LIST, F(to), 0, 0,
	  "addresses that get every answer (a list)" },
	{ "mail", "submitter", KEY_BOOL, F(mail_submitter), 0, 0,
	  "mail the submitter too (default yes)" },
	{ "mail", "timeout", KEY_DURATION, F(timeout_ms), 1000, 600000,
	  "one SMTP session at most (default 30s)" },
	{ "mail", "retry_min", KEY_DURATION, F(retry_min_ms), 0, 86400000,
	  "first retry after a failure (default 1m), doubled each time" },
	{ "mail", "retry_max", KEY_DURATION, F(retry_max_ms), 0, 7 * 86400000LL,
	  "longest wait between retries (default 1h)" },
	{ "mail", "max_attempts", KEY_INT, F(max_attempts), 1, 1000,
	  "give up after this many (default 10)" },
	{ "bisect", "auto", KEY_BOOL, F(bisect_auto), 0, 0,
	  "a regression of a series starts a bisection (default yes)" },
	{ "bisect", "max_boots", KEY_INT, F(bisect_max_boots), 3, 1000,
	  "boots of one step at most (default 20)" },
	{ "kernel", "ccache_size", KEY_SIZE, F(kernel_ccache_size), 64ll << 20,
	  1ll << 50, "the compiler cache's cap, its max_size (default 5G)" },
	{ "kcidb", "origin", KEY_ORIGIN, F(kcidb_origin), 0, 0,
	  "this farm's KCIDB origin ([a-z0-9_]+); unset: no export" },
	{ "kcidb", "url", KEY_HTTPS_URL, F(kcidb_url), 0, 0,
	  "the kcidb-ng endpoint (https://); set: serve submits each answer" },
	{ "kcidb", "token_file", KEY_PATH, F(kcidb_token_file), 0, 0,
	  "a file whose first line is the endpoint's bearer token" },
	{ "kcidb", "ca_file", KEY_PATH, F(kcidb_ca_file), 0, 0,
	  "CA certificates for the endpoint's TLS certificate" },
	{ "kcidb", "retry", KEY_DURATION, F(kcidb_retry_ms), 1000, 86400000,
	  "first retry of a failed submission (default 1m), doubled" },
};

const char *config_tls_name(enum config_tls t)
{
	switch (t) {
	case CONFIG_TLS_NO:
		return "no";
	case CONFIG_TLS_TRY:
		return "try";
	case CONFIG_TLS_REQUIRED:
		return "required";
	}
	return "?";
}

void farm_config_init(struct farm_config *cfg)
{
	char host[256] = "";

	memset(cfg, 0, sizeof(*cfg));
	strvec_init(&cfg->to);
	strvec_init(&cfg->set_keys);
	cfg->source = "default";
	cfg->starttls = CONFIG_TLS_TRY;
	cfg->mail_submitter = 1;
	cfg->timeout_ms = 30000;
	cfg->retry_min_ms = 60000;
	cfg->retry_max_ms = 3600000;
	cfg->max_attempts = 10;
	cfg->bisect_auto = 1;
	cfg->bisect_max_boots = 20;
	cfg->kernel_ccache_size = CONFIG_CCACHE_SIZE_DEFAULT;
	cfg->kcidb_retry_ms = 60000;
	gethostname(host, sizeof(host) - 1);
	cfg->from = xstrfmt("schedfarm <schedfarm@%s>",
			    host[0] ? host : "localhost");
}

void farm_config_release(struct farm_config *cfg)
{
	free(cfg->path);
	free(cfg->report_dir);
	free(cfg->base_url);
	free(cfg->smtp);
	free(cfg->user);
	free(cfg->password_file);
	free(cfg->ca_file);
	free(cfg->from);
	free(cfg->kcidb_origin);
	free(cfg->kcidb_url);
	free(cfg->kcidb_token_file);
	free(cfg->kcidb_ca_file);
	strvec_clear(&cfg->to);
	strvec_clear(&cfg->set_keys);
	memset(cfg, 0, sizeof(*cfg));
}

static const struct config_key *find_key(const char *section, const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++)
		if (!strcmp(config_keys[i].section, section) &&
		    !strcmp(config_keys[i].name, name))
			return &config_keys[i];
	return NULL;
}

static int known_section(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++)
		if (!strcmp(config_keys[i].section, s))
			return 1;
	return 0;
}

static int parse_bool(const char *v, int *ret)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(v, yes[i])) {
			*ret = 1;
			return 0;
		}
		if (!strcasecmp(v, no[i])) {
			*ret = 0;
			return 0;
		}
	}
	return -1;
}

/* Split a comma-separated list into sv (each item one mailbox). */
static int parse_list(const char *v, struct strvec *sv, const char **why)
{
	struct strvec parts = STRVEC_INIT;
	int r = 0;

	strvec_split(&parts, v, ',');
	for (size_t i = 0; i < parts.nr; i++) {
		struct strbuf item = STRBUF_INIT;
		const char *mwhy;

		strbuf_addstr(&item, parts.v[i]);
		strbuf_trim(&item);
		if (!item.len ||
		    mail_parse_mailbox(item.buf, NULL, NULL, &mwhy) < 0) {
			*why = "is not a list of mail addresses "
			       "(a@b, Name <c@d>)";
			r = -1;
		} else {
			strvec_push(sv, item.buf);
		}
		strbuf_release(&item);
	}
	strvec_clear(&parts);
	return r;
}

/*
 * Store value v of key k into cfg.  0; -1 with *why; -2 with *why when
 * the value must not be repeated in the error (it holds a password).
 */
static int set_value(struct farm_config *cfg, const struct config_key *k,
		     const char *v, const char **why)
{
	char *base = (char *)cfg + k->off;
	int64_t n;
	int b;

	switch (k->type) {
	case KEY_PATH:
		if (v[0] != '/') {
			*why = "must be an absolute path";
			return -1;
		}
		/* fall through */
	case KEY_STRING:
		if (!*v) {
			*why = "is empty";
			return -1;
		}
		free(*(char **)base);
		*(char **)base = xstrdup(v);
		return 0;
	case KEY_URL:
		if (!starts_with(v, "smtp://") && !starts_with(v, "smtps://")) {
			*why = "must start with smtp:// or smtps://";
			return -1;
		}
		if (!v[strlen(starts_with(v, "smtp://") ? "smtp://"
							: "smtps://")]) {
			*why = "names no host";
			return -1;
		}
		{
			const char *a = strstr(v, "://") + 3;

			if (memchr(a, '@', strcspn(a, "/?#"))) {
				*why = "holds a user or password (user@ or "
				       "user:password@): refused, give the "
				       "login as mail.user and the password "
				       "in mail.password_file";
				return -2;
			}
		}
		free(*(char **)base);
		*(char **)base = xstrdup(v);
		return 0;
	case KEY_BASE_URL:
		if (!strstr(v, "://")) {
			*why = "is not a URL (https://host/path/, file:///...)";
			return -1;
		}
		free(*(char **)base);
		*(char **)base = xstrdup(v);
		return 0;
	case KEY_ORIGIN:
		if (!*v || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
				   strlen(v)) {
			*why = "is not a KCIDB origin (lower-case letters, "
			       "digits and _ only)";
			return -1;
		}
		free(*(char **)base);
		*(char **)base = xstrdup(v);
		return 0;
	case KEY_HTTPS_URL:
		if (!starts_with(v, "https://") || !v[strlen("https://")]) {
			*why = "must be https://HOST[:PORT][/PATH]";
			return -1;
		}
		if (memchr(v + 8, '@', strcspn(v + 8, "/?#"))) {
			*why = "holds a user or password (user@): refused, "
			       "give the token in kcidb.token_file";
			return -2;
		}
		free(*(char **)base);
		*(char **)base = xstrdup(v);
		return 0;
	case KEY_BOOL:
		if (parse_bool(v, &b) < 0) {
			*why = "is not yes or no";
			return -1;
		}
		*(int *)base = b;
		return 0;
	case KEY_TLS:
		if (!strcmp(v, "no"))
			*(enum config_tls *)base = CONFIG_TLS_NO;
		else if (!strcmp(v, "try"))
			*(enum config_tls *)base = CONFIG_TLS_TRY;
		else if (!strcmp(v, "required"))
			*(enum config_tls *)base = CONFIG_TLS_REQUIRED;
		else {
			*why = "is not no, try or required";
			return -1;
		}
		return 0;
	case KEY_LIST:
		return parse_list(v, (struct strvec *)base, why);
	case KEY_MAILBOX: {
		const char *mwhy;

		if (mail_parse_mailbox(v, NULL, NULL, &mwhy) < 0) {
			*why = "is not one mail address (Name <a@b>, or "
			       "a@b)";
			return -1;
		}
		free(*(char **)base);
		*(char **)base = xstrdup(v);
		return 0;
	}
	case KEY_DURATION:
		if (parse_duration_ms(v, k->min, k->max, &n, why) < 0)
			return -1;
		*(int64_t *)base = n;
		return 0;
	case KEY_INT:
		if (parse_i64(v, k->min, k->max, &n, why) < 0)
			return -1;
		*(int *)base = (int)n;
		return 0;
	case KEY_SIZE:
		if (parse_size_bytes(v, k->min, k->max, &n, why) < 0)
			return -1;
		*(int64_t *)base = n;
		return 0;
	}
	*why = "has an unknown type";
	return -1;
}

int farm_config_parse(struct farm_config *cfg, const char *name,
		      const char *text, size_t len, struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT, section = STRBUF_INIT;
	const char *p = text, *end = text + len;
	int lineno = 0, bad = 0;

	if (memchr(text, '\0', len)) {
		strbuf_addf(err, "%s: error: holds NUL bytes", name);
		return -1;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const struct config_key *k;
		const char *why = NULL;
		char *eq;
		int sr;

		lineno++;
		strbuf_reset(&line);
		strbuf_add(&line, p, l);
		p += l + 1;
		strbuf_trim(&line);
		if (!line.len || line.buf[0] == '#' || line.buf[0] == ';')
			continue;
		if (line.buf[0] == '[') {
			if (line.buf[line.len - 1] != ']') {
				strbuf_addf(err,
					    "%s:%d: error: a section is "
					    "[name]\n",
					    name, lineno);
				bad = 1;
				continue;
			}
			strbuf_reset(&section);
			strbuf_add(&section, line.buf + 1, line.len - 2);
			strbuf_trim(&section);
			if (!known_section(section.buf)) {
				strbuf_addf(err,
					    "%s:%d: error: unknown section "
					    "[%s] (expected [report], [mail], "
					    "[bisect], [kernel] or [kcidb])\n",
					    name, lineno, section.buf);
				bad = 1;
			}
			continue;
		}
		eq = strchr(line.buf, '=');
		if (!eq) {
			strbuf_addf(err,
				    "%s:%d: error: expected 'key = value', "
				    "a [section] or a # comment\n",
				    name, lineno);
			bad = 1;
			continue;
		}
		*eq = '\0';
		{
			struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;

			strbuf_addstr(&key, line.buf);
			strbuf_trim(&key);
			strbuf_addstr(&val, eq + 1);
			strbuf_trim(&val);
			k = section.len ? find_key(section.buf, key.buf) : NULL;
			if (!section.len) {
				strbuf_addf(err,
					    "%s:%d: error: '%s' is outside any "
					    "[section]\n",
					    name, lineno, key.buf);
				bad = 1;
			} else if (!k) {
				if (known_section(section.buf)) {
					strbuf_addf(err,
						    "%s:%d: error: unknown key "
						    "'%s' in [%s]\n",
						    name, lineno, key.buf,
						    section.buf);
					bad = 1;
				}
			} else if ((sr = set_value(cfg, k, val.buf, &why)) ==
				   -2) {
				strbuf_addf(err, "%s:%d: error: %s.%s %s\n",
					    name, lineno, k->section, k->name,
					    why);
				bad = 1;
			} else if (sr < 0) {
				strbuf_addf(err,
					    "%s:%d: error: %s.%s '%s' %s\n",
					    name, lineno, k->section, k->name,
					    val.buf, why);
				bad = 1;
			} else {
				strvec_pushf(&cfg->set_keys, "%s.%s",
					     k->section, k->name);
			}
			strbuf_release(&key);
			strbuf_release(&val);
		}
	}
	if (!bad && cfg->user && cfg->starttls == CONFIG_TLS_NO &&
	    !cfg->insecure_auth &&
	    !(cfg->smtp && starts_with(cfg->smtp, "smtps://"))) {
		strbuf_addf(err,
			    "%s: error: mail.user needs TLS, and mail.starttls "
			    "is no: the password would go out in clear "
			    "(mail.starttls = required, smtps://, or "
			    "mail.insecure_auth = yes)\n",
			    name);
		bad = 1;
	}
	if (!bad && cfg->retry_max_ms < cfg->retry_min_ms) {
		strbuf_addf(err,
			    "%s: error: mail.retry_max is below "
			    "mail.retry_min\n",
			    name);
		bad = 1;
	}
	if (!bad && cfg->kcidb_url && !cfg->kcidb_origin) {
		strbuf_addf(err,
			    "%s: error: kcidb.url is set without kcidb.origin: "
			    "every id sent needs this farm's origin\n",
			    name);
		bad = 1;
	}
	strbuf_release(&line);
	strbuf_release(&section);
	if (bad)
		strbuf_rtrim(err);
	return bad ? -1 : 0;
}

int farm_config_read_trusted(const char *path, const char *what, size_t max_len,
			     int private, struct strbuf *out,
			     struct strbuf *err)
{
	struct stat st;
	uid_t me = geteuid();
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r = -errno;
		strbuf_addf(err, "cannot read %s %s: %s", what, path,
			    strerror(errno));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		strbuf_addf(err, "cannot read %s %s: %s", what, path,
			    strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		strbuf_addf(err, "%s %s is refused: it is not a regular file",
			    what, path);
		close(fd);
		return -1;
	}
	if (st.st_uid != me && st.st_uid != 0) {
		strbuf_addf(err,
			    "%s %s is refused: it is owned by uid %lu, not by "
			    "the controller's user (uid %lu) or root",
			    what, path, (unsigned long)st.st_uid,
			    (unsigned long)me);
		close(fd);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		strbuf_addf(err,
			    "%s %s is refused: it is writable by %s (mode "
			    "%04o; chmod go-w it)",
			    what, path,
			    (st.st_mode & S_IWOTH) ? "others" : "its group",
			    (unsigned)(st.st_mode & 07777));
		close(fd);
		return -1;
	}
	if (private && (st.st_mode & S_IROTH)) {
		strbuf_addf(err,
			    "%s %s is refused: it is readable by others (mode "
			    "%04o; chmod o-r it)",
			    what, path, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -1;
	}
	r = strbuf_read_fd(out, fd, max_len);
	close(fd);
	if (r < 0) {
		if (r == -EFBIG)
			strbuf_addf(err,
				    "cannot read %s %s: larger than %zu "
				    "bytes",
				    what, path, max_len);
		else
			strbuf_addf(err, "cannot read %s %s: %s", what, path,
				    strerror(-r));
		return -1;
	}
	return 0;
}

int farm_config_load(struct farm_config *cfg, const char *cli_path,
		     const char *home, struct strbuf *err)
{
	const char *env = getenv("SCHEDFARM_CONFIG");
	struct strbuf text = STRBUF_INIT, e = STRBUF_INIT;
	int r;

	if (cli_path && *cli_path) {
		cfg->path = xstrdup(cli_path);
		cfg->source = "--config";
	} else if (env && *env) {
		cfg->path = xstrdup(env);
		cfg->source = "SCHEDFARM_CONFIG";
	} else {
		cfg->path = xstrfmt("%s/%s", home, CONFIG_FILE_NAME);
	}
	if (!cfg->report_dir)
		cfg->report_dir = xstrfmt("%s/report", home);
	r = farm_config_read_trusted(cfg->path, "the config file",
				     CONFIG_MAX_BYTES, 0, &text, &e);
	if (r < 0) {
		strbuf_release(&text);
		if (r == -ENOENT && !strcmp(cfg->source, "default")) {
			strbuf_release(&e);
			goto defaults;
		}
		strbuf_addf(err, "%s (%s)", e.buf, cfg->source);
		strbuf_release(&e);
		return -1;
	}
	cfg->from_file = 1;
	r = farm_config_parse(cfg, cfg->path, text.buf, text.len, err);
	strbuf_release(&text);
	if (r < 0)
		return -1;
defaults:
	if (!cfg->base_url)
		cfg->base_url = xstrfmt("file://%s/", cfg->report_dir);
	return 0;
}

int farm_config_password(const struct farm_config *cfg, struct strbuf *out,
			 int *ret_set, struct strbuf *err)
{
	*ret_set = 0;
	if (!cfg->password_file)
		return 0;
	if (farm_config_read_trusted(cfg->password_file, "mail.password_file",
				     4096, 1, out, err) < 0)
		return -1;
	strbuf_setlen(out, strcspn(out->buf, "\r\n"));
	*ret_set = 1;
	return 0;
}

int farm_config_kcidb_token(const struct farm_config *cfg, struct strbuf *out,
			    struct strbuf *err)
{
	if (!cfg->kcidb_token_file) {
		strbuf_addstr(err, "kcidb.token_file is not set: the endpoint "
				   "needs a bearer token");
		return -1;
	}
	if (farm_config_read_trusted(cfg->kcidb_token_file, "kcidb.token_file",
				     4096, 1, out, err) < 0)
		return -1;
	strbuf_setlen(out, strcspn(out->buf, "\r\n"));
	if (!out->len) {
		strbuf_addf(err, "kcidb.token_file %s is empty",
			    cfg->kcidb_token_file);
		return -1;
	}
	return 0;
}

int farm_config_check_secrets(const struct farm_config *cfg, struct strbuf *err)
{
	struct strbuf pw = STRBUF_INIT;
	int set, r = 0;

	if (cfg->smtp && cfg->password_file)
		r = farm_config_password(cfg, &pw, &set, err);
	memset(pw.buf, 0, pw.len);
	strbuf_reset(&pw);
	if (!r && cfg->kcidb_url)
		r = farm_config_kcidb_token(cfg, &pw, err);
	memset(pw.buf, 0, pw.len);
	strbuf_release(&pw);
	return r;
}

/* The value of key k as text (lists joined with ", "). */
static void key_value(const struct farm_config *cfg, const struct config_key *k,
		      struct strbuf *out, int *ret_null)
{
	const char *base = (const char *)cfg + k->off;
	int64_t ms;

	*ret_null = 0;
	switch (k->type) {
	case KEY_STRING:
	case KEY_PATH:
	case KEY_URL:
	case KEY_BASE_URL:
	case KEY_MAILBOX:
	case KEY_ORIGIN:
	case KEY_HTTPS_URL:
		if (*(char *const *)base)
			strbuf_addstr(out, *(char *const *)base);
		else
			*ret_null = 1;
		return;
	case KEY_BOOL:
		strbuf_addstr(out, *(const int *)base ? "yes" : "no");
		return;
	case KEY_TLS:
		strbuf_addstr(out,
			      config_tls_name(*(const enum config_tls *)base));
		return;
	case KEY_LIST: {
		const struct strvec *sv = (const struct strvec *)base;

		for (size_t i = 0; i < sv->nr; i++)
			strbuf_addf(out, "%s%s", i ? ", " : "", sv->v[i]);
		return;
	}
	case KEY_DURATION:
		ms = *(const int64_t *)base;
		if (ms % 3600000 == 0 && ms)
			strbuf_addf(out, "%lldh", (long long)(ms / 3600000));
		else if (ms % 60000 == 0 && ms)
			strbuf_addf(out, "%lldm", (long long)(ms / 60000));
		else if (ms % 1000 == 0)
			strbuf_addf(out, "%llds", (long long)(ms / 1000));
		else
			strbuf_addf(out, "%lldms", (long long)ms);
		return;
	case KEY_INT:
		strbuf_addf(out, "%d", *(const int *)base);
		return;
	case KEY_SIZE: {
		static const char *const unit[] = { "", "K", "M", "G", "T" };
		int u = 4;

		ms = *(const int64_t *)base;
		while (u > 0 && (!ms || ms % (1ll << (10 * u))))
			u--;
		strbuf_addf(out, "%lld%s", (long long)(ms >> (10 * u)),
			    unit[u]);
		return;
	}
	}
}

static int key_set(const struct farm_config *cfg, const struct config_key *k)
{
	for (size_t i = 0; i < cfg->set_keys.nr; i++) {
		const char *s = cfg->set_keys.v[i];
		size_t sl = strlen(k->section);

		if (!strncmp(s, k->section, sl) && s[sl] == '.' &&
		    !strcmp(s + sl + 1, k->name))
			return 1;
	}
	return 0;
}

void farm_config_show(const struct farm_config *cfg, int json,
		      struct strbuf *out)
{
	struct strbuf v = STRBUF_INIT;
	/* Only to say that it is not read: it was once a source. */
	const char *env = getenv("SCHEDFARM_SMTP_PASSWORD");
	int isnull;

	if (json) {
		strbuf_addstr(out, "{\"file\":");
		strbuf_add_json_str(out, cfg->path);
		strbuf_addf(out, ",\"file_read\":%s,\"source\":",
			    cfg->from_file ? "true" : "false");
		strbuf_add_json_str(out, cfg->source);
		for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++) {
			const struct config_key *k = &config_keys[i];

			strbuf_reset(&v);
			key_value(cfg, k, &v, &isnull);
			strbuf_addf(out, ",\"%s.%s\":", k->section, k->name);
			if (isnull)
				strbuf_addstr(out, "null");
			else if (k->type == KEY_LIST) {
				strbuf_addch(out, '[');
				for (size_t j = 0; j < cfg->to.nr; j++) {
					if (j)
						strbuf_addch(out, ',');
					strbuf_add_json_str(out, cfg->to.v[j]);
				}
				strbuf_addch(out, ']');
			} else if (k->type == KEY_BOOL)
				strbuf_addstr(out, v.buf[0] == 'y' ? "true"
								   : "false");
			else if (k->type == KEY_INT)
				strbuf_addstr(out, v.buf);
			else
				strbuf_add_json_str(out, v.buf);
		}
		strbuf_addf(out,
			    ",\"mail.password_source\":%s,"
			    "\"mail.password_env_ignored\":%s}\n",
			    cfg->password_file ? "\"password_file\"" : "null",
			    env ? "true" : "false");
		strbuf_release(&v);
		return;
	}
	strbuf_addf(out, "# %s (%s%s)\n", cfg->path, cfg->source,
		    cfg->from_file ? "" : "; not there: defaults");
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++) {
		const struct config_key *k = &config_keys[i];

		strbuf_reset(&v);
		key_value(cfg, k, &v, &isnull);
		strbuf_addf(out, "%s.%s = %s%s\n", k->section, k->name,
			    isnull ? "(unset)" : v.buf,
			    key_set(cfg, k) ? "" : "  # default");
	}
	strbuf_addf(out, "mail.password = %s\n",
		    cfg->password_file ? "(from password_file)" : "(none)");
	if (env)
		strbuf_addstr(out, "# SCHEDFARM_SMTP_PASSWORD is set and not "
				   "read: the password comes only from "
				   "mail.password_file\n");
	strbuf_release(&v);
}

char *farm_config_page_url(const struct farm_config *cfg, const char *page)
{
	const char *b = cfg->base_url ? cfg->base_url : "";
	size_t l = strlen(b);

	return xstrfmt("%s%s%s", b, l && b[l - 1] == '/' ? "" : "/", page);
}

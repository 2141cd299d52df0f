/*
 * config.h - the farm's settings file: where the report goes and under
 * which URL it is served, the SMTP server and who gets mail, and whether
 * a regression starts a bisection by itself.
 *
 * One file, found in this order: --config FILE, $SCHEDFARM_CONFIG, else
 * schedfarm.conf in the state folder (home.h).  A file named by --config
 * or the environment must exist; the default one may be absent (every
 * key then has its default).  The format is INI-like:
 *
 *     # a comment (a whole line)
 *     [report]
 *     dir = /srv/www/farm
 *     base_url = https://farm.example.org/
 *     [mail]
 *     smtp = smtp://mail.example.org:587
 *     starttls = required
 *     user = farm
 *     password_file = /etc/schedfarm/smtp-password
 *     from = schedfarm <farm@example.org>
 *     to = sched-devel@example.org, lab@example.org
 *     [bisect]
 *     auto = yes
 *     [kernel]
 *     ccache_size = 5G
 *     [kcidb]
 *     origin = my_farm
 *     url = https://kcidb.example.org/
 *     token_file = /etc/schedfarm/kcidb-token
 *
 * Every key, its type and default is in config_keys[] (config.c) and in
 * doc/ANSWERS.md; an unknown section or key, a bad value, or a line that
 * is none of the above is an error naming FILE:LINE.  The file is refused
 * when it is writable by its group or others or owned by another user
 * than the controller's or root (farm_config_read_trusted()).  Secrets are
 * never in the file: the SMTP password is read from password_file (and
 * nowhere else: not the URL, which may not hold one, not the environment)
 * when a mail is sent, and config_show() prints only whether one is set.
 * A login needs TLS unless insecure_auth says otherwise.  Nothing here
 * prints.
 */
#ifndef SCHEDFARM_CONFIG_H
#define SCHEDFARM_CONFIG_H

#include <stdint.h>

#include "strbuf.h"
#include "strvec.h"

#define CONFIG_FILE_NAME "schedfarm.conf"
#define CONFIG_MAX_BYTES (1024 * 1024)
#define CONFIG_CCACHE_SIZE_DEFAULT (5ll << 30)

enum config_tls {
	CONFIG_TLS_NO, /* plain smtp:// (loopback, a trusted relay) */
	CONFIG_TLS_TRY, /* STARTTLS when the server offers it */
	CONFIG_TLS_REQUIRED, /* STARTTLS or fail (smtps:// is TLS anyway) */
};

struct farm_config {
	char *path; /* the file read, or the default path looked at */
	int from_file; /* the file existed and was read */
	const char *source; /* "--config", "SCHEDFARM_CONFIG" or "default" */

	char *report_dir; /* [report] dir; default HOME/report */
	char *base_url; /* [report] base_url; default file://REPORT_DIR/ */

	char *smtp; /* [mail] smtp: smtp:// or smtps:// URL; NULL = no mail */
	enum config_tls starttls; /* [mail] starttls; default try */
	char *user; /* [mail] user; NULL = no login */
	char *password_file; /* [mail] password_file */
	int insecure_auth; /* [mail] insecure_auth: login without TLS */
	char *ca_file; /* [mail] ca_file: CA bundle for TLS; NULL = system */
	char *from; /* [mail] from; default "schedfarm <schedfarm@HOST>" */
	struct strvec to; /* [mail] to: the list that gets every answer */
	int mail_submitter; /* [mail] submitter: mail the submitter too */
	int64_t timeout_ms; /* [mail] timeout: one SMTP session */
	int64_t retry_min_ms, retry_max_ms; /* [mail] retry_min, retry_max */
	int max_attempts; /* [mail] max_attempts */

	int bisect_auto; /* [bisect] auto */
	int bisect_max_boots; /* [bisect] max_boots: per step, at most */

	/* [kernel] ccache_size: the compiler cache's cap in bytes, handed to
	 * ccache as its max_size by the builds that write it (lab/build.h). */
	int64_t kernel_ccache_size;

	/* [kcidb]: KernelCI's common database (doc/KCIDB.md).  origin names
	 * this farm in every id (^[a-z0-9_]+$; NULL: no export); url the
	 * kcidb-ng endpoint (https://; NULL: export to files only, and
	 * serve sends nothing); token_file its bearer token's file (read
	 * as password_file is, at send time); ca_file the endpoint's CA;
	 * retry_ms the first wait after a failed submission, doubled each
	 * time up to an hour. */
	char *kcidb_origin, *kcidb_url, *kcidb_token_file, *kcidb_ca_file;
	int64_t kcidb_retry_ms;

	struct strvec set_keys; /* "section.key" given in the file */
};

void farm_config_init(struct farm_config *cfg);
void farm_config_release(struct farm_config *cfg);

/*
 * Fill cfg from the defaults and the file (cli_path: --config, or NULL;
 * home: the state folder, for the default path and report folder).
 * Return 0, or -1 with err saying which file and line is wrong.
 */
int farm_config_load(struct farm_config *cfg, const char *cli_path,
		     const char *home, struct strbuf *err);

/*
 * Parse the text of a config file (len bytes; name for messages) over
 * what cfg holds.  0, or -1 with one "name:line: error: ..." per problem
 * in err.  For the loader and the unit tests.
 */
int farm_config_parse(struct farm_config *cfg, const char *name,
		      const char *text, size_t len, struct strbuf *err);

/*
 * The contents of path (what: "the config file", for errors) into out,
 * at most max_len bytes, when the file is one to trust: a regular file,
 * owned by the controller's user (geteuid) or root, not writable by its
 * group or others, and with private set not readable by others either.
 * 0; else a negative number with err naming the file and why (-ENOENT
 * and other errnos of open(), -1 for a refusal).
 */
int farm_config_read_trusted(const char *path, const char *what, size_t max_len,
			     int private, struct strbuf *out,
			     struct strbuf *err);

/*
 * The SMTP password: the first line of password_file (checked with
 * farm_config_read_trusted(), private), else none; the environment is
 * not read.  *ret_set says whether there is one.  0, or -1 with err when
 * the file cannot be read or is refused.
 */
int farm_config_password(const struct farm_config *cfg, struct strbuf *out,
			 int *ret_set, struct strbuf *err);

/*
 * The KCIDB bearer token: the first line of [kcidb] token_file, read as
 * farm_config_password() reads the SMTP password (trusted, private).
 * 0, or -1 with err (no token_file set, unreadable or refused).
 */
int farm_config_kcidb_token(const struct farm_config *cfg, struct strbuf *out,
			    struct strbuf *err);

/*
 * Whether the password file (when mail is on and one is named) would be
 * read at send time: farm_config_password() without keeping what it
 * read, so that `serve` (and `serve -n`) fail at start on a file that
 * every mail would then fail on.  0, or -1 with err.
 */
int farm_config_check_secrets(const struct farm_config *cfg,
			      struct strbuf *err);

/*
 * Append the effective settings: one "section.key = value  (source)"
 * line each, or with json one object of section.key -> value plus
 * "file" and "file_read".  Passwords never: password_file shows the path,
 * mail.password where the password comes from, and a set
 * $SCHEDFARM_SMTP_PASSWORD is named as ignored.
 */
void farm_config_show(const struct farm_config *cfg, int json,
		      struct strbuf *out);

/* "no", "try" or "required". */
const char *config_tls_name(enum config_tls t);

/* The page URL for page (a file name in the report folder). */
char *farm_config_page_url(const struct farm_config *cfg, const char *page);

#endif

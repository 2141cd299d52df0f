/*
 * cli.c - helpers the verbs share; see cli.h.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "home.h"
#include "log.h"
#include "parse.h"
#include "banned.h"

const char *cli_home(void)
{
	static char *home;
	struct strbuf err = STRBUF_INIT;

	if (!home && home_resolve(cli.home, &home, &err) < 0)
		fatal("%s", err.buf);
	strbuf_release(&err);
	return home;
}

struct db *cli_open_db_cfg(struct db_config *ret_cfg)
{
	struct strbuf err = STRBUF_INIT, log = STRBUF_INIT;
	struct db_config cfg;
	struct db *db = NULL;
	int applied = 0, r;

	if (db_config_resolve(&cfg, cli.db, cli_home(), &err) < 0)
		fatal("%s", err.buf);
	if (db_embedded_ensure(&cfg, NULL, &log, &err) < 0) {
		if (log.len)
			fputs(log.buf, stderr);
		fatal("cannot start the embedded database: %s", err.buf);
	}
	if (log.len && cli.verbose)
		fputs(log.buf, stderr);
	if (db_connect(&cfg, &db, &err) < 0)
		fatal("%s", err.buf);
	r = db_schema_check(db, &err);
	if (r == -3) {
		/* An older schema (or an empty database): bring it up. */
		strbuf_reset(&err);
		r = db_migrate(db, &applied, &err);
		if (r == 0 && applied)
			log_debug("applied %d schema migration(s)", applied);
	}
	if (r < 0)
		fatal("%s", err.buf);
	strbuf_release(&err);
	strbuf_release(&log);
	if (ret_cfg)
		*ret_cfg = cfg;
	else
		db_config_release(&cfg);
	return db;
}

struct db *cli_open_db(void)
{
	return cli_open_db_cfg(NULL);
}

void cli_db_fatal(const char *what, const struct strbuf *err)
{
	fatal("%s: %s", what, err->buf);
}

int cli_json_only(int argc, char **argv, int nargs, const char *synopsis)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' }, { NULL, 0, NULL, 0 }
	};
	int json = cli.json, opt;

	/* GNU order: --json may come before or after the operands. */
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt != 'j')
			die_usage("%s", synopsis);
		json = 1;
	}
	if (argc - optind != nargs)
		die_usage("%s", synopsis);
	return json;
}

void cli_emit(struct strbuf *sb)
{
	fwrite(sb->buf, 1, sb->len, stdout);
	fflush(stdout);
	strbuf_release(sb);
}

int cli_term_width(int fd)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");
	int w = 0;

	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		w = ws.ws_col;
	else if (!cols || parse_int(cols, 1, 10000, &w, NULL) < 0)
		w = 80;
	return w < 20 ? 20 : w;
}

/* Columns of s: its bytes less UTF-8 continuation bytes. */
static size_t columns(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Append the first `cols` columns of s, whole characters only. */
static void add_columns(struct strbuf *out, const char *s, size_t cols)
{
	const char *p = s;

	for (size_t n = 0; *p; p++) {
		if (((unsigned char)*p & 0xc0) != 0x80 && n++ == cols)
			break;
	}
	strbuf_add(out, s, (size_t)(p - s));
}

void cli_fit_line(struct strbuf *out, const char *head, const char *middle,
		  const char *tail, int width)
{
	size_t w = width > 0 ? (size_t)width : 0, h = columns(head),
	       m = columns(middle), t = columns(tail);

	if (h + m + t <= w) {
		strbuf_addstr(out, head);
		strbuf_addstr(out, middle);
		strbuf_addstr(out, tail);
		return;
	}
	if (h + t + 3 <= w) {
		strbuf_addstr(out, head);
		add_columns(out, middle, w - h - t - 3);
		strbuf_addstr(out, "...");
		strbuf_addstr(out, tail);
		return;
	}
	if (h <= w) {
		strbuf_addstr(out, head);
		add_columns(out, tail, w - h);
		return;
	}
	add_columns(out, head, w);
}

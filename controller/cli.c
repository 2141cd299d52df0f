/*
 * cli.c - helpers the verbs share; see cli.h.
 *
 * Opening the database, the verbs' getopt with "did you mean", and what
 * makes every verb answer the same way: --json read off the usage
 * text's synopses (so what help shows is what is accepted), a JSON
 * object printed as text with every field, and a progress line cut to
 * the terminal's width.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "home.h"
#include "json.h"
#include "log.h"
#include "parse.h"
#include "lab/build.h"
#include "plan/plan.h"
#include "strvec.h"
#include "suggest.h"
#include "store/cluster.h"
#include "store/controllers.h"
#include "store/hosts.h"
#include "store/queue.h"
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

char *cli_controller_begin(struct db *db)
{
	struct strbuf err = STRBUF_INIT;
	char *id = queue_owner_new();

	if (controllers_register(db, id, "cli", CLI_LEASE_S, &err) < 0)
		cli_db_fatal("registering this controller", &err);
	strbuf_release(&err);
	return id;
}

void cli_controller_end(struct db *db, char *id)
{
	struct strbuf err = STRBUF_INIT;

	if (id && controllers_stop(db, id, &err) < 0)
		log_warn("cannot end controller %s: %s", id, err.buf);
	strbuf_release(&err);
	free(id);
}

const struct farm_config *cli_config(void)
{
	static struct farm_config cfg;
	static int loaded;
	struct strbuf err = STRBUF_INIT;

	if (loaded)
		return &cfg;
	farm_config_init(&cfg);
	if (farm_config_load(&cfg, cli.config, cli_home(), &err) < 0)
		fatal("%s", err.buf);
	strbuf_release(&err);
	/* The builds that write the compiler cache cap it so. */
	kernel_ccache_set_max(cfg.kernel_ccache_size);
	loaded = 1;
	return &cfg;
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
	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		if (opt != 'j')
			die_usage("%s", synopsis);
		json = 1;
	}
	if (argc - optind != nargs)
		die_usage("%s", synopsis);
	return json;
}

int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, int *longindex)
{
	struct strvec names = STRVEC_INIT;
	const char *tok, *hint;
	char *name;
	int opt;

	opterr = 0;
	opt = getopt_long(argc, argv, shortopts, longopts, longindex);
	if (opt != '?')
		return opt;
	tok = optind > 0 && optind <= argc ? argv[optind - 1] : NULL;
	if (!tok || strncmp(tok, "--", 2)) {
		if (optopt && strchr(shortopts, optopt))
			fprintf(stderr, "%s: option '-%c' needs a value\n",
				argv[0], optopt);
		else
			fprintf(stderr, "%s: unknown option '-%c'\n", argv[0],
				optopt ? optopt : '?');
		return '?';
	}
	name = xstrndup(tok + 2, strcspn(tok + 2, "="));
	for (const struct option *o = longopts; o && o->name; o++) {
		if (!strcmp(o->name, name)) {
			fprintf(stderr, "%s: option '--%s' %s\n", argv[0], name,
				o->has_arg == no_argument ? "takes no value"
							  : "needs a value");
			goto out;
		}
		strvec_push(&names, o->name);
	}
	hint = suggest_closest(name, (const char *const *)names.v, names.nr);
	if (hint)
		fprintf(stderr,
			"%s: unknown option '--%s'; did you mean '--%s'?\n",
			argv[0], name, hint);
	else
		fprintf(stderr, "%s: unknown option '--%s'\n", argv[0], name);
out:
	free(name);
	strvec_clear(&names);
	return '?';
}

void cli_add_set(struct strvec *sets, const char *arg)
{
	if (!strchr(arg, '=') || arg[0] == '=')
		die_usage("--set takes KEY=VALUE, like params.duration=20s "
			  "(got '%s')",
			  arg);
	if (strlen(arg) > 4096)
		die_usage("--set KEY=VALUE is at most 4096 bytes");
	if (sets->nr >= PLAN_MAX_SETS)
		die_usage("at most %d --set", PLAN_MAX_SETS);
	strvec_push(sets, arg);
}

void cli_emit(struct strbuf *sb)
{
	if (printable_is_clean(sb->buf, sb->len, PRINTABLE_LINES)) {
		fwrite(sb->buf, 1, sb->len, stdout);
	} else {
		struct strbuf safe = STRBUF_INIT;

		strbuf_add_printablen(&safe, sb->buf, sb->len, PRINTABLE_LINES);
		fwrite(safe.buf, 1, safe.len, stdout);
		strbuf_release(&safe);
	}
	fflush(stdout);
	strbuf_release(sb);
}

void cli_put_text(FILE *f, const char *s)
{
	struct strbuf safe = STRBUF_INIT;

	strbuf_add_printable(&safe, s, PRINTABLE_LINES);
	fwrite(safe.buf, 1, safe.len, f);
	strbuf_release(&safe);
}

const char *cli_name(const char *what, const char *s, size_t max)
{
	struct strbuf err = STRBUF_INIT;

	if (check_name(what, s, max, &err) < 0)
		die_usage("%s", err.buf);
	return s;
}

void cli_check_since(struct db *db, const char *since)
{
	struct strbuf err = STRBUF_INIT;
	struct db_args a = DB_ARGS_INIT;
	int r;

	if (!since)
		return;
	db_args_str(&a, since);
	r = db_exec_args(db, NULL, &err, "SELECT $1::timestamptz", &a);
	db_args_clear(&a);
	if (r == 0) {
		strbuf_release(&err);
		return;
	}
	/* Class 22: the value, not the database, is wrong. */
	if (!strncmp(db_last_sqlstate(db), "22", 2))
		die_usage("--since '%s' is not a date or time (like "
			  "2026-11-01, '2026-11-01 12:00 UTC' or yesterday)",
			  since);
	cli_db_fatal("checking --since", &err);
}

void cli_check_host(struct db *db, const char *host)
{
	struct strbuf err = STRBUF_INIT;
	int64_t id;
	int r;

	if (!host)
		return;
	r = hosts_find(db, host, &id, &err);
	if (r < 0)
		cli_db_fatal("finding the host", &err);
	if (r > 0)
		fatal("no host named '%s' ('schedfarm host list' shows them)",
		      host);
	strbuf_release(&err);
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

/* Columns of the first len bytes of s. */
static size_t columns_n(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/*
 * Where to break a line of `len` bytes that is wider than `room` columns:
 * after the last blank within the first `room` columns when it lies in
 * their second half (the blank is dropped), else after the last '-', '/'
 * or ',' there (kept at the end of the line), else after the last blank
 * at all; when there is none of these, a hard cut after `room` whole
 * characters.  Sets *ret_skip to the bytes to drop at the break (1 for a
 * blank, else 0).
 */
static size_t wrap_break(const char *s, size_t len, size_t room,
			 size_t *ret_skip)
{
	size_t blank = 0, punct = 0, n = 0, i;

	for (i = 0; i < len; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == room)
			break;
		if (s[i] == ' ' && i > 0)
			blank = i;
		else if ((s[i] == '-' || s[i] == '/' || s[i] == ',') &&
			 n < room)
			punct = i + 1;
	}
	*ret_skip = 0;
	if (blank && (2 * blank >= room || !punct)) {
		*ret_skip = 1;
		return blank;
	}
	return punct ? punct : i;
}

/* Append one line (no newline in it) wrapped to width; see cli_wrap(). */
static void wrap_line(struct strbuf *out, const char *s, size_t len,
		      size_t width)
{
	size_t lead = strspn(s, " "), indent, skip;

	if (lead > len)
		lead = len;
	indent = lead + 2 < width / 2 ? lead + 2 : 0;
	for (int first = 1;; first = 0) {
		size_t room = first ? width : width - indent, cut;

		if (!first)
			strbuf_addf(out, "%*s", (int)indent, "");
		cut = columns_n(s, len) <= room
			      ? len
			      : wrap_break(s, len, room, &skip);
		if (cut == len) {
			strbuf_add(out, s, len);
			return;
		}
		strbuf_add(out, s, cut);
		while (cut > 0 && out->buf[out->len - 1] == ' ') {
			strbuf_setlen(out, out->len - 1);
			cut--;
		}
		strbuf_addch(out, '\n');
		s += cut + skip;
		len -= cut + skip;
		while (len && *s == ' ') {
			s++;
			len--;
		}
		if (!len)
			return;
	}
}

void cli_wrap(struct strbuf *out, const char *text, int width)
{
	size_t w = width >= 20 ? (size_t)width : 20;

	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);

		wrap_line(out, text, len, w);
		if (!nl)
			return;
		strbuf_addch(out, '\n');
		text = nl + 1;
	}
}

void cli_table_init(struct cli_table *t, const char *const *head,
		    const char *align, size_t ncols, size_t nkeep)
{
	t->head = head;
	t->align = align;
	t->nalign = align ? strlen(align) : 0;
	t->ncols = ncols;
	t->nkeep = nkeep < ncols ? nkeep : ncols;
	t->cells = xcalloc(1, sizeof(*t->cells));
	strvec_init(t->cells);
}

void cli_table_row(struct cli_table *t, const char *const *cells)
{
	for (size_t c = 0; c < t->ncols; c++)
		strvec_push(t->cells, cells[c] ? cells[c] : "-");
}

/* Append cell s padded to w columns (right-aligned when right); the last
 * column of a line is not padded. */
static void add_cell(struct strbuf *out, const char *s, size_t w, int right,
		     int last)
{
	size_t n = columns(s), pad = n < w ? w - n : 0;

	if (right)
		strbuf_addf(out, "%*s", (int)pad, "");
	strbuf_addstr(out, s);
	if (!right && !last)
		strbuf_addf(out, "%*s", (int)pad, "");
}

/* One line of cells[0..n) (the head when cells is t->head), padded to w. */
static void add_table_line(const struct cli_table *t, const char *const *cells,
			   size_t n, const size_t *w, struct strbuf *out)
{
	size_t start = out->len;

	for (size_t c = 0; c < n; c++) {
		if (c)
			strbuf_addch(out, ' ');
		add_cell(out, cells[c], w[c],
			 c < t->nalign && t->align[c] == 'r', c + 1 == n);
	}
	while (out->len > start && out->buf[out->len - 1] == ' ')
		strbuf_setlen(out, out->len - 1);
	strbuf_addch(out, '\n');
}

/*
 * The cells of row from column `from` on (those not empty or "-") under
 * the row as "  NAME value" pairs: on one line when it fits width, else
 * each pair on a line of its own (wrapped later by cli_wrap()).
 */
static void add_moved(const struct cli_table *t, const char *const *row,
		      size_t from, size_t width, struct strbuf *out)
{
	struct strbuf line = STRBUF_INIT;

	for (size_t c = from; c < t->ncols; c++)
		if (strcmp(row[c], "-") && row[c][0])
			strbuf_addf(&line, "  %s %s", t->head[c], row[c]);
	if (line.len && columns(line.buf) <= width) {
		strbuf_addbuf(out, &line);
		strbuf_addch(out, '\n');
	} else if (line.len) {
		for (size_t c = from; c < t->ncols; c++)
			if (strcmp(row[c], "-") && row[c][0])
				strbuf_addf(out, "  %s %s\n", t->head[c],
					    row[c]);
	}
	strbuf_release(&line);
}

void cli_table_print(const struct cli_table *t, int width, struct strbuf *out)
{
	size_t nrows = t->cells->nr / (t->ncols ? t->ncols : 1), total = 0,
	       n = t->ncols;
	size_t *w = xcalloc(t->ncols ? t->ncols : 1, sizeof(*w));
	struct strbuf text = STRBUF_INIT;

	for (size_t c = 0; c < t->ncols; c++) {
		w[c] = columns(t->head[c]);
		for (size_t r = 0; r < nrows; r++) {
			size_t l = columns(t->cells->v[r * t->ncols + c]);

			if (l > w[c])
				w[c] = l;
		}
		total += w[c] + (c ? 1 : 0);
	}
	if (width > 0 && total > (size_t)width)
		n = t->nkeep;
	add_table_line(t, t->head, n, w, &text);
	for (size_t r = 0; r < nrows; r++) {
		const char *const *row =
			(const char *const *)&t->cells->v[r * t->ncols];

		add_table_line(t, row, n, w, &text);
		if (n == t->ncols)
			continue;
		add_moved(t, row, n, (size_t)width, &text);
	}
	if (width > 0)
		cli_wrap(out, text.buf, width);
	else
		strbuf_addbuf(out, &text);
	strbuf_release(&text);
	free(w);
}

void cli_table_release(struct cli_table *t)
{
	if (!t->cells)
		return;
	strvec_clear(t->cells);
	free(t->cells);
	t->cells = NULL;
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

/* A scalar as text: strings bare, numbers as written, booleans yes/no. */
static void add_scalar(const struct json_value *v, struct strbuf *out)
{
	int b = 0;

	switch (json_type_of(v)) {
	case JSON_STRING:
		strbuf_add(out, json_string(v), json_string_len(v));
		break;
	case JSON_NUMBER:
		strbuf_addstr(out, json_number_text(v));
		break;
	case JSON_BOOL:
		json_bool(v, &b);
		strbuf_addstr(out, b ? "yes" : "no");
		break;
	default:
		strbuf_addstr(out, "-");
		break;
	}
}

static int is_scalar(const struct json_value *v)
{
	enum json_type t = json_type_of(v);

	return t != JSON_ARRAY && t != JSON_OBJECT;
}

void cli_json_as_text(const struct json_value *obj, int indent,
		      struct strbuf *out)
{
	size_t n = json_len(obj), width = 0;

	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(json_key_at(obj, i));

		if (l > width)
			width = l;
	}
	for (size_t i = 0; i < n; i++) {
		const char *key = json_key_at(obj, i);
		const struct json_value *v = json_value_at(obj, i);
		size_t m = json_len(v), k;

		if (json_type_of(v) == JSON_NULL)
			continue;
		strbuf_addf(out, "%*s%-*s ", indent, "", (int)width, key);
		if (is_scalar(v)) {
			add_scalar(v, out);
			strbuf_addch(out, '\n');
			continue;
		}
		if (json_type_of(v) == JSON_OBJECT) {
			strbuf_addstr(out, m ? "\n" : "-\n");
			cli_json_as_text(v, indent + 2, out);
			continue;
		}
		for (k = 0; k < m && is_scalar(json_at(v, k)); k++)
			;
		if (k == m) {
			/* An array of scalars: one line. */
			for (k = 0; k < m; k++) {
				if (k)
					strbuf_addstr(out, ", ");
				add_scalar(json_at(v, k), out);
			}
			strbuf_addstr(out, m ? "\n" : "-\n");
			continue;
		}
		strbuf_addch(out, '\n');
		for (k = 0; k < m; k++) {
			const struct json_value *e = json_at(v, k);

			if (json_type_of(e) == JSON_OBJECT) {
				strbuf_addf(out, "%*s[%zu]\n", indent + 2, "",
					    k + 1);
				cli_json_as_text(e, indent + 4, out);
			} else {
				strbuf_addf(out, "%*s", indent + 2, "");
				add_scalar(e, out);
				strbuf_addch(out, '\n');
			}
		}
	}
}

void cli_synopses(const char *usage, struct strvec *ret)
{
	struct strbuf cur = STRBUF_INIT;
	const char *l = strstr(usage, "usage: ");

	/* The synopses are the block from "usage:" to the first empty
	 * line; examples further down are not. */
	while (l && *l && *l != '\n') {
		size_t len = strcspn(l, "\n"), b = strspn(l, " \t");
		const char *t = l + b;
		int start = starts_with(l, "usage: schedfarm ") ||
			    (b && starts_with(t, "schedfarm "));
		int cont = cur.len && b && (*t == '[' || *t == '-');

		if (start || !cont) {
			if (cur.len)
				strvec_push(ret, cur.buf);
			strbuf_reset(&cur);
		}
		if (start || cont) {
			const char *p = starts_with(l, "usage: ") ? l + 7 : t;

			/* Blanks squeezed: one space between words. */
			for (; p < l + len; p++) {
				if (*p == ' ' || *p == '\t') {
					if (cur.len &&
					    cur.buf[cur.len - 1] != ' ')
						strbuf_addch(&cur, ' ');
				} else {
					if (cont && p == t && cur.len &&
					    cur.buf[cur.len - 1] != ' ')
						strbuf_addch(&cur, ' ');
					strbuf_addch(&cur, *p);
				}
			}
			strbuf_rtrim(&cur);
		}
		l += len + (l[len] == '\n');
	}
	if (cur.len)
		strvec_push(ret, cur.buf);
	strbuf_release(&cur);
}

/* The word after "schedfarm VERB " in syn, when it names a subcommand (a
 * lowercase word), into word; else word stays empty. */
static void syn_sub(const char *syn, struct strbuf *word)
{
	const char *p = strchr(syn, ' ');

	p = p ? strchr(p + 1, ' ') : NULL;
	if (!p)
		return;
	p++;
	while (*p >= 'a' && *p <= 'z')
		strbuf_addch(word, *p++);
	if (*p && *p != ' ')
		strbuf_reset(word);
}

int cli_json_documented(const struct command *c, const char *sub,
			int *ret_has_subs)
{
	struct strvec syn = STRVEC_INIT;
	struct strbuf w = STRBUF_INIT;
	int has_subs = 0, ok = 0;

	cli_synopses(c->usage, &syn);
	for (size_t i = 0; i < syn.nr; i++) {
		strbuf_reset(&w);
		syn_sub(syn.v[i], &w);
		has_subs |= w.len > 0;
	}
	for (size_t i = 0; i < syn.nr && !ok; i++) {
		strbuf_reset(&w);
		syn_sub(syn.v[i], &w);
		if (has_subs && (!sub || strcmp(w.buf, sub)))
			continue;
		ok = strstr(syn.v[i], "--json") != NULL;
	}
	strvec_clear(&syn);
	strbuf_release(&w);
	if (ret_has_subs)
		*ret_has_subs = has_subs;
	return ok;
}

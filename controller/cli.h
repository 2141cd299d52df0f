/*
 * cli.h - what the verbs share: global options, the verb table entry, and
 * the one way a verb opens the database.
 *
 * Exit codes for every verb: 0 success, 1 failure, 2 usage error.
 */
#ifndef SCHEDFARM_CLI_H
#define SCHEDFARM_CLI_H

#include <stdio.h>

#include "store/db.h"
#include "strvec.h"

#define EXIT_USAGE 2

struct cli_globals {
	const char *db; /* --db CONNINFO */
	const char *home; /* --home DIR (SCHEDFARM_HOME) */
	const char *config; /* --config FILE (SCHEDFARM_CONFIG) */
	int json; /* --json given before the verb */
	int verbose;
};
extern struct cli_globals cli;

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *usage; /* full help: synopsis, options, examples */
};

/* The sorted verb table (main.c). */
extern const struct command commands[];
extern const unsigned commands_count;
const struct command *command_find(const char *name);
void command_print_usage(const struct command *c, FILE *f);

/*
 * The state folder (home.h) from --home, SCHEDFARM_HOME or the default,
 * worked out on the first call and the same string after it.  On failure
 * it prints why and exits 1: only verbs call it.
 */
const char *cli_home(void);

/*
 * Resolve, start (embedded), connect, and make sure the schema is the one
 * this binary knows (migrating an older one, refusing a newer one).  On
 * failure it prints why and exits 1: only verbs call it.
 */
struct db *cli_open_db(void);
/* As above, with the resolved configuration handed back as well. */
struct db *cli_open_db_cfg(struct db_config *ret_cfg);

/*
 * A verb that boots a host outside a job (kernel boot, host check,
 * kernel orphans) is a controller of its own for as long as it runs: it
 * registers an id (store/controllers.h) with a lease of CLI_LEASE_S
 * seconds, under which its domain and power operations are recorded, and
 * ends it with cli_controller_end().  Killed, it leaves a lease that
 * expires, after which a sweep may take down what it left.  Exits 1 when
 * the id cannot be registered (verbs only).
 */
#define CLI_LEASE_S 3600
char *cli_controller_begin(struct db *db);
void cli_controller_end(struct db *db, char *id);

struct farm_config;
/*
 * The farm's settings (config.h) from --config, SCHEDFARM_CONFIG or the
 * state folder's schedfarm.conf, read on the first call.  On a bad file it
 * prints why and exits 1: only verbs call it.
 */
const struct farm_config *cli_config(void);

/* Report a failed statement and exit 1 (verbs only). */
__attribute__((noreturn)) void cli_db_fatal(const char *what,
					    const struct strbuf *err);

/*
 * For verbs whose only option is --json: parse argv (getopt state reset by
 * main), require exactly nargs operands left, and return 1 when JSON output
 * is wanted (this --json or the global one).  Anything else is a usage
 * error that prints synopsis and exits 2.  Operands start at optind.
 */
int cli_json_only(int argc, char **argv, int nargs, const char *synopsis);

struct option;
/*
 * getopt_long() for the verbs, with the same arguments and return value,
 * but an unknown option is answered with the closest known one ("did you
 * mean '--metric'?") and a missing value names the option, both on
 * stderr prefixed with argv[0] (the verb); it then returns '?' as
 * getopt_long() does, for the verb's usage error.
 */
int cli_getopt(int argc, char **argv, const char *shortopts,
	       const struct option *longopts, int *longindex);

/*
 * Write sb to stdout and release it.  What it holds is shown as
 * strbuf_add_printable() with PRINTABLE_LINES makes it: a name, a git
 * subject or a program's output in it cannot act on the terminal (ESC,
 * C1, bidi controls), whatever the verb put there.
 */
void cli_emit(struct strbuf *sb);
/* Write s to f the same way: for text from outside (logs, errors). */
void cli_put_text(FILE *f, const char *s);

/*
 * A name given on the command line (what: "a host name"): printable text
 * of 1..max bytes (check_name() in parse.h), else a usage error that says
 * why and exits 2.  Returns s.
 */
const char *cli_name(const char *what, const char *s, size_t max);

/*
 * --since DATE: anything PostgreSQL reads as a timestamptz ("2026-11-01",
 * "2026-11-01 12:00 UTC", "yesterday"), asked of the database so that the
 * rule is exactly the one the queries use; else a usage error that says
 * what a date looks like and exits 2 (never the server's raw message).
 */
void cli_check_since(struct db *db, const char *since);

/*
 * --host H of a verb that reads what hosts measured: a name no host has
 * is the user's mistake (exit 1, "no host named ..."), not an empty
 * listing.  Nothing when host is NULL.
 */
void cli_check_host(struct db *db, const char *host);

struct json_value;
struct strvec;
/*
 * Append a JSON object as text for people, one "key  value" line per
 * member: nulls left out, arrays of scalars joined with ", ", objects and
 * arrays of objects as indented blocks below their key.  Every non-null
 * member of the JSON form is in the text form.  indent: spaces before
 * each line of this level.
 */
void cli_json_as_text(const struct json_value *obj, int indent,
		      struct strbuf *out);

/*
 * Append each synopsis of a verb's usage text to ret, one string each:
 * in the block from "usage: " to the first empty line, the lines that
 * start with "usage: schedfarm VERB" or "schedfarm VERB" (after blanks),
 * joined with the lines that continue them (blanks, then '[' or '-'),
 * with the leading "usage: " and runs of blanks taken out.
 */
void cli_synopses(const char *usage, struct strvec *ret);

/*
 * May `schedfarm --json VERB SUB ...` print JSON?  Yes when a synopsis of
 * the verb's usage shows --json for that form: the synopsis of subcommand
 * sub (argv[1], may be NULL) when the verb has subcommands, else any of
 * the verb's.  The usage text is the one truth: what it shows is what
 * the verb takes, and a test walks the same synopses.  *ret_has_subs (may
 * be NULL) says whether the verb has subcommands.
 */
int cli_json_documented(const struct command *c, const char *sub,
			int *ret_has_subs);

/*
 * The width of the terminal on fd (TIOCGWINSZ), else $COLUMNS, else 80;
 * at least 20.
 */
int cli_term_width(int fd);

/*
 * Append head, middle and tail to out so that the line takes at most
 * width columns (a UTF-8 character is one column): middle is cut first
 * (ending in "..."), then tail, then head.  Nothing is added after the
 * last column, so a terminal never wraps the line.
 */
void cli_fit_line(struct strbuf *out, const char *head, const char *middle,
		  const char *tail, int width);

/*
 * Append text to out with every line wider than width columns (at least
 * 20; a UTF-8 character is one column) wrapped: broken after the last
 * blank, '-', '/' or ',' that fits (a word is cut only when it alone is
 * wider than the line), the continuation lines indented two columns past
 * the line's own leading blanks.  Lines that fit are copied unchanged, so
 * a table whose rows fit keeps its alignment and only its long labels and
 * notes wrap.
 */
void cli_wrap(struct strbuf *out, const char *text, int width);

/* The width text output fits unless --wide: 80 columns. */
#define CLI_TEXT_WIDTH 80

/*
 * A text table that fits a width: columns named by head[] (their names,
 * ncols of them; align NULL or a string, align[c] 'r' right-aligns column
 * c, a column past its end is left-aligned), rows of cells added
 * with cli_table_row().  Printed with every column padded to its longest
 * cell, one line a row, when that fits; else each row keeps its first
 * nkeep columns on its line and the others (long labels: a kernel, a
 * plan, an error) move to a line of their own under it, as "name value"
 * pairs, wrapped (cli_wrap()).  The head and align strings are the
 * caller's; the cells are copied.
 */
struct cli_table {
	const char *const *head;
	const char *align;
	size_t nalign, ncols, nkeep;
	struct strvec *cells;
};
void cli_table_init(struct cli_table *t, const char *const *head,
		    const char *align, size_t ncols, size_t nkeep);
/* Add one row: cells[0..ncols); a NULL cell is printed as "-". */
void cli_table_row(struct cli_table *t, const char *const *cells);
/* Append the table to out, fitted to width (0: one line a row, always). */
void cli_table_print(const struct cli_table *t, int width, struct strbuf *out);
void cli_table_release(struct cli_table *t);

/*
 * One `--set KEY=VALUE` of run, submit, rerun and plan: appended to sets
 * (at most PLAN_MAX_SETS, 4096 bytes each, or a usage error).  What KEY
 * and VALUE may be is the plan checker's to say (plan_parse_set()).
 */
void cli_add_set(struct strvec *sets, const char *arg);

#endif

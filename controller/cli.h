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

/* Write sb to stdout and release it. */
void cli_emit(struct strbuf *sb);

#endif

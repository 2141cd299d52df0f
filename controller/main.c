/*
 * main.c - the schedfarm command line: global options, the verb table,
 * dispatch.
 *
 * `schedfarm [GLOBAL OPTIONS] VERB [ARGS]`.  The table below is sorted by
 * name (a test checks it); each verb lives in controller/cmd_<verb>.c.
 * `VERB --help` and `help VERB` print the same text.  (After git.c.)
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cli.h"
#include "lab/host_kind.h"
#include "lab/sandbox.h"
#include "log.h"
#include "strbuf.h"
#include "suggest.h"
#include "banned.h"

#ifndef SCHEDFARM_VERSION
#define SCHEDFARM_VERSION "0.1"
#endif

struct cli_globals cli;

const struct command commands[] = {
	{ "bisect", cmd_bisect,
	  "find the patch of a series that moves a metric; show bisections",
	  cmd_bisect_usage },
	{ "changes", cmd_changes,
	  "change points in each host's history; tau from its A/A spread",
	  cmd_changes_usage },
	{ "compare", cmd_compare,
	  "patch against baseline per metric: %change, CI, p, verdict",
	  cmd_compare_usage },
	{ "config", cmd_config,
	  "show the farm's settings (report, mail, bisection)",
	  cmd_config_usage },
	{ "db", cmd_db,
	  "manage the database: status, start, stop, migrate, psql",
	  cmd_db_usage },
	{ "export", cmd_export,
	  "answers as KernelCI (KCIDB) results: a document, or submitted",
	  cmd_export_usage },
	{ "help", cmd_help, "show help for schedfarm or one verb",
	  cmd_help_usage },
	{ "host", cmd_host, "add, list, show, change and remove hosts",
	  cmd_host_usage },
	{ "import", cmd_import,
	  "store results made elsewhere (CSV observations or summaries)",
	  cmd_import_usage },
	{ "job", cmd_job, "show or cancel a job (STP id), ingest a run by hand",
	  cmd_job_usage },
	{ "kernel", cmd_kernel,
	  "build, list and boot kernels (cached by base, series, config)",
	  cmd_kernel_usage },
	{ "list", cmd_list, "follow mailing lists: add, show, rm, poll",
	  cmd_list_usage },
	{ "patch", cmd_patch,
	  "a submission (PLM#) and its answer: verdicts, page, mails",
	  cmd_patch_usage },
	{ "plan", cmd_plan, "check a plan, or show the runs it expands to",
	  cmd_plan_usage },
	{ "queue", cmd_queue, "list the jobs and where they stand",
	  cmd_queue_usage },
	{ "regressions", cmd_regressions, "list the latest regression verdicts",
	  cmd_regressions_usage },
	{ "report", cmd_report,
	  "write the results as static HTML pages with plots",
	  cmd_report_usage },
	{ "rerun", cmd_rerun,
	  "queue a job or plan again, on its host or another",
	  cmd_rerun_usage },
	{ "results", cmd_results,
	  "print the numbers stored for a job, run or kernel",
	  cmd_results_usage },
	{ "run", cmd_run,
	  "run queued jobs, or one plan at once, in the foreground",
	  cmd_run_usage },
	{ "serve", cmd_serve, "the controller daemon: claim and run jobs",
	  cmd_serve_usage },
	{ "submit", cmd_submit, "queue a patch series with a plan",
	  cmd_submit_usage },
};
const unsigned commands_count = sizeof(commands) / sizeof(commands[0]);

static const char global_usage[] =
	"usage: schedfarm [--db CONNINFO] [--home DIR] [--config FILE] "
	"[--json] [-v]\n"
	"                 VERB [ARGS]\n"
	"\n"
	"A test farm for Linux scheduler patches: queue a patch, build and "
	"boot\n"
	"it, run workloads on hosts, store every number in PostgreSQL, and "
	"say\n"
	"what got better or worse, where, by how much, and how sure it is.\n"
	"\n"
	"Global options:\n"
	"  --db CONNINFO  the database (else SCHEDFARM_DB, else PG* "
	"variables,\n"
	"                 else the embedded cluster under --home)\n"
	"  --home DIR     state folder (SCHEDFARM_HOME; default\n"
	"                 ~/.local/share/schedfarm, /var/lib/schedfarm for "
	"root)\n"
	"  --config FILE  the farm's settings (SCHEDFARM_CONFIG; default\n"
	"                 schedfarm.conf in the state folder)\n"
	"  --json         print data as JSON (verbs that print data)\n"
	"  --trust-submitters\n"
	"                 where the build sandbox (bubblewrap) cannot be had,\n"
	"                 build submitted patches unconfined all the same\n"
	"  -v, --verbose  more messages\n"
	"  --version      print the version\n"
	"\n"
	"Exit status: 0 success, 1 failure, 2 usage error.\n"
	"\n"
	"Verbs:\n";

void command_print_usage(const struct command *c, FILE *f)
{
	fputs(c->usage, f);
}

const struct command *command_find(const char *name)
{
	for (unsigned i = 0; i < commands_count; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_global_usage(FILE *f)
{
	fputs(global_usage, f);
	for (unsigned i = 0; i < commands_count; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name,
			commands[i].summary);
	fputs("\nRun 'schedfarm help VERB' for one verb; man schedfarm for "
	      "all.\n",
	      f);
}

/* Say that there is no verb `name`, with the closest one if it looks like
 * a typo of it (as git does). */
static void no_verb(const char *name)
{
	const char **names = xcalloc(commands_count, sizeof(*names));
	const char *hint;

	for (unsigned i = 0; i < commands_count; i++)
		names[i] = commands[i].name;
	hint = suggest_closest(name, names, commands_count);
	if (hint)
		log_error("no verb '%s'; did you mean '%s'? ('schedfarm help' "
			  "lists them)",
			  name, hint);
	else
		log_error("no verb '%s'; 'schedfarm help' lists them", name);
	free(names);
}

/* Does the verb's argv ask for help (before any "--")? */
static int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	}
	return 0;
}

const char cmd_help_usage[] = "usage: schedfarm help [VERB]\n"
			      "\n"
			      "Without VERB, list the verbs; with one, print "
			      "its full help (the same\n"
			      "text as 'schedfarm VERB --help').\n";

int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		print_global_usage(stdout);
		return 0;
	}
	if (argc > 2)
		die_usage("help takes one verb");
	/* `help --help` and `help -h`: help's own text. */
	c = !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")
		    ? command_find("help")
		    : command_find(argv[1]);
	if (!c) {
		no_verb(argv[1]);
		return EXIT_USAGE;
	}
	command_print_usage(c, stdout);
	return 0;
}

int main(int argc, char **argv);
int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'D' },
		{ "home", required_argument, NULL, 'H' },
		{ "config", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "trust-submitters", no_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *c;
	int opt, subs = 0;

	signal(SIGPIPE, SIG_IGN);
	log_init("schedfarm", LOG_LEVEL_INFO);
	host_kind_publish(); /* the kinds' names, for store/ and plan/ */
	/* '+': stop at the verb; its options are its own. */
	while ((opt = cli_getopt(argc, argv, "+vh", opts, NULL)) != -1) {
		switch (opt) {
		case 'D':
			cli.db = optarg;
			break;
		case 'H':
			cli.home = optarg;
			break;
		case 'C':
			cli.config = optarg;
			break;
		case 'j':
			cli.json = 1;
			break;
		case 'T':
			sandbox_set_trust_submitters(1);
			break;
		case 'v':
			cli.verbose++;
			log_set_level(LOG_LEVEL_DEBUG);
			break;
		case 'V':
			printf("schedfarm %s\n", SCHEDFARM_VERSION);
			return 0;
		case 'h':
			print_global_usage(stdout);
			return 0;
		default:
			print_global_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		print_global_usage(stderr);
		return EXIT_USAGE;
	}
	c = command_find(argv[optind]);
	if (!c) {
		no_verb(argv[optind]);
		return EXIT_USAGE;
	}
	argc -= optind;
	argv += optind;
	if (c->fn != cmd_help && wants_help(argc, argv)) {
		command_print_usage(c, stdout);
		return 0;
	}
	if (cli.json &&
	    !cli_json_documented(c, argc > 1 ? argv[1] : NULL, &subs)) {
		/* Printing text when JSON was asked for would break the
		 * script that asked; say so instead. */
		log_error("'%s%s%s' prints no JSON: --json goes with the forms "
			  "whose synopsis shows it ('schedfarm help %s')",
			  c->name, subs && argc > 1 ? " " : "",
			  subs && argc > 1 ? argv[1] : "", c->name);
		return EXIT_USAGE;
	}
	optind = 0; /* reset getopt for the verb (0 also resets GNU state) */
	return c->fn(argc, argv);
}

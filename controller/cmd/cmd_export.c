/*
 * cmd_export.c - `schedfarm export kcidb`: answers as one KCIDB 5.3 I/O
 * document, or submitted to a kcidb-ng endpoint (doc/KCIDB.md).
 *
 * The verb reads the settings ([kcidb] origin, url, token_file, ca_file;
 * [report] base_url and dir for the URLs and the series' files), picks
 * the answers, and prints or submits; the mapping is report/kcidb.c's,
 * the submission and its record report/kcidb_submit.c's.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cmd/builtin.h"
#include "config.h"
#include "fs.h"
#include "log.h"
#include "parse.h"
#include "report/kcidb.h"
#include "store/kcidb.h"
#include "banned.h"

const char cmd_export_usage[] =
	"usage: schedfarm export kcidb [PLM#] [--kernel NAME] [--since TIME]\n"
	"                              [--all] [--origin NAME] [-o FILE]\n"
	"       schedfarm export kcidb [PLM#] [--kernel NAME] [--since TIME]\n"
	"                              --submit [--wait DURATION]\n"
	"\n"
	"Answers as KernelCI's common database (KCIDB) reads them: one I/O\n"
	"document of schema 5.3 with a checkout per base and per series, a\n"
	"build per kernel, and a test per boot and per boot and metric, the\n"
	"verdicts in each metric's misc (doc/KCIDB.md).  Every id starts with\n"
	"the farm's origin ([kcidb] origin in the settings).  Without a PLM#\n"
	"it takes every answer not yet exported, and records each as written.\n"
	"\n"
	"  PLM#             this answer only (exported again if it was)\n"
	"  --kernel NAME    answers whose base or patched kernel is NAME\n"
	"  --since TIME     answers given at or after TIME\n"
	"  --all            every answer, exported before or not\n"
	"  --origin NAME    instead of [kcidb] origin ([a-z0-9_]+)\n"
	"  -o FILE          write the document to FILE, not stdout\n"
	"  --submit         send the answers due to [kcidb] url instead:\n"
	"                   POST /submit with the token of [kcidb]\n"
	"                   token_file, then GET /status?id= until processed\n"
	"                   or failed; each answer is sent once and recorded,\n"
	"                   a failure recorded and retried by a later call;\n"
	"                   PLM#, --kernel and --since select as above\n"
	"  --wait DURATION  poll each submission this long (default 60s)\n"
	"\n"
	"Exit status: 0, 1 when a submission failed (recorded, retried later)\n"
	"or the database failed, 2 on a usage error.\n"
	"\n"
	"Example:\n"
	"  schedfarm export kcidb --since yesterday -o kcidb.json\n";

struct export_args {
	int64_t patch;
	const char *kernel, *since, *origin, *out;
	int all, submit;
	int64_t wait_ms;
};

static void parse_args(int argc, char **argv, struct export_args *a)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "since", required_argument, NULL, 's' },
		{ "origin", required_argument, NULL, 'O' },
		{ "all", no_argument, NULL, 'a' },
		{ "submit", no_argument, NULL, 'S' },
		{ "wait", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	const char *why;
	int opt;

	memset(a, 0, sizeof(*a));
	a->wait_ms = 60000;
	while ((opt = cli_getopt(argc, argv, "o:", opts, NULL)) != -1) {
		switch (opt) {
		case 'k':
			a->kernel = cli_name("a kernel name", optarg, 200);
			break;
		case 's':
			a->since = optarg;
			break;
		case 'O':
			a->origin = optarg;
			break;
		case 'a':
			a->all = 1;
			break;
		case 'S':
			a->submit = 1;
			break;
		case 'w':
			if (parse_duration_ms(optarg, 0, 3600000, &a->wait_ms,
					      &why) < 0)
				die_usage("--wait '%s' %s (0s..1h)", optarg,
					  why);
			break;
		case 'o':
			a->out = optarg;
			break;
		default:
			die_usage("see 'schedfarm export --help'");
		}
	}
	if (optind >= argc || strcmp(argv[optind], "kcidb"))
		die_usage("export takes a format: 'export kcidb'");
	optind++;
	if (optind < argc) {
		const char *plm = argv[optind];

		if (!strncmp(plm, "PLM#", 4))
			plm += 4;
		if (parse_i64(plm, 1, INT64_MAX, &a->patch, &why) < 0)
			die_usage("PLM# '%s' %s", argv[optind], why);
		if (++optind < argc)
			die_usage("export kcidb takes one PLM#");
	}
	if (a->submit && (a->out || a->all))
		die_usage("--submit takes no -o and no --all (a processed "
			  "answer is never sent again)");
}

/* The settings the mapping needs, origin checked. */
static void export_opts(const struct export_args *a, struct kcidb_opts *o)
{
	const char *origin = a->origin ? a->origin : cli_config()->kcidb_origin;
	struct strbuf err = STRBUF_INIT;

	if (!origin)
		die_usage("no KCIDB origin: set [kcidb] origin in the settings "
			  "or give --origin");
	if (!*origin ||
	    strspn(origin, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
		    strlen(origin))
		die_usage("--origin '%s' is not a KCIDB origin (lower-case "
			  "letters, digits and _)",
			  origin);
	if (kcidb_opts_from_config(cli_config(), origin, o, &err) < 0)
		fatal("export: %s", err.buf);
	strbuf_release(&err);
}

/* --submit: the answers due sent, the rest polled. */
static int submit(struct db *db, const struct export_args *a,
		  const struct kcidb_opts *o)
{
	struct strbuf err = STRBUF_INIT, notes = STRBUF_INIT;
	struct kcidb_select sel = { a->patch, a->kernel, a->since };
	struct kcidb_submit_stats st;

	if (!cli_config()->kcidb_url)
		die_usage("--submit needs [kcidb] url in the settings");
	if (kcidb_submit_configured(db, cli_config(), o->origin, &sel,
				    a->wait_ms, &st, &notes, &err) < 0)
		fatal("export: %s", err.buf);
	if (notes.len)
		cli_put_text(stderr, notes.buf);
	printf("kcidb: %d sent, %d processed, %d failed (retried later), "
	       "%d waiting\n",
	       st.sent, st.processed, st.failed, st.waiting);
	strbuf_release(&err);
	strbuf_release(&notes);
	return st.failed ? 1 : 0;
}

/* Record patch's answer as written, with its own document (what a
 * later --submit would send of it). */
static void record_written(struct db *db, const struct kcidb_opts *o,
			   int64_t patch)
{
	struct strbuf err = STRBUF_INIT, doc = STRBUF_INIT;
	struct kcidb_doc d;

	kcidb_doc_init(&d);
	if (kcidb_doc_add_answer(&d, db, o, patch, &err) < 0)
		fatal("export: %s", err.buf);
	kcidb_doc_text(&d, &doc);
	if (kcidb_export_written(db, patch, o->origin, doc.buf, &err) < 0)
		fatal("export: %s", err.buf);
	kcidb_doc_release(&d);
	strbuf_release(&doc);
	strbuf_release(&err);
}

int cmd_export(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT, doc = STRBUF_INIT;
	struct db_result *res = NULL;
	struct export_args a;
	struct kcidb_opts o;
	struct kcidb_doc d;
	struct db *db;
	int rc = 0;

	parse_args(argc, argv, &a);
	export_opts(&a, &o);
	db = cli_open_db();
	cli_check_since(db, a.since);
	if (a.submit) {
		rc = submit(db, &a, &o);
		db_close(db);
		return rc;
	}
	if (kcidb_answers(db, a.patch, a.kernel, a.since,
			  a.patch || a.all ? KCIDB_PICK_ANY : KCIDB_PICK_NEW,
			  &res, &err) < 0)
		fatal("export: %s", err.buf);
	if (a.patch && !db_nrows(res))
		fatal("export: PLM#%lld has no answer to export",
		      (long long)a.patch);
	kcidb_doc_init(&d);
	for (int i = 0; i < db_nrows(res); i++)
		if (kcidb_doc_add_answer(&d, db, &o,
					 strtoll(db_get(res, i, 0), NULL, 10),
					 &err) < 0)
			fatal("export: %s", err.buf);
	kcidb_doc_text(&d, &doc);
	if (a.out) {
		if (write_file_atomic(a.out, doc.buf, doc.len, 0644, 0, &err) <
		    0)
			fatal("export: %s", err.buf);
	} else if (fwrite(doc.buf, 1, doc.len, stdout) != doc.len ||
		   fflush(stdout)) {
		fatal("export: cannot write the document to stdout");
	}
	for (int i = 0; i < db_nrows(res); i++)
		record_written(db, &o, strtoll(db_get(res, i, 0), NULL, 10));
	if (!db_nrows(res))
		log_info("export: no answer to export");
	kcidb_doc_release(&d);
	db_result_free(res);
	strbuf_release(&doc);
	strbuf_release(&err);
	db_close(db);
	return rc;
}

/*
 * cmd_import.c - `schedfarm import FILE...`: results made elsewhere
 * (analysis/import.c parses and stores them).
 *
 * A file with any bad row is refused whole, each bad row named FILE:LINE
 * with the reason; a good file is stored in one transaction.  Exit status
 * 1 when any file was refused.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analysis/import.h"
#include "cmd/builtin.h"
#include "cli.h"
#include "log.h"
#include "banned.h"

const char cmd_import_usage[] =
	"usage: schedfarm import FILE...\n"
	"\n"
	"Store results made elsewhere, so they compare like the farm's own.\n"
	"Each FILE is CSV with a header line naming its columns (any order):\n"
	"\n"
	"  observations: kernel,host,workload,params,metric,unit,better,value\n"
	"                and optionally boot (rows with the same boot number\n"
	"                are iterations of one boot: one observation)\n"
	"  summaries:    "
	"kernel,host,workload,params,metric,unit,better,n,mean,\n"
	"                stddev (stddev is the standard deviation, not the\n"
	"                standard error that perf stat prints as +-)\n"
	"\n"
	"better is 'higher', 'lower' or 'none' (no better side: the verdict\n"
	"is changed, no-change or inconclusive); params is "
	"key=value;key=value\n"
	"(or empty).  Values, means and stddevs are 0 or of a magnitude from\n"
	"1e-150 to 1e150 (the comparison squares them).  Lines starting with "
	"#\n"
	"and empty lines are skipped.  Fields may be quoted with \"...\" "
	"(\"\"\n"
	"inside for a quote).\n"
	"\n"
	"A file with a bad row is refused whole: each bad row is printed as\n"
	"FILE:LINE: reason and nothing of that file is stored.  The same file\n"
	"(by its SHA-256) is imported once.  Hosts that do not exist yet are\n"
	"created as kind 'imported', never scheduled.  Exit status 1 when any\n"
	"file was refused.\n"
	"\n"
	"Example:\n"
	"  schedfarm import reaim-2003.csv\n"
	"  schedfarm compare --base mm4-pre-A3 --new mm4-A3\n";

/* Import one file; print what happened.  0 stored, -1 refused. */
static int import_one(struct db *db, const char *path)
{
	struct import_file f;
	struct strbuf content = STRBUF_INIT, err = STRBUF_INIT;
	int64_t import_id = 0;
	size_t nruns = 0;
	int r;

	import_file_init(&f, path);
	r = strbuf_read_file(&content, path, IMPORT_MAX_BYTES);
	if (r < 0) {
		log_error("%s: cannot read: %s", path,
			  r == -EFBIG ? "larger than 64 MiB" : strerror(-r));
		r = -1;
		goto out;
	}
	if (import_parse(&f, &content) < 0) {
		/* The errors quote the file's fields. */
		cli_put_text(stderr, f.errors.buf);
		if (f.nerrors > IMPORT_MAX_ERRORS)
			fprintf(stderr, "%s: ... and %u more bad rows\n", path,
				f.nerrors - IMPORT_MAX_ERRORS);
		log_error("%s: refused, nothing stored (%u bad row%s)", path,
			  f.nerrors, f.nerrors == 1 ? "" : "s");
		r = -1;
		goto out;
	}
	r = import_store(db, &f, &content, &import_id, &nruns, &err);
	if (r < 0) {
		log_error("%s: refused, nothing stored: %s", path, err.buf);
		r = -1;
		goto out;
	}
	printf("%s: imported %zu %s as %zu run%s (import #%lld)\n", path, f.nr,
	       f.format == IMPORT_OBSERVATIONS ? "observation rows"
					       : "summary rows",
	       nruns, nruns == 1 ? "" : "s", (long long)import_id);
	r = 0;
out:
	import_file_release(&f);
	strbuf_release(&content);
	strbuf_release(&err);
	return r;
}

int cmd_import(int argc, char **argv)
{
	static const struct option opts[] = { { NULL, 0, NULL, 0 } };
	struct db *db;
	int opt, failed = 0;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1)
		die_usage("import FILE...");
	if (optind >= argc)
		die_usage("import needs at least one FILE");
	db = cli_open_db();
	for (int i = optind; i < argc; i++)
		if (import_one(db, argv[i]) < 0)
			failed++;
	db_close(db);
	return failed ? 1 : 0;
}

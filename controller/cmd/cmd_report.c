/*
 * cmd_report.c - `schedfarm report [--out DIR] [--since DATE]`.
 *
 * Writes the static HTML report (controller/report/) into a folder and
 * prints what it did: how many pages were rendered (their data changed,
 * and the index, rendered every time) and how many left unchanged, how
 * many files were written (a rendered page whose bytes did not move is
 * not), and the path of the index.  Only pages whose data changed
 * since the last report into the same folder are written again; the
 * index is rendered every time.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/builtin.h"
#include "cleanup.h"
#include "cli.h"
#include "config.h"
#include "home.h"
#include "log.h"
#include "report/report.h"
#include "banned.h"

const char cmd_report_usage[] =
	"usage: schedfarm report [--out DIR] [--since DATE] [--static DIR]\n"
	"                        [--list] [--json]\n"
	"\n"
	"Write the results as static HTML pages into DIR (default: report.dir\n"
	"of 'schedfarm config', else report/ under the state folder,\n"
	"$SCHEDFARM_HOME/report): index.html with the\n"
	"queue and the latest patches, one page per patch (PLM-style table,\n"
	"every comparison with its CI, p and verdict, plots), per kernel pair\n"
	"compared without a patch, per run (host, kernel, params, agent info,\n"
	"results, scheduler counters, time series, console log, agent lines),\n"
	"per host and per plan.  Every table has CSV and JSON files beside "
	"it.\n"
	"The pages load no script and nothing from outside their folder, and\n"
	"open from disk (file://).\n"
	"\n"
	"Only pages whose data changed since the last report into the same\n"
	"folder are written (fingerprints are kept in the database); the "
	"index\n"
	"is rewritten each time.  Verdicts are those `schedfarm compare`\n"
	"stored; run it first.\n"
	"\n"
	"  --out DIR      where to write (created when missing; it, or what\n"
	"                 it links to, must be yours and not writable by\n"
	"                 group or others)\n"
	"  --since DATE   look only at runs, patches, comparisons, hosts and\n"
	"                 plans with something new from DATE on (any date\n"
	"                 PostgreSQL reads: 2026-11-30, '2026-11-30 12:00Z')\n"
	"  --static DIR   the stylesheet and page template (default: the\n"
	"                 web-static/ folder installed with schedfarm, or\n"
	"                 $SCHEDFARM_WEB_STATIC)\n"
	"  --list         print the name of every file written\n"
	"  --json         print one object instead (below)\n"
	"\n"
	"With --json: one object with out_dir, index, pages_checked (every\n"
	"page but the index), pages_unchanged, pages_rendered (the changed\n"
	"ones and the index), pages_written, files_written and written (the\n"
	"list).\n"
	"\n"
	"Examples:\n"
	"  schedfarm report --out /srv/www/farm\n"
	"  schedfarm report --since 2026-11-01 --list\n";

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "since", required_argument, NULL, 's' },
		{ "static", required_argument, NULL, 'S' },
		{ "list", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct strbuf err = STRBUF_INIT, stat_dir = STRBUF_INIT,
		      out_dir = STRBUF_INIT, out = STRBUF_INIT;
	struct report_opts o = { 0 };
	struct report_stats st;
	struct db_config cfg;
	struct db *db;
	char now[64];
	time_t t = time(NULL);
	struct tm tm;
	int opt, list = 0, json = cli.json;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			if (!*optarg)
				die_usage("--out needs a folder");
			o.out_dir = optarg;
			break;
		case 's':
			if (!*optarg)
				die_usage("--since needs a date");
			o.since = optarg;
			break;
		case 'S':
			strbuf_reset(&stat_dir);
			strbuf_addstr(&stat_dir, optarg);
			break;
		case 'l':
			list = 1;
			break;
		case 'j':
			json = 1;
			break;
		default:
			die_usage("report [--out DIR] [--since DATE] "
				  "[--static DIR] [--list] [--json]");
		}
	}
	if (optind != argc)
		die_usage("report takes no arguments; did you mean --out %s?",
			  argv[optind]);
	if (!stat_dir.len && report_find_static(&stat_dir, &err) < 0)
		fatal("%s", err.buf);
	o.static_dir = stat_dir.buf;
	db = cli_open_db_cfg(&cfg);
	cli_check_since(db, o.since);
	if (!o.out_dir) {
		_cleanup_free_ char *dir = NULL,
				    *def = xstrfmt("%s/%s", cli_home(),
						   HOME_REPORT);

		/* report.dir of the settings, else the state folder's
		 * report/ (home.h), also with --db. */
		if (strcmp(cli_config()->report_dir, def))
			strbuf_addstr(&out_dir, cli_config()->report_dir);
		else if (home_subdir(cli_home(), HOME_REPORT, &dir, &err) < 0)
			fatal("%s", err.buf);
		else
			strbuf_addstr(&out_dir, dir);
		o.out_dir = out_dir.buf;
	}
	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%d %H:%M:%S UTC", &tm);
	o.now = now;

	report_stats_init(&st);
	if (report_write(db, &o, &st, &err) < 0)
		fatal("report: %s", err.buf);

	if (json) {
		strbuf_addstr(&out, "{\"out_dir\":");
		strbuf_add_json_str(&out, st.out_dir);
		strbuf_addstr(&out, ",\"index\":");
		{
			struct strbuf idx = STRBUF_INIT;

			strbuf_addf(&idx, "%s/index.html", st.out_dir);
			strbuf_add_json_str(&out, idx.buf);
			strbuf_release(&idx);
		}
		strbuf_addf(&out,
			    ",\"pages_checked\":%d,\"pages_unchanged\":%d,"
			    "\"pages_rendered\":%d,"
			    "\"pages_written\":%d,\"files_written\":%d,"
			    "\"written\":[",
			    st.pages_checked, st.pages_unchanged,
			    st.pages_rendered, st.pages_written,
			    st.files_written);
		for (size_t i = 0; i < st.written.nr; i++) {
			if (i)
				strbuf_addch(&out, ',');
			strbuf_add_json_str(&out, st.written.v[i]);
		}
		strbuf_addstr(&out, "]}\n");
	} else {
		if (list)
			for (size_t i = 0; i < st.written.nr; i++)
				strbuf_addf(&out, "wrote %s\n",
					    st.written.v[i]);
		/* Every page is rendered or unchanged; a rendered page
		 * whose bytes did not move is not written again. */
		strbuf_addf(
			&out,
			"report: %d page%s rendered, %d unchanged; "
			"%d page%s and %d other file%s written\n",
			st.pages_rendered, st.pages_rendered == 1 ? "" : "s",
			st.pages_unchanged, st.pages_written,
			st.pages_written == 1 ? "" : "s",
			st.files_written - st.pages_written,
			st.files_written - st.pages_written == 1 ? "" : "s");
		strbuf_addf(&out, "%s/index.html\n", st.out_dir);
	}
	cli_emit(&out);
	report_stats_release(&st);
	db_close(db);
	db_config_release(&cfg);
	strbuf_release(&err);
	strbuf_release(&stat_dir);
	strbuf_release(&out_dir);
	return 0;
}

/*
 * cmd_bisect.c - `schedfarm bisect`: find the change of a series that
 * moves a metric, and show or cancel a bisection.
 *
 * Starting one stores it and queues its first job; the controllers
 * (`serve`, or `run` in the foreground) run the steps and decide them
 * (analysis/bisect.c).  show prints the steps the same way the
 * bisection's page does.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/bisect.h"
#include "cleanup.h"
#include "cli.h"
#include "cmd/builtin.h"
#include "config.h"
#include "json.h"
#include "log.h"
#include "parse.h"
#include "banned.h"

const char cmd_bisect_usage[] =
	"usage: schedfarm bisect PLM# [--metric NAME] [--host NAME] "
	"[--max-boots N]\n"
	"       schedfarm bisect --tree DIR --good REV --bad REV --plan FILE\n"
	"                        --host NAME --metric NAME [--config SPEC]\n"
	"                        [--max-boots N]\n"
	"       schedfarm bisect show ID [--json]\n"
	"       schedfarm bisect cancel ID\n"
	"\n"
	"Find the first change of a series that causes a regression (or an\n"
	"improvement) of a metric.  Point k of a series of n is its base plus\n"
	"the first k patches (or the k-th commit of GOOD..BAD on the first-\n"
	"parent line of a kernel git tree).  Each point's kernel is built in "
	"the\n"
	"one incremental tree of its base and config (only what it changes "
	"is\n"
	"rebuilt), booted on the host, and measured with the plan, look by "
	"look\n"
	"(the comparison's sequential rule, at most --max-boots boots) until "
	"it\n"
	"is decided against the two ends: like the good end, or like the bad\n"
	"one.  A point that cannot be decided, built or booted is skipped.  "
	"The\n"
	"result names the first bad change with its %change and 95% CI "
	"against\n"
	"the good point before it.  A submission of two or more patches whose\n"
	"answer is a regression is bisected by itself ([bisect] auto in the\n"
	"config, 'submit --no-bisect').\n"
	"\n"
	"  --metric NAME    the metric (default: the submission's headline)\n"
	"  --host NAME      a host that boots kernels (default: the one the\n"
	"                   submission ran on)\n"
	"  --max-boots N    boots of one step at most (3..1000; default\n"
	"                   [bisect] max_boots, 20)\n"
	"  --tree DIR       a kernel git repository; with --good and --bad\n"
	"  --plan FILE      the plan of a range bisection\n"
	"  --config SPEC    the kernel config (tinyconfig+farm-base.config+\n"
	"                   farm-vm.config by default)\n"
	"\n"
	"show prints the points, each step (kernel, n, mean, %change against\n"
	"the good end with its CI, verdicts, build time) and the result;\n"
	"cancel stops a running bisection and its queued jobs.\n";

static int64_t parse_num_id(const char *s, const char *what)
{
	const char *why;
	int64_t v;

	if (starts_with(s, "PLM#") || starts_with(s, "plm#"))
		s += 4;
	else if (s[0] == '#')
		s++;
	if (parse_i64(s, 1, INT64_MAX, &v, &why) < 0)
		die_usage("%s '%s' %s", what, s, why);
	return v;
}

/* v with prec decimals in width (an optional sign, a % sign); "-" for
 * a missing number. */
static void add_num(struct strbuf *out, double v, int width, int prec, int sign,
		    int pct)
{
	struct strbuf t = STRBUF_INIT;

	if (!isfinite(v))
		strbuf_addch(&t, '-');
	else if (sign)
		strbuf_addf(&t, "%+.*f%s", prec, v, pct ? "%" : "");
	else if (prec < 0)
		strbuf_addf(&t, "%.4g", v);
	else
		strbuf_addf(&t, "%.*f", prec, v);
	strbuf_addf(out, "%*s ", width, t.buf);
	strbuf_release(&t);
}

static int render(const char *json, struct strbuf *out, struct strbuf *err)
{
	struct json_value *b = NULL;
	const struct json_value *list;

	if (json_parse(json, strlen(json), NULL, &b, err) < 0)
		return -1;
	strbuf_addf(out, "bisect #%.0f: ", json_member_number(b, "bisection"));
	if (isfinite(json_member_number(b, "patch")))
		strbuf_addf(out, "PLM#%.0f \"%s\"",
			    json_member_number(b, "patch"),
			    json_member_string(b, "patch_name")
				    ? json_member_string(b, "patch_name")
				    : "");
	else
		strbuf_addf(out, "%s %s..%s", json_member_string(b, "tree"),
			    json_member_string(b, "good"),
			    json_member_string(b, "bad"));
	strbuf_addf(out, ", %.0f change%s, %s\n", json_member_number(b, "n"),
		    json_member_number(b, "n") == 1 ? "" : "s",
		    json_member_string(b, "state"));
	strbuf_addf(out,
		    "  %s of %s (%s) on %s, plan %s, at most %.0f "
		    "boots a step\n",
		    json_member_string(b, "direction")
			    ? json_member_string(b, "direction")
			    : "a change",
		    json_member_string(b, "metric"),
		    json_member_string(b, "workload")
			    ? json_member_string(b, "workload")
			    : "-",
		    json_member_string(b, "host"),
		    json_member_string(b, "plan"),
		    json_member_number(b, "max_boots"));
	if (json_member_string(b, "result"))
		strbuf_addf(out, "  result: %s\n",
			    json_member_string(b, "result"));
	strbuf_addf(out, "  page: %s\n", json_member_string(b, "page"));
	list = json_get(b, "steps");
	strbuf_addf(out,
		    "\n  %-4s %-5s %-30s %4s %12s %9s %-21s %-12s %-9s %s\n",
		    "step", "point", "kernel", "n", "mean", "%change", "95% CI",
		    "verdict", "boots", "build s");
	for (size_t i = 0; list && i < json_len(list); i++) {
		const struct json_value *s = json_at(list, i);
		struct strbuf ci = STRBUF_INIT;

		strbuf_addf(out, "  %-4.0f %-5.0f %-30s ",
			    json_member_number(s, "step"),
			    json_member_number(s, "position"),
			    json_member_string(s, "kernel")
				    ? json_member_string(s, "kernel")
				    : "-");
		add_num(out, json_member_number(s, "n"), 4, 0, 0, 0);
		add_num(out, json_member_number(s, "mean"), 12, -1, 0, 0);
		add_num(out, json_member_number(s, "pct_vs_good"), 9, 1, 1, 1);
		if (isfinite(json_member_number(s, "ci_low")))
			strbuf_addf(&ci, "[%+.1f%%, %+.1f%%]",
				    json_member_number(s, "ci_low"),
				    json_member_number(s, "ci_high"));
		strbuf_addf(out, "%-21s %-12s %-9.0f ", ci.buf,
			    json_member_string(s, "state"),
			    json_member_number(s, "boots"));
		add_num(out, json_member_number(s, "build_seconds"), 7, 0, 0,
			0);
		if (json_member_string(s, "note"))
			strbuf_addf(out, "  %s", json_member_string(s, "note"));
		strbuf_addch(out, '\n');
		strbuf_release(&ci);
	}
	list = json_get(b, "points");
	strbuf_addstr(out, "\n  points:\n");
	for (size_t i = 0; list && i < json_len(list); i++) {
		const struct json_value *p = json_at(list, i);

		strbuf_addf(out, "  %3.0f %-8s %-30s %s\n",
			    json_member_number(p, "position"),
			    json_member_string(p, "mark"),
			    json_member_string(p, "kernel")
				    ? json_member_string(p, "kernel")
				    : "-",
			    json_member_string(p, "label"));
	}
	json_free(b);
	return 0;
}

static int bisect_show(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, json = STRBUF_INIT;
	_cleanup_free_ char *page = NULL, *url = NULL;
	int js_out = cli_json_only(argc, argv, 1, "bisect show ID [--json]");
	int64_t id = parse_num_id(argv[optind], "bisection");
	struct db *db;
	int r;

	page = xstrfmt("bisect-%lld.html", (long long)id);
	url = farm_config_page_url(cli_config(), page);
	db = cli_open_db();
	r = bisect_show_json(db, id, url, &json, &err);
	if (r < 0)
		cli_db_fatal("bisect show", &err);
	if (r == 1)
		fatal("no bisection %lld", (long long)id);
	if (js_out)
		strbuf_addf(&out, "%s\n", json.buf);
	else if (render(json.buf, &out, &err) < 0)
		fatal("bisect show: %s", err.buf);
	cli_emit(&out);
	strbuf_release(&json);
	strbuf_release(&err);
	db_close(db);
	return 0;
}

static int bisect_cancel_cmd(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	int64_t id;
	struct db *db;
	int r;

	if (argc != 2)
		die_usage("bisect cancel ID");
	id = parse_num_id(argv[1], "bisection");
	db = cli_open_db();
	r = bisect_cancel(db, id, &err);
	if (r < 0)
		fatal("%s", err.buf);
	printf("bisect #%lld: %s\n", (long long)id,
	       r ? "cancelled" : "not running (nothing to cancel)");
	db_close(db);
	strbuf_release(&err);
	return 0;
}

int cmd_bisect(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "host", required_argument, NULL, 'H' },
		{ "max-boots", required_argument, NULL, 'x' },
		{ "tree", required_argument, NULL, 't' },
		{ "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'b' },
		{ "plan", required_argument, NULL, 'p' },
		{ "config", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct bisect_request rq = { 0 };
	struct strbuf msg = STRBUF_INIT, err = STRBUF_INIT;
	const char *why;
	int64_t id;
	struct db *db;
	int opt, json = cli.json;

	if (argc >= 2 && !strcmp(argv[1], "show"))
		return bisect_show(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "cancel"))
		return bisect_cancel_cmd(argc - 1, argv + 1);
	rq.max_boots = cli_config()->bisect_max_boots;
	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'm':
			if (!*optarg || strlen(optarg) > 128)
				die_usage("--metric is 1..128 characters");
			rq.metric = optarg;
			break;
		case 'H':
			rq.host = optarg;
			break;
		case 'x':
			if (parse_int(optarg, COMPARE_MIN_N, 1000,
				      &rq.max_boots, &why) < 0)
				die_usage("--max-boots '%s' %s", optarg, why);
			break;
		case 't':
			rq.tree = optarg;
			break;
		case 'g':
			rq.good = optarg;
			break;
		case 'b':
			rq.bad = optarg;
			break;
		case 'p':
			rq.plan_path = optarg;
			break;
		case 'c':
			rq.config_spec = optarg;
			break;
		case 'j':
			json = 1;
			break;
		default:
			die_usage("see 'schedfarm help bisect'");
		}
	}
	if (rq.tree || rq.good || rq.bad) {
		if (!rq.tree || !rq.good || !rq.bad)
			die_usage("a range needs --tree, --good and --bad");
		if (optind != argc)
			die_usage("a range bisection takes no PLM#");
		if (!rq.plan_path || !rq.host || !rq.metric)
			die_usage("a range bisection needs --plan FILE, --host "
				  "NAME and --metric NAME");
	} else {
		if (argc - optind != 1)
			die_usage("bisect needs a PLM# (or --tree, --good and "
				  "--bad)");
		if (rq.plan_path || rq.config_spec)
			die_usage("--plan and --config go with --tree");
		rq.patch_id = parse_num_id(argv[optind], "PLM#");
	}
	db = cli_open_db();
	if (bisect_start(db, &rq, &id, &msg, &err) < 0)
		fatal("bisect: %s", err.buf);
	if (json) {
		printf("{\"bisection\":%lld}\n", (long long)id);
	} else {
		/* It names the commits by their subjects. */
		cli_put_text(stdout, msg.buf);
		printf("'schedfarm bisect show %lld' follows it; a 'serve' (or "
		       "'schedfarm run') runs its jobs\n",
		       (long long)id);
	}
	db_close(db);
	strbuf_release(&msg);
	strbuf_release(&err);
	return 0;
}

/*
 * cmd_plan.c - `schedfarm plan check FILE...` and `schedfarm plan expand
 * FILE [--json]`.
 *
 * Both work on files alone: no database, no host.  `check` is what a user
 * (and the test suite) runs on a plan before queueing it; `expand` shows
 * the runs a plan becomes, in the order the queue will run them.  Errors
 * go to stderr in plan.h's "file:line:col: error: ..." form.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cli.h"
#include "log.h"
#include "plan/plan.h"
#include "banned.h"

const char cmd_plan_usage[] =
	"usage: schedfarm plan check [-q] [--json] [--set KEY=VALUE]... "
	"FILE...\n"
	"       schedfarm plan expand [--json] [--set KEY=VALUE]... FILE\n"
	"\n"
	"Plans are YAML files naming workloads, their parameters and sweeps,\n"
	"iterations, warm-up and boots, the cgroup layout, host requirements,\n"
	"kernel config fragments, metric overrides and timeouts "
	"(doc/PLANS.md).\n"
	"\n"
	"  check   validate each FILE; print every error as\n"
	"          FILE:LINE:COL: error: WHAT, and 'FILE: ok, N runs' for\n"
	"          each good one (not with -q); N counts every boot's runs, "
	"as\n"
	"          'run' does.  Exit 1 if any has errors.  --json prints an\n"
	"          array of {file, ok, name, runs, runs_per_boot, boots,\n"
	"          until_decided, max_boots, errors} instead.\n"
	"  expand  print the runs FILE expands to, one per line (index,\n"
	"          workload, the plan's parameters); --json prints a JSON\n"
	"          array of {index, workload, params} with every parameter,\n"
	"          defaults included, typed as the agent takes them.\n"
	"\n"
	"  --set KEY=VALUE  change one setting before checking, as run,\n"
	"          submit and rerun do: KEY a path into the plan (boots,\n"
	"          params.duration, workloads[1].params.threads), VALUE YAML\n"
	"          (20s, [1, 2], {from: 1, to: 256, times: 2}).  Repeatable.\n"
	"\n"
	"Examples:\n"
	"  schedfarm plan check plans/*.yaml\n"
	"  schedfarm plan expand plans/sysbench-oltp-threads.yaml\n"
	"  schedfarm plan expand --json plans/smoke.yaml\n"
	"  schedfarm plan expand --set params.duration=2s plans/smoke.yaml\n";

/* One file's entry of `plan check --json`. */
static void check_json(struct strbuf *out, const char *file,
		       const struct plan *p, const struct strbuf *err)
{
	strbuf_addstr(out, "{\"file\":");
	strbuf_add_json_str(out, file);
	if (p) {
		strbuf_addstr(out, ",\"ok\":true,\"name\":");
		strbuf_add_json_str(out, p->name);
		strbuf_addf(out,
			    ",\"runs\":%zu,\"runs_per_boot\":%zu,"
			    "\"boots\":%d,\"until_decided\":%s,"
			    "\"max_boots\":%d,\"errors\":[]}",
			    p->nr_runs * (size_t)p->boots, p->nr_runs, p->boots,
			    p->until == PLAN_UNTIL_DECIDED ? "true" : "false",
			    p->max_boots);
		return;
	}
	strbuf_addstr(out, ",\"ok\":false,\"errors\":[");
	for (const char *l = err->buf; *l;) {
		size_t len = strcspn(l, "\n");
		char *line = xstrndup(l, len);

		if (l != err->buf)
			strbuf_addch(out, ',');
		strbuf_add_json_str(out, line);
		free(line);
		l += len + (l[len] == '\n');
	}
	strbuf_addstr(out, "]}");
}

static int plan_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "set", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	struct strbuf out = STRBUF_INIT;
	struct strvec sets = STRVEC_INIT;
	int opt, quiet = 0, failed = 0, json = cli.json;

	while ((opt = cli_getopt(argc, argv, "q", opts, NULL)) != -1) {
		if (opt == 's')
			cli_add_set(&sets, optarg);
		else if (opt == 'q')
			quiet = 1;
		else if (opt == 'j')
			json = 1;
		else
			die_usage(
				"plan check [-q] [--json] [--set KEY=VALUE]... "
				"FILE...");
	}
	if (optind >= argc)
		die_usage("plan check needs at least one FILE");
	if (json)
		strbuf_addch(&out, '[');
	for (int i = optind; i < argc; i++) {
		struct strbuf err = STRBUF_INIT;
		struct plan *p = NULL;

		if (plan_load_set(argv[i], &sets, &p, &err) < 0) {
			if (!json)
				cli_put_text(stderr, err.buf);
			failed = 1;
		} else if (!quiet && !json) {
			struct strbuf runs = STRBUF_INIT;

			plan_describe_runs(p, &runs);
			printf("%s: ok, %s\n", argv[i], runs.buf);
			strbuf_release(&runs);
		}
		if (json) {
			if (i > optind)
				strbuf_addstr(&out, ",\n");
			check_json(&out, argv[i], p, &err);
		}
		plan_free(p);
		strbuf_release(&err);
	}
	if (json) {
		strbuf_addstr(&out, "]\n");
		cli_emit(&out);
	}
	strvec_clear(&sets);
	return failed;
}

static int plan_expand(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "set", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct strvec sets = STRVEC_INIT;
	struct plan *p = NULL;
	int json = cli.json, opt, r;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'j')
			json = 1;
		else if (opt == 's')
			cli_add_set(&sets, optarg);
		else
			die_usage("plan expand [--json] [--set KEY=VALUE]... "
				  "FILE");
	}
	if (argc - optind != 1)
		die_usage("plan expand [--json] [--set KEY=VALUE]... FILE");
	r = plan_load_set(argv[optind], &sets, &p, &err);
	strvec_clear(&sets);
	if (r < 0) {
		cli_put_text(stderr, err.buf);
		strbuf_release(&err);
		return 1;
	}
	if (json) {
		strbuf_addch(&out, '[');
		for (size_t i = 0; i < p->nr_runs; i++) {
			strbuf_addstr(&out, i ? ",\n " : "");
			plan_run_json(p, &p->runs[i], &out);
		}
		strbuf_addstr(&out, "]\n");
	} else {
		strbuf_addf(&out,
			    "# plan %s: %zu run%s; per boot %d warm-up + %d "
			    "iterations; %d boot%s per kernel",
			    p->name, p->nr_runs, p->nr_runs == 1 ? "" : "s",
			    p->warmup, p->iterations, p->boots,
			    p->boots == 1 ? "" : "s");
		if (p->until == PLAN_UNTIL_DECIDED)
			strbuf_addf(&out, ", more until decided (at most %d)",
				    p->max_boots);
		strbuf_addch(&out, '\n');
		for (size_t i = 0; i < p->nr_runs; i++) {
			strbuf_addf(&out, "%zu ", p->runs[i].index);
			plan_run_label(&p->runs[i], &out);
			strbuf_addch(&out, '\n');
		}
	}
	cli_emit(&out);
	plan_free(p);
	strbuf_release(&err);
	return 0;
}

int cmd_plan(int argc, char **argv)
{
	if (argc < 2)
		die_usage("plan needs a subcommand: check or expand");
	if (!strcmp(argv[1], "check"))
		return plan_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "expand"))
		return plan_expand(argc - 1, argv + 1);
	die_usage("no plan subcommand '%s' (check or expand)", argv[1]);
}

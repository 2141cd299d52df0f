/*
 * cmd_patch.c - `schedfarm patch show|list`: a submission (PLM#) and its
 * answer.
 *
 * show prints the series, the answer (state, verdict, headline, note),
 * the deciding metrics as answered with their %change, CI and p, the
 * jobs, the mails and the bisections, and the page's URL; --json prints
 * the object store/answers.c builds, which the text is rendered from.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cleanup.h"
#include "cli.h"
#include "cmd/builtin.h"
#include "config.h"
#include "json.h"
#include "log.h"
#include "parse.h"
#include "store/answers.h"
#include "store/lists.h"
#include "time-util.h"
#include "workloads.h"
#include "banned.h"

const char cmd_patch_usage[] =
	"usage: schedfarm patch show PLM# [--json]\n"
	"       schedfarm patch list [--json]\n"
	"\n"
	"  show   a submitted series and its answer: state (pending, "
	"waiting,\n"
	"         answered, failed), verdict and headline, each deciding "
	"metric\n"
	"         with its %change, 95% CI and p, the jobs (the patch's and "
	"the\n"
	"         base's, in ABBA order), the stored base runs the answer\n"
	"         reused (\"base runs reused from STP#3, kernel v6.1\"), "
	"where\n"
	"         its time went (queued, build, boot, run, compare), the "
	"mails\n"
	"         (sent, or failed with "
	"the\n"
	"         reason and the next try), the bisections, and the URL of "
	"its\n"
	"         page (report.base_url in 'schedfarm config')\n"
	"  list   the submissions, newest first, with their answer's state "
	"and\n"
	"         headline, under a header line; a headline that does not "
	"fit\n"
	"         80 columns goes on a line of its own, wrapped\n"
	"\n"
	"PLM# may be written 12 or PLM#12.  --json prints one object (show) "
	"or\n"
	"an array (list); see doc/ANSWERS.md for the keys.\n";

static int64_t parse_plm(const char *s)
{
	const char *why;
	int64_t v;

	if (starts_with(s, "PLM#") || starts_with(s, "plm#"))
		s += 4;
	if (parse_i64(s, 1, INT64_MAX, &v, &why) < 0)
		die_usage("PLM# '%s' %s", s, why);
	return v;
}

static void add_pct(struct strbuf *out, double v)
{
	if (isfinite(v))
		strbuf_addf(out, "%+.1f%%", v);
	else
		strbuf_addstr(out, "-");
}

/* seconds (a JSON number) as format_duration_ms() writes it */
static void add_seconds(struct strbuf *out, double sec)
{
	format_duration_ms(out,
			   isfinite(sec) ? (int64_t)llround(sec * 1000) : 0);
}

/*
 * Where the answer's time went (ph: the "phases" object, NULL or null
 * before the answer): each phase with its duration, and the total.
 */
static void render_phases(const struct json_value *ph, struct strbuf *out)
{
	static const char *const names[] = { "queued", "build", "boot", "run",
					     "compare" };

	if (!ph || !isfinite(json_member_number(ph, "total_seconds")))
		return;
	strbuf_addstr(out, "\nphases (");
	add_seconds(out, json_member_number(ph, "total_seconds"));
	strbuf_addstr(out, " from submit to answer):\n");
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		strbuf_addf(out, "  %-8s ", names[i]);
		add_seconds(out, json_member_number(ph, names[i]));
		strbuf_addch(out, '\n');
	}
}

/*
 * The answer's deciding metrics (list: the "metrics" array, may be NULL):
 * per metric its verdict line, then, indented, where it was measured:
 * host, workload and params (two rows of one metric differ only there).
 */
static void render_metrics(const struct json_value *list, struct strbuf *out)
{
	struct strbuf label = STRBUF_INIT;

	if (list && json_len(list)) {
		strbuf_addstr(out,
			      "\ndeciding metrics (%change, 95% CI, p):\n");
		for (size_t i = 0; i < json_len(list); i++) {
			const struct json_value *m = json_at(list, i);

			strbuf_addf(out, "  %-24s %-14s ",
				    json_member_string(m, "metric"),
				    json_member_string(m, "verdict"));
			add_pct(out, json_member_number(m, "pct_change"));
			if (isfinite(json_member_number(m, "ci_low")))
				strbuf_addf(out, " [%+.1f%%, %+.1f%%]",
					    json_member_number(m, "ci_low"),
					    json_member_number(m, "ci_high"));
			if (isfinite(json_member_number(m, "p_value")))
				strbuf_addf(out, " p=%.2g",
					    json_member_number(m, "p_value"));
			strbuf_addf(out, "\n    n %.0f+%.0f on %s, %s",
				    json_member_number(m, "n_base"),
				    json_member_number(m, "n_new"),
				    json_member_string(m, "host"),
				    json_member_string(m, "workload"));
			/* What tells two rows apart: the params set. */
			strbuf_reset(&label);
			workload_params_label(json_member_string(m, "workload"),
					      json_get(m, "params"), &label);
			if (label.len)
				strbuf_addf(out, " (%s)", label.buf);
			strbuf_addch(out, '\n');
		}
	}
	strbuf_release(&label);
}

/*
 * The series' mails (list: the "mails" array, may be NULL): state,
 * attempts, the last error and next try, the addresses left out.
 */
static void render_mails(const struct json_value *list, struct strbuf *out)
{
	if (list && json_len(list)) {
		strbuf_addstr(out, "\nmails:\n");
		for (size_t i = 0; i < json_len(list); i++) {
			const struct json_value *m = json_at(list, i);

			strbuf_addf(out, "  #%.0f %s %s (attempt%s %.0f)",
				    json_member_number(m, "id"),
				    json_member_string(m, "kind"),
				    json_member_string(m, "state"),
				    json_member_number(m, "attempts") == 1
					    ? ""
					    : "s",
				    json_member_number(m, "attempts"));
			if (json_member_string(m, "last_error"))
				strbuf_addf(
					out, ": %s",
					json_member_string(m, "last_error"));
			if (json_member_string(m, "next_attempt_at") &&
			    strcmp(json_member_string(m, "state"), "sent"))
				strbuf_addf(out, "; next try %s",
					    json_member_string(
						    m, "next_attempt_at"));
			strbuf_addf(out, "\n     %s\n",
				    json_member_string(m, "subject"));
			for (size_t k = 0; json_get(m, "refused") &&
					   k < json_len(json_get(m, "refused"));
			     k++) {
				const struct json_value *x =
					json_at(json_get(m, "refused"), k);

				strbuf_addf(out, "     left out: %s: %s\n",
					    json_member_string(x, "address")
						    ? json_member_string(
							      x, "address")
						    : "?",
					    json_member_string(x, "reason")
						    ? json_member_string(
							      x, "reason")
						    : "?");
			}
		}
	}
}

/* The text form of show, from the JSON object. */
static int render(const char *json, struct strbuf *out, struct strbuf *err)
{
	struct json_value *p = NULL;
	const struct json_value *ans, *list;
	int fresh = 0;

	if (json_parse(json, strlen(json), NULL, &p, err) < 0)
		return -1;
	ans = json_get(p, "answer");
	strbuf_addf(
		out, "PLM#%.0f \"%s\": %.0f patch%s on %s, submitted by %s\n",
		json_member_number(p, "patch"), json_member_string(p, "name"),
		json_member_number(p, "n_patches"),
		json_member_number(p, "n_patches") == 1 ? "" : "es",
		json_member_string(p, "base"),
		json_member_string(p, "submitter"));
	strbuf_addf(out, "  kernels   %s (base), %s\n",
		    json_member_string(p, "base_kernel")
			    ? json_member_string(p, "base_kernel")
			    : "-",
		    json_member_string(p, "kernel")
			    ? json_member_string(p, "kernel")
			    : "-");
	strbuf_addf(out, "  mail to   %s\n",
		    json_member_string(p, "mail_to")
			    ? json_member_string(p, "mail_to")
			    : "(the list only)");
	strbuf_addf(out, "  answer    %s", json_member_string(ans, "state"));
	if (json_member_string(ans, "verdict"))
		strbuf_addf(out, ": %s", json_member_string(ans, "verdict"));
	if (json_member_string(ans, "headline"))
		strbuf_addf(out, " -- %s", json_member_string(ans, "headline"));
	strbuf_addch(out, '\n');
	if (json_member_string(ans, "note"))
		strbuf_addf(out, "  note      %s\n",
			    json_member_string(ans, "note"));
	if (json_get(ans, "base_reused") &&
	    json_member_string(json_get(ans, "base_reused"), "text"))
		strbuf_addf(out, "  base      %s\n",
			    json_member_string(json_get(ans, "base_reused"),
					       "text"));
	else if (json_bool(json_get(p, "fresh_base"), &fresh) == 0 && fresh)
		strbuf_addstr(out, "  base      fresh: its own boots only "
				   "(--fresh-base)\n");
	if (json_member_string(ans, "answered_at"))
		strbuf_addf(out, "  at        %s\n",
			    json_member_string(ans, "answered_at"));
	strbuf_addf(out, "  page      %s\n", json_member_string(p, "page"));

	render_phases(json_get(p, "phases"), out);
	render_metrics(json_get(ans, "metrics"), out);
	list = json_get(p, "files");
	if (list && json_len(list) > 1) {
		strbuf_addstr(out, "\nfiles:\n");
		for (size_t i = 0; i < json_len(list); i++) {
			const struct json_value *f = json_at(list, i);

			strbuf_addf(out, "  %2.0f  %s  %s\n",
				    json_member_number(f, "position"),
				    json_member_string(f, "name"),
				    json_member_string(f, "subject")
					    ? json_member_string(f, "subject")
					    : "");
		}
	}
	list = json_get(p, "jobs");
	strbuf_addstr(out, "\njobs:\n");
	for (size_t i = 0; list && i < json_len(list); i++) {
		const struct json_value *j = json_at(list, i);

		strbuf_addf(out, "  STP#%-5.0f %-5s %-10s %s",
			    json_member_number(j, "job"),
			    json_member_string(j, "side"),
			    json_member_string(j, "state"),
			    json_member_string(j, "kernel"));
		if (isfinite(json_member_number(j, "boots")))
			strbuf_addf(out, ", %.0f boot%s",
				    json_member_number(j, "boots"),
				    json_member_number(j, "boots") == 1 ? ""
									: "s");
		if (json_member_string(j, "host"))
			strbuf_addf(out, " on %s",
				    json_member_string(j, "host"));
		if (json_member_string(j, "error"))
			strbuf_addf(out, ": %s",
				    json_member_string(j, "error"));
		strbuf_addch(out, '\n');
	}
	render_mails(json_get(p, "mails"), out);
	list = json_get(p, "bisections");
	if (list && json_len(list)) {
		strbuf_addstr(out, "\nbisections:\n");
		for (size_t i = 0; i < json_len(list); i++) {
			const struct json_value *b = json_at(list, i);

			strbuf_addf(out, "  #%.0f %s, %s on %s: %s\n",
				    json_member_number(b, "id"),
				    json_member_string(b, "state"),
				    json_member_string(b, "metric"),
				    json_member_string(b, "host"),
				    json_member_string(b, "result")
					    ? json_member_string(b, "result")
					    : "(running)");
		}
	}
	json_free(p);
	return 0;
}

/*
 * Where patch id came from, when a list (store/lists.h): the list, the
 * thread's Message-ID and its link (the inbox URL and the Message-ID,
 * lore style), and each reply the farm sent on it.  0 or -1 with err.
 */
/* "WHAT vN: PLM#P" (or "not queued" without a PLM#), a line of out. */
static void describe_version(struct strbuf *out, const char *what, int version,
			     int64_t patch)
{
	if (patch)
		strbuf_addf(out, "%s v%d: PLM#%lld\n", what, version,
			    (long long)patch);
	else
		strbuf_addf(out, "%s v%d: not queued\n", what, version);
}

static int render_origin(struct db *db, int64_t id, struct strbuf *out,
			 struct strbuf *err)
{
	struct list_origin o;
	int r;

	list_origin_init(&o);
	r = lists_patch_origin(db, id, &o, err);
	if (r > 0) {
		strbuf_addf(out, "\nfrom the list %s (v%d): <%s>\n  %s\n",
			    o.list_name, o.version, o.message_id, o.link);
		if (o.base_method)
			strbuf_addf(out, "base chosen by: %s\n", o.base_method);
		if (o.newer_version)
			describe_version(out, "superseded by", o.newer_version,
					 o.newer_patch);
		if (o.older_version)
			describe_version(out, "supersedes", o.older_version,
					 o.older_patch);
		for (size_t i = 0; i < o.reply_ids.nr; i++)
			strbuf_addf(out, "reply <%s>: %s, %s%s%s%s\n",
				    o.reply_ids.v[i], o.reply_verdicts.v[i],
				    o.reply_states.v[i],
				    *o.reply_sent.v[i] ? " " : "",
				    o.reply_sent.v[i],
				    strcmp(o.reply_delivery.v[i], "mbox")
					    ? ""
					    : " (dry run: into the mbox)");
		if (!o.reply_ids.nr)
			strbuf_addstr(out, "reply: none sent\n");
	}
	list_origin_release(&o);
	return r < 0 ? -1 : 0;
}

/*
 * Append ',"origin":...' for patch id to out: null, or the list, version,
 * message_id, link and replies (message_id, verdict, state, sent_at,
 * delivery) of store/lists.h's list_origin.  0 or -1 with err.
 */
static int origin_json(struct db *db, int64_t id, struct strbuf *out,
		       struct strbuf *err)
{
	struct list_origin o;
	int r;

	list_origin_init(&o);
	r = lists_patch_origin(db, id, &o, err);
	strbuf_addstr(out, ",\"origin\":");
	if (r <= 0) {
		strbuf_addstr(out, "null");
		list_origin_release(&o);
		return r;
	}
	strbuf_addstr(out, "{\"list\":");
	strbuf_add_json_str(out, o.list_name);
	strbuf_addf(out, ",\"version\":%d,\"message_id\":", o.version);
	strbuf_add_json_str(out, o.message_id);
	strbuf_addstr(out, ",\"link\":");
	strbuf_add_json_str(out, o.link);
	strbuf_addstr(out, ",\"replies\":[");
	for (size_t i = 0; i < o.reply_ids.nr; i++) {
		strbuf_addstr(out,
			      i ? ",{\"message_id\":" : "{\"message_id\":");
		strbuf_add_json_str(out, o.reply_ids.v[i]);
		strbuf_addstr(out, ",\"verdict\":");
		strbuf_add_json_str(out, o.reply_verdicts.v[i]);
		strbuf_addstr(out, ",\"state\":");
		strbuf_add_json_str(out, o.reply_states.v[i]);
		strbuf_addstr(out, ",\"sent_at\":");
		if (*o.reply_sent.v[i])
			strbuf_add_json_str(out, o.reply_sent.v[i]);
		else
			strbuf_addstr(out, "null");
		strbuf_addstr(out, ",\"delivery\":");
		strbuf_add_json_str(out, o.reply_delivery.v[i]);
		strbuf_addch(out, '}');
	}
	strbuf_addstr(out, "]}");
	list_origin_release(&o);
	return 0;
}

static int patch_show(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, json = STRBUF_INIT;
	_cleanup_free_ char *url = NULL, *page = NULL;
	int64_t id;
	struct db *db;
	int js_out, r;

	js_out = cli_json_only(argc, argv, 1, "patch show PLM# [--json]");
	id = parse_plm(argv[optind]);
	page = xstrfmt("patch-%lld.html", (long long)id);
	url = farm_config_page_url(cli_config(), page);
	db = cli_open_db();
	r = answers_show_json(db, id, url, &json, &err);
	if (r < 0)
		cli_db_fatal("patch show", &err);
	if (r == 1)
		fatal("no patch PLM#%lld", (long long)id);
	if (js_out) {
		/* The object with its origin as its last member. */
		strbuf_rtrim(&json);
		if (json.len && json.buf[json.len - 1] == '}')
			strbuf_setlen(&json, json.len - 1);
		if (origin_json(db, id, &json, &err) < 0)
			cli_db_fatal("patch show", &err);
		strbuf_addf(&out, "%s}\n", json.buf);
	} else {
		struct strbuf text = STRBUF_INIT;

		if (render(json.buf, &text, &err) < 0)
			fatal("patch show: %s", err.buf);
		if (render_origin(db, id, &text, &err) < 0)
			cli_db_fatal("patch show", &err);
		/* A long name, kernel label or note wraps at word ends. */
		cli_wrap(&out, text.buf, CLI_TEXT_WIDTH);
		strbuf_release(&text);
	}
	cli_emit(&out);
	strbuf_release(&json);
	strbuf_release(&err);
	db_close(db);
	return 0;
}

/*
 * The submissions of list (answers_list_json()'s array) as a table with a
 * header, into out: PLM#, state and name on a row's line, the headline
 * after them or, past 80 columns, on a line of its own under it; a long
 * name or headline is wrapped at a blank, '-', '/' or ',' (cli_wrap()),
 * never cut.
 */
static void list_table(const struct json_value *list, struct strbuf *out)
{
	static const char *const head[] = { "PLM", "STATE", "NAME",
					    "HEADLINE" };
	struct cli_table t;

	if (!json_len(list))
		return;
	cli_table_init(&t, head, NULL, 4, 3);
	for (size_t i = 0; i < json_len(list); i++) {
		const struct json_value *p = json_at(list, i);
		struct strbuf plm = STRBUF_INIT;
		const char *cells[4];

		strbuf_addf(&plm, "PLM#%.0f", json_member_number(p, "patch"));
		cells[0] = plm.buf;
		cells[1] = json_member_string(p, "state");
		cells[2] = json_member_string(p, "name");
		cells[3] = json_member_string(p, "headline");
		cli_table_row(&t, cells);
		strbuf_release(&plm);
	}
	cli_table_print(&t, CLI_TEXT_WIDTH, out);
	cli_table_release(&t);
}

/*
 * Under `patch list`'s table: the submissions a list sent, each with the
 * list, the thread's Message-ID and the replies made on it.
 */
static void list_origins(struct db *db, struct strbuf *out)
{
	struct strvec lines = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;

	if (lists_origins(db, &lines, &err) < 0)
		cli_db_fatal("patch list", &err);
	if (lines.nr)
		strbuf_addstr(out, "\nfrom lists:\n");
	for (size_t i = 0; i < lines.nr; i++) {
		struct strvec f = STRVEC_INIT;

		strvec_split(&f, lines.v[i], '\t');
		if (f.nr >= 3)
			strbuf_addf(out, "  PLM#%s  %s <%s>  reply: %s\n",
				    f.v[0], f.v[1], f.v[2],
				    f.nr > 3 && *f.v[3] ? f.v[3] : "none");
		strvec_clear(&f);
	}
	strvec_clear(&lines);
	strbuf_release(&err);
}

static int patch_list(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int js_out = cli_json_only(argc, argv, 0, "patch list [--json]");
	struct db *db = cli_open_db();

	struct strbuf json = STRBUF_INIT;
	struct json_value *list = NULL;

	if (answers_list_json(db, &json, &err) < 0)
		cli_db_fatal("patch list", &err);
	if (js_out) {
		strbuf_addf(&out, "%s\n", json.buf);
	} else if (json_parse(json.buf, json.len, NULL, &list, &err) < 0) {
		fatal("patch list: %s", err.buf);
	} else {
		list_table(list, &out);
		if (!json_len(list))
			strbuf_addstr(&out, "no patches submitted\n");
		json_free(list);
		list_origins(db, &out);
	}
	strbuf_release(&json);
	cli_emit(&out);
	strbuf_release(&err);
	db_close(db);
	return 0;
}

int cmd_patch(int argc, char **argv)
{
	if (argc < 2)
		die_usage("patch show PLM# | patch list");
	if (!strcmp(argv[1], "show"))
		return patch_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return patch_list(argc - 1, argv + 1);
	die_usage("no 'patch %s'; see 'schedfarm help patch'", argv[1]);
	return 2;
}

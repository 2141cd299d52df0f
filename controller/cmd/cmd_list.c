/*
 * cmd_list.c - `schedfarm list add|set|show|rm|poll`: the mailing lists
 * the farm follows (doc/LISTS.md).
 *
 * A list is a public-inbox archive and its policy, kept in PostgreSQL
 * (store/lists.h).  poll mirrors the archive once and reads what is new
 * (answer/intake.h), printing what it found.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer/intake.h"
#include "cleanup.h"
#include "cli.h"
#include "fs.h"
#include "cmd/builtin.h"
#include "log.h"
#include "mailbox.h"
#include "parse.h"
#include "store/lists.h"
#include "banned.h"

const char cmd_list_usage[] =
	"usage: schedfarm list add NAME --inbox URL|DIR [--path GLOB]...\n"
	"                          [--prefix WORD]... [--base-map "
	"GLOB=BASE]...\n"
	"                          [--base-repo DIR] [--plan FILE] [--host "
	"NAME]\n"
	"                          [--from-now] [--mail-improvements]\n"
	"                          [--dry-run-mbox FILE] [--mails-per-hour N]\n"
	"                          [--address ADDR] [--reply-cc "
	"all|list|none]\n"
	"                          [--series-wait DUR]\n"
	"       schedfarm list set NAME [the options of add but --inbox and\n"
	"                          --from-now] [--no-paths] [--no-prefixes]\n"
	"                          [--no-base-map] [--no-base-repo] "
	"[--no-plan]\n"
	"                          [--no-host] [--no-mail-improvements]\n"
	"                          [--no-dry-run] [--no-address]\n"
	"       schedfarm list show [NAME]\n"
	"       schedfarm list rm NAME\n"
	"       schedfarm list poll NAME\n"
	"\n"
	"A list is a public-inbox archive (an http(s) URL such as\n"
	"https://lore.kernel.org/lkml, or a local folder) that the farm\n"
	"mirrors with git, one epoch (git/N.git) at a time, and reads: only\n"
	"what is new since the last read, so nothing is read twice.  Its\n"
	"policy: --path, a glob of the paths a patch must touch one of (e.g.\n"
	"'kernel/sched/*'; none: any); --prefix, a word the subject's [...]\n"
	"must hold (e.g. 'sched/core'; none: any); --base-map GLOB=BASE, the\n"
	"base of a series that touches GLOB when it has no usable\n"
	"base-commit: trailer; --base-repo, the git repository where such\n"
	"trailers are looked up and a series is tried on its base; --plan,\n"
	"the plan a complete series is queued with (as `submit` does; none:\n"
	"not queued), --host, the host it is queued for; --from-now, the first "
	"poll\n"
	"starts at the archive's end (for a big list: nothing older is read);\n"
	"--mail-improvements, "
	"mail improvements as well as regressions;\n"
	"--dry-run-mbox, mail into this mbox file instead of SMTP;\n"
	"--mails-per-hour (default 10); --address, the list's posting\n"
	"address; --reply-cc, whom a reply on the thread copies: all (the\n"
	"original recipients and the address; default), list (the address\n"
	"only) or none; --series-wait (default 1d), how long\n"
	"an incomplete series is waited for.\n"
	"\n"
	"set changes a list's policy in place: what was read is not read\n"
	"again, and what was mailed (into the dry-run mbox too) is not\n"
	"mailed again; the first --path (--prefix, --base-map) replaces the\n"
	"list's, --no-* clears one (--no-dry-run: mail by SMTP from now on).\n"
	"show prints the lists, or one list's policy, its messages by state\n"
	"and its series.  rm forgets a list and all it read.  poll reads a\n"
	"list once and prints each message read: patch, not-a-patch or\n"
	"unreadable, with the reason.\n"
	"\n"
	"Examples:\n"
	"  schedfarm list add lkml --inbox https://lore.kernel.org/lkml \\\n"
	"      --path 'kernel/sched/*' --path 'include/linux/sched*' \\\n"
	"      --base-map 'kernel/sched/*=tip/sched/core' --dry-run-mbox "
	"lkml.mbox\n"
	"  schedfarm list poll lkml\n"
	"  schedfarm list set lkml --no-dry-run --address "
	"linux-kernel@vger.kernel.org\n";

/* A list's name: what schema 019 allows, checked before the database. */
static const char *list_name(const char *s)
{
	cli_name("a list name", s, 64);
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') ||
		      (p != s && strchr("._-", *p))))
			die_usage("a list name is letters, digits, '.', '_' "
				  "and '-', and starts with a letter or digit");
	return s;
}

/* add's and set's options; the letters are apply_opt()'s cases. */
static const struct option list_opts[] = {
	{ "inbox", required_argument, NULL, 'i' },
	{ "path", required_argument, NULL, 'p' },
	{ "prefix", required_argument, NULL, 'x' },
	{ "base-map", required_argument, NULL, 'm' },
	{ "base-repo", required_argument, NULL, 'r' },
	{ "plan", required_argument, NULL, 'P' },
	{ "host", required_argument, NULL, 'H' },
	{ "mail-improvements", no_argument, NULL, 'I' },
	{ "from-now", no_argument, NULL, 'F' },
	{ "dry-run-mbox", required_argument, NULL, 'd' },
	{ "mails-per-hour", required_argument, NULL, 'n' },
	{ "series-wait", required_argument, NULL, 'w' },
	{ "address", required_argument, NULL, 'a' },
	{ "reply-cc", required_argument, NULL, 'c' },
	{ "no-paths", no_argument, NULL, 1 },
	{ "no-prefixes", no_argument, NULL, 2 },
	{ "no-base-map", no_argument, NULL, 3 },
	{ "no-base-repo", no_argument, NULL, 4 },
	{ "no-plan", no_argument, NULL, 5 },
	{ "no-host", no_argument, NULL, 6 },
	{ "no-mail-improvements", no_argument, NULL, 7 },
	{ "no-dry-run", no_argument, NULL, 8 },
	{ "no-address", no_argument, NULL, 9 },
	{ NULL, 0, NULL, 0 }
};

/* Replace *field with v, which it owns from now on (NULL: none). */
static void set_str(char **field, char *v)
{
	free(*field);
	*field = v;
}

/* The first --path (--prefix, --base-map) of a command replaces what the
 * row had; the next ones add to it.  v NULL (--no-paths ...): empty it,
 * wherever it comes. */
static void vec_opt(struct strvec *sv, unsigned bit, unsigned *seen,
		    const char *v)
{
	if (!v || !(*seen & bit)) {
		strvec_clear(sv);
		*seen |= bit;
	}
	if (v)
		strvec_push(sv, v);
}

/*
 * Apply the policy option c (of list_opts[], its argument optarg) to l.
 * seen: which list options this command gave already (vec_opt()).  Dies
 * with a usage error on a bad value; -1 for a letter that is not a policy
 * option (--inbox, --from-now, unknown), which the caller handles.
 */
static int apply_opt(int c, struct list_row *l, unsigned *seen)
{
	const char *why;
	int64_t ms;

	switch (c) {
	case 'p':
	case 1:
		vec_opt(&l->path_globs, 1u, seen, c == 'p' ? optarg : NULL);
		break;
	case 'x':
	case 2:
		vec_opt(&l->subject_prefixes, 2u, seen,
			c == 'x' ? optarg : NULL);
		break;
	case 'm':
		if (!strchr(optarg, '=') || *optarg == '=')
			die_usage("--base-map '%s' is not GLOB=BASE", optarg);
		vec_opt(&l->base_map, 4u, seen, optarg);
		break;
	case 3:
		vec_opt(&l->base_map, 4u, seen, NULL);
		break;
	case 'r':
		set_str(&l->base_repo, path_absolute(optarg));
		break;
	case 4:
		set_str(&l->base_repo, NULL);
		break;
	case 'P':
		set_str(&l->plan_path, path_absolute(optarg));
		break;
	case 5:
		set_str(&l->plan_path, NULL);
		break;
	case 'H':
		set_str(&l->host, xstrdup(cli_name("--host", optarg, 128)));
		break;
	case 6:
		set_str(&l->host, NULL);
		break;
	case 'I':
	case 7:
		l->mail_improvements = c == 'I';
		break;
	case 'd':
		set_str(&l->dry_run_mbox, xstrdup(optarg));
		break;
	case 8:
		set_str(&l->dry_run_mbox, NULL);
		break;
	case 'n':
		if (parse_int(optarg, 0, 10000, &l->mails_per_hour, &why) < 0)
			die_usage("--mails-per-hour '%s' %s", optarg, why);
		break;
	case 'a':
		if (mail_parse_mailbox(optarg, NULL, NULL, &why) < 0)
			die_usage("--address '%s' %s", optarg, why);
		set_str(&l->address, xstrdup(optarg));
		break;
	case 9:
		set_str(&l->address, NULL);
		break;
	case 'c':
		if (strcmp(optarg, "all") && strcmp(optarg, "list") &&
		    strcmp(optarg, "none"))
			die_usage("--reply-cc '%s': all, list or none", optarg);
		set_str(&l->reply_cc, xstrdup(optarg));
		break;
	case 'w':
		if (parse_duration_ms(optarg, 1000, 365LL * 86400000, &ms,
				      &why) < 0)
			die_usage("--series-wait '%s' %s", optarg, why);
		l->series_wait_s = (int)(ms / 1000);
		break;
	default:
		return -1;
	}
	return 0;
}

/* The checks across options, on the row as it will be stored. */
static void check_policy(const struct list_row *l)
{
	if (l->reply_cc && !strcmp(l->reply_cc, "list") && !l->address)
		die_usage("--reply-cc list needs --address ADDR");
}

static int list_add(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct list_row l;
	unsigned seen = 0;
	int64_t id;
	int c, r;

	list_row_init(&l);
	l.mails_per_hour = 10;
	l.series_wait_s = 86400;
	while ((c = cli_getopt(argc, argv, "", list_opts, NULL)) != -1) {
		if (c == 'i')
			set_str(&l.inbox, xstrdup(optarg));
		else if (c == 'F')
			l.from_now = 1;
		else if (apply_opt(c, &l, &seen) < 0)
			die_usage("list add NAME --inbox URL|DIR [OPTIONS]");
	}
	if (optind != argc - 1)
		die_usage("list add NAME --inbox URL|DIR [OPTIONS]");
	if (!l.inbox || !*l.inbox)
		die_usage("list add needs --inbox URL|DIR");
	check_policy(&l);
	/* A local archive is named by its absolute path: serve and poll may
	 * run from another folder. */
	if (!strstr(l.inbox, "://"))
		set_str(&l.inbox, path_absolute(l.inbox));
	l.name = xstrdup(list_name(argv[optind]));
	r = lists_add(cli_open_db(), &l, &id, &err);
	if (r < 0)
		cli_db_fatal("list add", &err);
	if (r == 0)
		fatal("a list named '%s' exists already", l.name);
	printf("list %s added (id %lld)\n", l.name, (long long)id);
	list_row_release(&l);
	return 0;
}

/*
 * `list set NAME OPTIONS`: change a list's policy in place.  Its archive
 * (--inbox), its cursors, messages, series and replies stay: what was
 * read is not read again, and what was mailed (into the dry-run mbox as
 * well) is not mailed again.  The options are add's, plus --no-* to
 * clear one; the first --path (--prefix, --base-map) replaces the list.
 */
static int list_set(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct list_row l;
	unsigned seen = 0;
	int c, r, n = 0;
	struct db *db;

	/* Parsed twice: the options are checked before the database is
	 * opened, then applied to the row as it is. */
	list_row_init(&l);
	while ((c = cli_getopt(argc, argv, "", list_opts, NULL)) != -1) {
		if (c == 'i')
			die_usage("a list's --inbox cannot change (its cursors "
				  "belong to the archive): list rm, then list "
				  "add");
		if (c == 'F')
			die_usage("--from-now is for list add: a list that was "
				  "polled has its cursors");
		if (apply_opt(c, &l, &seen) < 0)
			die_usage("list set NAME OPTIONS");
		n++;
	}
	list_row_release(&l);
	if (optind != argc - 1)
		die_usage("list set NAME OPTIONS");
	if (!n)
		die_usage("list set %s: no option given: nothing to change",
			  argv[optind]);
	db = cli_open_db();
	list_row_init(&l);
	r = lists_get(db, list_name(argv[optind]), &l, &err);
	if (r < 0)
		cli_db_fatal("list set", &err);
	if (r == 0)
		fatal("no list named '%s'", argv[optind]);
	seen = 0;
	optind = 0;
	while ((c = cli_getopt(argc, argv, "", list_opts, NULL)) != -1)
		(void)apply_opt(c, &l, &seen);
	check_policy(&l);
	r = lists_set_policy(db, &l, &err);
	if (r < 0)
		cli_db_fatal("list set", &err);
	if (r == 0)
		fatal("no list named '%s'", l.name);
	printf("list %s: policy changed (%d option%s); what was read and "
	       "mailed stays\n",
	       l.name, n, n == 1 ? "" : "s");
	list_row_release(&l);
	return 0;
}

static void add_vec(struct strbuf *out, const char *what,
		    const struct strvec *sv, const char *none)
{
	strbuf_addf(out, "%-18s", what);
	if (!sv->nr)
		strbuf_addstr(out, none);
	for (size_t i = 0; i < sv->nr; i++)
		strbuf_addf(out, "%s%s", i ? " " : "", sv->v[i]);
	strbuf_addch(out, '\n');
}

static int list_show(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct strvec names = STRVEC_INIT;
	struct db *db;
	struct list_row l;
	int r;

	if (argc > 2)
		die_usage("list show [NAME]");
	db = cli_open_db();
	if (argc == 1) {
		if (lists_names(db, &names, &err) < 0)
			cli_db_fatal("list show", &err);
		for (size_t i = 0; i < names.nr; i++)
			strbuf_addf(&out, "%s\n", names.v[i]);
		strvec_clear(&names);
		cli_emit(&out);
		return 0;
	}
	list_row_init(&l);
	r = lists_get(db, list_name(argv[1]), &l, &err);
	if (r < 0)
		cli_db_fatal("list show", &err);
	if (r == 0)
		fatal("no list named '%s'", argv[1]);
	strbuf_addf(&out, "%-18s%s\n%-18s%s\n", "name", l.name, "inbox",
		    l.inbox);
	add_vec(&out, "paths", &l.path_globs, "(any)");
	add_vec(&out, "subject prefixes", &l.subject_prefixes, "(any)");
	add_vec(&out, "base map", &l.base_map, "(none)");
	strbuf_addf(&out, "%-18s%s\n", "base repository",
		    l.base_repo ? l.base_repo : "(none)");
	strbuf_addf(&out, "%-18s%s\n", "first poll",
		    l.from_now ? "from the archive's end"
			       : "the whole archive");
	strbuf_addf(&out, "%-18s%s\n", "plan",
		    l.plan_path ? l.plan_path : "(none: series not queued)");
	strbuf_addf(&out, "%-18s%s\n", "host", l.host ? l.host : "(any)");
	strbuf_addf(&out, "%-18s%s\n", "mails",
		    l.mail_improvements ? "regressions and improvements"
					: "regressions");
	strbuf_addf(&out, "%-18s%s\n", "delivery",
		    l.dry_run_mbox ? l.dry_run_mbox : "SMTP");
	strbuf_addf(&out, "%-18s%d an hour\n", "rate limit", l.mails_per_hour);
	strbuf_addf(&out, "%-18s%s\n", "address",
		    l.address ? l.address : "(not known)");
	strbuf_addf(&out, "%-18s%s\n", "reply cc", l.reply_cc);
	strbuf_addf(&out, "%-18s%d s\n", "series wait", l.series_wait_s);
	if (lists_summary(db, l.id, &out, &err) < 0)
		cli_db_fatal("list show", &err);
	list_row_release(&l);
	cli_emit(&out);
	return 0;
}

static int list_rm(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	int r;

	if (argc != 2)
		die_usage("list rm NAME");
	r = lists_remove(cli_open_db(), list_name(argv[1]), &err);
	if (r < 0)
		cli_db_fatal("list rm", &err);
	if (r == 0)
		fatal("no list named '%s'", argv[1]);
	printf("list %s removed\n", argv[1]);
	return 0;
}

static int list_poll(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct intake_stats st;
	int r;

	if (argc != 2)
		die_usage("list poll NAME");
	r = intake_poll(cli_open_db(), cli_home(), list_name(argv[1]), &out,
			&st, &err);
	if (r < 0) {
		cli_emit(&out);
		fatal("list poll %s: %s", argv[1], err.buf);
	}
	if (r == 1)
		fatal("no list named '%s'", argv[1]);
	strbuf_addf(&out,
		    "read %d: %d patches, %d not patches, %d unreadable, %d "
		    "seen before; %d series complete, %d outside the "
		    "policy\n",
		    st.read, st.patches, st.not_patches, st.unreadable,
		    st.seen_before, st.series_complete, st.series_filtered);
	cli_emit(&out);
	return 0;
}

int cmd_list(int argc, char **argv)
{
	const char *sub;

	if (argc < 2)
		die_usage("list needs a subcommand: add, set, show, rm, poll");
	sub = argv[1];
	argc--;
	argv++;
	if (!strcmp(sub, "add"))
		return list_add(argc, argv);
	if (!strcmp(sub, "set"))
		return list_set(argc, argv);
	if (!strcmp(sub, "show"))
		return list_show(argc, argv);
	if (!strcmp(sub, "rm"))
		return list_rm(argc, argv);
	if (!strcmp(sub, "poll"))
		return list_poll(argc, argv);
	die_usage("no list subcommand '%s'; try add, set, show, rm, poll", sub);
}

/*
 * cmd_host.c - `schedfarm host add|list|show|remove|set`.
 *
 * A host is a row: how to reach it (kind, address, port, user, the paths
 * of its key and known_hosts files -- never their contents), tags, its
 * topology, and its scheduling state and health (REFERENCE.md section 3).
 * `add` contacts a local or ssh host at once: the agent's `info` gives the
 * topology, and a host that cannot be reached -- a host key that does not
 * match included -- is not added.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "cleanup.h"
#include "cli.h"
#include "store/hosts.h"
#include "store/ingest.h"
#include "json.h"
#include "log.h"
#include "parse.h"
#include "lab/host_kind.h"
#include "lab/hostinfo.h"
#include "lab/runner.h"
#include "fs.h"
#include "banned.h"

const char cmd_host_usage[] =
	"usage: schedfarm host add NAME --kind KIND [--address ADDR] [--port "
	"N]\n"
	"                          [--user USER] [--key FILE] [--known-hosts "
	"FILE]\n"
	"                          [--tag TAG]... [--no-contact] [BOOT AND "
	"TOPOLOGY]\n"
	"       schedfarm host list [--json]\n"
	"       schedfarm host show NAME [--json]\n"
	"       schedfarm host set NAME [--address ADDR] [--port N] [--user "
	"USER]\n"
	"                          [--key FILE] [--known-hosts FILE] [--tag "
	"TAG]...\n"
	"                          [--health HEALTH] [--refresh] [BOOT AND "
	"TOPOLOGY]\n"
	"       schedfarm host remove NAME\n"
	"       schedfarm host check NAME [--kernel NAME|ID] [--timeout DUR] "
	"[--keep]\n"
	"\n"
	"Hosts run the jobs.  KIND is local (this machine, the agent as a "
	"child),\n"
	"ssh (a running machine reached with libssh), or a kind that boots\n"
	"the kernel under test: libvirt (a VM), ipmi and the other BMC kinds\n"
	"(a machine behind its BMC); a wrong --kind lists them all.  An ssh\n"
	"host needs --address and\n"
	"--known-hosts: its host key must match that file, or it is refused.\n"
	"--key names a private key file (else ssh-agent, else the default "
	"keys);\n"
	"only its path is stored.\n"
	"\n"
	"add contacts local and ssh hosts (unless --no-contact): the agent is\n"
	"copied there if needed and its 'info' gives the topology (sockets,\n"
	"cores, threads, NUMA nodes, CPUs, memory), stored with the host.  A "
	"host\n"
	"that cannot be reached is not added.  set --refresh reads it again.\n"
	"\n"
	"check boots a booting host's known-good kernel (or --kernel,\n"
	"which becomes the known-good one when the check passes), runs the\n"
	"agent's info over SSH and powers it off (--keep: leaves it up, so an\n"
	"ipmi host takes its next kernel by kexec): a pass makes the host "
	"good;\n"
	"power, BMC or console failures make it bad (see 'kernel --help').  A\n"
	"new host (health unknown, with a known-good kernel) is checked so\n"
	"before its first job; one that fails never gets the job.\n"
	"\n"
	"BOOT AND TOPOLOGY, for hosts that boot kernels (libvirt, ipmi) and\n"
	"cannot be asked before they run:  --libvirt-uri URI, --bmc-address "
	"A,\n"
	"--bmc-port N, --bmc-user U, --bmc-password-file FILE (a path: the\n"
	"password itself is never stored), --bmc-bootdev pxe|pxe-efi|"
	"unsupported\n"
	"(what the BMC does with `chassis bootdev pxe`: pxe-efi adds\n"
	"options=efiboot for UEFI machines; unsupported makes its refusal a\n"
	"warning, the machine's boot order then must boot from the network),\n"
	"--boot-config JSON (an object),\n"
	"--sockets N, --cores N (per socket), --threads N (per core),\n"
	"--numa-nodes N, --cpus N, --memory-mb N.\n"
	"\n"
	"HEALTH is good, unknown, bad, maintenance or retired; only idle "
	"hosts\n"
	"whose health is good or unknown get jobs.  remove refuses a host "
	"with\n"
	"runs (their numbers would lose their host): retire it instead.\n"
	"\n"
	"Examples:\n"
	"  schedfarm host add here --kind local\n"
	"  schedfarm host add box1 --kind ssh --address 10.0.0.5 --user farm "
	"\\\n"
	"      --key ~/.ssh/farm_ed25519 --known-hosts "
	"~/.ssh/farm_known_hosts\n"
	"  schedfarm host set box1 --health maintenance\n";

static const char *const healths[] = { "good",	      "unknown", "bad",
				       "maintenance", "retired", NULL };

static int in_set(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return 1;
	return 0;
}

/* An absolute form of a path given on the command line. */
static char *abs_path(const char *p)
{
	char *abs = path_absolute(p);

	if (!abs)
		fatal("cannot get the current folder: %s", strerror(errno));
	return abs;
}

/* Numbers a host row may be given by hand (hosts that cannot be asked
 * before they boot): column, option, range.  -1 = not given. */
static const struct {
	const char *column, *option;
	int64_t max;
} host_nums[HOST_NR_NUMS] = {
	/* in the order of enum host_num (store/hosts.h) */
	{ "sockets", "sockets", 1024 },
	{ "cores_per_socket", "cores", 4096 },
	{ "threads_per_core", "threads", 64 },
	{ "numa_nodes", "numa-nodes", 1024 },
	{ "cpus", "cpus", 1 << 20 },
	{ "memory_mb", "memory-mb", (int64_t)1 << 40 },
	{ "bmc_port", "bmc-port", 65535 },
};
#define NR_NUMS ARRAY_SIZE(host_nums)
_Static_assert(NR_NUMS == HOST_NR_NUMS, "one option per host number");

struct host_opts {
	const char *kind, *address, *user, *health;
	const char *libvirt_uri, *bmc_address, *bmc_user, *boot_config;
	const char *bmc_bootdev;
	char *key, *known_hosts, *bmc_password_file;
	int port, port_set, no_contact, refresh, tags_set;
	int64_t nums[NR_NUMS];
	struct strvec tags;
};

static void parse_host_opts(int argc, char **argv, struct host_opts *o,
			    int is_set)
{
	static const struct option opts[] = {
		{ "kind", required_argument, NULL, 'k' },
		{ "address", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "user", required_argument, NULL, 'u' },
		{ "key", required_argument, NULL, 'K' },
		{ "known-hosts", required_argument, NULL, 'n' },
		{ "tag", required_argument, NULL, 't' },
		{ "health", required_argument, NULL, 'h' },
		{ "no-contact", no_argument, NULL, 'N' },
		{ "refresh", no_argument, NULL, 'r' },
		{ "libvirt-uri", required_argument, NULL, 'L' },
		{ "bmc-address", required_argument, NULL, 'B' },
		{ "bmc-user", required_argument, NULL, 'U' },
		{ "bmc-password-file", required_argument, NULL, 'W' },
		{ "boot-config", required_argument, NULL, 'C' },
		{ "bmc-bootdev", required_argument, NULL, 'D' },
		{ "sockets", required_argument, NULL, 1000 },
		{ "cores", required_argument, NULL, 1001 },
		{ "threads", required_argument, NULL, 1002 },
		{ "numa-nodes", required_argument, NULL, 1003 },
		{ "cpus", required_argument, NULL, 1004 },
		{ "memory-mb", required_argument, NULL, 1005 },
		{ "bmc-port", required_argument, NULL, 1006 },
		{ NULL, 0, NULL, 0 },
	};
	const char *why;
	int opt;

	for (size_t i = 0; i < NR_NUMS; i++)
		o->nums[i] = -1;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'k':
			if (is_set)
				die_usage("host set cannot change the kind");
			if (!host_kind_find(optarg)) {
				struct strbuf kinds = STRBUF_INIT;

				host_kind_names(&kinds, " or ", 0);
				die_usage("--kind must be %s, not '%s'",
					  kinds.buf, optarg);
			}
			o->kind = optarg;
			break;
		case 'a':
			o->address = optarg;
			break;
		case 'p':
			if (parse_int(optarg, 1, 65535, &o->port, &why) < 0)
				die_usage("--port '%s' %s", optarg, why);
			o->port_set = 1;
			break;
		case 'u':
			o->user = optarg;
			break;
		case 'K':
			o->key = abs_path(optarg);
			break;
		case 'n':
			o->known_hosts = abs_path(optarg);
			break;
		case 't':
			if (!*optarg || strlen(optarg) > 64)
				die_usage("--tag must be 1..64 characters");
			strvec_push(&o->tags, optarg);
			o->tags_set = 1;
			break;
		case 'h':
			if (!is_set)
				die_usage("--health is for host set");
			if (!in_set(optarg, healths))
				die_usage(
					"--health must be good, unknown, bad, "
					"maintenance or retired");
			o->health = optarg;
			break;
		case 'N':
			o->no_contact = 1;
			break;
		case 'r':
			if (!is_set)
				die_usage("--refresh is for host set");
			o->refresh = 1;
			break;
		case 'L':
			o->libvirt_uri = optarg;
			break;
		case 'B':
			o->bmc_address = optarg;
			break;
		case 'U':
			o->bmc_user = optarg;
			break;
		case 'W':
			o->bmc_password_file = abs_path(optarg);
			break;
		case 'D':
			if (strcmp(optarg, "pxe") &&
			    strcmp(optarg, "pxe-efi") &&
			    strcmp(optarg, "unsupported"))
				die_usage("--bmc-bootdev is pxe, pxe-efi or "
					  "unsupported, not '%s'",
					  optarg);
			o->bmc_bootdev = optarg;
			break;
		case 'C': {
			struct json_value *doc = NULL;
			struct strbuf e = STRBUF_INIT;

			if (json_parse(optarg, strlen(optarg), NULL, &doc, &e) <
				    0 ||
			    json_type_of(doc) != JSON_OBJECT)
				die_usage("--boot-config must be a JSON "
					  "object%s%s",
					  e.len ? ": " : "", e.buf);
			json_free(doc);
			strbuf_release(&e);
			o->boot_config = optarg;
			break;
		}
		default:
			if (opt >= 1000 && opt < 1000 + (int)NR_NUMS) {
				size_t i = (size_t)(opt - 1000);

				if (parse_i64(optarg, 1, host_nums[i].max,
					      &o->nums[i], &why) < 0)
					die_usage("--%s '%s' %s",
						  host_nums[i].option, optarg,
						  why);
				break;
			}
			die_usage("see 'schedfarm host --help'");
		}
	}
}

/* The row fields of what the options gave (pointers into o). */
static void fields_of(const struct host_opts *o, struct host_fields *f)
{
	host_fields_init(f);
	f->kind = o->kind;
	f->address = o->address;
	f->port = o->port_set ? o->port : -1;
	f->user = o->user;
	f->key_file = o->key;
	f->known_hosts = o->known_hosts;
	f->tags = &o->tags;
	f->tags_set = o->tags_set;
	f->libvirt_uri = o->libvirt_uri;
	f->bmc_address = o->bmc_address;
	f->bmc_user = o->bmc_user;
	f->bmc_password_file = o->bmc_password_file;
	f->boot_config = o->boot_config;
	f->bmc_bootdev = o->bmc_bootdev;
	for (size_t i = 0; i < NR_NUMS; i++)
		f->nums[i] = o->nums[i];
}

/* What hostinfo_contact() did on the way, as log lines on stderr. */
static void print_log(struct strbuf *log)
{
	strbuf_rtrim(log);
	if (log->len)
		log_info("%s", log->buf);
	strbuf_reset(log);
}

static int host_add(int argc, char **argv)
{
	struct host_opts o = { .tags = STRVEC_INIT };
	struct strbuf err = STRBUF_INIT, log = STRBUF_INIT;
	struct host_fields f;
	const struct host_kind *hk;
	const char *name;
	struct db *db;
	int64_t id;
	int r;

	parse_host_opts(argc, argv, &o, 0);
	if (optind + 1 != argc)
		die_usage("host add NAME --kind KIND [...]");
	name = argv[optind];
	cli_name("a host name", name, HOST_NAME_MAX_LEN);
	if (!o.kind) {
		host_kind_names(&err, ", ", 0);
		die_usage("host add needs --kind (%s)", err.buf);
	}
	hk = host_kind_find(o.kind);
	fields_of(&o, &f);
	if (hk->check_fields && hk->check_fields(&f, 1, &err) < 0)
		die_usage("host add: %s", err.buf);
	db = cli_open_db();
	if (db_begin(db, &err) < 0)
		cli_db_fatal("host add", &err);
	r = hosts_add(db, name, &f, &id, &err);
	if (r == -2)
		die_usage("host add: %s", err.buf);
	if (r < 0)
		cli_db_fatal("host add", &err);
	if (r > 0)
		fatal("a host named '%s' exists already", name);
	if (!o.no_contact && hk->contact_at_add) {
		r = hostinfo_contact(db, name, NULL, &log, &err);
		print_log(&log);
		if (r < 0) {
			db_rollback(db);
			fatal("host %s not added: %s", name, err.buf);
		}
	}
	if (db_commit(db, &err) < 0)
		cli_db_fatal("host add", &err);
	printf("host %s added (%s)\n", name, o.kind);
	strvec_clear(&o.tags);
	free(o.key);
	free(o.known_hosts);
	free(o.bmc_password_file);
	db_close(db);
	return 0;
}

static int host_list(int argc, char **argv)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	int json = cli.json;
	struct db *db;

	json = cli_json_only(argc, argv, 0, "host list [--json]");
	db = cli_open_db();
	if (json) {
		if (hosts_list_json(db, &res, &err) < 0)
			cli_db_fatal("host list", &err);
		strbuf_addf(&out, "%s\n", db_get(res, 0, 0));
	} else {
		if (hosts_list_rows(db, &res, &err) < 0)
			cli_db_fatal("host list", &err);
		/* The long labels (name, address, tags) last: they move
		 * under a row that would pass 80 columns. */
		static const char *const head[] = {
			"KIND",	  "STATE", "HEALTH",  "SOCKETS", "CPUS",
			"MEM_MB", "NAME",  "ADDRESS", "TAGS"
		};
		struct cli_table t;

		cli_table_init(&t, head, "lllrrr", 9, 6);
		for (int i = 0; i < db_nrows(res); i++) {
			const char *cells[9] = {
				db_get(res, i, 1), db_get(res, i, 3),
				db_get(res, i, 4), db_get(res, i, 5),
				db_get(res, i, 6), db_get(res, i, 7),
				db_get(res, i, 0), db_get(res, i, 2),
				db_get(res, i, 8)
			};

			for (int c = 0; c < 9; c++)
				if (cells[c] && !*cells[c])
					cells[c] = NULL;
			cli_table_row(&t, cells);
		}
		cli_table_print(&t, CLI_TEXT_WIDTH, &out);
		cli_table_release(&t);
	}
	cli_emit(&out);
	db_close(db);
	return 0;
}

static int host_show(int argc, char **argv)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	int json = cli.json;
	struct db *db;

	json = cli_json_only(argc, argv, 1, "host show NAME [--json]");
	db = cli_open_db();
	if (hosts_show_json(db, argv[optind], &res, &err) < 0)
		cli_db_fatal("host show", &err);
	if (db_nrows(res) != 1)
		fatal("no host named '%s' ('schedfarm host list' shows them)",
		      argv[optind]);
	if (json) {
		strbuf_addf(&out, "%s\n", db_get(res, 0, 0));
	} else {
		/* The same object as --json, every field of it, for people. */
		struct json_value *doc = NULL;
		const char *j = db_get(res, 0, 0);

		if (json_parse(j, strlen(j), NULL, &doc, &err) < 0)
			fatal("host show: %s", err.buf);
		cli_json_as_text(doc, 0, &out);
		json_free(doc);
	}
	cli_emit(&out);
	db_close(db);
	return 0;
}

static int host_set(int argc, char **argv)
{
	struct host_opts o = { .tags = STRVEC_INIT };
	struct strbuf err = STRBUF_INIT, log = STRBUF_INIT;
	struct host_fields f;
	const char *name;
	struct db *db;
	int64_t id;
	int r;

	parse_host_opts(argc, argv, &o, 1);
	if (optind + 1 != argc)
		die_usage("host set NAME [options]");
	name = argv[optind];
	db = cli_open_db();
	if (db_begin(db, &err) < 0)
		cli_db_fatal("host set", &err);
	fields_of(&o, &f);
	if (f.address || f.user) {
		/* What this host's kind needs of the fields it is given. */
		char *kind = NULL;
		const struct host_kind *hk;

		if (hosts_kind(db, name, &kind, &err) < 0)
			cli_db_fatal("host set", &err);
		hk = host_kind_find(kind);
		free(kind);
		if (hk && hk->check_fields && hk->check_fields(&f, 0, &err) < 0)
			die_usage("host set: %s", err.buf);
	}
	r = hosts_update(db, name, &f, &id, &err);
	if (r == -2)
		die_usage("host set: %s", err.buf);
	if (r < 0)
		cli_db_fatal("host set", &err);
	if (r > 0)
		fatal("no host named '%s'", name);
	if (o.refresh) {
		r = hostinfo_contact(db, name, NULL, &log, &err);
		print_log(&log);
		if (r < 0) {
			db_rollback(db);
			fatal("host %s not changed: %s", name, err.buf);
		}
	}
	if (db_commit(db, &err) < 0)
		cli_db_fatal("host set", &err);
	if (o.health &&
	    hosts_set_health(db, id, o.health, 0, "set by 'schedfarm host set'",
			     &err) < 0)
		cli_db_fatal("host set", &err);
	printf("host %s updated\n", name);
	strvec_clear(&o.tags);
	free(o.key);
	free(o.known_hosts);
	free(o.bmc_password_file);
	db_close(db);
	return 0;
}

static int host_remove(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	struct db *db;
	int r;

	if (argc != 2)
		die_usage("host remove NAME");
	db = cli_open_db();
	r = hosts_remove(db, argv[1], &why, &err);
	if (r < 0)
		cli_db_fatal("host remove", &err);
	if (r > 0)
		fatal("%s", why.buf);
	printf("host %s removed\n", argv[1]);
	db_close(db);
	strbuf_release(&why);
	return 0;
}

int cmd_host(int argc, char **argv)
{
	const char *sub;

	if (argc < 2)
		die_usage("host needs a subcommand: add, list, show, set, "
			  "remove");
	sub = argv[1];
	argc--;
	argv++;
	if (!strcmp(sub, "add"))
		return host_add(argc, argv);
	if (!strcmp(sub, "list"))
		return host_list(argc, argv);
	if (!strcmp(sub, "show"))
		return host_show(argc, argv);
	if (!strcmp(sub, "set"))
		return host_set(argc, argv);
	if (!strcmp(sub, "remove"))
		return host_remove(argc, argv);
	if (!strcmp(sub, "check"))
		return cmd_host_check(argc, argv);
	die_usage("no host subcommand '%s'; try add, list, show, set, remove, "
		  "check",
		  sub);
}

/*
 * cmd_db.c - `schedfarm db status|start|stop|migrate|psql`.
 *
 * Manages where the farm keeps its state.  With no --db, SCHEDFARM_DB or
 * PG* variables this is the embedded cluster, which `start`, `stop` and
 * first use control; an external database is only connected to.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "cleanup.h"
#include "cli.h"
#include "log.h"
#include "store/cluster.h"
#include "banned.h"

const char cmd_db_usage[] =
	"usage: schedfarm db status [--json]\n"
	"       schedfarm db start\n"
	"       schedfarm db stop\n"
	"       schedfarm db migrate\n"
	"       schedfarm db psql [-- PSQL-ARGS...]\n"
	"\n"
	"The database is --db CONNINFO, else $SCHEDFARM_DB, else the libpq\n"
	"environment (PGHOST, PGDATABASE, PGSERVICE, ...), else the embedded\n"
	"cluster in $SCHEDFARM_HOME/pg, created and started on first use on a\n"
	"unix socket in that folder (no TCP).  As root the embedded server "
	"runs\n"
	"as the 'postgres' user.\n"
	"\n"
	"  status   where the database is, whether it runs, schema version\n"
	"  start    create and start the embedded cluster (and migrate)\n"
	"  stop     stop the embedded cluster\n"
	"  migrate  apply schema/NNN_*.sql migrations not yet applied\n"
	"  psql     run psql on the database, with PSQL-ARGS after --\n"
	"\n"
	"Examples:\n"
	"  schedfarm db migrate\n"
	"  schedfarm db psql -- -c '\\dt'\n";

static int db_status(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, ci = STRBUF_INIT,
		      ver = STRBUF_INIT;
	struct db_config cfg;
	struct db *db = NULL;
	int json = cli.json, running, schema = -1;
	long pid = 0;

	json = cli_json_only(argc, argv, 0, "db status [--json]");
	if (db_config_resolve(&cfg, cli.db, cli_home(), &err) < 0)
		fatal("%s", err.buf);
	running = db_ping(&cfg);
	if (cfg.source == DB_EMBEDDED)
		pid = running ? db_embedded_pid(&cfg) : 0;
	if (running && db_connect(&cfg, &db, &err) == 0) {
		db_server_version(db, &ver);
		if (db_schema_version(db, &schema, &err) < 0)
			schema = -1;
	} else if (running) {
		/* The server answers but our database is not there yet. */
		strbuf_reset(&err);
	}
	db_conninfo_display(&cfg, &ci);

	if (json) {
		strbuf_addstr(&out, "{\"source\":");
		strbuf_add_json_str(&out, db_source_name(cfg.source));
		strbuf_addstr(&out, ",\"conninfo\":");
		strbuf_add_json_str(&out, ci.buf);
		strbuf_addstr(&out, ",\"home\":");
		strbuf_add_json_str(&out, cfg.home);
		strbuf_addstr(&out, ",\"data_dir\":");
		strbuf_add_json_str(&out, cfg.data_dir);
		strbuf_addstr(&out, ",\"socket_dir\":");
		strbuf_add_json_str(&out, cfg.socket_dir);
		strbuf_addf(&out, ",\"running\":%s",
			    running ? "true" : "false");
		if (pid)
			strbuf_addf(&out, ",\"pid\":%ld", pid);
		else
			strbuf_addstr(&out, ",\"pid\":null");
		strbuf_addstr(&out, ",\"server_version\":");
		strbuf_add_json_str(&out, ver.len ? ver.buf : NULL);
		if (schema >= 0)
			strbuf_addf(&out, ",\"schema_version\":%d", schema);
		else
			strbuf_addstr(&out, ",\"schema_version\":null");
		strbuf_addf(&out, ",\"schema_known\":%d}\n",
			    db_schema_known_version());
	} else {
		strbuf_addf(&out, "database:       %s\n",
			    db_source_name(cfg.source));
		strbuf_addf(&out, "conninfo:       %s\n", ci.buf);
		if (cfg.source == DB_EMBEDDED) {
			strbuf_addf(&out, "home:           %s\n", cfg.home);
			strbuf_addf(&out, "data directory: %s\n", cfg.data_dir);
			strbuf_addf(&out, "socket:         %s/.s.PGSQL.5432\n",
				    cfg.socket_dir);
		}
		if (running && pid)
			strbuf_addf(&out, "server:         running (pid %ld)\n",
				    pid);
		else
			strbuf_addf(&out, "server:         %s\n",
				    running ? "running" : "not running");
		if (ver.len)
			strbuf_addf(&out, "server version: %s\n", ver.buf);
		if (schema >= 0)
			strbuf_addf(&out,
				    "schema:         version %d (this "
				    "schedfarm knows %d)\n",
				    schema, db_schema_known_version());
		else
			strbuf_addf(&out,
				    "schema:         unknown (this "
				    "schedfarm knows %d)\n",
				    db_schema_known_version());
	}
	cli_emit(&out);
	db_close(db);
	db_config_release(&cfg);
	strbuf_release(&err);
	strbuf_release(&ci);
	strbuf_release(&ver);
	return 0;
}

static int db_start(void)
{
	struct db_config cfg;
	struct db *db = cli_open_db_cfg(&cfg);

	if (cfg.source == DB_EMBEDDED)
		printf("embedded database running (pid %ld) in %s\n",
		       db_embedded_pid(&cfg), cfg.data_dir);
	else
		printf("database (%s) reachable\n", db_source_name(cfg.source));
	db_close(db);
	db_config_release(&cfg);
	return 0;
}

static int db_stop(void)
{
	struct strbuf err = STRBUF_INIT;
	struct db_config cfg;
	int was;

	if (db_config_resolve(&cfg, cli.db, cli_home(), &err) < 0)
		fatal("%s", err.buf);
	if (db_embedded_stop(&cfg, &was, &err) < 0)
		fatal("%s", err.buf);
	printf("%s\n", was ? "embedded database stopped"
			   : "embedded database was not running");
	db_config_release(&cfg);
	return 0;
}

static int db_migrate_cmd(void)
{
	struct strbuf err = STRBUF_INIT, log = STRBUF_INIT;
	struct db_config cfg;
	struct db *db = NULL;
	int applied, version, r;

	if (db_config_resolve(&cfg, cli.db, cli_home(), &err) < 0)
		fatal("%s", err.buf);
	if (db_embedded_ensure(&cfg, NULL, &log, &err) < 0) {
		fputs(log.buf, stderr);
		fatal("cannot start the embedded database: %s", err.buf);
	}
	if (log.len)
		fputs(log.buf, stderr);
	if (db_connect(&cfg, &db, &err) < 0)
		fatal("%s", err.buf);
	r = db_migrate(db, &applied, &err);
	if (r < 0)
		fatal("%s", err.buf);
	if (db_schema_version(db, &version, &err) < 0)
		fatal("%s", err.buf);
	printf("schema at version %d (%d migration%s applied)\n", version,
	       applied, applied == 1 ? "" : "s");
	db_close(db);
	db_config_release(&cfg);
	strbuf_release(&log);
	return 0;
}

static int db_psql(int argc, char **argv)
{
	struct strvec args = STRVEC_INIT, env = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	struct db_config cfg;
	struct db *db;
	int i = 1;

	if (argc > 1 && !strcmp(argv[1], "--"))
		i = 2;
	else if (argc > 1)
		die_usage("db psql [-- PSQL-ARGS...]");
	db = cli_open_db_cfg(&cfg);
	db_close(db);
	if (db_psql_argv(&cfg, &args, &env, &err) < 0)
		fatal("%s", err.buf);
	for (; i < argc; i++)
		strvec_push(&args, argv[i]);
	/* The password, when there is one, goes by the environment. */
	for (size_t k = 0; k < env.nr; k++)
		if (putenv(env.v[k]) != 0)
			fatal("cannot set psql's environment: %s",
			      strerror(errno));
	fflush(NULL);
	execvp(args.v[0], args.v);
	fatal("cannot run %s: %s", args.v[0], strerror(errno));
}

int cmd_db(int argc, char **argv)
{
	const char *sub;

	if (argc < 2)
		die_usage("db needs a subcommand: status, start, stop, "
			  "migrate, psql");
	sub = argv[1];
	argc--;
	argv++;
	if (!strcmp(sub, "status"))
		return db_status(argc, argv);
	if (!strcmp(sub, "psql"))
		return db_psql(argc, argv);
	if (argc != 1)
		die_usage("db %s takes no arguments", sub);
	if (!strcmp(sub, "start"))
		return db_start();
	if (!strcmp(sub, "stop"))
		return db_stop();
	if (!strcmp(sub, "migrate"))
		return db_migrate_cmd();
	die_usage(
		"no db subcommand '%s'; try status, start, stop, migrate, psql",
		sub);
}

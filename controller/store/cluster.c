/*
 * cluster.c - where the database is, and the embedded cluster's life.
 *
 * See cluster.h for the contract.  The embedded cluster lives in pg/ of the
 * state folder (home.h makes and checks that folder): data/ is the
 * cluster, server.log its log, and the unix socket sits in pg/ itself (no
 * TCP: listen_addresses is empty).  When the caller is root the server
 * programs run as the `postgres` user, which owns pg/; every folder above
 * it must let that user through, which we check (and, for the state folder
 * itself, fix with o+x, saying so) before initdb.  The server programs run
 * through run-command; no libpq here: the one step that needs a
 * connection (creating the database) is db.c's db_create_database().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "fs.h"
#include "home.h"
#include "store/cluster.h"
#include "store/db-int.h"
#include "parse.h"
#include "run-command.h"
#include "shquote.h"
#include "banned.h"

static int nonempty_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v;
}

/* Find the PostgreSQL server programs (initdb, pg_ctl, postgres). */
static char *find_bindir(void)
{
	const char *env = getenv("SCHEDFARM_PG_BINDIR");
	DIR *d;
	struct dirent *de;
	int best = -1;
	char *found = NULL;

	if (env && *env)
		return xstrdup(env);
	d = opendir("/usr/lib/postgresql");
	if (d) {
		while ((de = readdir(d))) {
			int v;
			char *cand;

			if (parse_int(de->d_name, 1, 1000, &v, NULL) < 0)
				continue;
			cand = xstrfmt("/usr/lib/postgresql/%s/bin/initdb",
				       de->d_name);
			if (access(cand, X_OK) == 0 && v > best) {
				best = v;
				free(found);
				found = xstrfmt("/usr/lib/postgresql/%s/bin",
						de->d_name);
			}
			free(cand);
		}
		closedir(d);
	}
	if (found)
		return found;
	/* Fall back to PATH: an empty bindir means "look it up". */
	return xstrdup("");
}

int db_config_resolve(struct db_config *cfg, const char *cli_db,
		      const char *home, struct strbuf *err)
{
	struct sockaddr_un sun;
	size_t sock_len;

	memset(cfg, 0, sizeof(*cfg));
	if (cli_db) {
		cfg->source = DB_FROM_CLI;
		cfg->conninfo = xstrdup(cli_db);
		return 0;
	}
	if (nonempty_env("SCHEDFARM_DB")) {
		cfg->source = DB_FROM_SCHEDFARM_DB;
		cfg->conninfo = xstrdup(getenv("SCHEDFARM_DB"));
		return 0;
	}
	if (nonempty_env("PGHOST") || nonempty_env("PGHOSTADDR") ||
	    nonempty_env("PGDATABASE") || nonempty_env("PGSERVICE") ||
	    nonempty_env("PGPORT") || nonempty_env("PGUSER")) {
		cfg->source = DB_FROM_LIBPQ_ENV;
		cfg->conninfo = xstrdup("");
		return 0;
	}

	cfg->source = DB_EMBEDDED;
	cfg->run_as_postgres = geteuid() == 0;
	if (!home || home[0] != '/') {
		strbuf_addstr(err, "the embedded database needs the state "
				   "folder, and none was given");
		return -1;
	}
	/* pg_ctl starts the server through /bin/sh -c with the data
	 * folder's path in double quotes: these would be read by that
	 * shell.  (Control characters have no place in a path either.) */
	for (const char *p = home; *p; p++) {
		if (strchr("\"$`\\", *p) || (unsigned char)*p < 0x20 ||
		    *p == 0x7f) {
			strbuf_addstr(err, "the state folder's path holds ");
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				strbuf_addf(err, "the control character 0x%02x",
					    (unsigned char)*p);
			else
				strbuf_addf(err, "'%c'", *p);
			strbuf_addstr(
				err,
				", which PostgreSQL's pg_ctl would hand to "
				"a shell: choose another --home or "
				"SCHEDFARM_HOME for the embedded "
				"database (or name one with --db)");
			return -1;
		}
	}
	cfg->home = xstrdup(home);
	cfg->pg_dir = xstrfmt("%s/pg", cfg->home);
	cfg->data_dir = xstrfmt("%s/pg/data", cfg->home);
	cfg->socket_dir = xstrdup(cfg->pg_dir);
	cfg->bindir = find_bindir();

	/* The socket's full path must fit sun_path, or the server fails
	 * to start with a message far from the cause.  Say so here. */
	sock_len = strlen(cfg->socket_dir) + strlen("/.s.PGSQL.5432");
	if (sock_len >= sizeof(sun.sun_path)) {
		strbuf_addf(err,
			    "SCHEDFARM_HOME %s is too deep for a unix socket: "
			    "%s/.s.PGSQL.%d would be %zu bytes, the limit is "
			    "%zu; choose a shorter SCHEDFARM_HOME (or --home)",
			    cfg->home, cfg->socket_dir, EMBEDDED_PORT, sock_len,
			    sizeof(sun.sun_path) - 1);
		return -1;
	}
	if (cfg->run_as_postgres) {
		struct passwd *pw = getpwnam("postgres");

		if (!pw) {
			strbuf_addstr(
				err,
				"running as root, the embedded PostgreSQL "
				"must run as the 'postgres' user, and there "
				"is none: install postgresql (make deps)");
			return -1;
		}
		cfg->server_uid = pw->pw_uid;
		cfg->server_gid = pw->pw_gid;
	} else {
		cfg->server_uid = getuid();
		cfg->server_gid = getgid();
	}
	cfg->conninfo = NULL;
	return 0;
}

long db_embedded_pid(const struct db_config *cfg)
{
	struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *path = xstrfmt("%s/postmaster.pid", cfg->data_dir);
	int64_t pid = 0;

	if (strbuf_read_file(&sb, path, 1 << 16) == 0) {
		sb.buf[strcspn(sb.buf, "\n")] = '\0';
		if (parse_i64(sb.buf, 1, INT32_MAX, &pid, NULL) < 0)
			pid = 0;
	}
	strbuf_release(&sb);
	return (long)pid;
}

/*
 * Can uid (primary group gid) search directory path?  Judged from the mode
 * bits; ACLs are not consulted, so a "no" can be too strict but a "yes" is
 * what the server will find.
 */
static int user_can_search(const struct stat *st, uid_t uid, gid_t gid)
{
	if (uid == 0)
		return 1;
	if (st->st_uid == uid)
		return !!(st->st_mode & S_IXUSR);
	if (st->st_gid == gid)
		return !!(st->st_mode & S_IXGRP);
	return !!(st->st_mode & S_IXOTH);
}

/*
 * Make home/pg exist, owned by the server's user with mode 0700, and check
 * the server's user can reach it.  A link at home/pg, or a folder of a
 * user who is neither the farm's nor the server's, is refused.  The home folder
 * itself, when we own it and it blocks that user, gets o+x (search, not read);
 * any other folder in the way is reported with the exact command that fixes it.
 */
static int prepare_pg_dir(const struct db_config *cfg, struct strbuf *log,
			  struct strbuf *err)
{
	struct stat st;
	_cleanup_free_ char *walk = NULL;
	_cleanup_close_ int fd = -1;

	if (home_ensure(cfg->home, err) < 0)
		return -1;
	if (cfg->run_as_postgres) {
		walk = xstrdup(cfg->home);
		/* Check every ancestor, from the top. */
		for (char *p = walk + 1;; p++) {
			if (*p == '/' || !*p) {
				char save = *p;

				*p = '\0';
				if (stat(walk, &st) < 0) {
					strbuf_addf(err, "cannot stat %s: %s",
						    walk, strerror(errno));
					return -1;
				}
				if (!user_can_search(&st, cfg->server_uid,
						     cfg->server_gid)) {
					if (!save && st.st_uid == geteuid()) {
						if (chmod(walk,
							  (st.st_mode & 07777) |
								  S_IXOTH) <
						    0) {
							strbuf_addf(
								err,
								"cannot chmod "
								"o+x %s: %s",
								walk,
								strerror(
									errno));
							return -1;
						}
						strbuf_addf(
							log,
							"made %s searchable by "
							"the postgres user "
							"(chmod o+x)\n",
							walk);
					} else {
						strbuf_addf(
							err,
							"the postgres user "
							"cannot enter %s, on "
							"the way to %s; "
							"run chmod o+x ",
							walk, cfg->pg_dir);
						strbuf_add_sh_quoted(err, walk);
						strbuf_addstr(
							err,
							" or choose another "
							"SCHEDFARM_HOME");
						return -1;
					}
				}
				*p = save;
				if (!save)
					break;
			}
		}
	}
	if (mkdir(cfg->pg_dir, 0700) < 0 && errno != EEXIST) {
		strbuf_addf(err, "cannot create %s: %s", cfg->pg_dir,
			    strerror(errno));
		return -1;
	}
	/* Opened, never followed: the chown and chmod below act on this
	 * folder itself, not on wherever a planted link would point. */
	fd = open(cfg->pg_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		struct stat lst;

		if (errno == ELOOP || errno == ENOTDIR)
			strbuf_addf(err,
				    "%s is %s, not the embedded cluster's "
				    "folder: refused (fix: move it away; the "
				    "farm makes the folder again)",
				    cfg->pg_dir,
				    lstat(cfg->pg_dir, &lst) == 0 &&
						    S_ISLNK(lst.st_mode)
					    ? "a symbolic link"
					    : "not a folder");
		else
			strbuf_addf(err, "cannot open %s: %s", cfg->pg_dir,
				    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		strbuf_addf(err, "cannot stat %s: %s", cfg->pg_dir,
			    strerror(errno));
		return -1;
	}
	/* Ours (just made, or made by root before the server's user was
	 * set) or the server's; anyone else's is not taken over. */
	if (st.st_uid != cfg->server_uid && st.st_uid != geteuid()) {
		strbuf_addf(err,
			    "%s belongs to uid %u, neither the farm's user "
			    "(uid %u) nor the database server's (uid %u): "
			    "refused (fix: chown %u '%s', or choose another "
			    "--home)",
			    cfg->pg_dir, (unsigned)st.st_uid,
			    (unsigned)geteuid(), (unsigned)cfg->server_uid,
			    (unsigned)cfg->server_uid, cfg->pg_dir);
		return -1;
	}
	if ((st.st_uid != cfg->server_uid || st.st_gid != cfg->server_gid) &&
	    fchown(fd, cfg->server_uid, cfg->server_gid) < 0) {
		strbuf_addf(err, "cannot give %s to uid %u: %s", cfg->pg_dir,
			    cfg->server_uid, strerror(errno));
		return -1;
	}
	if ((st.st_mode & 07777) != 0700 && fchmod(fd, 0700) < 0) {
		strbuf_addf(err, "cannot chmod 0700 %s: %s", cfg->pg_dir,
			    strerror(errno));
		return -1;
	}
	return 0;
}

static char *pg_program(const struct db_config *cfg, const char *name)
{
	if (cfg->bindir && *cfg->bindir)
		return xstrfmt("%s/%s", cfg->bindir, name);
	return xstrdup(name);
}

/* Run a server program as the server's user, output into log. */
static int run_pg(const struct db_config *cfg, const char *const *argv,
		  int timeout_s, struct strbuf *log, struct strbuf *err)
{
	struct child_process cp;
	gid_t groups[64];
	int ngroups = 64;
	int r;

	child_process_init(&cp);
	strvec_pushv(&cp.args, argv);
	cp.capture_out = 1;
	cp.merge_err = 1;
	cp.timeout_ms = timeout_s * 1000;
	cp.dir = cfg->pg_dir;
	strvec_push(&cp.env, "LC_ALL=C");
	strvec_push(&cp.env, "PGDATA");
	if (cfg->run_as_postgres) {
		struct passwd *pw = getpwuid(cfg->server_uid);

		cp.as_user = 1;
		cp.uid = cfg->server_uid;
		cp.gid = cfg->server_gid;
		if (pw && getgrouplist(pw->pw_name, cfg->server_gid, groups,
				       &ngroups) > 0) {
			cp.groups = groups;
			cp.ngroups = (size_t)ngroups;
		}
		strvec_pushf(&cp.env, "HOME=%s", cfg->pg_dir);
		strvec_push(&cp.env, "USER=postgres");
		strvec_push(&cp.env, "LOGNAME=postgres");
	}
	r = run_command(&cp, err);
	/* The programs' chatter matters only when they fail (below). */
	(void)log;
	if (r < 0 && cp.out.len) {
		struct strbuf tail = STRBUF_INIT;

		strbuf_addbuf(&tail, &cp.out);
		strbuf_rtrim(&tail);
		strbuf_addf(err, ":\n%s", tail.buf);
		strbuf_release(&tail);
	}
	child_process_clear(&cp);
	return r;
}

static int test_cluster(void)
{
	const char *v = getenv("SCHEDFARM_PG_THROWAWAY");
	return v && !strcmp(v, "1");
}

/* Append the settings that make the cluster private to postgresql.conf. */
static int write_settings(const struct db_config *cfg, struct strbuf *err)
{
	_cleanup_free_ char *path =
		xstrfmt("%s/postgresql.conf", cfg->data_dir);
	struct strbuf sb = STRBUF_INIT;
	FILE *f;
	int r = 0;

	strbuf_addstr(&sb, "\n# Added by schedfarm: a private cluster on a "
			   "unix socket, no TCP.\nlisten_addresses = ''\n"
			   "unix_socket_directories = '");
	for (const char *p = cfg->socket_dir; *p; p++) {
		if (*p == '\'')
			strbuf_addch(&sb, '\'');
		strbuf_addch(&sb, *p);
	}
	strbuf_addf(&sb,
		    "'\nunix_socket_permissions = 0700\nport = %d\n"
		    "max_connections = 200\n",
		    EMBEDDED_PORT);
	if (test_cluster())
		strbuf_addstr(&sb,
			      "# SCHEDFARM_PG_THROWAWAY=1: a test cluster\n"
			      "fsync = off\nsynchronous_commit = off\n"
			      "full_page_writes = off\n");
	f = fopen(path, "a");
	if (!f || fwrite(sb.buf, 1, sb.len, f) != sb.len) {
		strbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
		r = -1;
	}
	if (f && fclose(f) != 0 && !r) {
		strbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
		r = -1;
	}
	strbuf_release(&sb);
	return r;
}

static int initdb(const struct db_config *cfg, struct strbuf *log,
		  struct strbuf *err)
{
	_cleanup_free_ char *prog = pg_program(cfg, "initdb");
	const char *argv[] = { prog,
			       "-D",
			       cfg->data_dir,
			       "-U",
			       EMBEDDED_USER,
			       "-A",
			       "trust",
			       "-E",
			       "UTF8",
			       "--locale=C",
			       test_cluster() ? "--no-sync" : NULL,
			       NULL };

	if (run_pg(cfg, argv, 300, log, err) < 0)
		return -1;
	return write_settings(cfg, err);
}

static int pg_ctl_start(const struct db_config *cfg, struct strbuf *log,
			struct strbuf *err)
{
	_cleanup_free_ char *prog = pg_program(cfg, "pg_ctl");
	_cleanup_free_ char *logfile = xstrfmt("%s/server.log", cfg->pg_dir);
	_cleanup_free_ char *t = xstrfmt("%d", PG_CTL_TIMEOUT_S);
	const char *argv[] = { prog, "-D", cfg->data_dir, "-l", logfile, "-w",
			       "-t", t,	   "start",	  NULL };
	int r = run_pg(cfg, argv, PG_CTL_TIMEOUT_S + 10, log, err);

	if (r < 0) {
		struct strbuf tail = STRBUF_INIT;

		if (strbuf_read_file(&tail, logfile, 1 << 20) == 0 &&
		    tail.len) {
			size_t from = tail.len > 2000 ? tail.len - 2000 : 0;
			strbuf_addf(err, "\nlast lines of %s:\n%s", logfile,
				    tail.buf + from);
			strbuf_rtrim(err);
		}
		strbuf_release(&tail);
	}
	return r;
}

int db_embedded_ensure(const struct db_config *cfg, int *ret_started,
		       struct strbuf *log, struct strbuf *err)
{
	_cleanup_free_ char *lock_path = NULL;
	_cleanup_free_ char *version = NULL;
	_cleanup_close_ int lock_fd = -1;
	int started = 0;

	if (ret_started)
		*ret_started = 0;
	if (cfg->source != DB_EMBEDDED)
		return 0;
	if (db_ping(cfg))
		return db_create_database(cfg, err);

	if (prepare_pg_dir(cfg, log, err) < 0)
		return -1;
	lock_path = xstrfmt("%s/schedfarm.lock", cfg->home);
	lock_fd = lock_file(lock_path, err);
	if (lock_fd < 0)
		return -1;
	/* Someone else may have started it while we waited. */
	if (!db_ping(cfg)) {
		version = xstrfmt("%s/PG_VERSION", cfg->data_dir);
		if (access(version, F_OK) < 0) {
			strbuf_addf(log,
				    "creating the embedded cluster in %s\n",
				    cfg->data_dir);
			if (initdb(cfg, log, err) < 0)
				return -1;
		}
		if (pg_ctl_start(cfg, log, err) < 0)
			return -1;
		started = 1;
	}
	if (db_create_database(cfg, err) < 0)
		return -1;
	if (ret_started)
		*ret_started = started;
	return 0;
}

int db_embedded_stop(const struct db_config *cfg, int *ret_was_running,
		     struct strbuf *err)
{
	_cleanup_free_ char *prog = NULL;
	struct strbuf log = STRBUF_INIT;
	int r;

	*ret_was_running = 0;
	if (cfg->source != DB_EMBEDDED) {
		strbuf_addf(err,
			    "the database comes from %s, not the embedded "
			    "cluster: schedfarm does not stop it",
			    db_source_name(cfg->source));
		return -1;
	}
	if (!db_embedded_pid(cfg) && !db_ping(cfg))
		return 0;
	*ret_was_running = 1;
	prog = pg_program(cfg, "pg_ctl");
	{
		const char *argv[] = { prog,   "-D", cfg->data_dir, "-m",
				       "fast", "-w", "-t",	    "60",
				       "stop", NULL };
		r = run_pg(cfg, argv, 70, &log, err);
	}
	if (r < 0 && strstr(log.buf, "Is server running?")) {
		/* A stale pid file: nothing is running. */
		strbuf_reset(err);
		*ret_was_running = 0;
		r = 0;
	}
	strbuf_release(&log);
	return r;
}

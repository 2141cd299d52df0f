/*
 * wl_sysbench.c - sysbench 1.0: cpu, threads, mutex, and seed 001's OLTP on
 * PostgreSQL (oltp_read_only, oltp_read_write).
 *
 * For OLTP the spec names a PostgreSQL (pg_conninfo, "host=... port=...
 * dbname=... user=... password=...": conninfo.h) or, when it is empty,
 * the agent starts
 * a throwaway cluster for the run: initdb + pg_ctl on a unix socket in a
 * fresh folder, with fsync off (it is thrown away), as the postgres user
 * when the agent is root.  The agent is static and libc only, so the uid
 * comes from reading /etc/passwd, not getpwnam() (NSS does not work in a
 * static binary).  Tables are prepared once per run, not per iteration, and
 * the cluster is stopped and removed at the end, whatever happened.  A
 * password goes to sysbench in its environment (PGPASSWORD, which its
 * libpq reads), never as --pgsql-password where `ps` would show it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "conninfo.h"
#include "parse.h"
#include "run-command.h"
#include "banned.h"

struct sb_state {
	int oltp;
	struct strvec dbargs; /* --db-driver=pgsql --pgsql-... */
	char *password; /* of pg_conninfo, for PGPASSWORD; or NULL */
	char *pgdir; /* our throwaway cluster, or NULL */
	char *bindir;
	int as_user;
	uid_t uid;
	gid_t gid;
	int prepared;
};

/* The newest /usr/lib/postgresql/N/bin with an initdb. */
static char *find_pg_bindir(void)
{
	DIR *d = opendir("/usr/lib/postgresql");
	struct dirent *e;
	int best = -1;
	char *ret = NULL;

	while (d && (e = readdir(d))) {
		int v;
		struct strbuf p = STRBUF_INIT;

		if (parse_int(e->d_name, 1, 1000, &v, NULL) < 0 || v <= best)
			continue;
		strbuf_addf(&p, "/usr/lib/postgresql/%d/bin/initdb", v);
		if (access(p.buf, X_OK) == 0) {
			best = v;
			free(ret);
			strbuf_setlen(&p, p.len - 7);
			ret = strbuf_detach(&p, NULL);
		}
		strbuf_release(&p);
	}
	if (d)
		closedir(d);
	return ret;
}

static int pg_cmd(struct sb_state *st, struct strbuf *err, ...)
	__attribute__((sentinel));

/* Run a PostgreSQL program of st->bindir (as postgres when root). */
static int pg_cmd(struct sb_state *st, struct strbuf *err, ...)
{
	struct child_process cp;
	va_list ap;
	const char *a;
	int rc;

	child_process_init(&cp);
	va_start(ap, err);
	a = va_arg(ap, const char *);
	strvec_pushf(&cp.args, "%s/%s", st->bindir, a);
	while ((a = va_arg(ap, const char *)))
		strvec_push(&cp.args, a);
	va_end(ap);
	cp.as_user = st->as_user;
	cp.uid = st->uid;
	cp.gid = st->gid;
	cp.capture_out = 1;
	cp.merge_err = 1;
	cp.timeout_ms = 120000;
	cp.dir = "/";
	rc = run_command(&cp, err);
	if (rc < 0)
		strbuf_addf(err, ": %.600s", cp.out.buf);
	child_process_clear(&cp);
	return rc;
}

static int start_cluster(struct sb_state *st, int threads, struct strbuf *err)
{
	char tmpl[] = "/tmp/schedfarm-pg-XXXXXX";
	struct strbuf data = STRBUF_INIT, conf = STRBUF_INIT, log = STRBUF_INIT,
		      path = STRBUF_INIT;
	int rc = -1, fd;

	st->bindir = find_pg_bindir();
	if (!st->bindir) {
		strbuf_addstr(err,
			      "no PostgreSQL server programs under "
			      "/usr/lib/postgresql/*/bin (install postgresql, "
			      "or name one in params.pg_conninfo)");
		return -1;
	}
	if (geteuid() == 0) {
		struct strbuf pw = STRBUF_INIT;

		if (strbuf_read_file(&pw, "/etc/passwd", 1 << 22) < 0 ||
		    passwd_lookup(pw.buf, "postgres", &st->uid, &st->gid,
				  NULL) < 0) {
			strbuf_addstr(err, "running as root but /etc/passwd "
					   "has no postgres user to run the "
					   "throwaway cluster as");
			strbuf_release(&pw);
			return -1;
		}
		strbuf_release(&pw);
		st->as_user = 1;
	}
	if (!mkdtemp(tmpl)) {
		strbuf_addf(err, "cannot make a folder for PostgreSQL: %s",
			    strerror(errno));
		return -1;
	}
	st->pgdir = xstrdup(tmpl);
	chmod(st->pgdir, 0755);
	if (st->as_user && chown(st->pgdir, st->uid, st->gid) < 0) {
		strbuf_addf(err, "cannot chown %s: %s", st->pgdir,
			    strerror(errno));
		goto out;
	}
	strbuf_addf(&data, "%s/data", st->pgdir);
	strbuf_addf(&log, "%s/log", st->pgdir);
	if (pg_cmd(st, err, "initdb", "--no-sync", "-A", "trust", "-U",
		   "postgres", "-E", "UTF8", "--locale=C", "-D", data.buf,
		   (char *)NULL) < 0)
		goto out;
	strbuf_addf(
		&conf,
		"listen_addresses = ''\nunix_socket_directories = '%s'\nport = "
		"5432\n"
		"fsync = off\nsynchronous_commit = off\nmax_connections = %d\n",
		st->pgdir, threads + 20 > 100 ? threads + 20 : 100);
	strbuf_addf(&path, "%s/postgresql.conf", data.buf);
	fd = open(path.buf, O_WRONLY | O_APPEND);
	if (fd < 0 || write(fd, conf.buf, conf.len) != (ssize_t)conf.len) {
		strbuf_addf(err, "cannot write %s", path.buf);
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	if (pg_cmd(st, err, "pg_ctl", "-D", data.buf, "-l", log.buf, "-w", "-t",
		   "60", "start", (char *)NULL) < 0)
		goto out;
	strvec_pushl(&st->dbargs, "--db-driver=pgsql", (char *)NULL);
	strvec_pushf(&st->dbargs, "--pgsql-host=%s", st->pgdir);
	strvec_pushl(&st->dbargs, "--pgsql-port=5432", "--pgsql-user=postgres",
		     "--pgsql-db=postgres", (char *)NULL);
	rc = 0;
out:
	strbuf_release(&data);
	strbuf_release(&conf);
	strbuf_release(&log);
	strbuf_release(&path);
	return rc;
}

static void stop_cluster(struct sb_state *st)
{
	struct strbuf data = STRBUF_INIT, ignore = STRBUF_INIT;

	if (!st->pgdir)
		return;
	strbuf_addf(&data, "%s/data", st->pgdir);
	pg_cmd(st, &ignore, "pg_ctl", "-D", data.buf, "-m", "immediate", "-w",
	       "stop", (char *)NULL);
	remove_tree(st->pgdir, &ignore);
	free(st->pgdir);
	st->pgdir = NULL;
	strbuf_release(&data);
	strbuf_release(&ignore);
}

/*
 * "host=/tmp port=5432 dbname=x user=y password=z" to sysbench options,
 * but the password, which goes to *ret_password (for PGPASSWORD).
 */
static int conninfo_args(const char *ci, struct strvec *out,
			 char **ret_password, struct strbuf *err)
{
	static const char *const keys[][2] = { { "host", "--pgsql-host=" },
					       { "port", "--pgsql-port=" },
					       { "user", "--pgsql-user=" },
					       { "dbname", "--pgsql-db=" } };
	struct strvec k = STRVEC_INIT, v = STRVEC_INIT;
	struct strbuf why = STRBUF_INIT;
	int rc = -1;

	if (conninfo_split(ci, &k, &v, &why) < 0) {
		strbuf_addf(err, "pg_conninfo: %s", why.buf);
		goto out;
	}
	strvec_push(out, "--db-driver=pgsql");
	for (size_t i = 0; i < k.nr; i++) {
		if (!strcmp(k.v[i], "password")) {
			free(*ret_password);
			*ret_password = xstrdup(v.v[i]);
			continue;
		}
		for (size_t j = 0; j < sizeof(keys) / sizeof(keys[0]); j++)
			if (!strcmp(k.v[i], keys[j][0]))
				strvec_pushf(out, "%s%s", keys[j][1], v.v[i]);
	}
	rc = 0;
out:
	strvec_clear(&k);
	strvec_clear(&v);
	strbuf_release(&why);
	return rc;
}

/* sysbench's environment: the password, when the conninfo has one. */
static void sb_env(const struct sb_state *st, struct child_process *cp)
{
	if (st->password)
		strvec_pushf(&cp->env, "PGPASSWORD=%s", st->password);
}

static void sb_common_args(struct agent_ctx *ctx, struct sb_state *st,
			   struct strvec *a, const char *verb)
{
	const char *test = spec_param(ctx->spec, "test");

	strvec_pushl(a, "sysbench", test, (char *)NULL);
	strvec_pushf(a, "--threads=%s", spec_param(ctx->spec, "threads"));
	strvec_pushf(a, "--time=%lld",
		     (long long)(spec_param_ms(ctx->spec, "time") + 999) /
			     1000);
	if (st->oltp) {
		strvec_pushv(a, (const char *const *)st->dbargs.v);
		strvec_pushf(a, "--tables=%s", spec_param(ctx->spec, "tables"));
		strvec_pushf(a, "--table-size=%s",
			     spec_param(ctx->spec, "table_size"));
	}
	strvec_push(a, verb);
}

static int sb_oltp_cmd(struct agent_ctx *ctx, struct sb_state *st,
		       const char *verb, struct strbuf *err)
{
	struct child_process cp;
	int rc;

	child_process_init(&cp);
	sb_common_args(ctx, st, &cp.args, verb);
	sb_env(st, &cp);
	cp.capture_out = 1;
	cp.merge_err = 1;
	rc = agent_run_program(ctx, &cp, err);
	if (rc < 0)
		strbuf_addf(err, ": %.600s", cp.out.buf);
	child_process_clear(&cp);
	return rc;
}

static int sb_setup(struct agent_ctx *ctx, struct strbuf *err)
{
	struct sb_state *st = xcalloc(1, sizeof(*st));
	const char *ci = spec_param(ctx->spec, "pg_conninfo");

	ctx->wl_state = st;
	strvec_init(&st->dbargs);
	st->oltp = starts_with(spec_param(ctx->spec, "test"), "oltp_");
	if (!st->oltp)
		return 0;
	if (*ci) {
		if (conninfo_args(ci, &st->dbargs, &st->password, err) < 0)
			return -1;
	} else if (start_cluster(st, (int)spec_param_i64(ctx->spec, "threads"),
				 err) < 0) {
		return -1;
	}
	if (sb_oltp_cmd(ctx, st, "prepare", err) < 0)
		return -1;
	st->prepared = 1;
	return 0;
}

static int sb_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct sb_state *st = ctx->wl_state;
	struct child_process cp;
	int rc;

	child_process_init(&cp);
	sb_common_args(ctx, st, &cp.args, "run");
	sb_env(st, &cp);
	rc = wrapped_run(ctx, &cp, parse_sysbench, "sysbench", err);
	child_process_clear(&cp);
	return rc;
}

static void sb_teardown(struct agent_ctx *ctx)
{
	struct sb_state *st = ctx->wl_state;
	struct strbuf ignore = STRBUF_INIT;

	if (!st)
		return;
	if (st->prepared && !st->pgdir) {
		/* the user's own database: drop the tables we made */
		int saved = agent_stop;

		agent_stop = 0;
		sb_oltp_cmd(ctx, st, "cleanup", &ignore);
		agent_stop = saved;
	}
	stop_cluster(st);
	strvec_clear(&st->dbargs);
	free(st->password);
	free(st->bindir);
	free(st);
	ctx->wl_state = NULL;
	strbuf_release(&ignore);
}

const struct wl_ops wl_sysbench = {
	.name = "sysbench",
	.setup = sb_setup,
	.run = sb_run,
	.teardown = sb_teardown,
};

/*
 * db.c - the libpq wrapper: connections, statements, transactions, COPY,
 * LISTEN, and the conninfo as psql and `db status` see it.
 *
 * See db.h for the contract.  Every libpq call of the farm is in this
 * file; where the database is and the embedded cluster's life (initdb,
 * pg_ctl) are in cluster.c, which asks this file for the one libpq step it
 * needs (db_create_database()).
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "cleanup.h"
#include "store/db.h"
#include "store/db-int.h"
#include "parse.h"
#include "banned.h"

struct db {
	PGconn *conn;
	char sqlstate[6];
	int depth; /* db_begin() nesting: 0 outside a transaction */
	int lost_txn; /* the connection dropped inside a transaction */
	struct strvec listening; /* channels to LISTEN on again after a
				  * reconnect */
	unsigned reconnects;
};

struct db_result {
	PGresult *res;
};

const char *db_source_name(enum db_source s)
{
	switch (s) {
	case DB_FROM_CLI:
		return "--db";
	case DB_FROM_SCHEDFARM_DB:
		return "SCHEDFARM_DB";
	case DB_FROM_LIBPQ_ENV:
		return "libpq environment";
	case DB_EMBEDDED:
		return "embedded";
	}
	return "?";
}

void db_config_release(struct db_config *cfg)
{
	free(cfg->conninfo);
	free(cfg->home);
	free(cfg->pg_dir);
	free(cfg->data_dir);
	free(cfg->socket_dir);
	free(cfg->bindir);
	memset(cfg, 0, sizeof(*cfg));
}

/* Build the conninfo for the embedded cluster (quoting the socket path). */
static char *embedded_conninfo(const struct db_config *cfg, const char *dbname)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "host='");
	for (const char *p = cfg->socket_dir; *p; p++) {
		if (*p == '\'' || *p == '\\')
			strbuf_addch(&sb, '\\');
		strbuf_addch(&sb, *p);
	}
	strbuf_addf(&sb, "' port=%d user=%s dbname=%s connect_timeout=10",
		    EMBEDDED_PORT, EMBEDDED_USER, dbname);
	return strbuf_detach(&sb, NULL);
}

static char *effective_conninfo(const struct db_config *cfg)
{
	if (cfg->source == DB_EMBEDDED)
		return embedded_conninfo(cfg, EMBEDDED_DBNAME);
	return xstrdup(cfg->conninfo);
}

int db_ping(const struct db_config *cfg)
{
	_cleanup_free_ char *ci = NULL;

	if (cfg->source == DB_EMBEDDED)
		ci = embedded_conninfo(cfg, "postgres");
	else
		ci = xstrdup(cfg->conninfo);
	return PQping(ci) == PQPING_OK;
}

/* Create the schedfarm database in a fresh cluster. */
int db_create_database(const struct db_config *cfg, struct strbuf *err)
{
	_cleanup_free_ char *ci = embedded_conninfo(cfg, "postgres");
	PGconn *c = PQconnectdb(ci);
	PGresult *res;
	const char *params[] = { EMBEDDED_DBNAME };
	int r = 0;

	if (PQstatus(c) != CONNECTION_OK) {
		strbuf_addf(err, "cannot connect to the embedded server: %s",
			    PQerrorMessage(c));
		PQfinish(c);
		return -1;
	}
	res = PQexecParams(c, "SELECT 1 FROM pg_database WHERE datname = $1", 1,
			   NULL, params, NULL, NULL, 0);
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 0) {
		PQclear(res);
		/* Identifiers cannot be parameters; this one is a constant. */
		res = PQexec(c, "CREATE DATABASE " EMBEDDED_DBNAME);
		if (PQresultStatus(res) != PGRES_COMMAND_OK &&
		    strcmp(PQresultErrorField(res, PG_DIAG_SQLSTATE) ?: "",
			   "42P04")) {
			strbuf_addf(err, "cannot create database: %s",
				    PQerrorMessage(c));
			r = -1;
		}
	} else if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		strbuf_addf(err, "cannot list databases: %s",
			    PQerrorMessage(c));
		r = -1;
	}
	PQclear(res);
	PQfinish(c);
	return r;
}

static void set_sqlstate(struct db *db, const PGresult *res)
{
	const char *s = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

	memset(db->sqlstate, 0, sizeof(db->sqlstate));
	if (s)
		memcpy(db->sqlstate, s, strnlen(s, 5));
}

/* Server notices (a WARNING as a server shuts down) are not the farm's to
 * print: what matters reaches the caller as an error. */
static void quiet_notice(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/* Wrap the connection c (any state; freed on failure) as a struct db;
 * what says where it came from in the message of a failure. */
static int wrap_conn(PGconn *c, const char *what, struct db **ret,
		     struct strbuf *err)
{
	struct db *db;

	if (PQstatus(c) != CONNECTION_OK) {
		struct strbuf msg = STRBUF_INIT;

		strbuf_addstr(&msg, PQerrorMessage(c));
		strbuf_rtrim(&msg);
		strbuf_addf(err, "cannot connect to the database (%s): %s",
			    what, msg.buf);
		strbuf_release(&msg);
		PQfinish(c);
		return -1;
	}
	PQsetNoticeProcessor(c, quiet_notice, NULL);
	db = xcalloc(1, sizeof(*db));
	db->conn = c;
	strvec_init(&db->listening);
	{
		PGresult *r = PQexec(c, "SET client_min_messages = warning");
		PQclear(r);
	}
	*ret = db;
	return 0;
}

int db_connect(const struct db_config *cfg, struct db **ret, struct strbuf *err)
{
	_cleanup_free_ char *ci = effective_conninfo(cfg);

	return wrap_conn(PQconnectdb(ci), db_source_name(cfg->source), ret,
			 err);
}

int db_connect_twin(struct db *db, struct db **ret, struct strbuf *err)
{
	PQconninfoOption *opts = PQconninfo(db->conn);
	struct strvec keys = STRVEC_INIT, vals = STRVEC_INIT;
	int r;

	if (!opts) {
		strbuf_addstr(err, "cannot read the connection's parameters "
				   "(out of memory)");
		return -1;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (o->val && *o->val) {
			strvec_push(&keys, o->keyword);
			strvec_push(&vals, o->val);
		}
	PQconninfoFree(opts);
	r = wrap_conn(PQconnectdbParams((const char *const *)keys.v,
					(const char *const *)vals.v, 0),
		      "a second connection", ret, err);
	strvec_clear(&keys);
	strvec_clear(&vals);
	return r;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	PQfinish(db->conn);
	strvec_clear(&db->listening);
	free(db);
}

void db_drop_inherited(struct db *db)
{
	if (db && PQsocket(db->conn) >= 0)
		close(PQsocket(db->conn));
}

const char *db_last_sqlstate(struct db *db)
{
	return db->sqlstate;
}

int db_lost(struct db *db)
{
	return !db || PQstatus(db->conn) == CONNECTION_BAD;
}

int db_reconnect(struct db *db, struct strbuf *err)
{
	PGresult *r;

	PQreset(db->conn);
	db->depth = 0;
	if (PQstatus(db->conn) != CONNECTION_OK) {
		struct strbuf msg = STRBUF_INIT;

		strbuf_addstr(&msg, PQerrorMessage(db->conn));
		strbuf_rtrim(&msg);
		strbuf_addf(err, "cannot reconnect to the database: %s",
			    msg.buf);
		strbuf_release(&msg);
		return -1;
	}
	PQsetNoticeProcessor(db->conn, quiet_notice, NULL);
	r = PQexec(db->conn, "SET client_min_messages = warning");
	PQclear(r);
	db->reconnects++;
	/* A new session listens to nothing: what the old one listened to,
	 * again. */
	for (size_t i = 0; i < db->listening.nr; i++) {
		char *q = PQescapeIdentifier(db->conn, db->listening.v[i],
					     strlen(db->listening.v[i]));
		struct strbuf sql = STRBUF_INIT;

		if (!q)
			continue;
		strbuf_addf(&sql, "LISTEN %s", q);
		PQfreemem(q);
		r = PQexec(db->conn, sql.buf);
		PQclear(r);
		strbuf_release(&sql);
	}
	return 0;
}

unsigned db_reconnects(struct db *db)
{
	return db->reconnects;
}

/*
 * Before a statement: a connection that dropped since the last one is
 * reset once, quietly, outside a transaction; inside one the transaction
 * is gone with the connection, and the statement fails (the caller
 * rolls back and may try the whole transaction again).
 */
static int ready_to_send(struct db *db, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;

	if (PQstatus(db->conn) != CONNECTION_BAD && !db->lost_txn)
		return 0;
	if (db->depth > 0) {
		strbuf_addstr(err, "the database connection was lost in the "
				   "middle of a transaction");
		return -1;
	}
	db->lost_txn = 0;
	if (PQstatus(db->conn) != CONNECTION_BAD)
		return 0;
	if (db_reconnect(db, &e) < 0) {
		strbuf_addbuf(err, &e);
		strbuf_release(&e);
		return -1;
	}
	strbuf_release(&e);
	return 0;
}

/* After a failed statement: note a dropped connection. */
static void note_failure(struct db *db)
{
	if (PQstatus(db->conn) == CONNECTION_BAD && db->depth > 0)
		db->lost_txn = 1;
}

int db_exec(struct db *db, struct db_result **ret, struct strbuf *err,
	    const char *sql, int nparams, const char *const *params)
{
	PGresult *res;
	ExecStatusType st;

	if (ready_to_send(db, err) < 0)
		return -1;
	res = PQexecParams(db->conn, sql, nparams, NULL, params, NULL, NULL, 0);
	st = PQresultStatus(res);
	set_sqlstate(db, res);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		struct strbuf msg = STRBUF_INIT;

		strbuf_addstr(&msg, PQresultErrorMessage(res));
		if (!msg.len)
			strbuf_addstr(&msg, PQerrorMessage(db->conn));
		strbuf_rtrim(&msg);
		strbuf_addstr(err, msg.buf);
		strbuf_release(&msg);
		PQclear(res);
		note_failure(db);
		return -1;
	}
	if (ret) {
		*ret = xmalloc(sizeof(**ret));
		(*ret)->res = res;
	} else {
		PQclear(res);
	}
	return 0;
}

int db_cmd(struct db *db, struct strbuf *err, const char *sql)
{
	/* The simple protocol: one string that may hold several statements
	 * (migrations), and never any value from outside. */
	PGresult *res;
	ExecStatusType st;

	if (ready_to_send(db, err) < 0)
		return -1;
	res = PQexec(db->conn, sql);
	st = PQresultStatus(res);
	set_sqlstate(db, res);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		strbuf_addstr(err, PQresultErrorMessage(res));
		if (!err->len)
			strbuf_addstr(err, PQerrorMessage(db->conn));
		strbuf_rtrim(err);
		PQclear(res);
		note_failure(db);
		return -1;
	}
	PQclear(res);
	return 0;
}

/*
 * Transactions nest: the outermost db_begin() is BEGIN, an inner one a
 * SAVEPOINT that its db_commit() releases and its db_rollback() rolls
 * back to, so a function that wants its statements to be all-or-nothing
 * can say so whether or not its caller already opened a transaction.
 */
int db_begin(struct db *db, struct strbuf *err)
{
	char sql[32];
	int r;

	if (db->depth == 0)
		r = db_cmd(db, err, "BEGIN");
	else {
		snprintf(sql, sizeof(sql), "SAVEPOINT sf%d", db->depth);
		r = db_cmd(db, err, sql);
	}
	if (r == 0)
		db->depth++;
	return r;
}

int db_commit(struct db *db, struct strbuf *err)
{
	char sql[32];
	int r;

	if (db->depth <= 1) {
		r = db_cmd(db, err, "COMMIT");
		db->depth = 0;
		if (r < 0 && PQstatus(db->conn) == CONNECTION_BAD)
			db->lost_txn = 0; /* nothing is left to roll back */
		return r;
	}
	snprintf(sql, sizeof(sql), "RELEASE SAVEPOINT sf%d", db->depth - 1);
	r = db_cmd(db, err, sql);
	db->depth--;
	return r;
}

void db_rollback(struct db *db)
{
	char sql[96];
	PGresult *res;

	if (db->depth <= 1) {
		db->depth = 0;
		db->lost_txn = 0;
		if (PQstatus(db->conn) == CONNECTION_BAD)
			return;
		res = PQexec(db->conn, "ROLLBACK");
		PQclear(res);
		return;
	}
	db->depth--;
	if (db->lost_txn)
		return;
	snprintf(sql, sizeof(sql),
		 "ROLLBACK TO SAVEPOINT sf%d; RELEASE SAVEPOINT sf%d",
		 db->depth, db->depth);
	res = PQexec(db->conn, sql);
	PQclear(res);
}

int db_in_transaction(struct db *db)
{
	return db->depth > 0;
}

int db_nrows(const struct db_result *res)
{
	return PQntuples(res->res);
}

int db_nfields(const struct db_result *res)
{
	return PQnfields(res->res);
}

const char *db_fname(const struct db_result *res, int col)
{
	return PQfname(res->res, col);
}

const char *db_get(const struct db_result *res, int row, int col)
{
	if (PQgetisnull(res->res, row, col))
		return NULL;
	return PQgetvalue(res->res, row, col);
}

int db_get_i64(const struct db_result *res, int row, int col, int64_t min,
	       int64_t max, int64_t *ret)
{
	const char *v;

	if (!res || row >= db_nrows(res) || col >= db_nfields(res))
		return -1;
	v = db_get(res, row, col);
	return v ? parse_i64(v, min, max, ret, NULL) : -1;
}

long db_cmd_tuples(const struct db_result *res)
{
	int64_t n = 0;

	if (parse_i64(PQcmdTuples(res->res), 0, INT64_MAX, &n, NULL) < 0)
		return 0;
	return (long)n;
}

void db_result_free(struct db_result *res)
{
	if (!res)
		return;
	PQclear(res->res);
	free(res);
}

void db_args_str(struct db_args *a, const char *s)
{
	ALLOC_GROW(a->v, a->nr + 1, a->alloc);
	a->v[a->nr++] = s ? xstrdup(s) : NULL;
}

void db_args_i64(struct db_args *a, int64_t v)
{
	ALLOC_GROW(a->v, a->nr + 1, a->alloc);
	a->v[a->nr++] = xstrfmt("%lld", (long long)v);
}

void db_args_double(struct db_args *a, double v)
{
	ALLOC_GROW(a->v, a->nr + 1, a->alloc);
	a->v[a->nr++] = isfinite(v) ? xstrfmt("%.17g", v) : NULL;
}

void db_args_bool(struct db_args *a, int v)
{
	db_args_str(a, v ? "true" : "false");
}

void db_args_text_array(struct db_args *a, const struct strvec *sv)
{
	struct strbuf lit = STRBUF_INIT;

	strbuf_addch(&lit, '{');
	for (size_t i = 0; sv && i < sv->nr; i++) {
		if (i)
			strbuf_addch(&lit, ',');
		strbuf_addch(&lit, '"');
		for (const char *p = sv->v[i]; *p; p++) {
			if (*p == '"' || *p == '\\')
				strbuf_addch(&lit, '\\');
			strbuf_addch(&lit, *p);
		}
		strbuf_addch(&lit, '"');
	}
	strbuf_addch(&lit, '}');
	ALLOC_GROW(a->v, a->nr + 1, a->alloc);
	a->v[a->nr++] = strbuf_detach(&lit, NULL);
}

void db_args_clear(struct db_args *a)
{
	for (size_t i = 0; i < a->nr; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->nr = a->alloc = 0;
}

int db_exec_args(struct db *db, struct db_result **ret, struct strbuf *err,
		 const char *sql, const struct db_args *a)
{
	return db_exec(db, ret, err, sql, (int)a->nr,
		       (const char *const *)a->v);
}

int db_query(struct db *db, struct db_result **ret, struct strbuf *err,
	     const char *sql, ...)
{
	struct db_args a = DB_ARGS_INIT;
	struct db_arg arg;
	va_list ap;
	int r;

	va_start(ap, sql);
	while ((arg = va_arg(ap, struct db_arg)).kind != DB_ARG_END) {
		switch (arg.kind) {
		case DB_ARG_STR:
			db_args_str(&a, arg.s);
			break;
		case DB_ARG_I64:
			db_args_i64(&a, arg.i);
			break;
		case DB_ARG_DOUBLE:
			db_args_double(&a, arg.d);
			break;
		case DB_ARG_BOOL:
			db_args_bool(&a, (int)arg.i);
			break;
		case DB_ARG_TEXT_ARRAY:
			db_args_text_array(&a, arg.sv);
			break;
		case DB_ARG_END:
			break;
		}
	}
	va_end(ap);
	r = db_exec_args(db, ret, err, sql, &a);
	db_args_clear(&a);
	return r;
}

int db_copy_begin(struct db *db, const char *sql, struct strbuf *err)
{
	PGresult *res;

	if (ready_to_send(db, err) < 0)
		return -1;
	res = PQexec(db->conn, sql);
	set_sqlstate(db, res);
	if (PQresultStatus(res) != PGRES_COPY_IN) {
		strbuf_addstr(err, PQresultErrorMessage(res));
		if (!err->len)
			strbuf_addstr(err, PQerrorMessage(db->conn));
		strbuf_rtrim(err);
		PQclear(res);
		note_failure(db);
		return -1;
	}
	PQclear(res);
	return 0;
}

int db_copy_put(struct db *db, const char *data, size_t len, struct strbuf *err)
{
	while (len) {
		int chunk = len > (1u << 30) ? (1 << 30) : (int)len;

		if (PQputCopyData(db->conn, data, chunk) != 1) {
			strbuf_addstr(err, PQerrorMessage(db->conn));
			strbuf_rtrim(err);
			note_failure(db);
			return -1;
		}
		data += chunk;
		len -= (size_t)chunk;
	}
	return 0;
}

int db_copy_end(struct db *db, struct strbuf *err)
{
	PGresult *res;
	int r = 0;

	if (PQputCopyEnd(db->conn, NULL) != 1) {
		strbuf_addstr(err, PQerrorMessage(db->conn));
		strbuf_rtrim(err);
		note_failure(db);
		return -1;
	}
	while ((res = PQgetResult(db->conn))) {
		set_sqlstate(db, res);
		if (PQresultStatus(res) != PGRES_COMMAND_OK && !r) {
			strbuf_addstr(err, PQresultErrorMessage(res));
			strbuf_rtrim(err);
			r = -1;
		}
		PQclear(res);
	}
	if (r < 0)
		note_failure(db);
	return r;
}

void db_copy_escape(struct strbuf *sb, const char *s)
{
	if (!s) {
		strbuf_addstr(sb, "\\N");
		return;
	}
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			strbuf_addstr(sb, "\\\\");
			break;
		case '\t':
			strbuf_addstr(sb, "\\t");
			break;
		case '\n':
			strbuf_addstr(sb, "\\n");
			break;
		case '\r':
			strbuf_addstr(sb, "\\r");
			break;
		default:
			strbuf_addch(sb, *s);
		}
	}
}

int db_listen(struct db *db, const char *channel, struct strbuf *err)
{
	char *quoted = PQescapeIdentifier(db->conn, channel, strlen(channel));
	struct strbuf sql = STRBUF_INIT;
	int r;

	if (!quoted) {
		strbuf_addstr(err, PQerrorMessage(db->conn));
		return -1;
	}
	strbuf_addf(&sql, "LISTEN %s", quoted);
	PQfreemem(quoted);
	r = db_cmd(db, err, sql.buf);
	strbuf_release(&sql);
	if (r == 0)
		strvec_push(&db->listening, channel);
	return r;
}

int db_wait_notify(struct db *db, int timeout_ms, struct strbuf *payload,
		   struct strbuf *err)
{
	PGnotify *n;
	struct pollfd pfd;

	if (!PQconsumeInput(db->conn)) {
		strbuf_addstr(err, PQerrorMessage(db->conn));
		return -1;
	}
	n = PQnotifies(db->conn);
	if (!n) {
		pfd.fd = PQsocket(db->conn);
		pfd.events = POLLIN;
		if (poll(&pfd, 1, timeout_ms) < 0 && errno != EINTR) {
			strbuf_addf(err, "poll: %s", strerror(errno));
			return -1;
		}
		if (!PQconsumeInput(db->conn)) {
			strbuf_addstr(err, PQerrorMessage(db->conn));
			return -1;
		}
		n = PQnotifies(db->conn);
	}
	if (!n)
		return 0;
	strbuf_addstr(payload, n->extra);
	PQfreemem(n);
	/* Collapse a burst: one wake-up is enough. */
	while ((n = PQnotifies(db->conn)))
		PQfreemem(n);
	return 1;
}

const char *db_server_version(struct db *db, struct strbuf *out)
{
	const char *v = PQparameterStatus(db->conn, "server_version");

	strbuf_addstr(out, v ? v : "unknown");
	return out->buf;
}

int db_free_connections(struct db *db, int64_t *ret_free, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	*ret_free = 0;
	if (db_exec(db, &res, err,
		    "SELECT current_setting('max_connections')::int - "
		    "current_setting('superuser_reserved_connections')::int - "
		    "(SELECT count(*) FROM pg_stat_activity WHERE "
		    "backend_type = 'client backend')",
		    0, NULL) < 0)
		return -1;
	return db_get_i64(res, 0, 0, INT32_MIN, INT32_MAX, ret_free);
}

/* Append v as a conninfo value: single-quoted, \ and ' escaped. */
static void add_conninfo_value(struct strbuf *sb, const char *v)
{
	strbuf_addch(sb, '\'');
	for (; *v; v++) {
		if (*v == '\'' || *v == '\\')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *v);
	}
	strbuf_addch(sb, '\'');
}

int db_psql_argv(const struct db_config *cfg, struct strvec *argv,
		 struct strvec *env, struct strbuf *err)
{
	_cleanup_free_ char *ci = effective_conninfo(cfg);
	_cleanup_free_ char *prog = NULL;
	struct strbuf rest = STRBUF_INIT;
	PQconninfoOption *opts;
	char *msg = NULL;

	if (cfg->source == DB_EMBEDDED && cfg->bindir && *cfg->bindir) {
		prog = xstrfmt("%s/psql", cfg->bindir);
		if (access(prog, X_OK) < 0) {
			free(prog);
			prog = NULL;
		}
	}
	strvec_push(argv, prog ? prog : "psql");
	if (!*ci)
		return 0;
	opts = PQconninfoParse(ci, &msg);
	if (!opts) {
		strbuf_addf(err, "the conninfo does not parse: %s",
			    msg ? msg : "out of memory");
		PQfreemem(msg);
		return -1;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++) {
		if (!o->val)
			continue;
		if (!strcmp(o->keyword, "password")) {
			strvec_pushf(env, "PGPASSWORD=%s", o->val);
			continue;
		}
		if (rest.len)
			strbuf_addch(&rest, ' ');
		strbuf_addf(&rest, "%s=", o->keyword);
		add_conninfo_value(&rest, o->val);
	}
	PQconninfoFree(opts);
	strvec_push(argv, "-d");
	strvec_push(argv, rest.buf);
	strbuf_release(&rest);
	return 0;
}

void db_conninfo_display(const struct db_config *cfg, struct strbuf *out)
{
	_cleanup_free_ char *ci = effective_conninfo(cfg);
	PQconninfoOption *opts;
	char *msg = NULL;

	if (!*ci) {
		strbuf_addstr(out, "(from PG* environment variables)");
		return;
	}
	opts = PQconninfoParse(ci, &msg);
	if (!opts) {
		strbuf_addstr(out, "(unparsable conninfo)");
		PQfreemem(msg);
		return;
	}
	for (PQconninfoOption *o = opts; o->keyword; o++) {
		if (!o->val || !*o->val)
			continue;
		if (out->len)
			strbuf_addch(out, ' ');
		strbuf_addf(out, "%s=%s", o->keyword,
			    !strcmp(o->keyword, "password") ? "***" : o->val);
	}
	PQconninfoFree(opts);
}

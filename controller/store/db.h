/*
 * db.h - the farm's only door to PostgreSQL (libpq).
 *
 * No other file includes libpq-fe.h.  Where the database is: --db, else
 * SCHEDFARM_DB, else the libpq environment (PGHOST, PGDATABASE, PGSERVICE,
 * ...), else the embedded default: a private cluster under
 * $SCHEDFARM_HOME/pg that store/cluster.h creates with initdb and starts
 * with pg_ctl on a unix socket in that folder, on first use.  Statements are
 * always parameterised: callers pass SQL text with $1.. and values apart.
 * Functions return 0 or a negative number and describe failures in the
 * caller's err buffer; nothing here prints.
 */
#ifndef SCHEDFARM_DB_H
#define SCHEDFARM_DB_H

#include <stdint.h>
#include <stddef.h>

#include "strbuf.h"
#include "strvec.h"

struct db;
struct db_result;

enum db_source {
	DB_FROM_CLI,
	DB_FROM_SCHEDFARM_DB,
	DB_FROM_LIBPQ_ENV,
	DB_EMBEDDED
};

struct db_config {
	enum db_source source;
	char *conninfo; /* NULL for the embedded cluster until resolved */
	char *home; /* the state folder (embedded only) */
	char *pg_dir; /* home/pg: owned by the server's user */
	char *data_dir; /* home/pg/data */
	char *socket_dir; /* where the unix socket lives */
	char *bindir; /* PostgreSQL server programs */
	int run_as_postgres; /* caller is root: the server runs as postgres */
	unsigned server_uid, server_gid;
};

const char *db_source_name(enum db_source s);
/* Free what db_config_resolve() (store/cluster.h) filled in cfg. */
void db_config_release(struct db_config *cfg);

/* 1 when the server at cfg answers, 0 when not. */
int db_ping(const struct db_config *cfg);

/* Connect (no server start, no migration). */
int db_connect(const struct db_config *cfg, struct db **ret,
	       struct strbuf *err);
/*
 * A second connection to the server db is connected to, with db's
 * parameters (a multi-host conninfo picks the primary of now): for a
 * thread of its own (a connection serves one thread at a time).  0, or
 * -1 with err.
 */
int db_connect_twin(struct db *db, struct db **ret, struct strbuf *err);
void db_close(struct db *db);
/*
 * In a child process after fork(): let go of the parent's connection
 * without a word on it (the parent goes on using that session): its socket
 * is closed here, nothing is sent, and db must not be used again.
 */
void db_drop_inherited(struct db *db);

/*
 * Bring the schema up to what this binary knows, each migration in its own
 * transaction under an advisory lock.  *ret_applied counts what was
 * applied.  A database newer than the binary is refused with -2.
 */
int db_migrate(struct db *db, int *ret_applied, struct strbuf *err);
/* Highest applied version (0 on an empty database), and the binary's. */
int db_schema_version(struct db *db, int *ret_version, struct strbuf *err);
int db_schema_known_version(void);
/* Check the schema is exactly what we know; -2 newer, -3 older. */
int db_schema_check(struct db *db, struct strbuf *err);

/* Server version string, e.g. "15.18". */
const char *db_server_version(struct db *db, struct strbuf *out);

/*
 * How many more connections the server takes from ordinary users now:
 * max_connections less superuser_reserved_connections less those open
 * (pg_stat_activity's client backends).  A controller that forks one
 * process per job, each with its own connection, sizes itself by it.
 * 0, or -1 with err.
 */
int db_free_connections(struct db *db, int64_t *ret_free, struct strbuf *err);

/*
 * Run one statement with nparams text parameters (a NULL entry is SQL
 * NULL).  On success *ret (if not NULL) holds the rows; free with
 * db_result_free().  Commands that return no rows may pass ret = NULL.
 */
int db_exec(struct db *db, struct db_result **ret, struct strbuf *err,
	    const char *sql, int nparams, const char *const *params);
/* Statements with no parameters and no rows (BEGIN, COMMIT...). */
int db_cmd(struct db *db, struct strbuf *err, const char *sql);
/*
 * Transactions nest: db_begin() inside a transaction makes a savepoint,
 * which the matching db_commit() releases and db_rollback() rolls back
 * to.  Only the outermost db_commit() commits.
 */
int db_begin(struct db *db, struct strbuf *err);
int db_commit(struct db *db, struct strbuf *err);
void db_rollback(struct db *db);
/* 1 inside db_begin() .. db_commit()/db_rollback(). */
int db_in_transaction(struct db *db);

/*
 * A connection that drops (the server restarted, failed over, the network
 * went) is reset once, quietly, before the next statement outside a
 * transaction; a statement inside a transaction fails, and so does the
 * rest of it until the caller's db_rollback().  db_lost() is 1 while the
 * connection is down (the last statement failed for want of a server, not
 * because the server refused it): a caller that must get its statements
 * through waits and tries again.  db_reconnect() tries once now (with a
 * multi-host conninfo and target_session_attrs=read-write, libpq picks
 * whichever server is the primary now).
 */
int db_lost(struct db *db);
int db_reconnect(struct db *db, struct strbuf *err);
/* How many times the connection was reset so far (a new session: the
 * channels of db_listen() are listened to again). */
unsigned db_reconnects(struct db *db);

int db_nrows(const struct db_result *res);
int db_nfields(const struct db_result *res);
const char *db_fname(const struct db_result *res, int col);
/* The value as text, or NULL for SQL NULL. */
const char *db_get(const struct db_result *res, int row, int col);
/*
 * The value at (row, col) as an integer in [min, max]: 0, or -1 when the
 * row is missing, the value is SQL NULL or out of range.
 */
int db_get_i64(const struct db_result *res, int row, int col, int64_t min,
	       int64_t max, int64_t *ret);
/* The number of rows a command touched ("UPDATE 3" -> 3). */
long db_cmd_tuples(const struct db_result *res);
void db_result_free(struct db_result *res);
static inline void db_result_freep(struct db_result **res)
{
	db_result_free(*res);
}
#define _cleanup_db_result_ __attribute__((cleanup(db_result_freep)))

/* The SQLSTATE of the last failed statement ("23505"), or "". */
const char *db_last_sqlstate(struct db *db);

/* Parameter lists: owned strings, NULL entries for SQL NULL. */
struct db_args {
	char **v;
	size_t nr, alloc;
};
#define DB_ARGS_INIT                                                           \
	{                                                                      \
		NULL, 0, 0                                                     \
	}
void db_args_str(struct db_args *a, const char *s); /* s may be NULL */
void db_args_i64(struct db_args *a, int64_t v);
void db_args_double(struct db_args *a, double v); /* non-finite -> NULL */
void db_args_bool(struct db_args *a, int v);
/* A text[] parameter holding the strings of sv (each quoted, \ and " escaped).
 */
void db_args_text_array(struct db_args *a, const struct strvec *sv);
void db_args_clear(struct db_args *a);
int db_exec_args(struct db *db, struct db_result **ret, struct strbuf *err,
		 const char *sql, const struct db_args *a);

/*
 * One statement in one call, its parameters typed where they are written:
 *
 *	db_query(db, &res, err, "UPDATE jobs SET state = $2 WHERE id = $1",
 *		 db_i64(job_id), db_str(state), db_end());
 *
 * Each db_<type>() makes one parameter ($1, $2.. in order) as the
 * db_args_<type>() of the same name would (db_str(NULL) and a non-finite
 * db_double() are SQL NULL); db_end(), always last, ends the list.  The
 *convention is db_exec()'s: 0 with the rows in *ret (ret may be NULL), or -1
 *with the server's message in err and nothing to free.
 */
enum db_arg_kind {
	DB_ARG_END,
	DB_ARG_STR,
	DB_ARG_I64,
	DB_ARG_DOUBLE,
	DB_ARG_BOOL,
	DB_ARG_TEXT_ARRAY,
};
struct db_arg {
	enum db_arg_kind kind;
	const char *s;
	int64_t i;
	double d;
	const struct strvec *sv;
};
static inline struct db_arg db_str(const char *s)
{
	return (struct db_arg){ .kind = DB_ARG_STR, .s = s };
}
static inline struct db_arg db_i64(int64_t v)
{
	return (struct db_arg){ .kind = DB_ARG_I64, .i = v };
}
static inline struct db_arg db_double(double v)
{
	return (struct db_arg){ .kind = DB_ARG_DOUBLE, .d = v };
}
static inline struct db_arg db_bool(int v)
{
	return (struct db_arg){ .kind = DB_ARG_BOOL, .i = !!v };
}
static inline struct db_arg db_text_array(const struct strvec *sv)
{
	return (struct db_arg){ .kind = DB_ARG_TEXT_ARRAY, .sv = sv };
}
static inline struct db_arg db_end(void)
{
	return (struct db_arg){ .kind = DB_ARG_END };
}
int db_query(struct db *db, struct db_result **ret, struct strbuf *err,
	     const char *sql, ...);

/* COPY ... FROM STDIN: begin, put data (text format), end. */
int db_copy_begin(struct db *db, const char *sql, struct strbuf *err);
int db_copy_put(struct db *db, const char *data, size_t len,
		struct strbuf *err);
int db_copy_end(struct db *db, struct strbuf *err);
/* Escape s for COPY text format (\\, tab, newline, CR); NULL -> \N. */
void db_copy_escape(struct strbuf *sb, const char *s);

/* LISTEN on channel; wait up to timeout_ms for a notification. */
int db_listen(struct db *db, const char *channel, struct strbuf *err);
/* 1 if a notification arrived (payload appended), 0 on timeout, <0 error. */
int db_wait_notify(struct db *db, int timeout_ms, struct strbuf *payload,
		   struct strbuf *err);

/*
 * argv for psql that reaches this database (caller appends its args), and
 * in env what psql's environment must add: a password in the conninfo is
 * taken out of it (argv is what `ps` shows anyone) and handed over as
 * "PGPASSWORD=...".  0, or -1 with err when the conninfo does not parse.
 */
int db_psql_argv(const struct db_config *cfg, struct strvec *argv,
		 struct strvec *env, struct strbuf *err);
/* The conninfo with any password replaced by ***, for printing. */
void db_conninfo_display(const struct db_config *cfg, struct strbuf *out);

#endif

/*
 * migrate.c - the schema's migrations: schema/NNN_*.sql, compiled into the
 * binary (store/schema.h), applied in order, each in its own transaction
 * under an advisory lock, and recorded in schema_migrations.  See db.h
 * for the contract.  No libpq here: statements go through db.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "parse.h"
#include "store/db.h"
#include "store/schema.h"
#include "banned.h"

int db_schema_known_version(void)
{
	int v = 0;

	for (unsigned i = 0; i < schema_migrations_count; i++)
		if (schema_migrations[i].version > v)
			v = schema_migrations[i].version;
	return v;
}

int db_schema_version(struct db *db, int *ret_version, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	const char *v;

	*ret_version = 0;
	if (db_exec(db, &res, err,
		    "SELECT to_regclass('schema_migrations') IS NOT NULL", 0,
		    NULL) < 0)
		return -1;
	if (strcmp(db_get(res, 0, 0), "t"))
		return 0;
	db_result_free(res);
	res = NULL;
	if (db_exec(db, &res, err,
		    "SELECT coalesce(max(version), 0) FROM schema_migrations",
		    0, NULL) < 0)
		return -1;
	v = db_get(res, 0, 0);
	if (parse_int(v, 0, INT32_MAX, ret_version, NULL) < 0) {
		strbuf_addf(err, "schema_migrations holds a bad version '%s'",
			    v);
		return -1;
	}
	return 0;
}

/*
 * How many of this schedfarm's migrations the database has not applied
 * (*ret_missing): versions are applied by number, not only above the
 * highest, since migrations written side by side may land in any order.
 * 0, or -1 with err.
 */
static int schema_missing(struct db *db, int *ret_missing, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	int64_t n;
	int r;

	*ret_missing = (int)schema_migrations_count;
	if (db_exec(db, &res, err,
		    "SELECT to_regclass('schema_migrations') IS NOT NULL", 0,
		    NULL) < 0)
		return -1;
	if (strcmp(db_get(res, 0, 0), "t"))
		return 0;
	db_result_free(res);
	res = NULL;
	db_args_i64(&a, db_schema_known_version());
	r = db_exec_args(db, &res, err,
			 "SELECT count(*) FROM schema_migrations WHERE "
			 "version <= $1",
			 &a);
	db_args_clear(&a);
	if (r < 0 || db_get_i64(res, 0, 0, 0, INT32_MAX, &n) < 0)
		return -1;
	*ret_missing = (int)schema_migrations_count - (int)n;
	return 0;
}

/* Whether migration `version` is recorded as applied: 1, 0, -1 with err. */
static int schema_applied(struct db *db, int version, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_i64(&a, version);
	r = db_exec_args(db, &res, err,
			 "SELECT 1 FROM schema_migrations WHERE version = $1",
			 &a);
	db_args_clear(&a);
	if (r < 0)
		return -1;
	return db_nrows(res) == 1;
}

static void newer_message(struct strbuf *err, int have)
{
	strbuf_addf(err,
		    "the database schema is at version %d, newer than this "
		    "schedfarm knows (%d): upgrade schedfarm, or point it at "
		    "another database",
		    have, db_schema_known_version());
}

int db_schema_check(struct db *db, struct strbuf *err)
{
	int have, missing;

	if (db_schema_version(db, &have, err) < 0)
		return -1;
	if (have > db_schema_known_version()) {
		newer_message(err, have);
		return -2;
	}
	if (schema_missing(db, &missing, err) < 0)
		return -1;
	if (have < db_schema_known_version() || missing > 0) {
		strbuf_addf(err,
			    "the database schema is at version %d with %d "
			    "migration(s) missing, this schedfarm needs %d: "
			    "run 'schedfarm db migrate'",
			    have, missing, db_schema_known_version());
		return -3;
	}
	return 0;
}

int db_migrate(struct db *db, int *ret_applied, struct strbuf *err)
{
	int have = 0;

	*ret_applied = 0;
	if (db_cmd(db, err,
		   "CREATE TABLE IF NOT EXISTS schema_migrations ("
		   " version integer PRIMARY KEY,"
		   " name text NOT NULL,"
		   " applied_at timestamptz NOT NULL DEFAULT now())") < 0)
		return -1;
	for (unsigned i = 0; i < schema_migrations_count; i++) {
		const struct schema_migration *m = &schema_migrations[i];
		_cleanup_db_result_ struct db_result *res = NULL;
		struct db_args a = DB_ARGS_INIT;
		int r;

		if (db_begin(db, err) < 0)
			return -1;
		/* One migrator at a time; the others wait, then see it done. */
		if (db_cmd(db, err, "SELECT pg_advisory_xact_lock(7301001)") <
			    0 ||
		    db_schema_version(db, &have, err) < 0)
			goto fail;
		if (have > db_schema_known_version()) {
			newer_message(err, have);
			db_rollback(db);
			return -2;
		}
		r = schema_applied(db, m->version, err);
		if (r < 0)
			goto fail;
		if (r == 1) {
			db_rollback(db);
			continue;
		}
		/* Migration text is ours, compiled in: no values in it. */
		if (db_cmd(db, err, m->sql) < 0) {
			struct strbuf why = STRBUF_INIT;

			strbuf_addbuf(&why, err);
			strbuf_reset(err);
			strbuf_addf(err, "migration %s failed: %s", m->name,
				    why.buf);
			strbuf_release(&why);
			goto fail;
		}
		db_args_i64(&a, m->version);
		db_args_str(&a, m->name);
		r = db_exec_args(db, NULL, err,
				 "INSERT INTO schema_migrations (version, name)"
				 " VALUES ($1, $2)",
				 &a);
		db_args_clear(&a);
		if (r < 0 || db_commit(db, err) < 0)
			goto fail;
		(*ret_applied)++;
	}
	if (db_schema_version(db, &have, err) < 0)
		return -1;
	if (have > db_schema_known_version()) {
		newer_message(err, have);
		return -2;
	}
	return 0;
fail:
	db_rollback(db);
	return -1;
}

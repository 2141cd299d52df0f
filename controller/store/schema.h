/*
 * schema.h - the migrations compiled into the binary from schema/NNN_*.sql.
 *
 * Versions are the NNN prefix; they are applied in order, each in its own
 * transaction, and recorded in schema_migrations (see migrate.c).
 */
#ifndef SCHEDFARM_SCHEMA_H
#define SCHEDFARM_SCHEMA_H

struct schema_migration {
	int version;
	const char *name;
	const char *sql;
};

extern const struct schema_migration schema_migrations[];
extern const unsigned schema_migrations_count;

#endif

/*
 * cluster.h - where the database is (--db, SCHEDFARM_DB, the libpq
 * environment, else the embedded cluster), and the embedded cluster's
 * life: initdb, pg_ctl start and stop, its server's pid.
 *
 * The connection itself is db.h's.  Functions return 0 or a negative
 * number and describe failures in the caller's err buffer; nothing here
 * prints.
 */
#ifndef SCHEDFARM_CLUSTER_H
#define SCHEDFARM_CLUSTER_H

#include "store/db.h"

/*
 * Work out where the database is (see the top of this file).  cli_db (--db)
 * may be NULL; home is the state folder as home_resolve() (home.h) worked
 * it out, where the embedded cluster lives (home/pg).  Fills cfg (release
 * with db_config_release()); cfg->home is set for the embedded cluster
 * only.
 */
int db_config_resolve(struct db_config *cfg, const char *cli_db,
		      const char *home, struct strbuf *err);

/*
 * Embedded cluster: create (initdb) and start (pg_ctl) it unless it is
 * already accepting connections, and make sure the `schedfarm` database
 * exists.  *ret_started (may be NULL) tells whether this call started it.
 * Serialised with a lock file so concurrent callers start it once.
 */
int db_embedded_ensure(const struct db_config *cfg, int *ret_started,
		       struct strbuf *log, struct strbuf *err);
/* Stop the embedded cluster (fast shutdown); 0 also when not running. */
int db_embedded_stop(const struct db_config *cfg, int *ret_was_running,
		     struct strbuf *err);
/* The pid of the embedded server from postmaster.pid, or 0. */
long db_embedded_pid(const struct db_config *cfg);

#endif

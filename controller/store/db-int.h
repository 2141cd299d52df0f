/*
 * db-int.h - what db.c and cluster.c share inside store/: the embedded
 * cluster's names, and the one libpq step the cluster's start needs.
 * Nothing outside store/db.c and store/cluster.c includes it.
 */
#ifndef SCHEDFARM_DB_INT_H
#define SCHEDFARM_DB_INT_H

#include "store/db.h"

#define EMBEDDED_DBNAME "schedfarm"
#define EMBEDDED_USER "schedfarm"
#define EMBEDDED_PORT 5432
#define PG_CTL_TIMEOUT_S 60

/*
 * Create the `schedfarm` database in the embedded cluster cfg names (a
 * server that answers on its socket) unless it is there: 0, or -1 with
 * err.  A database another caller created meanwhile is no error.
 */
int db_create_database(const struct db_config *cfg, struct strbuf *err);

#endif

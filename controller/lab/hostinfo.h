/*
 * hostinfo.h - ask a local or ssh host for its facts (the agent's `info`:
 * topology, memory, kernel) and store them in its hosts row.
 *
 * The one place that turns the agent's info into a host's topology:
 * `host add`, `host set --refresh` and the `local` host that `run` adds
 * on first use all come through here.
 */
#ifndef SCHEDFARM_LAB_HOSTINFO_H
#define SCHEDFARM_LAB_HOSTINFO_H

#include "store/db.h"
#include "store/hosts.h"
#include "strbuf.h"

/*
 * Contact host `name` (already a row), read the agent's info and store it
 * with the topology, also handed back in *ret_topo when not NULL.  What
 * was done on the way ("copied the agent to ...") is added to log, for
 * the caller to show.  Return 0, or -1 with err.
 */
int hostinfo_contact(struct db *db, const char *name,
		     struct host_topology *ret_topo, struct strbuf *log,
		     struct strbuf *err);

/*
 * Add this machine as host `name` of kind local, with its topology from
 * the agent, in one transaction of its own (nothing is added when the
 * agent cannot be run).  0 when added, 1 when a host of that name exists
 * already (nothing changed), -1 with err.
 */
int hostinfo_add_local(struct db *db, const char *name,
		       struct host_topology *ret_topo, struct strbuf *log,
		       struct strbuf *err);

#endif

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
#include "strbuf.h"

/*
 * Contact host `name` (already a row), read the agent's info and store it
 * with the topology.  Return 0, or -1 with err.
 */
int hostinfo_contact(struct db *db, const char *name, struct strbuf *err);

#endif

/*
 * hostinfo.c - ask a host for its facts and keep them; see hostinfo.h.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cleanup.h"
#include "json.h"
#include "parse.h"
#include "lab/hostinfo.h"
#include "lab/runner.h"
#include "store/hosts.h"
#include "store/ingest.h"
#include "banned.h"

/* A positive integer member of info, or 0. */
static int64_t info_int(const struct json_value *o, const char *key)
{
	struct strbuf ignore = STRBUF_INIT;
	int64_t v = 0;

	if (json_get_i64(o, key, 0, INT64_MAX / 2, &v, &ignore) < 0)
		v = 0;
	strbuf_release(&ignore);
	return v;
}

/*
 * Contact host `name` (already a row), read the agent's info and store it
 * with the topology (into *ret_topo too, when not NULL).  What the runner
 * did on the way ("copied the agent to ...") is added to log.  Return 0,
 * or -1 with err.
 */
int hostinfo_contact(struct db *db, const char *name,
		     struct host_topology *ret_topo, struct strbuf *log,
		     struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct runner_host h = { 0 };
	struct runner *r = NULL;
	struct strbuf info = STRBUF_INIT, canon = STRBUF_INIT;
	struct json_value *doc = NULL;
	const struct json_value *cpus;
	char *agent = runner_default_agent_path();
	int64_t sockets, cores, threads, nodes, online, mem_kb;
	struct host_topology topo;
	int ret = -1;
	const char *port;

	if (hosts_contact_row(db, name, &res, err) < 0)
		goto out;
	h.name = name;
	h.kind = db_get(res, 0, 0);
	h.address = db_get(res, 0, 1);
	port = db_get(res, 0, 2);
	if (port)
		parse_int(port, 1, 65535, &h.port, NULL);
	h.user = db_get(res, 0, 3);
	h.key_file = db_get(res, 0, 4);
	h.known_hosts = db_get(res, 0, 5);
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "no host named '%s'", name);
		goto out;
	}
	if (runner_open(&h, agent, &r, log, err) < 0)
		goto out;
	if (runner_info(r, &info, err) < 0)
		goto out;
	if (json_parse(info.buf, info.len, NULL, &doc, err) < 0 ||
	    json_type_of(doc) != JSON_OBJECT) {
		strbuf_addstr(err, " (the agent's info is not a JSON object)");
		goto out;
	}
	cpus = json_get(doc, "cpus");
	sockets = info_int(cpus, "sockets");
	cores = info_int(cpus, "cores");
	threads = info_int(cpus, "threads");
	nodes = info_int(cpus, "numa_nodes");
	online = info_int(cpus, "online");
	mem_kb = info_int(doc, "memory_kb");
	ingest_json_write(doc, &canon);
	topo.sockets = sockets;
	topo.cores_per_socket = sockets && cores ? cores / sockets : 0;
	topo.threads_per_core = cores && threads ? threads / cores : 0;
	topo.numa_nodes = nodes;
	topo.cpus = online;
	topo.memory_mb = mem_kb / 1024;
	if (hosts_record_info(db, name, canon.buf, &topo, err) < 0)
		goto out;
	if (ret_topo)
		*ret_topo = topo;
	ret = 0;
out:
	json_free(doc);
	runner_close(r);
	free(agent);
	strbuf_release(&info);
	strbuf_release(&canon);
	return ret;
}

int hostinfo_add_local(struct db *db, const char *name,
		       struct host_topology *ret_topo, struct strbuf *log,
		       struct strbuf *err)
{
	struct host_fields f;
	int64_t id;
	int r;

	if (db_begin(db, err) < 0)
		return -1;
	host_fields_init(&f);
	f.kind = "local";
	r = hosts_add(db, name, &f, &id, err);
	if (r == 0 && hostinfo_contact(db, name, ret_topo, log, err) < 0)
		r = -1;
	if (r != 0) {
		db_rollback(db);
		return r;
	}
	return db_commit(db, err);
}

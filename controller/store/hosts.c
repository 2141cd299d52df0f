/*
 * hosts.c - host rows, the health rules and host_events; see hosts.h.
 *
 * The rules are a pure function so that the unit tests can walk every
 * case; hosts_observe() reads the row under a lock, asks the rules, and
 * writes the row and the event in the same transaction, so two
 * controllers observing one host (a boot and a job's end) count once each.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "kind_names.h"
#include "parse.h"
#include "store/hosts.h"
#include "shquote.h"
#include "banned.h"

void host_health_decide(const struct host_health *h,
			const struct host_observation *o,
			struct host_verdict *ret)
{
	int kernel_new;

	memset(ret, 0, sizeof(*ret));
	ret->before = *h;
	ret->after = *h;
	ret->blame = "none";
	ret->on_known_good = o->kernel_id && h->known_good_kernel_id &&
			     o->kernel_id == h->known_good_kernel_id;
	/* A host that runs its own kernel never tries a new one. */
	kernel_new = o->kernel_id && !ret->on_known_good;

	switch (o->outcome) {
	case HOST_WORKED:
		ret->after.aborted_in_row = 0;
		if (!strcmp(h->health, "unknown") ||
		    (!strcmp(h->health, "bad") && ret->on_known_good))
			snprintf(ret->after.health, sizeof(ret->after.health),
				 "good");
		break;
	case HOST_CHECK_FAILED:
	case HOST_LAB_FAILED:
		ret->blame = "host";
		ret->after.aborted_in_row = h->aborted_in_row + 1;
		if (!strcmp(h->health, "good") || !strcmp(h->health, "unknown"))
			snprintf(ret->after.health, sizeof(ret->after.health),
				 "bad");
		break;
	case HOST_FAILED:
		if (kernel_new && !strcmp(h->health, "good")) {
			ret->blame = "kernel";
			break;
		}
		ret->blame = "host";
		ret->after.aborted_in_row = h->aborted_in_row + 1;
		if (ret->after.aborted_in_row >= HOST_ABORTS_TO_BAD &&
		    (!strcmp(h->health, "good") ||
		     !strcmp(h->health, "unknown")))
			snprintf(ret->after.health, sizeof(ret->after.health),
				 "bad");
		break;
	}
	ret->changed = strcmp(ret->before.health, ret->after.health) != 0;
}

int hosts_event_add(struct db *db, int64_t host_id, const char *old,
		    const char *new_health, const char *reason,
		    struct strbuf *err)
{
	int r;

	r = db_query(db, NULL, err,
		     "INSERT INTO host_events (host_id, old_health, "
		     "new_health, reason) VALUES ($1, $2, $3, left($4, "
		     "2000))",
		     db_i64(host_id), db_str(old), db_str(new_health),
		     db_str(reason), db_end());
	return r;
}

/* The event's reason for verdict v of observation o. */
static void event_reason(const struct host_observation *o,
			 const struct host_verdict *v, struct strbuf *out)
{
	const char *what = o->what ? o->what : "observed";
	const char *failure = o->failure ? o->failure : "failed";

	if (o->outcome == HOST_WORKED) {
		strbuf_addf(out, "%s: worked", what);
		return;
	}
	if (o->outcome == HOST_CHECK_FAILED)
		strbuf_addstr(out, "quarantined, the known-good kernel failed "
				   "too: ");
	if (!strcmp(v->blame, "host") && o->outcome == HOST_FAILED &&
	    v->after.aborted_in_row >= HOST_ABORTS_TO_BAD) {
		if (v->after.aborted_in_row == 2)
			strbuf_addf(out, "%s twice in a row: ", failure);
		else
			strbuf_addf(out,
				    "%s %" PRId64 " times in a row: ", failure,
				    v->after.aborted_in_row);
	}
	strbuf_addf(out, "%s: %s", what, o->reason ? o->reason : failure);
	if (!strcmp(v->blame, "host") && o->outcome == HOST_FAILED)
		strbuf_addf(out, " (%s; %" PRId64 " aborted in a row)",
			    v->on_known_good ? "known-good kernel"
			    : o->kernel_id   ? "a host not checked yet"
					     : "the host's own kernel",
			    v->after.aborted_in_row);
}

int hosts_observe(struct db *db, const struct host_observation *o,
		  struct host_verdict *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct host_health h = { .health = "" };
	int r = -1;

	if (db_begin(db, err) < 0)
		return -1;
	if (db_query(db, &res, err,
		     "SELECT health, aborted_in_row, "
		     "coalesce(known_good_kernel_id, 0) FROM hosts WHERE "
		     "id = $1 FOR UPDATE",
		     db_i64(o->host_id), db_end()) < 0)
		goto out;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "no host %" PRId64, o->host_id);
		goto out;
	}
	snprintf(h.health, sizeof(h.health), "%s", db_get(res, 0, 0));
	if (db_get_i64(res, 0, 1, 0, INT64_MAX, &h.aborted_in_row) < 0 ||
	    db_get_i64(res, 0, 2, 0, INT64_MAX, &h.known_good_kernel_id) < 0) {
		strbuf_addf(err, "host %" PRId64 ": unreadable health",
			    o->host_id);
		goto out;
	}
	host_health_decide(&h, o, ret);
	if (db_query(db, NULL, err,
		     "UPDATE hosts SET health = $2, aborted_in_row = $3, "
		     "updated_at = now() WHERE id = $1",
		     db_i64(o->host_id), db_str(ret->after.health),
		     db_i64(ret->after.aborted_in_row), db_end()) < 0)
		goto out;
	/* A change of health, and a counted failure on the known-good
	 * kernel (the step before bad), leave an event. */
	if (ret->changed ||
	    (ret->on_known_good && !strcmp(ret->blame, "host"))) {
		struct strbuf why = STRBUF_INIT;

		event_reason(o, ret, &why);
		r = hosts_event_add(db, o->host_id, ret->before.health,
				    ret->after.health, why.buf, err);
		strbuf_release(&why);
		if (r < 0)
			goto out;
	}
	r = db_commit(db, err);
	return r;
out:
	db_rollback(db);
	return -1;
}

/* hosts_set_health(), with the event written always (always_event) or
 * only on a change. */
static int set_health(struct db *db, int64_t host_id, const char *health,
		      int64_t known_good_kernel_id, const char *reason,
		      int always_event, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	int r = -1;

	if (db_begin(db, err) < 0)
		return -1;
	db_args_i64(&a, host_id);
	if (db_exec_args(db, &res, err,
			 "SELECT health FROM hosts WHERE id = $1 FOR UPDATE",
			 &a) < 0)
		goto out;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "no host %" PRId64, host_id);
		goto out;
	}
	db_args_str(&a, health);
	db_args_i64(&a, known_good_kernel_id);
	if (db_exec_args(db, NULL, err,
			 "UPDATE hosts SET health = $2, aborted_in_row = CASE "
			 "WHEN $3 > 0 OR $2 <> health THEN 0 ELSE "
			 "aborted_in_row END, known_good_kernel_id = "
			 "coalesce(nullif($3, 0), known_good_kernel_id), "
			 "updated_at = now() WHERE id = $1",
			 &a) < 0)
		goto out;
	if ((always_event || strcmp(db_get(res, 0, 0), health)) &&
	    hosts_event_add(db, host_id, db_get(res, 0, 0), health, reason,
			    err) < 0)
		goto out;
	r = db_commit(db, err);
	db_args_clear(&a);
	return r;
out:
	db_rollback(db);
	db_args_clear(&a);
	return -1;
}

int hosts_kind(struct db *db, const char *name, char **ret_kind,
	       struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	*ret_kind = NULL;
	r = db_query(db, &res, err, "SELECT kind FROM hosts WHERE name = $1",
		     db_str(name), db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1)
		return 1;
	*ret_kind = xstrdup(db_get(res, 0, 0));
	return 0;
}

int hosts_check_due(struct db *db, int64_t host_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = db_query(db, &res, err,
		     "SELECT 1 FROM hosts WHERE id = $1 AND kind IN "
		     "('libvirt', 'ipmi') AND health = 'unknown' AND "
		     "known_good_kernel_id IS NOT NULL",
		     db_i64(host_id), db_end());
	if (r < 0)
		return -1;
	return db_nrows(res) == 1;
}

int hosts_set_health(struct db *db, int64_t host_id, const char *health,
		     int64_t known_good_kernel_id, const char *reason,
		     struct strbuf *err)
{
	return set_health(db, host_id, health, known_good_kernel_id, reason, 0,
			  err);
}

int hosts_check_passed(struct db *db, int64_t host_id,
		       int64_t known_good_kernel_id, const char *reason,
		       struct strbuf *err)
{
	return set_health(db, host_id, "good", known_good_kernel_id, reason, 1,
			  err);
}

int hosts_kind_boots(const char *kind)
{
	return kind_name_boots(kind);
}

int hosts_find(struct db *db, const char *name, int64_t *ret_id,
	       struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = db_query(db, &res, err, "SELECT id FROM hosts WHERE name = $1",
		     db_str(name), db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1)
		return 1;
	return db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0 ? -1 : 0;
}

void host_fields_init(struct host_fields *f)
{
	memset(f, 0, sizeof(*f));
	f->port = -1;
	for (size_t i = 0; i < HOST_NR_NUMS; i++)
		f->nums[i] = -1;
}

/* Push f's fields onto a in the order of the two statements below. */
static void fields_args(struct db_args *a, const struct host_fields *f)
{
	db_args_str(a, f->address);
	if (f->port >= 0)
		db_args_i64(a, f->port);
	else
		db_args_str(a, NULL);
	db_args_str(a, f->user);
	db_args_str(a, f->key_file);
	db_args_str(a, f->known_hosts);
	if (f->tags_set)
		db_args_text_array(a, f->tags);
	else
		db_args_str(a, NULL);
	db_args_str(a, f->libvirt_uri);
	db_args_str(a, f->bmc_address);
	db_args_str(a, f->bmc_user);
	db_args_str(a, f->bmc_password_file);
	db_args_str(a, f->boot_config);
	for (size_t i = 0; i < HOST_NR_NUMS; i++) {
		if (f->nums[i] < 0)
			db_args_str(a, NULL);
		else
			db_args_i64(a, f->nums[i]);
	}
	db_args_str(a, f->bmc_bootdev);
}

/*
 * The fields any host may hold: an SSH user name that cannot be read as
 * an option (ssh_user_name_ok).  What one kind needs of its fields (a
 * libvirt host's address) is the kind's check (lab/host_kind.h), which
 * `host add` and `host set` ask first.  0, or -1 with err.
 */
static int check_fields(const struct host_fields *f, struct strbuf *err)
{
	if (f->user && !ssh_user_name_ok(f->user)) {
		strbuf_addstr(err, "the SSH user name is 1..32 characters of "
				   "[A-Za-z0-9._-], not starting with - or .");
		return -1;
	}
	return 0;
}

int hosts_add(struct db *db, const char *name, const struct host_fields *f,
	      int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	int r;

	if (check_name("a host name", name, HOST_NAME_MAX_LEN, err) < 0 ||
	    check_fields(f, err) < 0)
		return -2;
	db_args_str(&a, name);
	db_args_str(&a, f->kind);
	fields_args(&a, f);
	r = db_exec_args(
		db, &res, err,
		"INSERT INTO hosts (name, kind, address, port, ssh_user, "
		"key_file, known_hosts, tags, libvirt_uri, bmc_address, "
		"bmc_user, bmc_password_file, boot_config, sockets, "
		"cores_per_socket, threads_per_core, numa_nodes, cpus, "
		"memory_mb, bmc_port, bmc_bootdev) VALUES ($1, $2, $3, $4, $5, "
		"$6, $7, coalesce($8::text[], '{}'), $9, $10, $11, $12, "
		"coalesce($13::jsonb, '{}'), $14, $15, $16, $17, $18, $19, "
		"$20, coalesce($21, 'pxe')) "
		"ON CONFLICT (name) DO NOTHING RETURNING id",
		&a);
	db_args_clear(&a);
	if (r < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 1;
	return db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0 ? -1 : 0;
}

int hosts_update(struct db *db, const char *name, const struct host_fields *f,
		 int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	char *kind = NULL;
	int r;

	if (f->user || f->address) {
		r = hosts_kind(db, name, &kind, err);
		if (r != 0)
			return r;
		r = check_fields(f, err);
		free(kind);
		if (r < 0)
			return -2;
	}
	db_args_str(&a, name);
	db_args_str(&a, NULL); /* the kind: never changed, keeps $n aligned */
	fields_args(&a, f);
	r = db_exec_args(db, &res, err,
			 "UPDATE hosts h SET "
			 "address = coalesce($3, h.address), "
			 "port = coalesce($4::int, h.port), "
			 "ssh_user = coalesce($5, h.ssh_user), "
			 "key_file = coalesce($6, h.key_file), "
			 "known_hosts = coalesce($7, h.known_hosts), "
			 "tags = coalesce($8::text[], h.tags), "
			 "libvirt_uri = coalesce($9, h.libvirt_uri), "
			 "bmc_address = coalesce($10, h.bmc_address), "
			 "bmc_user = coalesce($11, h.bmc_user), "
			 "bmc_password_file = coalesce($12, "
			 "h.bmc_password_file), "
			 "boot_config = coalesce($13::jsonb, h.boot_config), "
			 "sockets = coalesce($14::int, h.sockets), "
			 "cores_per_socket = coalesce($15::int, "
			 "h.cores_per_socket), "
			 "threads_per_core = coalesce($16::int, "
			 "h.threads_per_core), "
			 "numa_nodes = coalesce($17::int, h.numa_nodes), "
			 "cpus = coalesce($18::int, h.cpus), "
			 "memory_mb = coalesce($19::bigint, h.memory_mb), "
			 "bmc_port = coalesce($20::int, h.bmc_port), "
			 "bmc_bootdev = coalesce($21, h.bmc_bootdev), "
			 "updated_at = now() WHERE name = $1 AND $2::text IS "
			 "NULL RETURNING id",
			 &a);
	db_args_clear(&a);
	if (r < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 1;
	return db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0 ? -1 : 0;
}

int hosts_record_info(struct db *db, const char *name, const char *info_json,
		      const struct host_topology *t, struct strbuf *err)
{
	int r;

	r = db_query(db, NULL, err,
		     "UPDATE hosts SET agent_info = $2::jsonb, "
		     "sockets = nullif($3::int, 0), "
		     "cores_per_socket = nullif($4::int, 0), "
		     "threads_per_core = nullif($5::int, 0), "
		     "numa_nodes = nullif($6::int, 0), "
		     "cpus = nullif($7::int, 0), "
		     "memory_mb = nullif($8::bigint, 0), updated_at = now() "
		     "WHERE name = $1",
		     db_str(name), db_str(info_json), db_i64(t->sockets),
		     db_i64(t->cores_per_socket), db_i64(t->threads_per_core),
		     db_i64(t->numa_nodes), db_i64(t->cpus),
		     db_i64(t->memory_mb), db_end());
	return r;
}

int hosts_find_or_import(struct db *db, const char *name, const char *file,
			 int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf why = STRBUF_INIT;
	int r = hosts_find(db, name, ret_id, err);

	if (r <= 0)
		return r;
	if (check_name("a host name", name, HOST_NAME_MAX_LEN, err) < 0)
		return -1;
	r = db_query(db, &res, err,
		     "INSERT INTO hosts (name, kind, health) VALUES ($1, "
		     "'imported', 'retired') RETURNING id",
		     db_str(name), db_end());
	if (r < 0 || db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0)
		return -1;
	strbuf_addf(&why,
		    "created by import of %s: results only, never scheduled",
		    file);
	r = hosts_event_add(db, *ret_id, NULL, "retired", why.buf, err);
	strbuf_release(&why);
	return r;
}

int hosts_remove(struct db *db, const char *name, struct strbuf *why,
		 struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r = -1;

	if (db_query(db, &res, err,
		     "WITH d AS (DELETE FROM hosts h WHERE name = $1 AND "
		     "state = 'idle' AND NOT EXISTS (SELECT 1 FROM runs r "
		     "WHERE r.host_id = h.id) RETURNING id) SELECT "
		     "(SELECT count(*) FROM d), h.state, (SELECT count(*) "
		     "FROM runs r WHERE r.host_id = h.id) FROM hosts h "
		     "WHERE name = $1 UNION ALL SELECT (SELECT count(*) "
		     "FROM d), NULL, 0 WHERE NOT EXISTS (SELECT 1 FROM "
		     "hosts WHERE name = $1)",
		     db_str(name), db_end()) < 0)
		goto out;
	r = 1;
	if (db_nrows(res) != 1) {
		strbuf_addf(why, "no host named '%s'", name);
		goto out;
	}
	if (!strcmp(db_get(res, 0, 0), "1")) {
		r = 0;
	} else if (!db_get(res, 0, 1)) {
		strbuf_addf(why, "no host named '%s'", name);
	} else if (strcmp(db_get(res, 0, 1), "idle")) {
		strbuf_addf(why,
			    "host %s is %s: wait for its job, or cancel it",
			    name, db_get(res, 0, 1));
	} else {
		strbuf_addf(why,
			    "host %s has %s runs stored: retire it instead "
			    "(schedfarm host set ",
			    name, db_get(res, 0, 2));
		strbuf_add_sh_quoted(why, name);
		strbuf_addstr(why, " --health retired)");
	}
out:
	return r;
}

/* The columns list and show print, as the members of one JSON object per
 * host, in the order show prints them. */
#define HOST_FIELDS                                                            \
	"'name', name, 'kind', kind, 'state', state, 'health', health, "       \
	"'address', address, "                                                 \
	"'port', port, 'user', ssh_user, 'key_file', key_file, "               \
	"'known_hosts', known_hosts, 'tags', to_jsonb(tags), "                 \
	"'sockets', sockets, 'cores_per_socket', "                             \
	"cores_per_socket, 'threads_per_core', threads_per_core, "             \
	"'numa_nodes', numa_nodes, 'cpus', cpus, 'memory_mb', memory_mb, "     \
	"'lease_owner', lease_owner, 'lease_job', lease_job_id, "              \
	"'lease_expires', lease_expires, 'libvirt_uri', libvirt_uri, "         \
	"'bmc_address', bmc_address, 'bmc_port', bmc_port, 'bmc_user', "       \
	"bmc_user, 'bmc_password_file', bmc_password_file, 'bmc_bootdev', "    \
	"bmc_bootdev, 'boot_config', boot_config"
#define HOST_JSON "jsonb_build_object(" HOST_FIELDS ")"

int hosts_list_json(struct db *db, struct db_result **ret, struct strbuf *err)
{
	return db_exec(db, ret, err,
		       "SELECT coalesce(jsonb_agg(" HOST_JSON
		       " ORDER BY name), '[]') FROM hosts",
		       0, NULL);
}

int hosts_list_rows(struct db *db, struct db_result **ret, struct strbuf *err)
{
	return db_exec(db, ret, err,
		       "SELECT name, kind, coalesce(address || "
		       "coalesce(':' || port, ''), '-'), state, health, "
		       "coalesce(sockets::text, '-'), "
		       "coalesce(cpus::text, "
		       "'-'), coalesce(memory_mb::text, '-'), "
		       "array_to_string(tags, ',') FROM hosts ORDER BY "
		       "name",
		       0, NULL);
}

int hosts_show_json(struct db *db, const char *name, struct db_result **ret,
		    struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_str(&a, name);
	r = db_exec_args(db, ret, err,
			 "SELECT json_build_object(" HOST_FIELDS ", "
			 "'runs', (SELECT count(*) "
			 "FROM runs r WHERE r.host_id = hosts.id), 'events', "
			 "(SELECT coalesce(json_agg(json_build_object('at', "
			 "e.at, 'old', e.old_health, 'new', e.new_health, "
			 "'reason', e.reason) ORDER BY e.at), '[]') FROM "
			 "host_events e WHERE e.host_id = hosts.id), "
			 "'agent_info', agent_info) "
			 "FROM hosts WHERE name = $1",
			 &a);
	db_args_clear(&a);
	return r;
}

int hosts_contact_row(struct db *db, const char *name, struct db_result **ret,
		      struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_str(&a, name);
	r = db_exec_args(db, ret, err,
			 "SELECT kind, address, port, ssh_user, key_file, "
			 "known_hosts FROM hosts WHERE name = $1",
			 &a);
	db_args_clear(&a);
	return r;
}

int hosts_libvirt_uris(struct db *db, struct db_result **ret,
		       struct strbuf *err)
{
	return db_exec(db, ret, err,
		       "SELECT DISTINCT libvirt_uri FROM hosts WHERE kind = "
		       "'libvirt' AND libvirt_uri IS NOT NULL ORDER BY 1",
		       0, NULL);
}

int hosts_known_good_row(struct db *db, const char *name, int64_t id,
			 struct db_result **ret, struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	if (name)
		db_args_str(&a, name);
	else
		db_args_i64(&a, id);
	r = db_exec_args(db, ret, err,
			 name ? "SELECT coalesce(known_good_kernel_id, "
				"0), kind FROM hosts WHERE name = $1"
			      : "SELECT coalesce(known_good_kernel_id, "
				"0), kind FROM hosts WHERE id = $1",
			 &a);
	db_args_clear(&a);
	return r;
}

/*
 * controllers.c - controllers, their domains and power operations; see
 * controllers.h.
 *
 * "Expired" is judged by the database's clock alone (lease_expires <
 * now()), like every other lease, so controllers on machines whose clocks
 * disagree still agree on who is alive.  A controller that stopped
 * cleanly has its lease end at once: what it left (nothing, normally) is
 * anybody's to sweep.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "parse.h"
#include "store/controllers.h"
#include "banned.h"

int controllers_register(struct db *db, const char *id, const char *kind,
			 int lease_s, struct strbuf *err)
{
	char host[256] = "";
	int r;

	gethostname(host, sizeof(host) - 1);
	r = db_query(db, NULL, err,
		     "INSERT INTO controllers (id, kind, hostname, pid, "
		     "lease_expires) VALUES ($1, $2, $3, $4, now() + "
		     "make_interval(secs => $5)) ON CONFLICT (id) DO "
		     "UPDATE SET lease_expires = excluded.lease_expires, "
		     "stopped_at = NULL",
		     db_str(id), db_str(kind),
		     db_str(host[0] ? host : "localhost"),
		     db_i64((int64_t)getpid()), db_i64(lease_s), db_end());
	return r;
}

int controllers_renew(struct db *db, const char *id, int lease_s,
		      struct strbuf *err)
{
	int r;

	/* Never shorter than it is: a job renewing with a short lease must
	 * not cut its serve's longer one. */
	r = db_query(db, NULL, err,
		     "UPDATE controllers SET lease_expires = "
		     "greatest(lease_expires, now() + make_interval(secs "
		     "=> $2)) WHERE id = $1 AND stopped_at IS NULL",
		     db_str(id), db_i64(lease_s), db_end());
	return r;
}

int controllers_stop(struct db *db, const char *id, struct strbuf *err)
{
	int r;

	r = db_query(db, NULL, err,
		     "UPDATE controllers SET lease_expires = now(), "
		     "stopped_at = now() WHERE id = $1",
		     db_str(id), db_end());
	return r;
}

static void args_id_or_null(struct db_args *a, int64_t id)
{
	if (id > 0)
		db_args_i64(a, id);
	else
		db_args_str(a, NULL);
}

int controllers_domain_add(struct db *db, const char *name, const char *uri,
			   int64_t host_id, int64_t job_id, int64_t boot_id,
			   const char *controller_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_str(&a, name);
	db_args_str(&a, uri);
	args_id_or_null(&a, host_id);
	args_id_or_null(&a, job_id);
	args_id_or_null(&a, boot_id);
	db_args_str(&a, controller_id);
	r = db_exec_args(db, &res, err,
			 "INSERT INTO domains (name, libvirt_uri, host_id, "
			 "job_id, boot_id, controller_id) VALUES ($1, $2, $3, "
			 "$4, $5, $6) ON CONFLICT (name) WHERE destroyed_at IS "
			 "NULL DO NOTHING RETURNING id",
			 &a);
	db_args_clear(&a);
	if (r < 0)
		return -1;
	if (db_nrows(res) == 1)
		return 0;
	/* A live record under that name: whose, for the message. */
	db_result_free(res);
	res = NULL;
	db_args_str(&a, name);
	r = db_exec_args(db, &res, err,
			 "SELECT controller_id FROM domains WHERE name = $1 "
			 "AND destroyed_at IS NULL",
			 &a);
	db_args_clear(&a);
	if (r == 0)
		strbuf_addf(err,
			    "a domain named %s is already recorded as live, "
			    "made by controller %s",
			    name,
			    db_nrows(res) ? db_get(res, 0, 0) : "(unknown)");
	return -1;
}

int controllers_domain_gone(struct db *db, const char *name, const char *by,
			    const char *reason, struct strbuf *err)
{
	int r;

	r = db_query(db, NULL, err,
		     "UPDATE domains SET destroyed_at = now(), "
		     "destroyed_by = $2, destroy_reason = $3 WHERE name = "
		     "$1 AND destroyed_at IS NULL",
		     db_str(name), db_str(by), db_str(reason), db_end());
	return r;
}

int controllers_domain_claim(struct db *db, const char *name, const char *self,
			     enum domain_claim *ret_claim, int64_t *ret_job_id,
			     struct strbuf *owner, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	const char *who;
	int r;

	*ret_claim = DOMAIN_ORPHAN;
	*ret_job_id = 0;
	/* Live: its controller's lease not expired and no clean stop (an
	 * owner with no controllers row at all, a pre-009 controller, is
	 * not live), and, for a job's domain, the job still leased to that
	 * controller: once the job's lease expired and the job went back to
	 * the queue, its domain is nobody's, whoever now runs the job. */
	r = db_query(db, &res, err,
		     "SELECT d.controller_id, coalesce(d.job_id, 0), "
		     "coalesce(c.lease_expires > now() AND c.stopped_at "
		     "IS NULL, false) AND (d.job_id IS NULL OR EXISTS "
		     "(SELECT 1 FROM jobs j WHERE j.id = d.job_id AND "
		     "j.lease_owner = d.controller_id AND j.lease_expires "
		     "> now())) FROM domains d LEFT JOIN controllers c ON "
		     "c.id = d.controller_id WHERE d.name = $1 AND "
		     "d.destroyed_at IS NULL",
		     db_str(name), db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 0; /* no record: nobody's */
	who = db_get(res, 0, 0);
	if (owner)
		strbuf_addstr(owner, who);
	db_get_i64(res, 0, 1, 0, INT64_MAX, ret_job_id);
	if (!strcmp(who, self))
		*ret_claim = DOMAIN_MINE;
	else if (!strcmp(db_get(res, 0, 2), "t"))
		*ret_claim = DOMAIN_LIVE_OWNER;
	return 0;
}

int controllers_domains_live(struct db *db, const char *uri,
			     struct strvec *names, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = db_query(db, &res, err,
		     "SELECT name FROM domains WHERE destroyed_at IS NULL "
		     "AND ($1::text IS NULL OR libvirt_uri IS NOT DISTINCT "
		     "FROM $1) ORDER BY id",
		     db_str(uri), db_end());
	if (r < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++)
		strvec_push(names, db_get(res, i, 0));
	return 0;
}

int controllers_domains_of_host(struct db *db, int64_t host_id,
				struct strvec *names, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = db_query(db, &res, err,
		     "SELECT name FROM domains WHERE destroyed_at IS NULL "
		     "AND host_id = $1 ORDER BY id",
		     db_i64(host_id), db_end());
	if (r < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++)
		strvec_push(names, db_get(res, i, 0));
	return 0;
}

int controllers_power_begin(struct db *db, int64_t host_id, const char *op,
			    const char *controller_id, int64_t job_id,
			    int64_t boot_id, int64_t *ret_id,
			    struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct db_args a = DB_ARGS_INIT;
	int r;

	*ret_id = 0;
	db_args_i64(&a, host_id);
	db_args_str(&a, op);
	db_args_str(&a, controller_id ? controller_id : "(unknown)");
	args_id_or_null(&a, job_id);
	args_id_or_null(&a, boot_id);
	r = db_exec_args(db, &res, err,
			 "INSERT INTO power_ops (host_id, op, controller_id, "
			 "job_id, boot_id) VALUES ($1, $2, $3, $4, $5) "
			 "RETURNING id",
			 &a);
	db_args_clear(&a);
	if (r < 0)
		return -1;
	return db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id);
}

int controllers_power_end(struct db *db, int64_t op_id, const char *error,
			  struct strbuf *err)
{
	int r;

	if (op_id <= 0)
		return 0;
	r = db_query(db, NULL, err,
		     "UPDATE power_ops SET finished_at = now(), outcome = "
		     "$2, error = $3 WHERE id = $1",
		     db_i64(op_id), db_str(error ? "failed" : "ok"),
		     db_str(error), db_end());
	return r;
}

int controllers_powered_orphans(struct db *db, struct powered_orphan **ret,
				size_t *ret_n, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct powered_orphan *o;
	int n;

	*ret = NULL;
	*ret_n = 0;
	if (db_exec(db, &res, err,
		    "SELECT h.id, h.name, p.controller_id FROM hosts h "
		    "JOIN LATERAL (SELECT op, controller_id FROM power_ops "
		    "WHERE host_id = h.id AND outcome = 'ok' ORDER BY id DESC "
		    "LIMIT 1) p ON true "
		    "LEFT JOIN controllers c ON c.id = p.controller_id "
		    "WHERE p.op IN ('on', 'cycle') "
		    "AND NOT coalesce(c.lease_expires > now() AND "
		    "c.stopped_at IS NULL, false) "
		    "AND NOT (h.lease_owner IS NOT NULL AND h.lease_expires "
		    "> now()) ORDER BY h.id",
		    0, NULL) < 0)
		return -1;
	n = db_nrows(res);
	if (!n)
		return 0;
	o = xcalloc((size_t)n, sizeof(*o));
	for (int i = 0; i < n; i++) {
		db_get_i64(res, i, 0, 1, INT64_MAX, &o[i].host_id);
		o[i].host_name = xstrdup(db_get(res, i, 1));
		o[i].owner = xstrdup(db_get(res, i, 2));
	}
	*ret = o;
	*ret_n = (size_t)n;
	return 0;
}

void controllers_powered_orphans_free(struct powered_orphan *o, size_t n)
{
	for (size_t i = 0; o && i < n; i++) {
		free(o[i].host_name);
		free(o[i].owner);
	}
	free(o);
}

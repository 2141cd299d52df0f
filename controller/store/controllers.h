/*
 * controllers.h - the one owner of `controllers`, `domains` and
 * `power_ops` rows: which controller process is alive, and what each has
 * made outside the database (schema 009).
 *
 * A controller is identified by the id its leases carry (queue.h's
 * queue_owner_new(): "hostname:pid:tag").  It registers with a lease of
 * its own and renews it while it lives (serve's main loop; every job's
 * heartbeat, so a job whose serve died still counts as alive while it
 * runs); a clean exit ends it at once.  Before it makes a libvirt domain
 * or powers a machine, the controller records that under its id; a sweep
 * (lab/boot.c) then destroys or powers off only what belongs to the
 * sweeping controller itself or to a controller whose lease has expired,
 * never what a live controller is using.
 */
#ifndef SCHEDFARM_CONTROLLERS_H
#define SCHEDFARM_CONTROLLERS_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"
#include "strvec.h"

/* Register controller id (kind: serve, run, cli) with a lease of lease_s
 * seconds; registering an id again renews it.  0, or -1 with err. */
int controllers_register(struct db *db, const char *id, const char *kind,
			 int lease_s, struct strbuf *err);

/* Renew id's lease for lease_s seconds.  0, or -1 with err. */
int controllers_renew(struct db *db, const char *id, int lease_s,
		      struct strbuf *err);

/* A clean exit: id's lease ends now.  0, or -1 with err. */
int controllers_stop(struct db *db, const char *id, struct strbuf *err);

/*
 * Record that controller_id is about to create libvirt domain name at uri
 * for host_id (job_id and boot_id 0 when none), before creating it.  -1
 * with err when a live domain of that name is already recorded: its
 * owner is said in err.
 */
int controllers_domain_add(struct db *db, const char *name, const char *uri,
			   int64_t host_id, int64_t job_id, int64_t boot_id,
			   const char *controller_id, struct strbuf *err);

/* Record that domain name is gone: destroyed by `by` (a controller id, or
 * NULL when it went away by itself), for reason.  0, or -1 with err. */
int controllers_domain_gone(struct db *db, const char *name, const char *by,
			    const char *reason, struct strbuf *err);

/* Whose a live domain is, as a sweep sees it. */
enum domain_claim {
	DOMAIN_MINE, /* recorded by the sweeping controller */
	DOMAIN_LIVE_OWNER, /* another controller's, whose lease is live (and,
			    * for a job's domain, who still holds the job) */
	DOMAIN_ORPHAN, /* its owner's lease expired, its job's lease did
			* (the job went back to the queue), or it has no
			* record */
};

/*
 * Whose domain name is, for controller self: *ret_claim, and in owner (may
 * be NULL) who recorded it ("" when nobody did).  *ret_job_id is the job
 * it was made for (0: none).
 */
int controllers_domain_claim(struct db *db, const char *name, const char *self,
			     enum domain_claim *ret_claim, int64_t *ret_job_id,
			     struct strbuf *owner, struct strbuf *err);

/*
 * The names of the domains recorded live at uri (not destroyed yet),
 * appended to names, for a sweep to compare with what libvirt shows (a
 * transient domain whose guest powered off is gone without a destroy).
 */
int controllers_domains_live(struct db *db, const char *uri,
			     struct strvec *names, struct strbuf *err);

/* The names of the domains recorded live for host_id, appended to names. */
int controllers_domains_of_host(struct db *db, int64_t host_id,
				struct strvec *names, struct strbuf *err);

/*
 * A power operation on host_id (op: on, off, cycle, create, destroy) by
 * controller_id: _begin records it before it is tried (*ret_id), _end how
 * it went (error NULL: ok).  Best effort for the caller: a failure to
 * record is returned, never a reason not to act.
 */
int controllers_power_begin(struct db *db, int64_t host_id, const char *op,
			    const char *controller_id, int64_t job_id,
			    int64_t boot_id, int64_t *ret_id,
			    struct strbuf *err);
int controllers_power_end(struct db *db, int64_t op_id, const char *error,
			  struct strbuf *err);

/* An IPMI host a dead controller left powered on. */
struct powered_orphan {
	int64_t host_id;
	char *host_name;
	char *owner; /* the controller that powered it on */
};

/*
 * The hosts of kind `ipmi` whose last successful power operation turned
 * them on (on, cycle) for a controller whose lease has expired, and that
 * no live controller holds now.  *ret (free with
 * controllers_powered_orphans_free()) and *ret_n.
 */
int controllers_powered_orphans(struct db *db, struct powered_orphan **ret,
				size_t *ret_n, struct strbuf *err);
void controllers_powered_orphans_free(struct powered_orphan *o, size_t n);

#endif

/*
 * sweep.c - what dead controllers left running; see sweep.h.
 *
 * libvirt is asked what runs (virt.h), the database whose it is
 * (store/controllers.h); machines behind a BMC are powered off through
 * boot.c, which asks the host's kind (host_kind.h).  A domain whose owner
 * cannot be looked up is left alone: not knowing is never a reason to destroy.
 */
#include <inttypes.h>
#include <string.h>

#include "cleanup.h"
#include "lab/boot.h"
#include "lab/sweep.h"
#include "lab/virt.h"
#include "store/controllers.h"
#include "store/hosts.h"
#include "store/runs.h"
#include "strvec.h"
#include "banned.h"

/* 1 when job is one of the n in live. */
static int job_is_live(int64_t job, const int64_t *live, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (live[i] == job)
			return 1;
	return 0;
}

/* 1 when a domain of this claim (and job) is still someone's: a live
 * controller's, or this one's for a job it runs. */
static int claim_is_live(enum domain_claim claim, int64_t job,
			 const int64_t *live_jobs, size_t n_live)
{
	return claim == DOMAIN_LIVE_OWNER ||
	       (claim == DOMAIN_MINE && job &&
		job_is_live(job, live_jobs, n_live));
}

int sweep_domains(struct db *db, const char *self, const int64_t *live_jobs,
		  size_t n_live, const char *uri, int *ret_n,
		  struct strbuf *names, struct strbuf *err)
{
	struct strbuf prefix = STRBUF_INIT;
	struct strvec running = STRVEC_INIT, recorded = STRVEC_INIT;
	struct virt_conn *vc = NULL;
	int r = -1, n = 0;

	if (ret_n)
		*ret_n = 0;
	strbuf_addstr(&prefix, VIRT_DOMAIN_PREFIX);
	if (boots_farm_id(db, &prefix, err) < 0)
		goto out;
	strbuf_addch(&prefix, '-');
	if (virt_open(uri, &vc, err) < 0)
		goto out;
	if (virt_list_prefix(vc, prefix.buf, &running, err) < 0 ||
	    controllers_domains_live(db, uri, &recorded, err) < 0)
		goto out;
	r = 0;
	for (size_t i = 0; i < running.nr; i++) {
		struct strbuf owner = STRBUF_INIT, why = STRBUF_INIT,
			      e = STRBUF_INIT;
		enum domain_claim claim;
		int64_t job = 0;

		if (controllers_domain_claim(db, running.v[i], self, &claim,
					     &job, &owner, &e) < 0) {
			/* Not knowing whose it is, leave it. */
			strbuf_release(&owner);
			strbuf_release(&e);
			continue;
		}
		if (claim_is_live(claim, job, live_jobs, n_live)) {
			strbuf_release(&owner);
			strbuf_release(&e);
			continue;
		}
		if (claim == DOMAIN_MINE)
			strbuf_addf(&why,
				    "its job %" PRId64 " ended without "
				    "powering it off",
				    job);
		else if (owner.len)
			strbuf_addf(&why,
				    "the lease of its controller %s "
				    "expired",
				    owner.buf);
		else
			strbuf_addstr(&why, "no controller recorded it");
		if (virt_destroy(vc, running.v[i], &e) < 0) {
			if (r == 0)
				strbuf_addf(err, "%s: %s", running.v[i], e.buf);
			r = -1;
		} else {
			n++;
			strbuf_reset(&e);
			controllers_domain_gone(db, running.v[i], self, why.buf,
						&e);
			if (names)
				strbuf_addf(names, "%s (%s)\n", running.v[i],
					    why.buf);
		}
		strbuf_release(&owner);
		strbuf_release(&why);
		strbuf_release(&e);
	}
	/* Records of domains that went away by themselves (a transient
	 * domain ends with its guest).  Not a live owner's: a domain is
	 * recorded before it exists, and libvirt's create may run for a
	 * minute before it lists it; its owner closes the record. */
	for (size_t i = 0; i < recorded.nr; i++) {
		struct strbuf e = STRBUF_INIT;
		enum domain_claim claim;
		int64_t job = 0;
		int up = 0;

		for (size_t k = 0; k < running.nr && !up; k++)
			up = !strcmp(running.v[k], recorded.v[i]);
		if (!up &&
		    controllers_domain_claim(db, recorded.v[i], self, &claim,
					     &job, NULL, &e) == 0 &&
		    !claim_is_live(claim, job, live_jobs, n_live) &&
		    virt_is_active(vc, recorded.v[i], &e) == 0)
			controllers_domain_gone(db, recorded.v[i], NULL,
						"no longer running", &e);
		strbuf_release(&e);
	}
out:
	if (ret_n)
		*ret_n = n;
	virt_close(vc);
	strvec_clear(&running);
	strvec_clear(&recorded);
	strbuf_release(&prefix);
	return r;
}

int sweep_power(struct db *db, const char *self, const char *lock_dir,
		int *ret_n, struct strbuf *names, struct strbuf *err)
{
	struct powered_orphan *o = NULL;
	size_t n = 0;
	int r = 0, done = 0;

	if (ret_n)
		*ret_n = 0;
	if (controllers_powered_orphans(db, &o, &n, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct strbuf e = STRBUF_INIT;

		if (boot_power_off_host(db, o[i].host_id, self, lock_dir, &e) <
		    0) {
			if (r == 0)
				strbuf_addf(err, "host %s: %s", o[i].host_name,
					    e.buf);
			r = -1;
		} else {
			done++;
			if (names)
				strbuf_addf(
					names,
					"host %s (left on by controller %s, "
					"whose lease expired)\n",
					o[i].host_name, o[i].owner);
		}
		strbuf_release(&e);
	}
	controllers_powered_orphans_free(o, n);
	if (ret_n)
		*ret_n = done;
	return r;
}

int sweep_all(struct db *db, const char *self, const int64_t *live_jobs,
	      size_t n_live, const char *lock_dir, int *ret_n,
	      struct strbuf *names, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r = 0, total = 0, n;

	*ret_n = 0;
	if (hosts_libvirt_uris(db, &res, err) < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++) {
		struct strbuf e = STRBUF_INIT;

		n = 0;
		if (sweep_domains(db, self, live_jobs, n_live,
				  db_get(res, i, 0), &n, names, &e) < 0) {
			/* libvirt's own errors name the URI already. */
			strbuf_addstr(err, r ? "; " : "");
			if (!starts_with(e.buf, db_get(res, i, 0)))
				strbuf_addf(err, "%s: ", db_get(res, i, 0));
			strbuf_addbuf(err, &e);
			r = -1;
		}
		total += n;
		strbuf_release(&e);
	}
	{
		struct strbuf e = STRBUF_INIT;

		n = 0;
		if (sweep_power(db, self, lock_dir, &n, names, &e) < 0) {
			strbuf_addf(err, "%sIPMI: %s", r ? "; " : "", e.buf);
			r = -1;
		}
		total += n;
		strbuf_release(&e);
	}
	*ret_n = total;
	return r;
}

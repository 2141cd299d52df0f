/*
 * sweep_host.c - what is left on a host before it boots; see
 * sweep_host.h.
 *
 * The database says whose each recorded domain is
 * (store/controllers.h); libvirt destroys it (virt.h).  A domain whose
 * owner cannot be looked up is left alone.
 */
#include "lab/sweep_host.h"
#include "lab/virt.h"
#include "store/controllers.h"
#include "strvec.h"
#include "banned.h"

int sweep_host(struct db *db, const char *self, int64_t host_id,
	       int host_leased, struct virt_conn *vc, struct strbuf *names)
{
	struct strvec recorded = STRVEC_INIT;
	struct strbuf e = STRBUF_INIT;
	int n = 0;

	if (controllers_domains_of_host(db, host_id, &recorded, &e) < 0)
		goto out;
	for (size_t i = 0; i < recorded.nr; i++) {
		struct strbuf owner = STRBUF_INIT;
		enum domain_claim claim;
		int64_t job;

		strbuf_reset(&e);
		/* A caller that holds the host's lease knows that a job's
		 * domain on it is no running job's, whoever's it was.  A
		 * domain of no job (a guest `kernel boot --keep` left) is its
		 * controller's while that one lives. */
		if (controllers_domain_claim(db, recorded.v[i],
					     self ? self : "", &claim, &job,
					     &owner, &e) == 0 &&
		    (claim == DOMAIN_ORPHAN || (job && host_leased)) &&
		    virt_destroy(vc, recorded.v[i], &e) == 0) {
			n++;
			controllers_domain_gone(
				db, recorded.v[i], self,
				claim == DOMAIN_ORPHAN
					? "its host boots again and its "
					  "controller's lease expired"
					: "its host boots again for another "
					  "job: its own job is over",
				&e);
			strbuf_addf(names, "%s (left by controller %s)\n",
				    recorded.v[i],
				    owner.len ? owner.buf : "(none)");
		}
		strbuf_release(&owner);
	}
out:
	strvec_clear(&recorded);
	strbuf_release(&e);
	return n;
}

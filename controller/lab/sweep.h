/*
 * sweep.h - taking down what controllers that died left running: libvirt
 * guests and IPMI machines left powered on.
 *
 * A controller sweeps only what it owns or what belongs to a controller
 * whose lease has expired (store/controllers.h keeps who made what), so
 * any number of controllers on one database never destroy each other's
 * guests.  `serve` sweeps when it starts and then every few wake-ups;
 * `schedfarm kernel orphans` sweeps by hand.  Nothing here prints: what
 * was taken down, and why, is appended to the caller's names.
 */
#ifndef SCHEDFARM_SWEEP_H
#define SCHEDFARM_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/*
 * Destroy this farm's libvirt domains (farm-<farm id>-*) at uri that belong
 * to nobody alive -- recorded by a controller whose lease has expired, or
 * not recorded at all -- and those of controller self whose job is not
 * among live_jobs (its process died without powering off).  A domain of
 * another live controller is never touched.  Records of domains libvirt no
 * longer shows are closed.  *ret_n counts what was destroyed; names gets
 * one line per domain with why.  0, or -1 with err (the first failure;
 * the others were still tried).
 */
int sweep_domains(struct db *db, const char *self, const int64_t *live_jobs,
		  size_t n_live, const char *uri, int *ret_n,
		  struct strbuf *names, struct strbuf *err);

/*
 * Power off every IPMI host that a controller whose lease has expired
 * left powered on and that nobody holds now.  lock_dir is the state
 * folder's locks/.  *ret_n counts them; names gets a line each.
 */
int sweep_power(struct db *db, const char *self, const char *lock_dir,
		int *ret_n, struct strbuf *names, struct strbuf *err);

/*
 * Both, for every libvirt URI the hosts table names: what serve calls.
 * The count of everything taken down in *ret_n, lines in names; err gets
 * each failure (a libvirtd that is down fails its URI only).
 */
int sweep_all(struct db *db, const char *self, const int64_t *live_jobs,
	      size_t n_live, const char *lock_dir, int *ret_n,
	      struct strbuf *names, struct strbuf *err);

#endif

/*
 * keeper.h - a job's lease kept while its main thread waits on one call
 * that does not come back for a while.
 *
 * The job's main thread renews its lease from job_beat(), which every
 * wait of the job calls at least every few seconds.  A single call that
 * blocks longer than the lease -- libvirt starting a domain while it
 * probes qemu again (a minute on a machine whose /dev/kvm it cannot use),
 * a remote libvirt over a slow link, a stalled library call -- would let
 * the lease expire, and another controller would take the job and the
 * host while this one still boots on it.  The keeper is a thread of the
 * job process with its own database connection: once the main thread's
 * last renewal is half a lease old, it renews the job's and host's lease
 * (and the controller's row) itself, and it finds a lease taken away
 * (cancelled, expired) as the main thread would.  It keeps the lease only
 * while the main thread shows life: after KEEPER_MAIN_STALL_MS without a
 * job_beat() the main thread is taken as hung, and the lease is let go
 * to expire (the job goes back to the queue, as when the process dies).
 *
 * The keeper never writes the job's log (the main thread's connection is
 * not its own): job_beat() asks keeper_news() what happened meanwhile and
 * logs it.  Its statements give up on a row lock after 500 ms (the main
 * thread may hold the job's row in a transaction), and are tried again a
 * second later.
 */
#ifndef SCHEDFARM_KEEPER_H
#define SCHEDFARM_KEEPER_H

#include <stdatomic.h>
#include <stdint.h>

#include "store/db.h"
#include "store/queue.h"
#include "strbuf.h"

/* A main thread silent this long is hung: its lease is not kept. */
#define KEEPER_MAIN_STALL_MS (10 * 60 * 1000)

struct lease_keeper;

/*
 * Start the keeper of claim's lease, held by owner for lease_s seconds at
 * a time, on a second connection to db's server.  last_beat_ms is the
 * main thread's time of its last renewal (mono_ms()), which the keeper
 * reads and, when it renews, writes.  0 with *ret, or -1 with err (no
 * second connection: the job goes on without a keeper).
 */
int keeper_start(struct db *db, const struct queue_claim *claim,
		 const char *owner, int lease_s, _Atomic int64_t *last_beat_ms,
		 struct lease_keeper **ret, struct strbuf *err);

/*
 * From the main thread, at every job_beat(): it is alive.  What happened
 * since the last call: *ret_lost 1 when the keeper found the lease taken
 * away; *ret_renewed the renewals it made; *ret_waited_ms how long the
 * main thread had been away (since its last call); problems: the
 * keeper's failed renewals since, each a line (empty when none).
 */
void keeper_news(struct lease_keeper *k, int *ret_lost, int *ret_renewed,
		 int64_t *ret_waited_ms, struct strbuf *problems);

/* Stop the keeper and wait for it; NULL is nothing. */
void keeper_stop(struct lease_keeper *k);

#endif

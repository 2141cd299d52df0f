/*
 * keeper.c - a job's lease kept while its main thread waits; see keeper.h.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job/keeper.h"
#include "store/controllers.h"
#include "time-util.h"
#include "banned.h"

#define KEEPER_TICK_MS 1000

struct lease_keeper {
	struct db *db; /* the keeper's own connection */
	struct queue_claim claim;
	char *owner;
	int lease_s;
	_Atomic int64_t *last_beat_ms; /* the job's (job.h) */
	_Atomic int64_t alive_ms; /* the main thread's last keeper_news() */
	atomic_int lost; /* the lease was found taken away */
	atomic_int renewed; /* renewals made, not yet told */

	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop; /* under mu */
	struct strbuf problems; /* under mu: failed renewals, not yet told */
};

/*
 * One look, a second apart: renew the lease when the main thread has not
 * for half a lease and is not taken as hung.
 */
static void keeper_look(struct lease_keeper *k)
{
	struct strbuf err = STRBUF_INIT;
	int64_t now = mono_ms();
	int r;

	if (atomic_load(&k->lost) ||
	    now - atomic_load(k->last_beat_ms) < k->lease_s * 1000LL / 2 ||
	    now - atomic_load(&k->alive_ms) >= KEEPER_MAIN_STALL_MS)
		return;
	r = queue_heartbeat(k->db, &k->claim, k->owner, k->lease_s, &err);
	if (r == 0) {
		atomic_store(k->last_beat_ms, now);
		atomic_fetch_add(&k->renewed, 1);
		strbuf_reset(&err);
		/* The controller lives as long as one of its jobs does. */
		if (controllers_renew(k->db, k->owner, k->lease_s, &err) == 0)
			goto out;
	} else if (r == -2) {
		atomic_store(&k->lost, 1);
		goto out;
	}
	pthread_mutex_lock(&k->mu);
	if (k->problems.len < 4096)
		strbuf_addf(&k->problems, "%s\n", err.buf);
	pthread_mutex_unlock(&k->mu);
out:
	strbuf_release(&err);
}

static void *keeper_main(void *arg)
{
	struct lease_keeper *k = arg;
	struct timespec at;

	pthread_mutex_lock(&k->mu);
	while (!k->stop) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += KEEPER_TICK_MS / 1000;
		while (!k->stop &&
		       pthread_cond_timedwait(&k->cv, &k->mu, &at) == 0)
			;
		if (k->stop)
			break;
		pthread_mutex_unlock(&k->mu);
		keeper_look(k);
		pthread_mutex_lock(&k->mu);
	}
	pthread_mutex_unlock(&k->mu);
	return NULL;
}

int keeper_start(struct db *db, const struct queue_claim *claim,
		 const char *owner, int lease_s, _Atomic int64_t *last_beat_ms,
		 struct lease_keeper **ret, struct strbuf *err)
{
	struct lease_keeper *k = xcalloc(1, sizeof(*k));
	pthread_condattr_t ca;
	sigset_t all, old;
	int r;

	if (db_connect_twin(db, &k->db, err) < 0) {
		free(k);
		return -1;
	}
	/* A row held by the main thread's transaction: skip this second
	 * rather than wait (and never meet it in a deadlock). */
	if (db_cmd(k->db, err, "SET lock_timeout = '500ms'") < 0) {
		db_close(k->db);
		free(k);
		return -1;
	}
	k->claim = *claim;
	k->owner = xstrdup(owner);
	k->lease_s = lease_s;
	k->last_beat_ms = last_beat_ms;
	atomic_store(&k->alive_ms, mono_ms());
	strbuf_init(&k->problems, 0);
	pthread_mutex_init(&k->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&k->cv, &ca);
	pthread_condattr_destroy(&ca);
	/* Signals (a stop asked for by SIGTERM) are the main thread's. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	r = pthread_create(&k->thread, NULL, keeper_main, k);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		strbuf_addf(err, "cannot start the lease keeper: %s",
			    strerror(r));
		k->stop = -1; /* no thread to join */
		keeper_stop(k);
		return -1;
	}
	*ret = k;
	return 0;
}

void keeper_news(struct lease_keeper *k, int *ret_lost, int *ret_renewed,
		 int64_t *ret_waited_ms, struct strbuf *problems)
{
	int64_t now = mono_ms();

	*ret_waited_ms = now - atomic_exchange(&k->alive_ms, now);
	*ret_lost = atomic_load(&k->lost);
	*ret_renewed = atomic_exchange(&k->renewed, 0);
	pthread_mutex_lock(&k->mu);
	strbuf_addbuf(problems, &k->problems);
	strbuf_reset(&k->problems);
	pthread_mutex_unlock(&k->mu);
}

void keeper_stop(struct lease_keeper *k)
{
	if (!k)
		return;
	if (k->stop != -1) {
		pthread_mutex_lock(&k->mu);
		k->stop = 1;
		pthread_cond_signal(&k->cv);
		pthread_mutex_unlock(&k->mu);
		pthread_join(k->thread, NULL);
	}
	pthread_cond_destroy(&k->cv);
	pthread_mutex_destroy(&k->mu);
	strbuf_release(&k->problems);
	db_close(k->db);
	free(k->owner);
	free(k);
}

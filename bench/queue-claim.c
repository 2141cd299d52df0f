/*
 * queue-claim.c - the measuring half of bench/queue: the latency of
 * queue_claim() (controller/store/queue.c), the statement pair every controller
 * runs, with a queue of a given depth.
 *
 *   queue-claim CONNINFO DEPTH ROUNDS
 *
 * The database must hold one idle local host, a kernel and a plan (the
 * script makes them).  Queue DEPTH jobs, then ROUNDS times: queue one more
 * job (so the depth stays), claim (timed), and finish the job, releasing
 * the host (not timed).  Prints the median and the 90th percentile in
 * microseconds: "median_us N p90_us N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/db.h"
#include "parse.h"
#include "store/queue.h"
#include "banned.h"

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void die_db(const char *what, const struct strbuf *err)
{
	fprintf(stderr, "queue-claim: %s: %s\n", what, err->buf);
	exit(1);
}

int main(int argc, char **argv);
int main(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct db_config cfg;
	struct db *db;
	struct db_args a = DB_ARGS_INIT;
	int64_t depth, rounds, *lat;
	char *owner;
	int applied;

	if (argc != 4 || parse_i64(argv[2], 0, 10000000, &depth, NULL) < 0 ||
	    parse_i64(argv[3], 1, 100000, &rounds, NULL) < 0) {
		fputs("usage: queue-claim CONNINFO DEPTH ROUNDS\n", stderr);
		return 2;
	}
	if (db_config_resolve(&cfg, argv[1], NULL, &err) < 0 ||
	    db_connect(&cfg, &db, &err) < 0 ||
	    db_migrate(db, &applied, &err) < 0)
		die_db("connect", &err);
	db_args_i64(&a, depth);
	if (db_exec_args(
		    db, NULL, &err,
		    "INSERT INTO jobs (kernel_id, plan_id, nr_runs) SELECT 1, "
		    "1, 1 FROM generate_series(1, $1)",
		    &a) < 0 ||
	    db_cmd(db, &err, "ANALYZE jobs") < 0)
		die_db("queue jobs", &err);
	db_args_clear(&a);
	owner = queue_owner_new();
	lat = calloc((size_t)rounds, sizeof(*lat));
	if (!lat)
		return 1;
	for (int64_t i = -10; i < rounds; i++) {
		struct queue_claim c;
		int64_t t0, t1;
		int r;

		if (db_cmd(db, &err,
			   "INSERT INTO jobs (kernel_id, plan_id, nr_runs) "
			   "VALUES (1, 1, 1)") < 0)
			die_db("queue a job", &err);
		t0 = now_us();
		r = queue_claim(db, owner, 60, &c, &err);
		t1 = now_us();
		if (r != 1) {
			if (r < 0)
				die_db("claim", &err);
			fputs("queue-claim: nothing to claim\n", stderr);
			return 1;
		}
		if (queue_finish(db, &c, owner, "done", NULL, NULL, &err) < 0)
			die_db("finish", &err);
		if (i >= 0) /* the first ten warm the caches */
			lat[i] = t1 - t0;
	}
	qsort(lat, (size_t)rounds, sizeof(*lat), cmp_i64);
	printf("median_us %lld p90_us %lld\n", (long long)lat[rounds / 2],
	       (long long)lat[rounds * 9 / 10]);
	free(lat);
	free(owner);
	db_close(db);
	db_config_release(&cfg);
	return 0;
}

/*
 * queue_match.h - whether one named host can take a job (submit --host,
 * rerun --host).  Nothing here prints: the unmet requirement is put in
 * words in err.
 */
#ifndef SCHEDFARM_QUEUE_MATCH_H
#define SCHEDFARM_QUEUE_MATCH_H

#include "store/db.h"
#include "strbuf.h"

struct job_row;

/*
 * Can host `host` take a job with the requirements of req (those of the
 * plan plan_name)?  It must exist and meet them (those known of it: a
 * host never contacted is not held to the minimums); with QUEUE_HOST_NEEDS_BOOT
 * (a series to build, base naming the kernel for the message) it must boot
 * kernels; with QUEUE_HOST_NOW (the job is to run at once) its health must let
 * it be scheduled.  Return 0, or -1 with the unmet requirement in words in err.
 */
#define QUEUE_HOST_NEEDS_BOOT 1u
#define QUEUE_HOST_NOW 2u
int queue_host_can_take(struct db *db, const char *host,
			const struct job_row *req, const char *plan_name,
			unsigned flags, const char *base, struct strbuf *err);

/*
 * Can some registered host take such a job (a job submitted with no
 * --host)?  0 when one can; else -1 with err saying why none can: no host
 * is registered, or each host's unmet requirement (at most three, then
 * how many more), and what kind of host to add.  A database error is -1
 * too (err says so).
 */
int queue_any_host_can_take(struct db *db, const struct job_row *req,
			    const char *plan_name, unsigned flags,
			    const char *base, struct strbuf *err);

#endif

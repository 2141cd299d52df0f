/*
 * host_check.h - a host checked before use (REFERENCE.md section 3).
 *
 * A check boots the host's known-good kernel (or a kernel given, which
 * becomes the known-good one when the check passes), runs the agent's
 * `info` over SSH, and powers the host off.  Its result is a host event:
 * a pass makes the host good through hosts_set_health(); a failure goes
 * through the health rules (hosts_observe(), via the boot or here for the
 * smoke test), so power, BMC and console failures make the host bad at
 * once and a known-good kernel that fails counts as an aborted run.
 *
 * `schedfarm host check` runs one by hand; a job whose host is new or of
 * unknown health (and has a known-good kernel) runs one before anything
 * else, and a host that fails it never gets the job: the job goes back to
 * the queue, for another host.
 */
#ifndef SCHEDFARM_HOST_CHECK_H
#define SCHEDFARM_HOST_CHECK_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

struct host_check_request {
	const char *host_name; /* or host_id */
	int64_t host_id;
	int64_t kernel_id; /* 0: the host's known-good kernel */
	const char *state_dir; /* the farm's state folder (home.h) */
	int64_t timeout_ms; /* the boot; 0: 5 min */
	int64_t job_id; /* the job it is for (its boots row), or 0 */
	/* The controller whose the boot's domain and power are
	 * (store/controllers.h); NULL: none. */
	const char *controller_id;
	/* Leave the host up on the kernel instead of powering it off: an
	 * IPMI host then takes its next kernel by kexec. */
	int keep;
	void (*on_event)(void *ctx, const char *msg); /* may be NULL */
	int (*tick)(void *ctx); /* as boot_request.tick; may be NULL */
	void *ctx;
};

struct host_check_result {
	int passed;
	char health[16]; /* after the check */
	const char *blame; /* of a failure: "host", "kernel", "none" */
	char *release; /* uname -r of the checked kernel */
	double ready_s; /* power-on to agent ready */
	struct strbuf why; /* what failed */
};

void host_check_result_init(struct host_check_result *r);
void host_check_result_release(struct host_check_result *r);

/*
 * Check the host.  0: the check ran, ret->passed says how it went (the
 * host event is written either way).  -1 with err: it could not run (no
 * such host, no known-good kernel and none given, the database).
 */
int host_check(struct db *db, const struct host_check_request *rq,
	       struct host_check_result *ret, struct strbuf *err);

/*
 * The check a job makes of its new host before anything else (jobexec.c's
 * phase_check): host_check() of the job's host with its known-good kernel,
 * the lease renewed and progress shown while it waits.  0 passed, 1
 * failed (err says why: the job goes back to the queue), -1 could not run
 * (err).  A line for the phase's log is appended to log either way.
 */
struct job_ctx;
int host_check_for_job(struct job_ctx *jc, struct strbuf *log,
		       struct strbuf *err);

#endif

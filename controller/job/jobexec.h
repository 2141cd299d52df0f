/*
 * jobexec.h - the path of one claimed job: build, boot, run, collect,
 * ingest.
 *
 * Each phase is a function of a table of phases (jobexec.c); build and
 * boot ask the host-kind table (lab/host_kind.h) whether the host's kind
 * boots.  Kinds that run whatever kernel they have (local, ssh) get both
 * phases recorded as skipped; every kind that boots kernels (libvirt,
 * ipmi, redfish) gets boot_job.c's hooks (jobexec.c, booting_kind_ops):
 * build makes the job's kernel (jc->kernel_id) and boot brings the host
 * up on it and leaves in jc->target the SSH address at which the agent is
 * then run, like an `ssh` host.
 *
 * The job's process owns the lease: it renews it while working and stops
 * (the agent too) when the lease is lost -- the job was cancelled, or it
 * expired and went back to the queue.  Whatever happens, the job ends with
 * a row that says what failed and why, and the host is released.
 */
#ifndef SCHEDFARM_JOBEXEC_H
#define SCHEDFARM_JOBEXEC_H

#include <stdint.h>

#include "job/job.h"
#include "job/lease.h"
#include "store/db.h"
#include "strbuf.h"

/*
 * Run the claimed job c to its end and record everything; home is the
 * state folder (home.h) the job keeps its files in.  Return 0 when
 * the job is done, 1 when it failed or was stopped (recorded in the
 * database), 2 when its host failed the check a new host gets first
 * (job/host_check.h: the job is back in the queue, for another host),
 * -1 when even recording failed (err).
 */
int job_execute(struct db *db, const struct queue_claim *c, const char *owner,
		int lease_s, const char *home, const struct job_hooks *hooks,
		struct strbuf *err);

#endif

/*
 * boot_job.h - the build, boot and power-off hooks of the job path for
 * hosts whose kind boots kernels (lab/host_kind.h's .boots: libvirt,
 * ipmi): jobexec.c gives every such kind these hooks, kind-blind.
 *
 * build: build_kernel_for_job() (cached by base, series, config; "cache
 * hit" in the log when nothing had to be built), heartbeating the lease
 * (jc->beat) on every line of make.  boot: boot_host() for the job
 * (domain farm-FARM-JOB), heartbeating while it waits; on success
 * jc->target is the booted guest's SSH address, on failure the boots row
 * says whose fault and the host's health is updated.  power_off:
 * boot_power_off() and the boot's state freed.  The runs of a boot round
 * get the boot's console log (runs.console_log): at power-off the whole
 * console, after a failed boot what it printed up to the failure.
 * boot_failed: the check after a failed boot (below).
 */
#ifndef SCHEDFARM_BOOT_JOB_H
#define SCHEDFARM_BOOT_JOB_H

#include "job/job.h"
#include "strbuf.h"

int boot_job_build(struct job_ctx *jc, struct strbuf *log, struct strbuf *err);
int boot_job_boot(struct job_ctx *jc, int boot_index, struct strbuf *log,
		  struct strbuf *err);
int boot_job_power_off(struct job_ctx *jc, struct strbuf *log,
		       struct strbuf *err);

/*
 * After a failed boot of the job's kernel, whose fault was it?  When the
 * host has a known-good kernel other than the job's, it is booted at once
 * (a check, with a limit of its own): booting, the failure was the
 * kernel's and the host stays good; failing too, the host is quarantined
 * (hosts.h's HOST_CHECK_FAILED).  Without such a kernel the health rules
 * judge the failure as it is.  The boots row of the failed boot gets the
 * final blame.  1 when the host is to blame and now bad (the job should
 * go to another host), 0 otherwise, -1 on error (err).
 */
int boot_job_boot_failed(struct job_ctx *jc, struct strbuf *log,
			 struct strbuf *err);

#endif

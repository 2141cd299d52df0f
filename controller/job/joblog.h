/*
 * joblog.h - the job's log: each line timestamped, sent to the job's row
 * (queue_log()) and to the display hook.  Lines the database could not
 * take while it was away wait in the job's pending_log and go out with
 * the next one.  The lowest file of the job path: every phase logs.
 */
#ifndef SCHEDFARM_JOBLOG_H
#define SCHEDFARM_JOBLOG_H

#include "job/job.h"

/* A line of the job's log (and of the display hook): timestamped, kept
 * for later when the database is away.  level: 0 info, 1 warning. */
void jlog(struct job_ctx *jc, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

/*
 * wl_check.h - checks of workload parameters beyond one value's type,
 * shared by the agent and the plan checker.
 */
#ifndef SCHEDFARM_WL_CHECK_H
#define SCHEDFARM_WL_CHECK_H

#include "strbuf.h"

/* The most client counts one tbench run sweeps. */
#define TBENCH_MAX_COUNTS 32

/*
 * The client counts of clients ("auto" or "1,8,64") for ncpus CPUs into
 * counts[TBENCH_MAX_COUNTS].  Return how many, or -1 with err.
 */
int tb_counts(const char *clients, int ncpus, int *counts, struct strbuf *err);

#endif

/*
 * wl_check.h - checks of workload parameters beyond one value's type,
 * shared by the agent and the plan checker.
 */
#ifndef SCHEDFARM_WL_CHECK_H
#define SCHEDFARM_WL_CHECK_H

#include "strbuf.h"

/* The most client counts one tbench run sweeps. */
#define TBENCH_MAX_COUNTS 32
/* The most schbench workers in all (message_threads x workers). */
#define SCHBENCH_MAX_WORKERS 2048

struct wl_desc;

/*
 * The client counts of tbench's clients parameter ("auto" or "1,8,64")
 * for ncpus CPUs into counts[TBENCH_MAX_COUNTS].  Return how many, or -1
 * with what a list must be in err.
 */
int workload_tbench_counts(const char *clients, int ncpus, int *counts,
			   struct strbuf *err);

/*
 * The text of one run's parameter name (its value, or the table's
 * default), or NULL if the run has none; ctx is the caller's.
 */
typedef const char *workload_param_fn(const void *ctx, const char *name);

/*
 * Check the parameters of one run of workload wl taken together, where
 * the table's per-value checks cannot (schbench's warmup against its
 * duration and its thread count, tbench's clients list).  get reads the
 * run's parameters; values of the wrong type are left to
 * workload_check_value().  Return 0, or -1 with the parameter to blame
 * ("warmup") in ret_param and a sentence in why.  A workload without a
 * check passes.
 */
int workload_check_params(const struct wl_desc *wl, workload_param_fn *get,
			  const void *ctx, struct strbuf *ret_param,
			  struct strbuf *why);

#endif

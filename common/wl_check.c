/*
 * wl_check.c - checks of a workload's parameters taken together, or of a
 * parameter's text beyond its type, shared by the agent (which refuses a
 * run spec) and the controller's plan checker (which refuses the plan
 * before anything runs); see wl_check.h.
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "parse.h"
#include "wl_check.h"
#include "workloads.h"
#include "banned.h"

/*
 * The client counts of clients ("auto" or "1,8,64") for ncpus CPUs into
 * counts[TBENCH_MAX_COUNTS].  Return how many, or -1 with err.
 */
int workload_tbench_counts(const char *clients, int ncpus, int *counts,
			   struct strbuf *err)
{
	int n = 0;

	if (!strcmp(clients, "auto")) {
		for (int c = 1; n < TBENCH_MAX_COUNTS; c *= 2) {
			counts[n++] = c > 2 * ncpus ? 2 * ncpus : c;
			if (c >= 2 * ncpus)
				break;
		}
		return n;
	}
	for (const char *p = clients; *p;) {
		size_t len = strcspn(p, ",");
		char num[16];

		if (!len || len >= sizeof(num) || n >= TBENCH_MAX_COUNTS)
			goto bad;
		memcpy(num, p, len);
		num[len] = '\0';
		if (parse_int(num, 1, 4096, &counts[n], NULL) < 0)
			goto bad;
		for (int i = 0; i < n; i++)
			if (counts[i] == counts[n])
				goto bad;
		n++;
		p += len;
		if (*p == ',' && !*++p)
			goto bad;
	}
	return n;
bad:
	strbuf_addf(err,
		    "clients is \"auto\" or up to %d different counts in "
		    "1..4096 separated by commas, like \"1,8,64\"",
		    TBENCH_MAX_COUNTS);
	return -1;
}

static int tbench_check(workload_param_fn *get, const void *ctx,
			struct strbuf *ret_param, struct strbuf *why)
{
	int counts[TBENCH_MAX_COUNTS];
	const char *clients = get(ctx, "clients");

	if (clients && workload_tbench_counts(clients, 1, counts, why) < 0) {
		strbuf_addstr(ret_param, "clients");
		return -1;
	}
	return 0;
}

static int schbench_check(workload_param_fn *get, const void *ctx,
			  struct strbuf *ret_param, struct strbuf *why)
{
	const char *mt = get(ctx, "message_threads"), *w = get(ctx, "workers");
	const char *wu = get(ctx, "warmup"), *d = get(ctx, "duration");
	int64_t nmt, nw, wu_ms, d_ms;

	/* A value of the wrong type is its own check's error, not ours. */
	if (mt && w && parse_i64(mt, 1, INT32_MAX, &nmt, NULL) == 0 &&
	    parse_i64(w, 1, INT32_MAX, &nw, NULL) == 0 &&
	    nmt * nw > SCHBENCH_MAX_WORKERS) {
		strbuf_addstr(ret_param, "workers");
		strbuf_addf(why,
			    "message_threads x workers must be at most %d "
			    "(%" PRId64 " x %" PRId64 ")",
			    SCHBENCH_MAX_WORKERS, nmt, nw);
		return -1;
	}
	if (wu && d && parse_duration_ms(wu, 0, INT64_MAX, &wu_ms, NULL) == 0 &&
	    parse_duration_ms(d, 0, INT64_MAX, &d_ms, NULL) == 0 &&
	    wu_ms >= d_ms) {
		strbuf_addstr(ret_param, "warmup");
		strbuf_addf(why,
			    "the warm-up (%s) is the start of the duration "
			    "(%s) and must be shorter",
			    wu, d);
		return -1;
	}
	return 0;
}

/* The workloads with a check of their own, by name. */
static const struct {
	const char *workload;
	int (*check)(workload_param_fn *get, const void *ctx,
		     struct strbuf *ret_param, struct strbuf *why);
} checks[] = {
	{ "schbench", schbench_check },
	{ "tbench", tbench_check },
};

int workload_check_params(const struct wl_desc *wl, workload_param_fn *get,
			  const void *ctx, struct strbuf *ret_param,
			  struct strbuf *why)
{
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		if (!strcmp(checks[i].workload, wl->name))
			return checks[i].check(get, ctx, ret_param, why);
	return 0;
}

/*
 * workloads.h - what each agent workload is called and which parameters it
 * takes, with types, ranges and defaults.
 *
 * One table, linked by both sides: the agent validates a run spec against
 * it and prints it for `schedfarm-agent list`; the controller's plan checker
 * refuses a workload the agent does not have or a parameter out of range
 * before anything runs.  Every workload also takes the common parameter
 * `cgroup` (a path such as "/" or "/foo", seed 001) saying where it runs.
 *
 * Each workload also declares the metrics it reports (names, or shell
 * globs for names built at run time such as "share./a"), so that a plan's
 * `metrics:` section can be checked before anything runs and a typo there
 * is an error instead of a rule that silently never applies.
 */
#ifndef SCHEDFARM_WORKLOADS_H
#define SCHEDFARM_WORKLOADS_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

enum wl_type {
	WL_INT, /* integer in [min, max] */
	WL_DOUBLE, /* finite number in [min, max] */
	WL_BOOL, /* true / false */
	WL_STRING, /* up to max bytes; if choices is set, one of them */
	WL_DURATION, /* "10s", "500ms", "2m" or a number of seconds; ms in [min,
			max] */
	WL_CONNINFO, /* a PostgreSQL conninfo (conninfo.h) of at most max
			bytes, or empty; its password is never shown */
	WL_RTAPP_TASKS, /* an rt-app task set (rtapp.h) of at most max bytes */
};

struct wl_param {
	const char *name;
	enum wl_type type;
	double min, max; /* range (WL_STRING: max = max length) */
	const char *def; /* default as text; NULL = required */
	const char *choices; /* WL_STRING: "a|b|c", or NULL */
	const char *help;
};

enum wl_kind {
	WL_BUILTIN,
	WL_WRAPPED,
	WL_COMMAND, /* defined by a plan: an argv and an output parser */
};

struct wl_desc {
	const char *name;
	enum wl_kind kind;
	const char *program; /* WL_WRAPPED: the program it needs in PATH */
	const char *summary;
	const struct wl_param *params; /* terminated by a NULL name */
	/* Metric names or fnmatch globs it reports; NULL-terminated. */
	const char *const *metrics;
};

extern const struct wl_desc workload_table[];
extern const size_t workload_count;

const struct wl_desc *workload_find(const char *name);
const struct wl_param *workload_param(const struct wl_desc *wl,
				      const char *name);
/* The parameter every workload takes: where in the cgroup tree it runs. */
extern const struct wl_param workload_cgroup_param;

/*
 * Check one value given as text for parameter p.  Return 0, or -1 with
 * what was expected in *why ("an integer in 1..4096", "one of cpu|threads").
 * For WL_DURATION, *ret_num is milliseconds; for WL_BOOL 0/1; for numbers
 * the value; for strings unset.
 */
int workload_check_value(const struct wl_param *p, const char *value,
			 double *ret_num, struct strbuf *why);

struct json_value;
/*
 * Append the parameters of a run (params: the JSON object runs.params
 * holds) that differ from workload's defaults, as "name=value" separated
 * by spaces: what tells two runs of a sweep apart, as a plan's label
 * does.  Parameters the table does not know are shown; a workload the
 * table does not know (a together run) shows them all.  An rt-app task
 * set is shown on one line, as rtapp_taskset_label() writes it (a
 * together member's "MEMBER.tasks" too).
 */
void workload_params_label(const char *workload,
			   const struct json_value *params, struct strbuf *out);
/* "an integer in 1..4096" and the like, for messages and `list`. */
void workload_describe_type(const struct wl_param *p, struct strbuf *out);

/*
 * Could a workload that declares the metric names or globs decl (NULL-
 * terminated) report a metric matching name, itself a name or a glob?
 * A glob matches a declared name, a declared glob matches a name, or the
 * two globs are the same text ("share.*" against "share.*").
 */
int workload_metric_declared(const char *const *decl, const char *name);

#endif

/*
 * plan.h - test plans: what to run, how often, where, and how to judge it.
 *
 * A plan is a YAML file (doc/PLANS.md has the format).  plan_load() and
 * plan_parse() read one, check every key, type and range against
 * common/workloads.c, and expand its sweeps (a list under any workload
 * parameter; several lists give their product, like LKP job files) into
 * the flat list of runs the queue turns into run specs (doc/PROTOCOL.md).
 *
 * Everything in a struct plan is plain data owned by the plan: no YAML
 * type leaks out of plan/yaml.c, the only file that includes yaml.h.  Whatever
 * a plan can make the controller allocate is capped by the PLAN_MAX_*
 * limits below; a plan that goes past one is refused with an error, never
 * truncated.
 *
 * Errors are appended to the caller's strbuf, one per line, in a stable
 * format meant for golden files and editors:
 *
 *     plans/x.yaml:12:5: error: unknown key 'iteration' (expected one of ...)
 *
 * where the name is the one passed in (the path for plan_load), line and
 * column are 1-based, and the text after "error: " starts with where in
 * the plan (host.min_cpus, workloads[1].params.threads[2]).  Checking goes
 * on after an error, so every defect of a file is reported, sorted by
 * line and column; at most PLAN_MAX_ERRORS, then one "too many errors"
 * line.  A YAML syntax error stops the parse: it is the only one then.
 */
#ifndef SCHEDFARM_PLAN_H
#define SCHEDFARM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "command.h"
#include "strbuf.h"
#include "strvec.h"
#include "workloads.h"

/* Caps: past any of these a plan is refused. */
#define PLAN_MAX_BYTES (1024 * 1024) /* plan text */
#define PLAN_MAX_RUNS 10000 /* runs after expansion */
#define PLAN_MAX_WORKLOADS 64 /* entries under workloads: */
#define PLAN_MAX_VALUES 1024 /* values in one sweep list */
#define PLAN_MAX_ITEMS 256 /* cgroups, metrics, tags, kinds, configs */
#define PLAN_MAX_DEPTH 16 /* YAML nesting */
#define PLAN_MAX_NODES 65536 /* YAML scalars, lists and maps */
#define PLAN_MAX_ERRORS 50 /* reported per file */
#define PLAN_MAX_INCLUDES 64 /* files under include: */
#define PLAN_MAX_BUNDLE (4 * PLAN_MAX_BYTES) /* a plan and its includes */
#define PLAN_MAX_SETS 64 /* --set KEY=VALUE */
#define PLAN_MAX_MEMBERS 16 /* members of a together: entry */

/*
 * How a plan and the files it includes are kept as one text (what
 * plan_load_text() makes, what the queue stores, what plan_parse()
 * reads): the plan, then per file a line "--- # schedfarm include: PATH"
 * and the file's text.
 */
#define PLAN_INCLUDE_MARK "--- # schedfarm include: "

enum plan_until {
	PLAN_UNTIL_FIXED, /* exactly `boots` boots per kernel */
	PLAN_UNTIL_DECIDED, /* add boots while inconclusive, up to max_boots */
};

/* A metric's direction, as the plan overrides it. */
enum plan_direction {
	PLAN_DIR_DEFAULT, /* not set: the agent's own direction stands */
	PLAN_DIR_HIGHER, /* higher is better */
	PLAN_DIR_LOWER, /* lower is better */
	PLAN_DIR_NONE, /* informational: never a regression */
};

/*
 * One parameter of a run, as text exactly as the plan wrote the value.
 * Both strings belong to the plan (shared between runs).
 */
struct plan_kv {
	const char *name;
	const char *value;
};

/*
 * A workload the plan defines (commands:, or a file under include:): a
 * program run from an argv with {param} placeholders, its parameters and
 * the metrics its output parser finds (common/command.h).  desc makes it
 * look like a table workload to the checks: kind WL_COMMAND, its params
 * and metric names.
 */
struct plan_command {
	struct wl_desc desc;
	struct wl_param *params; /* desc.params: declared ones, then a NULL */
	const char **metric_names; /* desc.metrics */
	struct strvec argv; /* with {param} placeholders */
	int64_t timeout_ms; /* 0: none but the run's */
	/* root: true -- on a local host the command keeps the agent's root;
	 * without it, it runs as the farm's unprivileged user. */
	int root;
	enum cmd_format format;
	enum cmd_stream stream;
	char separator;
	struct strvec patterns;
	struct cmd_metric *metrics;
	size_t nr_metrics;
};

/* One member of a together: entry (names are the plan's). */
struct plan_member {
	const char *name;
	const struct wl_desc *wl; /* a table workload or a command's desc */
	const struct plan_command *cmd; /* when it is a command */
	int background; /* a neighbour: runs until the measured ones end */
};

/*
 * One expanded run: a workload with every sweep resolved to one value.
 * params holds the parameters the plan gave (swept or not), in the order
 * they appear in the plan; defaults are not in it (plan_run_param() and
 * plan_run_params_json() fill them in from the workload table).  A
 * together run has no wl but members, and its parameter names are
 * "MEMBER.param".
 */
struct plan_run {
	size_t index; /* 0-based position in plan->runs */
	size_t entry; /* which item of the plan's workloads: list */
	const char *workload; /* wl->name, or "together" */
	const struct wl_desc *wl; /* the workload table entry, or NULL */
	const struct plan_command *cmd; /* a plan-defined workload, or NULL */
	const struct plan_member *members; /* together: the members */
	size_t nr_members;
	int sample_ms; /* together: the agent's sampling interval */
	struct plan_kv *params;
	size_t nr_params;
};

/* One cgroup the agent creates before a run (spec "cgroups"). */
struct plan_cgroup {
	char *path; /* absolute, like "/a"; never "/" */
	int weight; /* 1..10000, cgroup v2 cpu.weight scale; default 100 */
	double cpu_max_pct; /* 0 = no limit, else 1..100 * CPUs (percent of one
			       CPU) */
	char *cpus; /* cpuset list like "0-3,6", or NULL for all */
};

/* What a host must have to run the plan.  Unset numbers are 0. */
struct plan_host {
	struct strvec kinds; /* any of these kinds (local, ssh, libvirt, ipmi,
				redfish); empty = any */
	int min_sockets;
	int min_cpus;
	int64_t min_memory_mb;
	struct strvec tags; /* the host must carry every one */
};

/* A per-metric override of the comparison. */
struct plan_metric {
	char *name; /* metric name, or a shell glob (fnmatch) over names */
	double tau_pct; /* noise band in percent; < 0 = not set (default) */
	enum plan_direction direction;
	int decides; /* 1: this metric decides `until: decided` and the verdict
		      */
};

/*
 * Limits in milliseconds (REFERENCE.md section 3: they nest).  Each phase
 * gets the smaller of its own limit and what is left of the job's; each
 * command inside a phase the smaller of its own and what is left of the
 * phase.
 */
struct plan_timeouts {
	int64_t power_ms; /* power on/off/cycle of a host; default 5 min */
	int64_t boot_ms; /* kernel start to agent reachable; default 10 min */
	int64_t run_ms; /* one run, all its iterations; default 1 h */
	int64_t collect_ms; /* fetching results after a run; default 5 min */
	int64_t build_ms; /* the kernel build phase; default 3 h */
	int64_t stall_ms; /* no line and no keepalive answer from an agent's
			   * connection this long: it is lost; default 20 s */
	int64_t job_ms; /* the whole job; 0 (the default): the sum of its
			 * phases' limits, plan_job_budget_ms() */
};

/* What a plan's runs are meant to crash the kernel with (`expect:`). */
enum plan_expect {
	PLAN_EXPECT_NOTHING, /* a panic is the kernel's failure */
	PLAN_EXPECT_PANIC, /* a crash-path test: the runs end in a panic */
	PLAN_EXPECT_OOPS, /* an oops (or BUG, GPF), maybe then a panic */
};

struct plan {
	char *source; /* the name errors use: path, or plan_parse()'s name */
	char *name; /* `name:`, else source's basename without .yaml */
	char *description; /* `description:`, or NULL */

	int iterations; /* measured iterations per run per boot, 1..10000;
			   default 3 */
	int warmup; /* discarded iterations first, 0..1000; default 1 */
	int boots; /* boots per kernel (first round), 1..1000; default 1 */
	enum plan_until until;
	int max_boots; /* cap for PLAN_UNTIL_DECIDED (default 20); == boots
			  otherwise */
	int fresh_base; /* `base: fresh`: a submission's answer boots the
			   base `boots` times itself, reusing no stored base
			   runs; `base: reuse` (0) is the default */

	struct plan_cgroup *cgroups;
	size_t nr_cgroups;
	struct plan_host host;
	struct strvec
		kernel_config; /* fragment file names in kernels/, in order */
	struct plan_metric *metrics;
	size_t nr_metrics;
	struct plan_timeouts timeouts;
	enum plan_expect expect; /* `expect:`; default nothing */

	struct plan_run *runs; /* expanded, in order; 1..PLAN_MAX_RUNS */
	size_t nr_runs;

	struct plan_command **commands; /* the workloads the plan defines */
	size_t nr_commands;
	struct strvec bad_commands_; /* private: definitions with errors */

	struct strvec strings_; /* private: owns the strings runs point to */
	struct plan_member **members_; /* private: members of each entry */
	size_t nr_members_;
};

/* The job's budget: timeouts.job, or when the plan leaves it out, the sum
 * of the limits of every phase a job of `boots` rounds can go through
 * (build; per round power on, boot, each run, collect, power off; 10
 * minutes for ingest). */
int64_t plan_job_budget_ms(const struct plan *p, int boots);

/*
 * Parse and check the plan text (len bytes, need not be NUL-terminated);
 * name is what error messages call the file.  On success return 0 and hand
 * the caller a plan in *ret (free it with plan_free).  On failure return
 * -EINVAL (the plan is wrong; *ret is NULL) with every error found
 * appended to err, one "name:line:col: error: ..." line each.  err is
 * appended to, never reset, so one strbuf can collect many files.
 */
int plan_parse(const char *name, const char *text, size_t len,
	       struct plan **ret, struct strbuf *err);

/*
 * plan_parse() with overrides: each of sets is "KEY=VALUE" (--set on the
 * command line), KEY a path into the plan (boots, params.duration,
 * workloads[1].params.threads, metrics."share./a".tau), VALUE YAML
 * ([1, 2], 20s, {from: 1, to: 8, times: 2}); the value replaces (or adds)
 * what the file has there before anything is checked, so it is checked
 * like the file.  params.NAME on a plan with a workloads: list sets NAME
 * in every entry whose workload takes it.  sets may be NULL.
 */
int plan_parse_set(const char *name, const char *text, size_t len,
		   const struct strvec *sets, struct plan **ret,
		   struct strbuf *err);

/*
 * Read the plan file at path and every file its include: names (paths
 * relative to the plan's folder) into one text (PLAN_INCLUDE_MARK), the
 * form plan_parse() and the queue take; a file in that form already (a
 * stored plan written out) is taken as it is.  Return 0, or -errno /
 * -EINVAL with "path: error: ..." lines in err.
 */
int plan_load_text(const char *path, struct strbuf *text, struct strbuf *err);

/*
 * plan_load_text() then plan_parse_set() (sets may be NULL).  A file that
 * cannot be read gives "path: error: cannot read: REASON" and -errno.
 */
int plan_load(const char *path, struct plan **ret, struct strbuf *err);
int plan_load_set(const char *path, const struct strvec *sets,
		  struct plan **ret, struct strbuf *err);

/* Free a plan and everything in it; NULL is fine. */
void plan_free(struct plan *p);

/*
 * The value of parameter name for run r: the plan's, else the workload
 * table's default, else NULL (no such parameter, or a required one --
 * which plan_parse never lets through).  The string belongs to the plan
 * or the table.
 */
const char *plan_run_param(const struct plan_run *r, const char *name);

/* How plan_run_params_json() writes secrets (a conninfo's password). */
enum plan_secrets {
	PLAN_SECRETS_MASKED, /* as "***": what is shown or stored */
	PLAN_SECRETS_CLEAR, /* as given: the agent's run spec only */
};

/*
 * Append one JSON object of every parameter of r's workload (the common
 * `cgroup` first, then the table's order), defaults included, typed by the
 * table: integers and numbers as JSON numbers, booleans as true/false,
 * strings and durations ("10s") as strings; for a together run
 * sample_ms, then each member's workload and parameters ("MEMBER.param").
 * With PLAN_SECRETS_MASKED (a conninfo's password as "***") this is what
 * runs.params stores and everything shows; PLAN_SECRETS_CLEAR writes
 * passwords as given.  p is the plan r belongs to.
 */
void plan_run_params_json(const struct plan *p, const struct plan_run *r,
			  enum plan_secrets secrets, struct strbuf *out);

/*
 * How many runs the plan makes of one kernel, in words, as `plan check`
 * and `run` both print it: "6 runs" for one boot, "12 runs (6 per boot x
 * 2 boots)" for more, and ", more until decided (at most N boots)" after
 * it for `until: decided`.
 */
void plan_describe_runs(const struct plan *p, struct strbuf *out);

/*
 * Append a short text for r: "workload name=value ..." over the plan's own
 * parameters (no defaults), for progress lines and tables; passwords
 * masked, an rt-app task set on one line (rtapp_taskset_label()).
 */
void plan_run_label(const struct plan_run *r, struct strbuf *out);

/*
 * Append the run spec's workload part for r (doc/PROTOCOL.md): for a
 * table workload "workload":NAME,"params":{...}; for a plan-defined one
 * "command":{argv with the parameters substituted, parser, metrics},
 * "params":{"cgroup":...}; for a together run "together":[{name,
 * workload or command, params, background},...],"sample_ms":N.  No
 * braces around it: the caller writes the rest of the spec.  The agent's
 * spec takes PLAN_SECRETS_CLEAR; anything shown, PLAN_SECRETS_MASKED.
 */
void plan_run_spec_json(const struct plan *p, const struct plan_run *r,
			enum plan_secrets secrets, struct strbuf *out);

/*
 * Append r as the object `plan expand --json` prints:
 * {"index":N,"workload":"...","params":{...plan_run_params_json...},
 *  "spec":{...plan_run_spec_json...}}, passwords masked in both.
 */
void plan_run_json(const struct plan *p, const struct plan_run *r,
		   struct strbuf *out);

/*
 * Append the plan's cgroup layout as the run spec's "cgroups" array
 * ([] when the plan has none): [{"path":"/a","weight":100,...},...].
 */
void plan_cgroups_json(const struct plan *p, struct strbuf *out);

/*
 * Append the whole plan minus its runs as one JSON object (settings,
 * host, kernel config, metrics, timeouts, nr_runs): for `plan expand
 * --json`'s readers, the queue's job row and reports.
 */
void plan_settings_json(const struct plan *p, struct strbuf *out);

/* "higher", "lower", "none", or NULL for PLAN_DIR_DEFAULT. */
const char *plan_direction_name(enum plan_direction d);

#endif

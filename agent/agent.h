/*
 * agent.h - what the agent's modules share: the run spec, the line emitter,
 * cgroups, counter snapshots, perf counters, workers, and the workload ops
 * table.  main.c is only the command line; everything here is in libagent so
 * unit tests and fuzz targets link it.
 */
#ifndef SCHEDFARM_AGENT_H
#define SCHEDFARM_AGENT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "json.h"
#include "strbuf.h"
#include "strvec.h"
#include "time-util.h"
#include "workloads.h"

#define AGENT_VERSION "0.2"

/* ---- spec.c: the run spec ------------------------------------------- */

struct cg_spec {
	char *path; /* "/a": relative to the run's own parent group */
	int weight; /* 1..10000, cgroup v2 scale */
	double cpu_max_pct; /* 0: no quota */
	char *cpus; /* cpuset list, or NULL */
};

struct run_spec {
	int64_t run_id;
	const struct wl_desc *wl;
	/* Every parameter of wl (and "cgroup"), defaults filled in, as text. */
	struct strvec pnames, pvalues;
	int iterations, warmup;
	struct cg_spec *cgroups;
	size_t ncgroups;
	char *results_file;
	int64_t deadline_s; /* 0: none */
	int parent_weight; /* the run's own parent group; 0: default */
};

void run_spec_init(struct run_spec *s);
void run_spec_release(struct run_spec *s);
/*
 * Parse and check a spec document.  Return 0 with *s filled, or -1 with
 * *err a sentence and *field (owned by the caller, may stay empty) the
 * field at fault: "iterations", "params.duration", "cgroups[1].weight".
 * Nothing is touched on the system.
 */
int spec_parse(const char *text, size_t len, struct run_spec *s,
	       struct strbuf *field, struct strbuf *err);
/* A parameter's value as text (always present after spec_parse). */
const char *spec_param(const struct run_spec *s, const char *name);
int64_t spec_param_i64(const struct run_spec *s, const char *name);
double spec_param_double(const struct run_spec *s, const char *name);
int spec_param_bool(const struct run_spec *s, const char *name);
/* WL_DURATION parameters, in milliseconds. */
int64_t spec_param_ms(const struct run_spec *s, const char *name);

/* fairness-loop's "PATH:N[:WEIGHT],..." */
struct loop_group {
	char *path;
	int tasks;
	int weight; /* 0: not given */
};
int parse_loop_groups(const char *text, struct loop_group **ret, size_t *ret_n,
		      struct strbuf *err);
void free_loop_groups(struct loop_group *g, size_t n);

/* ---- emit.c: JSON lines to stdout and the results file ----------------- */

struct emitter {
	int64_t run_id;
	int out_fd; /* 1, or -1 for none */
	int file_fd; /* results file, O_APPEND, or -1 */
	int iteration;
	int warmup;
	struct strbuf pending; /* buffered sample lines */
	int write_failed;
};

void emitter_init(struct emitter *em, int64_t run_id, int out_fd);
int emitter_open_file(struct emitter *em, const char *path, struct strbuf *err);
void emitter_release(struct emitter *em);
/* Start a line: {"type":"T","run_id":N ; end it with line_end(). */
void line_begin(struct strbuf *sb, const char *type, int64_t run_id);
void line_str(struct strbuf *sb, const char *key, const char *val);
void line_num(struct strbuf *sb, const char *key, double val);
void line_int(struct strbuf *sb, const char *key, int64_t val);
void line_bool(struct strbuf *sb, const char *key, int val);
void line_raw(struct strbuf *sb, const char *key, const char *json);
void line_end(struct strbuf *sb);
/* Write one finished line (newline added) to stdout and the file. */
void emit_line(struct emitter *em, const struct strbuf *line);
void emit_result(struct emitter *em, const char *metric, double value,
		 const char *unit, const char *direction);
/* Buffered until emit_flush() so the sampler wakes, reads and sleeps. */
void emit_sample(struct emitter *em, const char *series, double t,
		 double value);
void emit_flush(struct emitter *em);
void emit_counter(struct emitter *em, const char *source, const char *scope,
		  const char *name, double value);
void emit_counter_unavailable(struct emitter *em, const char *source,
			      const char *scope, const char *name,
			      const char *note);
void emit_error(struct emitter *em, const char *message, const char *field);

/* ---- cgroup.c ------------------------------------------------------- */

enum cg_mode { CG_NONE, CG_V1, CG_V2, CG_HYBRID };

struct cg_system {
	enum cg_mode mode;
	/* v1 hierarchies (mount point + our own path within it), or NULL */
	char *v1_cpu, *v1_cpuacct, *v1_cpuset;
	char *v1_cpu_self, *v1_cpuacct_self, *v1_cpuset_self;
	/* v2: mount point, our path, controllers offered at our level */
	char *v2, *v2_self;
	int v2_cpu, v2_cpuset;
	char *v2_controllers;
	/* Which interface weights and usage go through: 1 or 2 (0: none). */
	int use;
};

struct cg_group {
	char *path; /* spec path, "/a" */
	int weight;
	double cpu_max_pct;
	char *cpus;
	int created;
};

struct cg_run {
	struct cg_system *sys;
	char *base; /* "schedfarm-<run>-<pid>", under our own group */
	int base_created;
	int base_weight; /* 0: leave the default */
	struct cg_group *groups;
	size_t ngroups;
	struct strvec dirs; /* directories we made, in creation order */
};

int cg_detect(struct cg_system *sys, const char *proc_mounts,
	      const char *proc_self_cgroup, struct strbuf *err);
void cg_system_release(struct cg_system *sys);
const char *cg_mode_name(enum cg_mode m);
void cg_describe_json(const struct cg_system *sys, struct strbuf *out);

void cg_run_init(struct cg_run *r, struct cg_system *sys, int64_t run_id);
/* Add (or update) a group; created by cg_run_create(). */
void cg_run_add(struct cg_run *r, const char *path, int weight,
		double cpu_max_pct, const char *cpus);
int cg_run_create(struct cg_run *r, struct strbuf *err);
/* Move pid into the group at path ("/" = leave it where it is). */
int cg_run_attach(struct cg_run *r, const char *path, pid_t pid,
		  struct strbuf *err);
/* The cgroup.procs files a task writes itself into to join path. */
int cg_run_procs_files(struct cg_run *r, const char *path, struct strvec *out,
		       struct strbuf *err);
/* CPU time used by the group in ns; -1 with err when unreadable. */
int cg_run_usage(struct cg_run *r, const char *path, uint64_t *ret_ns,
		 struct strbuf *err);
/* Remove what we created (deepest first); moves stragglers out first. */
int cg_run_remove(struct cg_run *r, struct strbuf *err);
void cg_run_release(struct cg_run *r);
int cg_v1_shares(int weight);

/* ---- sample.c: counter snapshots and their parsers -------------------- */

enum lb_type { LB_IDLE, LB_BUSY, LB_NEWIDLE, LB_NTYPES };

struct schedstat_domain {
	int cpu, level;
	char name[16];
	/* per type, canonical order (idle, busy, newly idle) */
	uint64_t lb_count[LB_NTYPES], lb_balanced[LB_NTYPES],
		lb_failed[LB_NTYPES], lb_imbalance[LB_NTYPES],
		lb_gained[LB_NTYPES], lb_hot_gained[LB_NTYPES],
		lb_nobusyq[LB_NTYPES], lb_nobusyg[LB_NTYPES];
	uint64_t alb_count, alb_failed, alb_pushed;
	uint64_t ttwu_wake_remote, ttwu_move_affine, ttwu_move_balance;
};

struct schedstat_cpu {
	int cpu;
	uint64_t yld_count, sched_count, sched_goidle, ttwu_count, ttwu_local,
		rq_cpu_time, run_delay, pcount;
};

struct schedstat {
	int version;
	struct schedstat_cpu *cpus;
	size_t ncpus;
	struct schedstat_domain *doms;
	size_t ndoms;
};

int schedstat_parse(const char *text, size_t len, struct schedstat *ret,
		    struct strbuf *err);
void schedstat_release(struct schedstat *s);
/* Emit counter lines for after - before (same CPUs). */
void schedstat_emit_delta(struct emitter *em, const struct schedstat *before,
			  const struct schedstat *after);

struct procstat {
	uint64_t cpu[10]; /* user nice system idle iowait irq softirq steal
			     guest guest_nice */
	uint64_t ctxt, processes, intr;
	int ncpu_lines;
};
int procstat_parse(const char *text, size_t len, struct procstat *ret,
		   struct strbuf *err);
void procstat_emit_delta(struct emitter *em, const struct procstat *before,
			 const struct procstat *after);

/* /proc/PID/schedstat: on-CPU ns, waiting ns, timeslices. */
struct task_schedstat {
	uint64_t run_ns, wait_ns, slices;
};
int task_schedstat_parse(const char *text, size_t len,
			 struct task_schedstat *ret);
/* voluntary/nonvoluntary_ctxt_switches from /proc/PID/status */
int task_status_switches(const char *text, size_t len, uint64_t *ret_vol,
			 uint64_t *ret_invol);

/* Read a small /proc or /sys file with one pread (fd kept by caller). */
int read_small(int fd, char *buf, size_t size);

/* ---- perf.c -------------------------------------------------------------- */

struct perf_counter {
	const char *name;
	int fd;
	int supported;
	char why[96];
	uint64_t value;
};

struct perf_set {
	struct perf_counter *c;
	size_t n;
};

/* Is name a counter we know how to open? */
int perf_known(const char *name);
/* Open each named counter (comma list) on pid (0 = self), disabled,
 * inheriting to children; failures are recorded per counter, not fatal.
 * Return -1 only for an unknown name. */
int perf_open(struct perf_set *ps, const char *names, pid_t pid,
	      struct strbuf *err);
void perf_enable(struct perf_set *ps);
void perf_disable(struct perf_set *ps);
void perf_read(struct perf_set *ps);
void perf_close(struct perf_set *ps);
/* One-shot availability probe of a counter, for `info`. */
int perf_probe(const char *name, char *why, size_t whylen);

/* ---- output parsers of wrapped programs (parsers.c) ------------------ */

/* A parsed metric. */
struct metric {
	char *name;
	double value;
	const char *unit;
	const char *direction;
};
struct metrics {
	struct metric *m;
	size_t n, alloc;
	struct strvec unsupported; /* counters the program says it lacks */
};
void metrics_init(struct metrics *ms);
void metrics_release(struct metrics *ms);
void metrics_add(struct metrics *ms, const char *name, double v,
		 const char *unit, const char *dir);
const struct metric *metrics_find(const struct metrics *ms, const char *name);

/* Each returns 0 when it found its headline number, else -1 with err. */
int parse_sysbench(const char *text, size_t len, struct metrics *ms,
		   struct strbuf *err);
int parse_hackbench(const char *text, size_t len, struct metrics *ms,
		    struct strbuf *err);
/* perf stat -x, output (with --repeat: the +- column, a standard error). */
int parse_perf_stat_csv(const char *text, size_t len, struct metrics *ms,
			struct strbuf *err);
/* perf stat's human table (seed 004). */
int parse_perf_stat_table(const char *text, size_t len, struct metrics *ms,
			  struct strbuf *err);
/* kernbench summaries: "Elapsed Time 19.676" lines or seed 002's row. */
int parse_kernbench(const char *text, size_t len, struct metrics *ms,
		    struct strbuf *err);
/* `time` output: real/user/sys as "1m53.033s". */
int parse_time_output(const char *text, size_t len, struct metrics *ms,
		      struct strbuf *err);
int parse_reaim(const char *text, size_t len, struct metrics *ms,
		struct strbuf *err);
int parse_volanomark(const char *text, size_t len, struct metrics *ms,
		     struct strbuf *err);
/* Seed 000's "49,93,368 records/s" (any digit grouping). */
int parse_grouped_number(const char *s, double *ret);
/* numabench "Name avg(stddev)" lines (seed 002). */
int parse_numabench(const char *text, size_t len, struct metrics *ms,
		    struct strbuf *err);

/* ---- run.c: the run, workers, signals, deadline --------------------- */

enum stop_reason { STOP_NONE, STOP_SIGNAL, STOP_DEADLINE };

struct agent_ctx {
	const struct run_spec *spec;
	struct emitter *em;
	struct cg_system *cgsys;
	struct cg_run *cg;
	int iteration, warmup;
	int ncpus;
	void *wl_state;
};

/* Set by the signal handlers. */
extern volatile sig_atomic_t agent_stop;
extern volatile sig_atomic_t agent_stop_signo;
void agent_install_signals(void);
/* Arm the spec deadline (seconds from now; 0 = none). */
void agent_arm_deadline(int64_t seconds);

/* Register / forget a child (process group leader when pgrp) for killing
 * on stop.  Safe to call before fork returns in the parent. */
void agent_track(pid_t pid, int pgrp);
void agent_untrack(pid_t pid);
/* Kill (SIGKILL) every tracked child and reap it. */
void agent_kill_all(void);

/* Sleep until the absolute monotonic time t_ms; return 0, or -1 when the
 * run is being stopped. */
int agent_sleep_until(int64_t t_ms);

/* A forked worker process, held at a gate until released. */
struct worker {
	pid_t pid;
	int gate_fd; /* parent's write end */
	int result_fd; /* parent's read end of the child's result pipe */
	struct strbuf result;
	int status;
	struct rusage ru;
	struct task_schedstat ts;
	int ts_ok;
	uint64_t vol, invol;
};
/*
 * Fork a worker that runs fn(arg, result_fd) after the gate opens and exits
 * with its return value.  The parent places it in the cgroup at cg_path
 * (NULL or "/": stays) before the gate opens.  Return 0 or -1 with err.
 */
int worker_start(struct agent_ctx *ctx, struct worker *w, const char *cg_path,
		 int (*fn)(void *arg, int result_fd), void *arg,
		 struct strbuf *err);
void worker_release(struct worker *w);
/* Read the result pipe to EOF, read per-task stats, then reap.  Return 0,
 * or -1 when the run is stopping or the worker failed (err says). */
int worker_finish(struct worker *w, struct strbuf *err);
/* Kill a worker (if running) and reap it; stats are kept if readable. */
void worker_kill(struct worker *w);
void worker_clear(struct worker *w);
/* Emit a worker's result text ("metric value unit direction" lines). */
int worker_emit_results(struct agent_ctx *ctx, struct worker *w,
			struct strbuf *err);
/* In a worker: write one result line to fd. */
void worker_put(int fd, const char *metric, double value, const char *unit,
		const char *direction);

/* Run a wrapped program to completion (timeout = what is left of the
 * deadline); output captured.  Return as run_command(). */
struct child_process;
int agent_run_program(struct agent_ctx *ctx, struct child_process *cp,
		      struct strbuf *err);

/* ---- wrapped.c: helpers for wrapped programs ----------------------------- */

typedef int (*output_parser)(const char *text, size_t len, struct metrics *ms,
			     struct strbuf *err);
/*
 * Run cp (its stdout and stderr captured together unless the caller set
 * otherwise) in the workload's cgroup, parse what it printed with parse and
 * emit every metric as a result line and every counter the program says it
 * lacks as an unavailable counter.  Return 0, or -1 with err (the program's
 * failure or the parser's complaint, with the output's tail).
 */
int wrapped_run(struct agent_ctx *ctx, struct child_process *cp,
		output_parser parse, const char *scope, struct strbuf *err);
/* The same, parsing what the program wrote to stderr (perf stat). */
int wrapped_run_stderr(struct agent_ctx *ctx, struct child_process *cp,
		       output_parser parse, const char *scope,
		       struct strbuf *err);
/* rm -rf of a folder the agent made (no symlinks followed). */
int remove_tree(const char *path);
/* Place cp in the workload's cgroup and bound it by the deadline. */
int wrapped_prepare(struct agent_ctx *ctx, struct child_process *cp,
		    struct strbuf *err);
/* agent_run_program() for a prepared cp, errors naming the program. */
int wrapped_exec(struct agent_ctx *ctx, struct child_process *cp,
		 struct strbuf *err);
/* Split a user's command line at spaces into argv words (no shell). */
void split_command(struct strvec *argv, const char *cmd);

/* ---- the workloads --------------------------------------------------- */

struct wl_ops {
	const char *name;
	/* Deeper checks of the parameters than the table's (may be NULL). */
	int (*check)(const struct run_spec *s, struct strbuf *field,
		     struct strbuf *err);
	/* Can it run here?  0, or -1 with why (may be NULL). */
	int (*available)(struct strbuf *why);
	/* Cgroups it needs beyond the spec's (may be NULL). */
	void (*add_cgroups)(const struct run_spec *s, struct cg_run *cg);
	int (*setup)(struct agent_ctx *ctx, struct strbuf *err);
	/* One iteration; emits its result lines. */
	int (*run)(struct agent_ctx *ctx, struct strbuf *err);
	void (*teardown)(struct agent_ctx *ctx);
};

extern const struct wl_ops wl_fairness_loop, wl_memchunk, wl_pipe_pingpong,
	wl_chat, wl_numa_bw, wl_sysbench, wl_hackbench, wl_kernbench, wl_reaim,
	wl_volanomark, wl_perf_stat, wl_crash;
const struct wl_ops *wl_ops_find(const char *name);
int wl_available(const struct wl_desc *d, struct strbuf *why);

/* ---- info.c, list ---------------------------------------------------- */

/* The `info` object (one line of JSON, no newline). */
void agent_info_json(struct strbuf *out);
/* Number of online CPUs (sysconf). */
int agent_ncpus(void);
/* `list`, human-readable. */
void agent_list(struct strbuf *out);
/* Resolve a user's uid/gid from /etc/passwd (no NSS in a static binary). */
int passwd_lookup(const char *passwd_text, const char *user, uid_t *ret_uid,
		  gid_t *ret_gid, struct strbuf *home);

/* The `run` verb: returns the exit status (0, 1, 2). */
int agent_run(const char *spec_text, size_t len, int out_fd);

#endif

/*
 * agent.h - what the agent's modules share: the run spec, the line emitter,
 * cgroups, counter snapshots, perf counters, workers, and the workload ops
 * table.  main.c is only the command line; everything here is in libagent so
 * unit tests and fuzz targets link it.
 */
#ifndef SCHEDFARM_AGENT_H
#define SCHEDFARM_AGENT_H

#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "command.h"
#include "fs.h"
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

/*
 * A run spec, or one member of a together run (then name is set, and
 * run_id, iterations and warmup are copies of the run's).  wl is the
 * workload (wl_command_desc for a plan-defined command, with cmd set);
 * a together run has no wl of its own, only members.
 */
struct run_spec {
	int64_t run_id;
	const struct wl_desc *wl;
	struct cmd_def *cmd; /* a plan-defined command, or NULL */
	/* Every parameter of wl (and "cgroup"), defaults filled in, as text. */
	struct strvec pnames, pvalues;
	int iterations, warmup;
	struct cg_spec *cgroups;
	size_t ncgroups;
	char *results_file;
	int64_t deadline_s; /* 0: none */
	int parent_weight; /* the run's own parent group; 0: default */
	int sample_ms; /* the agent samples member groups; 0: it does not */
	struct run_spec *members; /* together: 1..SPEC_MAX_MEMBERS */
	size_t nmembers;
	char *name; /* a member's name ("a"), NULL for the run */
	int background; /* a member that runs until the measured ones end */
};

#define SPEC_MAX_MEMBERS 16

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
/*
 * The table's check of s's parameters taken together for workload name
 * (common/wl_check.h), as a workload's check: 0, or -1 with *field
 * "params.NAME" and *err the sentence.
 */
int spec_check_params(const struct run_spec *s, const char *name,
		      struct strbuf *field, struct strbuf *err);

/* The workload a spec's "command" runs as: no parameters but cgroup. */
extern const struct wl_desc wl_command_desc;

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
	/*
	 * A together member's name, or NULL: its metrics and series are
	 * reported as "NAME.metric", its counter scopes as "NAME:scope".
	 */
	const char *member;
	/* The start of a sample line for (run_id, iteration), cached. */
	struct strbuf sample_head;
	int sample_head_iteration;
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
/* Relay a line another process made, its newline included, as is. */
void emit_raw_line(struct emitter *em, const char *line, size_t len);
void emit_result(struct emitter *em, const char *metric, double value,
		 const char *unit, const char *direction);
/* Results, samples and counters are buffered until emit_flush() (or the
 * next other line) so the sampler wakes, reads and sleeps. */
void emit_sample(struct emitter *em, const char *series, double t,
		 double value);
void emit_flush(struct emitter *em);
void emit_counter(struct emitter *em, const char *source, const char *scope,
		  const char *name, double value);
void emit_counter_unavailable(struct emitter *em, const char *source,
			      const char *scope, const char *name,
			      const char *note);
void emit_error(struct emitter *em, const char *message, const char *field);
/* The same; host 1 adds "blame":"host": the host lacks what the run
 * needs (a program, a cgroup controller), the run itself is not wrong. */
void emit_host_error(struct emitter *em, const char *message, const char *field,
		     int host);

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
	/* What a run mounts of its own when use is 0 ("cgroup2", "v1 cpu"),
	 * or what it did mount; else why it cannot (cgroup_mount.c). */
	char *private_mount, *unusable;
};

struct cg_group {
	char *path; /* spec path, "/a" */
	int weight;
	double cpu_max_pct;
	char *cpus;
	int rt_runtime_us; /* v1 RT group scheduling: RT time it may use */
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
/*
 * The group at path runs a real-time task now and then (cyclictest's main
 * thread raises itself to SCHED_FIFO): where cgroup v1 has RT group
 * scheduling (cpu.rt_runtime_us), a new group gets no RT time and the
 * task is refused, so give it, and every group above it, us per period.
 */
void cg_run_need_rt(struct cg_run *r, const char *path, int us);
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
/*
 * For sampling: open the file the group's usage is read from once
 * (returns the fd, or -1 with err), then read it with one pread each time
 * (0, or -1 when it cannot be read or parsed).  v2's cpu.stat is scanned
 * for "usage_usec", v1's cpuacct.usage is one number.
 */
int cg_run_usage_open(struct cg_run *r, const char *path, struct strbuf *err);
int cg_usage_read(const struct cg_run *r, int fd, uint64_t *ret_ns);
/* Remove what we created (deepest first); moves stragglers out first. */
int cg_run_remove(struct cg_run *r, struct strbuf *err);
void cg_run_release(struct cg_run *r);
int cg_v1_shares(int weight);

/* ---- cgroup_mount.c: a private hierarchy where none is mounted -------- */

/* What to mount: cgroup2, or v1 hierarchies by their controllers. */
struct cg_mount_plan {
	int v2;
	struct strvec v1; /* mount options, one hierarchy each: "cpu,cpuacct" */
};
/*
 * The plan for a kernel whose /proc/cgroups and /proc/filesystems say
 * proc_cgroups and proc_filesystems: cpu bound to a v1 hierarchy means
 * that hierarchy (and cpuacct's and cpuset's) again, cpu bound nowhere
 * cgroup2 (v1 cpu without cgroup2), cpu not listed cgroup2 (whose mount
 * says whether it has cpu).  0, or -1 with err saying what the kernel
 * lacks.  Release *ret with cg_mount_plan_release() either way.
 */
int cg_mount_plan_make(const char *proc_cgroups, const char *proc_filesystems,
		       struct cg_mount_plan *ret, struct strbuf *err);
void cg_mount_plan_release(struct cg_mount_plan *p);
/* "cgroup2", or "v1 cpu, v1 cpuacct": the plan in words, onto out. */
void cg_mount_plan_describe(const struct cg_mount_plan *p, struct strbuf *out);
/* This host's plan: as cg_mount_plan_make(), and -1 when not root. */
int cg_private_plan(struct cg_mount_plan *ret, struct strbuf *err);
/* When sys uses nothing: fill its private_mount or unusable. */
void cg_private_assess(struct cg_system *sys);

/* The mounts a run made; its folder is <state>/cgroup-<pid>. */
struct cg_private {
	char *dir;
	struct strvec mounts; /* mount points, in the order made */
	int own_ns; /* in a private mount namespace of the agent's own */
};
/*
 * Enter a private mount namespace (where the kernel lets us) and mount
 * plan's hierarchies under a folder of our own, first removing what dead
 * agents left in the state folder (cg_private_sweep()).  0, or -1 with err
 * (nothing stays mounted).  Undo with cg_private_unmount() (err may be NULL): 0
 * or -1.
 */
int cg_private_mount(struct cg_private *p, const struct cg_mount_plan *plan,
		     struct strbuf *err);
int cg_private_unmount(struct cg_private *p, struct strbuf *err);
/*
 * For a run whose groups find nothing usable in sys: the plan, the mounts
 * (p) and sys detected again through them (its private_mount says what
 * was mounted).  0 with sys->use set, or -1 with err saying what the host
 * lacks (root, the controller, a mount the kernel refused); nothing stays
 * mounted then.  cg_private_unmount(p) at the end of the run.
 */
int cg_private_start(struct cg_system *sys, struct cg_private *p,
		     struct strbuf *err);
/* proc_mounts less its cgroup lines whose mount point does not reach a
 * cgroup file system (hidden under another mount), onto out. */
void cg_mounts_reachable(const char *proc_mounts, struct strbuf *out);
/* cg_detect() on this process's /proc/self/{mounts,cgroup}, hidden
 * mounts left out; 0, or -1 with err. */
int cg_detect_here(struct cg_system *sys, struct strbuf *err);
/* Remove the cgroup-<pid> folders of agents no longer alive from the
 * state folder (where there is one), unmounting what they hold. */
void cg_private_sweep(void);

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
/*
 * A process's CPU time, for sampling: the clock of pid (0, or -1 when
 * there is no such process), read with one clock_gettime.  The kernel
 * reads the task's runtime directly, where a pread of /proc/PID/schedstat
 * formats text through a seq_file: several times the cost, at every
 * sample for every task.  task_cpu_ns() gives 0 when unreadable.
 */
int task_cpu_clock(pid_t pid, clockid_t *ret);
uint64_t task_cpu_ns(clockid_t c);
/* The leading decimal number of buf[0..n) (0 when none), parsed by hand:
 * it runs for every task at every sample. */
uint64_t read_leading_u64(const char *buf, int n);

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
/*
 * Availability probe of a counter, for `info`: 0 with the open counter in
 * *ret_fd, or -1 with why.  The caller closes the fds after probing them
 * all: each first open and last close of a perf event patches kernel
 * text (static keys), which costs far more than the probe itself.
 */
int perf_probe(const char *name, char *why, size_t whylen, int *ret_fd);
/*
 * Is name a software event of the kernel's software PMU (context
 * switches, migrations, page faults)?  Those open wherever task-clock
 * does, and each open and close of one toggles a static key of its own
 * (a kernel text patch with IPIs to every CPU, milliseconds in a VM), so
 * `info` reports them as task-clock's probe found perf rather than
 * opening each.
 */
int perf_shares_probe(const char *name);

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

/*
 * STOP_ITERATION: a together member's current iteration is being cut
 * short (SIGUSR1 from the run: a background neighbour whose measured
 * workloads have ended); the member goes on with the next one.
 */
enum stop_reason { STOP_NONE, STOP_SIGNAL, STOP_DEADLINE, STOP_ITERATION };

struct agent_ctx {
	const struct run_spec *spec;
	struct emitter *em;
	struct cg_system *cgsys;
	struct cg_run *cg;
	int iteration, warmup;
	int ncpus;
	void *wl_state;
};

/*
 * Set by the signal handlers, per thread: the run's main thread takes
 * SIGTERM, SIGINT, SIGHUP and the deadline's SIGALRM; a together member's
 * thread takes SIGUSR1 (end the current iteration only) and SIGUSR2 (the
 * run is being stopped), which the main thread sends it (pthread_kill).
 */
extern _Thread_local volatile sig_atomic_t agent_stop;
extern _Thread_local volatile sig_atomic_t agent_stop_signo;
void agent_install_signals(void);

/*
 * The children one thread tracks (agent_track) and what its reaped
 * children cost.  A together member's thread calls agent_thread_adopt()
 * first: its children then go into t, its signal mask lets only SIGUSR1
 * and SIGUSR2 in, and agent_children_usage() there is what its own reaps
 * added up (RUSAGE_CHILDREN is the process's: every member's children).
 * agent_tracked_kill() SIGKILLs t's children from another thread (a
 * member that does not end when told).
 */
struct agent_tracked;
struct agent_tracked *agent_tracked_new(void);
void agent_tracked_free(struct agent_tracked *t);
void agent_thread_adopt(struct agent_tracked *t);
void agent_tracked_kill(struct agent_tracked *t);
/* A struct timeval (rusage times) in seconds. */
double timeval_s(struct timeval tv);
/* This thread's reaped children's usage (see above). */
void agent_children_usage(struct rusage *ru);
/* Count a child this thread reaped (its wait4 rusage). */
void agent_count_reaped(const struct rusage *ru);
/* Arm the spec deadline (seconds from now; 0 = none). */
void agent_arm_deadline(int64_t seconds);

/* Register / forget a child (process group leader when pgrp) for killing
 * on stop.  Safe to call before fork returns in the parent. */
void agent_track(pid_t pid, int pgrp);
void agent_untrack(pid_t pid);
/* Kill (SIGKILL) every tracked child and reap it. */
void agent_kill_all(void);

/*
 * The calling thread runs at SCHED_FIFO 1 between begin and end, where it
 * may (root, real-time runtime in its cgroup), so its wake-ups (a
 * sampler's ticks, a member's end of its workload) are not held back
 * behind the workload's heavily weighted group (run.c).
 */
struct rt_wake {
	int changed;
	int policy;
	struct sched_param param;
};
void rt_wake_begin(struct rt_wake *p);
void rt_wake_end(struct rt_wake *p);

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
/*
 * Workers that only spin (busy loops: fairness-loop, cpu-hog).  They are
 * started as `schedfarm-agent __spin PROCS_FILE...` with vfork and exec
 * rather than forked, so the agent's pages are neither copied nor
 * write-protected; each spinner writes itself into its cgroup's
 * cgroup.procs files (as __exec-in does for wrapped programs), then waits
 * on one gate shared by all, which spin_gate_release() opens for all at
 * once.  A spinner has no result pipe; one that could not join its
 * cgroup exits on its own (127), which spin_check() reports.
 */
struct spin_gate {
	int rd, wr; /* the pipe; each spinner reads one byte */
	size_t n; /* spinners waiting */
};
int spin_gate_open(struct spin_gate *g, struct strbuf *err);
int worker_spawn_spin(struct agent_ctx *ctx, struct worker *w,
		      struct spin_gate *g, const char *cg_path,
		      struct strbuf *err);
void spin_gate_release(struct spin_gate *g);
void spin_gate_close(struct spin_gate *g);
/* After worker_kill(): -1 with err when the spinner had exited by itself. */
int spin_check(const struct worker *w, struct strbuf *err);
/* `schedfarm-agent __spin PROCS_FILE...`: join, wait on fd 3, spin. */
int agent_spin_main(int argc, char **argv);
/* Kill a worker (if running) and reap it; stats are kept if readable. */
void worker_kill(struct worker *w);
void worker_clear(struct worker *w);
/* Emit a worker's result text ("metric value unit direction" lines). */
int worker_emit_results(struct agent_ctx *ctx, struct worker *w,
			struct strbuf *err);
/*
 * A built-in workload's whole worker: fn(arg, result_fd) run in a worker
 * in the spec's cgroup, released at once, waited for; its results
 * emitted, then its voluntary and involuntary switches as counters of
 * scope "task" named task.  0, or -1 with err.
 */
int worker_run(struct agent_ctx *ctx, const char *task,
	       int (*fn)(void *arg, int result_fd), void *arg,
	       struct strbuf *err);
/* In a worker: write one result line to fd. */
void worker_put(int fd, const char *metric, double value, const char *unit,
		const char *direction);

/* CPU the workloads of together members used in an iteration. */
struct member_usage {
	double user_s, system_s, vol, invol;
};

/* Counter snapshots taken before and after each iteration. */
struct snap {
	int have_schedstat, have_stat;
	struct schedstat ss;
	struct procstat st;
	struct rusage children;
	struct member_usage members; /* after: what members reported */
	uint64_t *cg_usage;
	int *cg_ok;
};
/*
 * Read every counter source (first: say in *note why schedstat is
 * missing); release with snap_release().  snap_emit() writes the counter
 * lines of b - a for the emitter's iteration.
 */
void snap_take(struct agent_ctx *ctx, struct snap *s, int first,
	       struct strbuf *note);
void snap_release(struct snap *s);
void snap_emit(struct agent_ctx *ctx, const struct snap *a,
	       const struct snap *b, const char *schedstat_note);

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
/* Place cp in the workload's cgroup and bound it by the deadline. */
int wrapped_prepare(struct agent_ctx *ctx, struct child_process *cp,
		    struct strbuf *err);
/* agent_run_program() for a prepared cp, errors naming the program. */
int wrapped_exec(struct agent_ctx *ctx, struct child_process *cp,
		 struct strbuf *err);
/* Every metric of ms as a result line of the run. */
void wrapped_emit_metrics(struct agent_ctx *ctx, const struct metrics *ms);
/* Split a user's command line at spaces into argv words (no shell). */
void split_command(struct strvec *argv, const char *cmd);

/* ---- the workloads --------------------------------------------------- */

struct wl_ops {
	const char *name;
	/* Deeper checks of the parameters than the table's (may be NULL). */
	int (*check)(const struct run_spec *s, struct strbuf *field,
		     struct strbuf *err);
	/* Can it run here?  0, or -1 with why (may be NULL). */
	int (*available)(const struct run_spec *s, struct strbuf *why);
	/* Cgroups it needs beyond the spec's (may be NULL). */
	void (*add_cgroups)(const struct run_spec *s, struct cg_run *cg);
	int (*setup)(struct agent_ctx *ctx, struct strbuf *err);
	/*
	 * Untimed work before each iteration (kernbench's make clean), done
	 * before the counters are read and, in a together run, before the
	 * members are released together (may be NULL).
	 */
	int (*prepare)(struct agent_ctx *ctx, struct strbuf *err);
	/* One iteration; emits its result lines. */
	int (*run)(struct agent_ctx *ctx, struct strbuf *err);
	void (*teardown)(struct agent_ctx *ctx);
};

extern const struct wl_ops wl_fairness_loop, wl_memchunk, wl_pipe_pingpong,
	wl_chat, wl_numa_bw, wl_sysbench, wl_hackbench, wl_kernbench, wl_reaim,
	wl_volanomark, wl_perf_stat, wl_cpu_hog, wl_cyclictest,
	wl_perf_bench_sched, wl_command, wl_crash, wl_schbench, wl_tbench,
	wl_stress_ng, wl_rt_app;
/* The implementation of s's workload (a command's for a command spec). */
const struct wl_ops *wl_ops_of(const struct run_spec *s);
const struct wl_ops *wl_ops_find(const char *name);
/* Can spec s's workload run here?  0, or -1 with why. */
int wl_spec_available(const struct run_spec *s, struct strbuf *why);
int wl_available(const struct wl_desc *d, struct strbuf *why);

/* ---- together.c: several workloads in one run -------------------------- */

/*
 * Run the members of a together spec (or a single workload sampled by
 * the agent, sample_ms > 0): each member in a thread of its own, set up
 * once, then per iteration prepared, released together and sampled in
 * the same windows, with each member's metrics under its name and the
 * cross-group figures (doc/PROTOCOL.md, "Together").  ctx is the run's;
 * its cgroups are made.  Return 0, or -1 with err (status in *ret_status:
 * "failed", "interrupted", "timeout").  *ret_member_cpu_s gets the CPU
 * time the member threads spent (not their workloads'); it is part of
 * the process's own already (for the cost report only).
 */
int together_run(struct agent_ctx *ctx, const char **ret_status,
		 double *ret_member_cpu_s, struct strbuf *err);

/* ---- cyclictest and perf bench output (parsers.c) --------------------- */

/* cyclictest -q -h N: percentiles over every thread's histogram. */
int parse_cyclictest(const char *text, size_t len, struct metrics *ms,
		     struct strbuf *err);
/* perf bench sched messaging|pipe, default format. */
int parse_perf_bench(const char *text, size_t len, struct metrics *ms,
		     struct strbuf *err);

/* ---- tbench, stress-ng and rt-app output (parsers_modern.c) ------------ */

/* tbench's "Throughput N MB/sec N clients" line: throughput_mb_s.N and
 * max_latency_ms.N, N the client count it names. */
int parse_tbench(const char *text, size_t len, struct metrics *ms,
		 struct strbuf *err);
/* stress-ng --metrics --yaml FILE of one stressor: bogo_ops_per_s (real
 * time), bogo_ops_per_s_cpu (usr+sys time), bogo_ops. */
int parse_stress_ng_yaml(const char *text, size_t len, struct metrics *ms,
			 struct strbuf *err);
/*
 * rt-app per-thread logs, each after a "# task NAME" line (threads of a
 * task share its name): TASK.slack_avg_us, .slack_min_us,
 * .wakeup_latency_avg_us, .wakeup_latency_max_us, .perf_index,
 * .perf_index_min, .missed_periods, .periods.
 */
int parse_rt_app_logs(const char *text, size_t len, struct metrics *ms,
		      struct strbuf *err);

/* ---- info.c, list ---------------------------------------------------- */

/* The `info` object (one line of JSON, no newline); its cgroup part
 * describes known when given (a run has detected them), else what
 * cg_detect() finds now. */
void agent_info_json(struct strbuf *out, const struct cg_system *known);
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

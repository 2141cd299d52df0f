/*
 * workloads.c - the workload and parameter table; see workloads.h.
 *
 * Parameters follow the source threads (shared seeds): memchunk is seed
 * 000's short/long thread mix, fairness-loop and chat are seed 001's busy
 * loops and volanomark shape, numa-bw is seed 002's numa_test, pipe-pingpong
 * is seed 004's pipe-test-100k.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "parse.h"
#include "conninfo.h"
#include "rtapp.h"
#include "workloads.h"
#include "banned.h"

#define END                                                                    \
	{                                                                      \
		NULL, WL_INT, 0, 0, NULL, NULL, NULL                           \
	}
#define DUR_MAX (24.0 * 3600 * 1000)

const struct wl_param workload_cgroup_param = {
	"cgroup",
	WL_STRING,
	0,
	256,
	"/",
	NULL,
	"cgroup path the workload runs in (\"/\" = where the agent runs)"
};

static const struct wl_param fairness_params[] = {
	{ "groups", WL_STRING, 0, 1024, "/a:5,/b:2", NULL,
	  "busy loops per cgroup, PATH:N[:WEIGHT],... (seed 001: /a:5,/b:2)" },
	{ "duration", WL_DURATION, 1000, DUR_MAX, "10s", NULL,
	  "how long the loops run" },
	{ "sample_interval", WL_DURATION, 100, 1000, "1s", NULL,
	  "how often shares are sampled (100ms..1s)" },
	{ "converge_pct", WL_DOUBLE, 0.1, 100, "10", NULL,
	  "a group has converged when within this % of its entitlement" },
	END,
};

static const struct wl_param memchunk_params[] = {
	{ "short_threads", WL_INT, 0, 4096, "5", NULL,
	  "threads that sleep every sleep_every records (10% duty)" },
	{ "long_threads", WL_INT, 0, 4096, "5", NULL,
	  "threads that never sleep" },
	{ "duration", WL_DURATION, 1000, DUR_MAX, "10s", NULL,
	  "how long to run" },
	{ "chunk_slots", WL_INT, 1, 1 << 20, "256", NULL,
	  "8-byte slots per malloc'd chunk" },
	{ "sleep_every", WL_INT, 1, 1e9, "2800", NULL,
	  "short threads sleep after this many records" },
	{ "sleep_us", WL_INT, 0, 1e7, "9000", NULL,
	  "how long short threads sleep" },
	END,
};

static const struct wl_param pipe_params[] = {
	{ "round_trips", WL_INT, 1, 1e9, "100000", NULL,
	  "byte round trips over the pipe pair" },
	{ "pin_cpu", WL_INT, -1, 4095, "-1", NULL,
	  "pin both tasks to this CPU (-1: no pinning; seed 004 used taskset "
	  "1)" },
	{ "counters", WL_STRING, 0, 512,
	  "instructions,cycles,branches,branch-misses,cache-misses,"
	  "context-switches,cpu-migrations,page-faults",
	  NULL, "perf_event counters to read" },
	END,
};

static const struct wl_param chat_params[] = {
	{ "rooms", WL_INT, 1, 1000, "10", NULL, "chat rooms" },
	{ "users", WL_INT, 1, 1000, "20", NULL, "clients per room" },
	{ "messages", WL_INT, 1, 1e6, "100", NULL,
	  "messages each client sends" },
	{ "message_size", WL_INT, 1, 65536, "100", NULL, "bytes per message" },
	END,
};

static const struct wl_param numa_params[] = {
	{ "jobs", WL_INT, 1, 4096, "4", NULL, "streaming jobs" },
	{ "mem_mb", WL_INT, 1, 1 << 20, "64", NULL,
	  "private memory per job (MiB)" },
	{ "passes", WL_INT, 1, 1e6, "10", NULL,
	  "passes over the memory per job" },
	END,
};

static const struct wl_param sysbench_params[] = {
	{ "test", WL_STRING, 0, 32, "cpu",
	  "cpu|threads|mutex|oltp_read_only|oltp_read_write", "sysbench test" },
	{ "threads", WL_INT, 1, 4096, "1", NULL, "worker threads" },
	{ "time", WL_DURATION, 1000, DUR_MAX, "10s", NULL, "run time" },
	{ "pg_conninfo", WL_CONNINFO, 0, 1024, "", NULL,
	  "oltp: PostgreSQL to use (empty: the agent starts one for the run)" },
	{ "tables", WL_INT, 1, 1000, "1", NULL, "oltp tables" },
	{ "table_size", WL_INT, 1, 1e9, "10000", NULL, "oltp rows per table" },
	END,
};

static const struct wl_param hackbench_params[] = {
	{ "groups", WL_INT, 1, 1000, "10", NULL,
	  "groups of senders/receivers" },
	{ "loops", WL_INT, 1, 1e7, "100", NULL, "messages per sender" },
	{ "mode", WL_STRING, 0, 16, "process", "process|thread",
	  "tasks are processes or threads" },
	{ "pipe", WL_BOOL, 0, 1, "false", NULL, "pipes instead of sockets" },
	END,
};

static const struct wl_param kernbench_params[] = {
	{ "tree", WL_STRING, 1, 4096, NULL, NULL,
	  "configured kernel tree to build" },
	{ "jobs", WL_INT, 0, 4096, "0", NULL, "make -j (0: 2 x CPUs)" },
	{ "target", WL_STRING, 1, 64, "vmlinux", NULL, "make target" },
	{ "clean", WL_BOOL, 0, 1, "true", NULL,
	  "make clean before each iteration" },
	{ "objdir", WL_STRING, 0, 4096, "", NULL,
	  "build in this folder (make O=, configured there) instead of the "
	  "tree: two builds of one tree at once" },
	END,
};

static const struct wl_param reaim_params[] = {
	{ "program", WL_STRING, 1, 4096, "reaim", NULL, "the reaim binary" },
	{ "workfile", WL_STRING, 1, 4096, "workfile.new_dbase", NULL,
	  "re-aim workfile" },
	{ "users", WL_INT, 1, 100000, "22", NULL, "maximum users (-e)" },
	{ "start_users", WL_INT, 1, 100000, "2", NULL, "starting users (-s)" },
	{ "increment", WL_INT, 1, 100000, "2", NULL, "user increment (-i)" },
	END,
};

static const struct wl_param volano_params[] = {
	{ "program", WL_STRING, 1, 4096, "loopclient.sh", NULL,
	  "volanomark client script" },
	{ "clients", WL_INT, 1, 100000, "1000", NULL, "LOOP_CLIENT_COUNT" },
	END,
};

static const struct wl_param perf_stat_params[] = {
	{ "command", WL_STRING, 1, 4096, NULL, NULL,
	  "program and arguments, split at spaces (no shell)" },
	{ "repeat", WL_INT, 1, 100000, "10", NULL, "perf stat --repeat" },
	{ "events", WL_STRING, 0, 1024,
	  "task-clock,context-switches,cpu-migrations,page-faults,instructions,"
	  "cycles",
	  NULL, "perf stat -e list" },
	{ "pin_cpu", WL_INT, -1, 4095, "-1", NULL,
	  "taskset to this CPU (-1: none)" },
	END,
};

static const struct wl_param cpu_hog_params[] = {
	{ "tasks", WL_INT, 1, 4096, "1", NULL, "busy loops in the cgroup" },
	{ "duration", WL_DURATION, 1000, DUR_MAX, "10s", NULL,
	  "how long the loops run" },
	END,
};

static const struct wl_param cyclictest_params[] = {
	{ "threads", WL_INT, 0, 4096, "1", NULL,
	  "measuring threads (-t N; 0: one per CPU)" },
	{ "interval_us", WL_INT, 100, 1000000, "1000", NULL,
	  "base wake-up interval of a thread (-i, microseconds)" },
	{ "duration", WL_DURATION, 1000, DUR_MAX, "10s", NULL,
	  "how long to measure (-D)" },
	{ "priority", WL_INT, 0, 99, "0", NULL,
	  "SCHED_FIFO priority (-p); 0: SCHED_OTHER, the fair class" },
	{ "histogram_us", WL_INT, 100, 1000000, "100000", NULL,
	  "histogram range (-h, microseconds); percentiles beyond it are "
	  "bounded by the maximum" },
	END,
};

static const struct wl_param perf_bench_params[] = {
	{ "bench", WL_STRING, 0, 16, "messaging", "messaging|pipe",
	  "perf bench sched messaging (hackbench) or pipe" },
	{ "groups", WL_INT, 1, 1000, "10", NULL,
	  "messaging: groups of senders and receivers (-g)" },
	{ "loops", WL_INT, 1, 1e9, "100", NULL,
	  "messaging: messages per sender; pipe: round trips (-l)" },
	{ "mode", WL_STRING, 0, 16, "process", "process|thread",
	  "tasks are processes or threads (-t / -T)" },
	{ "pipe", WL_BOOL, 0, 1, "false", NULL,
	  "messaging: pipes instead of sockets (-p)" },
	END,
};

static const struct wl_param schbench_params[] = {
	{ "message_threads", WL_INT, 1, 1024, "2", NULL,
	  "message threads, each waking its own workers" },
	{ "workers", WL_INT, 1, 1024, "4", NULL,
	  "worker threads per message thread (at most 2048 in all)" },
	{ "duration", WL_DURATION, 1000, DUR_MAX, "10s", NULL,
	  "how long to run, the warm-up included" },
	{ "warmup", WL_DURATION, 0, DUR_MAX, "0", NULL,
	  "the start of the duration whose samples are not counted" },
	{ "rps", WL_INT, 0, 1e8, "0", NULL,
	  "requests per second over all workers (0: open loop, as fast as "
	  "they go)" },
	{ "work_us", WL_INT, 0, 1e6, "100", NULL,
	  "busy work per request, microseconds of CPU time (a loop "
	  "calibrated at the start)" },
	{ "pipe", WL_INT, 0, 1 << 20, "0", NULL,
	  "bytes a message thread passes to its worker per request (0: off)" },
	{ "test_sleep_us", WL_INT, 0, 1e6, "0", NULL,
	  "tests only: a worker sleeps this long per request instead of its "
	  "work" },
	END,
};

static const struct wl_param crash_params[] = {
	{ "delay_ms", WL_INT, 0, 3600000, "1000", NULL,
	  "wait this long, then crash the kernel with sysrq-c" },
	END,
};

static const struct wl_param tbench_params[] = {
	{ "clients", WL_STRING, 1, 256, "auto", NULL,
	  "client counts, one tbench run each: \"auto\" (1, 2, 4, ... up "
	  "to 2 x CPUs, as the reports sweep) or a list like \"1,8,64\"" },
	{ "duration", WL_DURATION, 2000, DUR_MAX, "10s", NULL,
	  "how long each client count runs (tbench -t; it measures nothing "
	  "in its first second)" },
	END,
};

static const struct wl_param stress_ng_params[] = {
	{ "stressor", WL_STRING, 0, 16, "switch",
	  "switch|yield|futex|pipe|affinity|sched",
	  "stress-ng's scheduler stressor (sched: its schedpolicy "
	  "stressor)" },
	{ "workers", WL_INT, 0, 4096, "0", NULL,
	  "instances of the stressor (0: one per CPU)" },
	{ "duration", WL_DURATION, 1000, DUR_MAX, "10s", NULL,
	  "how long it runs (--timeout)" },
	END,
};

static const struct wl_param rt_app_params[] = {
	{ "tasks", WL_RTAPP_TASKS, 0, 8192,
	  "- {name: periodic, period: 10ms, run: 1ms}", NULL,
	  "the task set, one \"- {name: N, period: 10ms, run: 2ms, policy: "
	  "fifo, priority: 10, instances: 2}\" line per task "
	  "(doc/PLANS.md)" },
	{ "duration", WL_DURATION, 1000, DUR_MAX, "10s", NULL,
	  "how long the task set runs" },
	END,
};

/* ---- the metrics each workload reports (doc/PROTOCOL.md) ------------ */

static const char *const fairness_metrics[] = {
	"share.*",   "share_per_task.*", "jain_index", "max_min_ratio",
	"converged", "converge_s",	 "samples",    NULL
};
static const char *const memchunk_metrics[] = { "records_per_s",
						"records_per_s.short",
						"records_per_s.long",
						"elapsed_s", NULL };
static const char *const pipe_metrics[] = {
	"round_trip_us", "round_trips_per_s",
	"elapsed_s",	 "context_switches_per_round_trip",
	"perf.*",	 NULL
};
static const char *const chat_metrics[] = { "messages_per_s", "messages",
					    "elapsed_s", NULL };
static const char *const numa_metrics[] = { "elapsed_s",   "total_user_s",
					    "total_sys_s", "avg_user_s",
					    "job*.user_s", "job*.elapsed_s",
					    "job*.node",   NULL };
static const char *const sysbench_metrics[] = {
	"events_per_s",	  "transactions_per_s",
	"queries_per_s",  "total_time_s",
	"events",	  "latency_min_ms",
	"latency_avg_ms", "latency_max_ms",
	"latency_p95_ms", NULL
};
static const char *const hackbench_metrics[] = { "time_s", NULL };
static const char *const kernbench_metrics[] = { "elapsed_s",	     "user_s",
						 "system_s",	     "cpu_pct",
						 "context_switches", NULL };
static const char *const reaim_metrics[] = { "max_jpm", NULL };
static const char *const volano_metrics[] = { "messages_per_s", "runs", NULL };
/* perf-stat reports the events its params name: any name. */
static const char *const perf_stat_metrics[] = { "*", NULL };
static const char *const cpu_hog_metrics[] = { "cpu_pct", "cpu_pct_per_task",
					       "cpu_s", NULL };
static const char *const cyclictest_metrics[] = {
	"latency_min_us", "latency_avg_us",  "latency_p50_us",
	"latency_p99_us", "latency_p999_us", "latency_max_us",
	"samples",	  "overflows",	     NULL
};
static const char *const perf_bench_metrics[] = { "time_s", "usecs_per_op",
						  "ops_per_s", NULL };
static const char *const tbench_metrics[] = { "throughput_mb_s.*",
					      "max_latency_ms.*", NULL };
static const char *const stress_ng_metrics[] = { "bogo_ops_per_s",
						 "bogo_ops_per_s_cpu",
						 "bogo_ops", NULL };
/* rt-app reports each task's figures as TASK.metric. */
static const char *const rt_app_metrics[] = {
	"*.slack_avg_us",	   "*.slack_min_us", "*.wakeup_latency_avg_us",
	"*.wakeup_latency_max_us", "*.perf_index",   "*.perf_index_min",
	"*.missed_periods",	   "*.periods",	     NULL
};

static const char *const schbench_metrics[] = { "wakeup_p50_us",
						"wakeup_p90_us",
						"wakeup_p99_us",
						"wakeup_p999_us",
						"request_p50_us",
						"request_p90_us",
						"request_p99_us",
						"request_p999_us",
						"rps",
						NULL };

/* crash reports nothing: the kernel it crashes is the result. */
static const char *const crash_metrics[] = { NULL };

const struct wl_desc workload_table[] = {
	{ "chat", WL_BUILTIN, NULL,
	  "volanomark-like rooms of clients on loopback TCP; messages/s",
	  chat_params, chat_metrics },
	{ "cpu-hog", WL_BUILTIN, NULL,
	  "N busy loops in one cgroup; the CPU they got (a together: "
	  "neighbour or one side of a fairness pair)",
	  cpu_hog_params, cpu_hog_metrics },
	{ "crash", WL_BUILTIN, NULL,
	  "crash the kernel (sysrq-c) for crash-path tests: a plan with "
	  "`expect: panic`",
	  crash_params, crash_metrics },
	{ "cyclictest", WL_WRAPPED, "cyclictest",
	  "rt-tests cyclictest: wake-up latency percentiles from its "
	  "histogram",
	  cyclictest_params, cyclictest_metrics },
	{ "fairness-loop", WL_BUILTIN, NULL,
	  "busy loops per cgroup; per-task/group CPU share, Jain's index, "
	  "convergence",
	  fairness_params, fairness_metrics },
	{ "hackbench", WL_WRAPPED, "hackbench", "rt-tests hackbench; seconds",
	  hackbench_params, hackbench_metrics },
	{ "kernbench", WL_WRAPPED, "make",
	  "make -jN of a kernel tree; elapsed, user, system, CPU%",
	  kernbench_params, kernbench_metrics },
	{ "memchunk", WL_BUILTIN, NULL,
	  "short (10% duty) and long running malloc/write/free threads; "
	  "records/s",
	  memchunk_params, memchunk_metrics },
	{ "numa-bw", WL_BUILTIN, NULL,
	  "N jobs streaming over private memory; elapsed, user, sys",
	  numa_params, numa_metrics },
	{ "perf-bench-sched", WL_WRAPPED, "perf",
	  "perf bench sched messaging (hackbench) or pipe; seconds, ops/s",
	  perf_bench_params, perf_bench_metrics },
	{ "perf-stat", WL_WRAPPED, "perf",
	  "any command under perf stat -x, --repeat N; counters with their "
	  "errors",
	  perf_stat_params, perf_stat_metrics },
	{ "pipe-pingpong", WL_BUILTIN, NULL,
	  "two tasks bounce a byte over pipes; time per round trip, counters",
	  pipe_params, pipe_metrics },
	{ "reaim", WL_WRAPPED, "reaim", "re-aim-7; max jobs per minute",
	  reaim_params, reaim_metrics },
	{ "rt-app", WL_WRAPPED, "rt-app",
	  "rt-app periodic task set given inline; per task slack, wake-up "
	  "latency, performance index, missed periods",
	  rt_app_params, rt_app_metrics },
	{ "schbench", WL_BUILTIN, NULL,
	  "schbench-like: message threads wake workers through futexes; "
	  "wake-up and request latency percentiles, requests/s",
	  schbench_params, schbench_metrics },
	{ "stress-ng", WL_WRAPPED, "stress-ng",
	  "stress-ng scheduler stressor with --metrics; bogo ops/s (real "
	  "and usr+sys time)",
	  stress_ng_params, stress_ng_metrics },
	{ "sysbench", WL_WRAPPED, "sysbench",
	  "sysbench cpu/threads/mutex/oltp on PostgreSQL; events or "
	  "transactions/s",
	  sysbench_params, sysbench_metrics },
	{ "tbench", WL_WRAPPED, "tbench",
	  "dbench's tbench against tbench_srv on loopback, per client count; "
	  "MB/s",
	  tbench_params, tbench_metrics },
	{ "volanomark", WL_WRAPPED, "loopclient.sh",
	  "volanomark loop client (user provided); messages/s", volano_params,
	  volano_metrics },
};
const size_t workload_count =
	sizeof(workload_table) / sizeof(workload_table[0]);

const struct wl_desc *workload_find(const char *name)
{
	for (size_t i = 0; i < workload_count; i++)
		if (!strcmp(workload_table[i].name, name))
			return &workload_table[i];
	return NULL;
}

const struct wl_param *workload_param(const struct wl_desc *wl,
				      const char *name)
{
	if (!strcmp(name, workload_cgroup_param.name))
		return &workload_cgroup_param;
	for (const struct wl_param *p = wl->params; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

void workload_describe_type(const struct wl_param *p, struct strbuf *out)
{
	switch (p->type) {
	case WL_INT:
		strbuf_addf(out, "an integer in %.0f..%.0f", p->min, p->max);
		break;
	case WL_DOUBLE:
		strbuf_addf(out, "a number in %g..%g", p->min, p->max);
		break;
	case WL_BOOL:
		strbuf_addstr(out, "true or false");
		break;
	case WL_STRING:
		if (p->choices)
			strbuf_addf(out, "one of %s", p->choices);
		else
			strbuf_addf(out, "a string of at most %.0f bytes",
				    p->max);
		break;
	case WL_DURATION:
		strbuf_addf(out, "a duration in %gs..%gs (like 10s, 500ms, 2m)",
			    p->min / 1000, p->max / 1000);
		break;
	case WL_CONNINFO:
		strbuf_addf(out,
			    "a PostgreSQL conninfo of at most %.0f bytes "
			    "(host=... port=... user=... password=... "
			    "dbname=...)",
			    p->max);
		break;
	case WL_RTAPP_TASKS:
		strbuf_addf(out,
			    "an rt-app task set of at most %.0f bytes, one "
			    "\"- {name: N, period: 10ms, run: 2ms}\" line per "
			    "task",
			    p->max);
		break;
	}
}

/* Is value one of the '|'-separated choices? */
static int is_choice(const char *choices, const char *value)
{
	size_t n = strlen(value);

	while (*choices) {
		size_t len = strcspn(choices, "|");

		if (len == n && !strncmp(choices, value, n))
			return 1;
		choices += len;
		if (*choices == '|')
			choices++;
	}
	return 0;
}

int workload_check_value(const struct wl_param *p, const char *value,
			 double *ret_num, struct strbuf *why)
{
	double d = 0;
	int64_t i64;

	switch (p->type) {
	case WL_INT:
		if (parse_i64(value, (int64_t)p->min, (int64_t)p->max, &i64,
			      NULL) < 0)
			goto bad;
		d = (double)i64;
		break;
	case WL_DOUBLE:
		if (parse_double(value, p->min, p->max, &d, NULL) < 0)
			goto bad;
		break;
	case WL_BOOL:
		if (!strcmp(value, "true"))
			d = 1;
		else if (!strcmp(value, "false"))
			d = 0;
		else
			goto bad;
		break;
	case WL_STRING:
		if (strlen(value) > (size_t)p->max ||
		    strlen(value) < (size_t)p->min)
			goto bad;
		if (p->choices && !is_choice(p->choices, value))
			goto bad;
		break;
	case WL_DURATION:
		if (parse_duration_ms(value, (int64_t)p->min, (int64_t)p->max,
				      &i64, NULL) < 0)
			goto bad;
		d = (double)i64;
		break;
	case WL_CONNINFO: {
		struct strvec k = STRVEC_INIT, v = STRVEC_INIT;
		struct strbuf e = STRBUF_INIT;
		int r = strlen(value) > (size_t)p->max
				? -1
				: conninfo_split(value, &k, &v, &e);

		strvec_clear(&k);
		strvec_clear(&v);
		if (r < 0) {
			workload_describe_type(p, why);
			if (e.len)
				strbuf_addf(why, ": %s", e.buf);
			strbuf_release(&e);
			return -1;
		}
		strbuf_release(&e);
		break;
	}
	case WL_RTAPP_TASKS: {
		struct rtapp_taskset *ts = xcalloc(1, sizeof(*ts));
		struct strbuf e = STRBUF_INIT;
		int r = strlen(value) > (size_t)p->max
				? -1
				: rtapp_taskset_parse(value, ts, &e);

		free(ts);
		if (r < 0) {
			workload_describe_type(p, why);
			if (e.len)
				strbuf_addf(why, ": %s", e.buf);
			strbuf_release(&e);
			return -1;
		}
		strbuf_release(&e);
		/* A hash as the number: sweeps and defaults compare numbers,
		 * so two task sets compare as their texts do. */
		uint64_t h = 1469598103934665603ULL; /* FNV-1a */

		for (const char *c = value; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ULL;
		d = (double)(h >> 11);
		break;
	}
	}
	if (ret_num)
		*ret_num = d;
	return 0;
bad:
	workload_describe_type(p, why);
	return -1;
}

/* The value of a scalar member as text (numbers as written). */
static void scalar_text(const struct json_value *v, struct strbuf *out)
{
	int b = 0;

	switch (json_type_of(v)) {
	case JSON_STRING:
		strbuf_add(out, json_string(v), json_string_len(v));
		break;
	case JSON_NUMBER:
		strbuf_addstr(out, json_number_text(v));
		break;
	case JSON_BOOL:
		json_bool(v, &b);
		strbuf_addstr(out, b ? "true" : "false");
		break;
	default:
		strbuf_addstr(out, "null");
		break;
	}
}

/* Is text the parameter's default (compared as its type compares)? */
static int is_default(const struct wl_param *p, const char *text)
{
	struct strbuf why = STRBUF_INIT;
	double a, b;
	int same;

	if (!p || !p->def)
		return 0;
	if (p->type == WL_STRING)
		return !strcmp(text, p->def);
	same = workload_check_value(p, text, &a, &why) == 0 &&
	       workload_check_value(p, p->def, &b, &why) == 0 && a == b;
	strbuf_release(&why);
	return same;
}

/*
 * The table entry of parameter name in params of workload wl, or of a
 * together run's "MEMBER.param" (params names MEMBER's workload), or NULL.
 */
static const struct wl_param *label_param(const struct wl_desc *wl,
					  const struct json_value *params,
					  const char *name)
{
	const char *dot = strchr(name, '.');
	struct strbuf member = STRBUF_INIT;
	const char *mwl;

	if (wl)
		return workload_param(wl, name);
	if (!dot)
		return NULL;
	strbuf_add(&member, name, (size_t)(dot - name));
	mwl = json_member_string(params, member.buf);
	strbuf_release(&member);
	wl = mwl ? workload_find(mwl) : NULL;
	return wl ? workload_param(wl, dot + 1) : NULL;
}

void workload_params_label(const char *workload,
			   const struct json_value *params, struct strbuf *out)
{
	const struct wl_desc *wl = workload_find(workload);
	struct strbuf v = STRBUF_INIT;
	size_t n = json_len(params), shown = 0;

	for (size_t i = 0; i < n; i++) {
		const char *name = json_key_at(params, i);
		const struct wl_param *p = label_param(wl, params, name);

		strbuf_reset(&v);
		scalar_text(json_value_at(params, i), &v);
		if (wl && is_default(p, v.buf))
			continue;
		strbuf_addf(out, "%s%s=", shown++ ? " " : "", name);
		if (p && p->type == WL_RTAPP_TASKS)
			rtapp_taskset_label(v.buf, out);
		else
			strbuf_addstr(out, v.buf);
	}
	strbuf_release(&v);
}

int workload_metric_declared(const char *const *decl, const char *name)
{
	for (size_t i = 0; decl && decl[i]; i++)
		if (!strcmp(decl[i], name) || !fnmatch(decl[i], name, 0) ||
		    !fnmatch(name, decl[i], 0))
			return 1;
	return 0;
}

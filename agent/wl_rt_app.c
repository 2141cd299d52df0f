/*
 * wl_rt_app.c - rt-app: the periodic task sets EAS, deadline and uclamp
 * work is judged with.  The plan gives the task set inline (params.tasks,
 * common/rtapp.h); the agent writes rt-app's JSON for it into a folder of
 * the run's own, runs `rt-app FILE` in the workload's cgroup for the
 * run's duration, and reads the per-thread logs rt-app leaves there
 * (rt-TASK-N.log: one row per period, doc/PLANS.md lists the columns).
 * Each task's threads are summed into TASK.slack_avg_us,
 * TASK.wakeup_latency_avg_us, TASK.perf_index, TASK.missed_periods and
 * the rest (parse_rt_app_logs()).
 *
 * A real-time policy (fifo, rr) in a cgroup v1 cpu group needs RT time
 * there: the group is given what its RT threads use and a margin, no
 * more, so that the rest of the machine's 95% stays for its neighbours
 * (cyclictest's main thread among them).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "rtapp.h"
#include "run-command.h"
#include "banned.h"

/* rt-app loops per ns: unused by "runtime" events, given so that rt-app
 * skips its seconds-long calibration. */
#define RT_APP_NS_PER_LOOP 100

static int ra_check(const struct run_spec *s, struct strbuf *field,
		    struct strbuf *err)
{
	struct rtapp_taskset *ts = xcalloc(1, sizeof(*ts));
	int rc = rtapp_taskset_parse(spec_param(s, "tasks"), ts, err);

	if (rc < 0)
		strbuf_addstr(field, "params.tasks");
	free(ts);
	return rc;
}

/*
 * The logs in dir as parse_rt_app_logs() reads them: "# task NAME" and
 * the file, for each rt-NAME-N.log (N: rt-app's thread index).
 */
static int read_logs(const char *dir, struct strbuf *out, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct strbuf path = STRBUF_INIT;
	int rc = 0;

	if (!d) {
		strbuf_addf(err, "cannot read %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		const char *dash;

		if (n < 9 || !starts_with(e->d_name, "rt-") ||
		    strcmp(e->d_name + n - 4, ".log"))
			continue;
		dash = memrchr(e->d_name, '-', n - 4);
		if (!dash || dash < e->d_name + 3)
			continue;
		strbuf_addstr(out, "# task ");
		strbuf_add(out, e->d_name + 3, (size_t)(dash - e->d_name - 3));
		strbuf_addch(out, '\n');
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, e->d_name);
		if (out->len > (64 << 20) ||
		    strbuf_read_file(out, path.buf, 16 << 20) < 0) {
			strbuf_addf(err, "cannot read %s", path.buf);
			rc = -1;
			break;
		}
		strbuf_addch(out, '\n');
	}
	closedir(d);
	strbuf_release(&path);
	return rc;
}

static int ra_run(struct agent_ctx *ctx, struct strbuf *err)
{
	char dir[] = "/tmp/schedfarm-rt-app-XXXXXX";
	struct rtapp_taskset *ts = xcalloc(1, sizeof(*ts));
	struct child_process cp;
	struct strbuf json = STRBUF_INIT, path = STRBUF_INIT,
		      logs = STRBUF_INIT;
	struct metrics ms;
	int64_t dur_s = (spec_param_ms(ctx->spec, "duration") + 999) / 1000;
	int rc = -1, made = 0;

	metrics_init(&ms);
	child_process_init(&cp);
	if (rtapp_taskset_parse(spec_param(ctx->spec, "tasks"), ts, err) < 0)
		goto out;
	if (!mkdtemp(dir)) {
		strbuf_addf(err, "cannot make a folder for rt-app: %s",
			    strerror(errno));
		goto out;
	}
	made = 1;
	rtapp_json(ts, dur_s, dir, RT_APP_NS_PER_LOOP, &json);
	strbuf_addf(&path, "%s/taskset.json", dir);
	if (write_file_atomic(path.buf, json.buf, json.len, 0644, 0, err) < 0)
		goto out;
	strvec_pushl(&cp.args, "rt-app", path.buf, (char *)NULL);
	cp.dir = dir;
	cp.capture_out = 1;
	cp.merge_err = 1;
	if (wrapped_prepare(ctx, &cp, err) < 0)
		goto out;
	if (wrapped_exec(ctx, &cp, err) < 0) {
		strbuf_addf(err, "; output ends: %s",
			    cp.out.len > 600 ? cp.out.buf + cp.out.len - 600
					     : cp.out.buf);
		goto out;
	}
	if (read_logs(dir, &logs, err) < 0 ||
	    parse_rt_app_logs(logs.buf, logs.len, &ms, err) < 0)
		goto out;
	wrapped_emit_metrics(ctx, &ms);
	rc = 0;
out:
	if (made) {
		struct strbuf ignore = STRBUF_INIT;

		remove_tree(dir, &ignore);
		strbuf_release(&ignore);
	}
	free(ts);
	metrics_release(&ms);
	child_process_clear(&cp);
	strbuf_release(&json);
	strbuf_release(&path);
	strbuf_release(&logs);
	return rc;
}

/*
 * RT time for the group when a task is fifo or rr (cgroup v1): what its
 * RT threads use of a period (run / period, summed over threads, as if
 * all ran on one CPU) and a tenth more, at least 5%, at most 90%.
 */
static void ra_add_cgroups(const struct run_spec *s, struct cg_run *cg)
{
	struct rtapp_taskset *ts = xcalloc(1, sizeof(*ts));
	struct strbuf ignore = STRBUF_INIT;
	double share = 0;

	if (rtapp_taskset_parse(spec_param(s, "tasks"), ts, &ignore) == 0)
		for (int i = 0; i < ts->n; i++)
			if (ts->tasks[i].policy != RTAPP_OTHER)
				share += (double)ts->tasks[i].instances *
					 (double)ts->tasks[i].run_us /
					 (double)ts->tasks[i].period_us;
	if (share > 0) {
		share *= 1.1;
		share = share < 0.05 ? 0.05 : share > 0.9 ? 0.9 : share;
		cg_run_need_rt(cg, spec_param(s, "cgroup"),
			       (int)(share * 1000000));
	}
	free(ts);
	strbuf_release(&ignore);
}

const struct wl_ops wl_rt_app = {
	.name = "rt-app",
	.check = ra_check,
	.add_cgroups = ra_add_cgroups,
	.run = ra_run,
};

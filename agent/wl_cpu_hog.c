/*
 * wl_cpu_hog.c - N busy loops in the workload's cgroup for a duration:
 * the simplest load there is, for one side of a group-fairness pair (seed
 * 001's "3 loops in /a, 1 in /b", as two together members) or a noisy
 * neighbour beside a measured workload.
 *
 * The loops are spawned spinners (worker_spawn_spin()), so starting them
 * costs the agent next to nothing; their CPU time comes from their CPU
 * clocks at the start and the end, not from sampling, so the agent sleeps
 * through the whole window.  Results are in percent of
 * one CPU, as top shows them.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "banned.h"

static int hog_run(struct agent_ctx *ctx, struct strbuf *err)
{
	int tasks = (int)spec_param_i64(ctx->spec, "tasks");
	int64_t duration = spec_param_ms(ctx->spec, "duration");
	const char *cg = spec_param(ctx->spec, "cgroup");
	struct worker *w = xcalloc((size_t)tasks, sizeof(*w));
	clockid_t *clk = xcalloc((size_t)tasks, sizeof(*clk));
	uint64_t *first = xcalloc((size_t)tasks, sizeof(uint64_t));
	uint64_t used = 0;
	int64_t t0, t1;
	struct spin_gate gate = { -1, -1, 0 };
	int rc = -1;

	for (int t = 0; t < tasks; t++) {
		w[t].pid = -1;
		w[t].gate_fd = w[t].result_fd = -1;
		strbuf_init(&w[t].result, 0);
	}
	if (spin_gate_open(&gate, err) < 0)
		goto out;
	for (int t = 0; t < tasks; t++) {
		if (worker_spawn_spin(ctx, &w[t], &gate, cg, err) < 0)
			goto out;
		if (task_cpu_clock(w[t].pid, &clk[t]) < 0) {
			strbuf_addstr(err, "cannot read the CPU time of a loop "
					   "(clock_getcpuclockid)");
			goto out;
		}
	}
	spin_gate_release(&gate);
	t0 = mono_ms();
	for (int t = 0; t < tasks; t++)
		first[t] = task_cpu_ns(clk[t]);
	if (agent_sleep_until(t0 + duration) < 0) {
		strbuf_addstr(err, "stopped");
		goto out;
	}
	t1 = mono_ms();
	for (int t = 0; t < tasks; t++)
		used += task_cpu_ns(clk[t]) - first[t];
	for (int t = 0; t < tasks; t++) {
		worker_kill(&w[t]);
		if (spin_check(&w[t], err) < 0)
			goto out;
	}
	if (t1 <= t0) {
		strbuf_addstr(err, "the clock did not move");
		goto out;
	}
	{
		double pct = 100.0 * (double)used / 1e6 / (double)(t1 - t0);

		emit_result(ctx->em, "cpu_pct", pct, "%cpu", "none");
		emit_result(ctx->em, "cpu_pct_per_task", pct / tasks, "%cpu",
			    "none");
		emit_result(ctx->em, "cpu_s", (double)used / 1e9, "s", "none");
	}
	rc = 0;
out:
	spin_gate_close(&gate);
	for (int t = 0; t < tasks; t++)
		worker_clear(&w[t]);
	free(w);
	free(clk);
	free(first);
	return rc;
}

const struct wl_ops wl_cpu_hog = {
	.name = "cpu-hog",
	.run = hog_run,
};

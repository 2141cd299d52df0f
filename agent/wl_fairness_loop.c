/*
 * wl_fairness_loop.c - seed 001's fairness test: N busy loops in each named
 * cgroup ("5 in one group, 2 in another") for a duration, with every task's
 * and group's CPU share over the run and as a time series.
 *
 * Shares are in percent of one CPU, like top's %CPU in the seed: 5 loops in
 * /a and 2 in /b with equal weights on 2 CPUs give about 20% per /a task and
 * 50% per /b task.  Each task's CPU time comes from its CPU-time clock
 * (clock_getcpuclockid: one clock_gettime per task and sample), each
 * group's also from its cgroup usage.  Derived: Jain's index and max/min
 * ratio over weight-normalised group shares, and the time to converge: the
 * start of the first sample interval from which every group stays within
 * converge_pct of its entitlement (weight share of what was used in that
 * interval, water-filled so a group never gets more than its loops can use).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "banned.h"

struct fl_state {
	struct loop_group *g;
	size_t ng;
	int *weight; /* resolved per group */
};

static int fl_check(const struct run_spec *s, struct strbuf *field,
		    struct strbuf *err)
{
	struct loop_group *g;
	size_t n;

	if (parse_loop_groups(spec_param(s, "groups"), &g, &n, err) < 0) {
		strbuf_addstr(field, "params.groups");
		return -1;
	}
	free_loop_groups(g, n);
	return 0;
}

static void fl_add_cgroups(const struct run_spec *s, struct cg_run *cg)
{
	struct loop_group *g;
	size_t n;
	struct strbuf err = STRBUF_INIT;

	if (parse_loop_groups(spec_param(s, "groups"), &g, &n, &err) == 0) {
		for (size_t i = 0; i < n; i++)
			cg_run_add(cg, g[i].path, g[i].weight, 0, NULL);
		free_loop_groups(g, n);
	}
	strbuf_release(&err);
}

static int fl_setup(struct agent_ctx *ctx, struct strbuf *err)
{
	struct fl_state *st = xcalloc(1, sizeof(*st));

	ctx->wl_state = st;
	if (parse_loop_groups(spec_param(ctx->spec, "groups"), &st->g, &st->ng,
			      err) < 0)
		return -1;
	st->weight = xcalloc(st->ng, sizeof(int));
	for (size_t i = 0; i < st->ng; i++) {
		st->weight[i] = st->g[i].weight ? st->g[i].weight : 100;
		if (!st->g[i].weight)
			for (size_t j = 0; j < ctx->cg->ngroups; j++)
				if (!strcmp(ctx->cg->groups[j].path,
					    st->g[i].path))
					st->weight[i] =
						ctx->cg->groups[j].weight;
	}
	return 0;
}

static void fl_teardown(struct agent_ctx *ctx)
{
	struct fl_state *st = ctx->wl_state;

	if (!st)
		return;
	free_loop_groups(st->g, st->ng);
	free(st->weight);
	free(st);
	ctx->wl_state = NULL;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Entitlements for one interval: capacity `cap` (percent of a CPU) shared
 * by weight, no group getting more than demand[g] (its loops x 100%); what
 * a capped group cannot use goes to the others (water-filling).  fixed is
 * the caller's scratch of ng ints (this runs at every sample).
 */
static void entitlements(size_t ng, const int *weight, const double *demand,
			 double cap, double *ent, int *fixed)
{
	memset(fixed, 0, ng * sizeof(int));
	for (;;) {
		double wsum = 0, left = cap;
		int changed = 0;

		for (size_t g = 0; g < ng; g++) {
			if (fixed[g])
				left -= ent[g];
			else
				wsum += weight[g];
		}
		if (wsum <= 0)
			break;
		for (size_t g = 0; g < ng; g++)
			if (!fixed[g])
				ent[g] = left * weight[g] / wsum;
		for (size_t g = 0; g < ng; g++)
			if (!fixed[g] && ent[g] > demand[g]) {
				ent[g] = demand[g];
				fixed[g] = 1;
				changed = 1;
			}
		if (!changed)
			break;
	}
}

static int fl_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct fl_state *st = ctx->wl_state;
	struct emitter *em = ctx->em;
	size_t nt = 0, t;
	struct worker *w;
	clockid_t *clk;
	int *gof;
	uint64_t *first, *prev, *cur;
	double *gshare, *ent, *demand, *xnorm;
	int *fixed;
	int64_t interval = spec_param_ms(ctx->spec, "sample_interval");
	int64_t duration = spec_param_ms(ctx->spec, "duration");
	double pct = spec_param_double(ctx->spec, "converge_pct");
	int64_t t0, tprev, tick, end_ms, start_ms;
	double converge_at = -1;
	int rc = -1, nsamples = 0;
	struct strbuf series = STRBUF_INIT;
	struct strvec tnames = STRVEC_INIT, gnames = STRVEC_INIT;
	struct spin_gate gate = { -1, -1, 0 };
	struct rt_wake rt = { 0 };

	for (size_t g = 0; g < st->ng; g++)
		nt += (size_t)st->g[g].tasks;
	w = xcalloc(nt, sizeof(*w));
	clk = xcalloc(nt, sizeof(*clk));
	gof = xcalloc(nt, sizeof(int));
	first = xcalloc(nt, sizeof(uint64_t));
	prev = xcalloc(nt, sizeof(uint64_t));
	cur = xcalloc(nt, sizeof(uint64_t));
	gshare = xcalloc(st->ng, sizeof(double));
	ent = xcalloc(st->ng, sizeof(double));
	demand = xcalloc(st->ng, sizeof(double));
	xnorm = xcalloc(st->ng, sizeof(double));
	fixed = xcalloc(st->ng, sizeof(int));
	for (t = 0; t < nt; t++) {
		w[t].pid = -1;
		w[t].gate_fd = w[t].result_fd = -1;
		strbuf_init(&w[t].result, 0);
	}
	if (spin_gate_open(&gate, err) < 0)
		goto out;
	t = 0;
	for (size_t g = 0; g < st->ng; g++) {
		demand[g] = 100.0 * st->g[g].tasks;
		for (int k = 0; k < st->g[g].tasks; k++, t++) {
			gof[t] = (int)g;
			if (worker_spawn_spin(ctx, &w[t], &gate, st->g[g].path,
					      err) < 0)
				goto out;
			if (task_cpu_clock(w[t].pid, &clk[t]) < 0) {
				strbuf_addstr(err,
					      "cannot read a loop's CPU "
					      "time (clock_getcpuclockid)");
				goto out;
			}
		}
	}
	for (t = 0; t < nt; t++)
		strvec_pushf(&tnames, "share.%s/task%zu", st->g[gof[t]].path,
			     t);
	for (size_t g = 0; g < st->ng; g++)
		strvec_pushf(&gnames, "share.%s", st->g[g].path);
	spin_gate_release(&gate);
	rt_wake_begin(&rt);
	t0 = tprev = now_ns();
	start_ms = mono_ms();
	end_ms = start_ms + duration;
	for (t = 0; t < nt; t++)
		first[t] = prev[t] = task_cpu_ns(clk[t]);

	for (tick = start_ms + interval;; tick += interval) {
		int64_t tnow, dt;
		double cap = 0, tsec;
		int conv = 1;

		if (tick > end_ms)
			tick = end_ms;
		if (agent_sleep_until(tick) < 0) {
			strbuf_addstr(err, "stopped");
			goto out;
		}
		/* Woken late (a loaded machine kept the sampler off a CPU):
		 * the ticks already past are one sample over the longer dt,
		 * not several at the same instant. */
		if (mono_ms() - tick >= interval) {
			tick += (mono_ms() - tick) / interval * interval;
			if (tick > end_ms)
				tick = end_ms;
		}
		tnow = now_ns();
		dt = tnow - tprev;
		tsec = (double)(tnow - t0) / 1e9;
		memset(gshare, 0, st->ng * sizeof(double));
		for (t = 0; t < nt; t++) {
			double share;

			cur[t] = task_cpu_ns(clk[t]);
			share = dt > 0 ? 100.0 * (double)(cur[t] - prev[t]) /
						 (double)dt
				       : 0;
			gshare[gof[t]] += share;
			emit_sample(em, tnames.v[t], tsec, share);
			prev[t] = cur[t];
		}
		for (size_t g = 0; g < st->ng; g++) {
			emit_sample(em, gnames.v[g], tsec, gshare[g]);
			cap += gshare[g];
		}
		entitlements(st->ng, st->weight, demand, cap, ent, fixed);
		for (size_t g = 0; g < st->ng; g++)
			if (ent[g] > 0 &&
			    fabs(gshare[g] - ent[g]) > ent[g] * pct / 100)
				conv = 0;
		if (conv && converge_at < 0)
			converge_at = (double)(tprev - t0) / 1e9;
		if (!conv)
			converge_at = -1;
		nsamples++;
		tprev = tnow;
		if (em->pending.len > 32768)
			emit_flush(em);
		if (tick >= end_ms)
			break;
	}
	rt_wake_end(&rt);
	emit_flush(em);

	/* Over the whole run. */
	{
		double wall = (double)(tprev - t0);
		double sum = 0, sumsq = 0, mx = 0, mn = INFINITY;

		uint64_t *sw = xcalloc(2 * nt, sizeof(uint64_t));
		int *sw_ok = xcalloc(nt, sizeof(int)), bad = 0;

		/* Switches before the loops die, then every loop checked
		 * before a result is said: a loop that ended by itself makes
		 * the whole iteration wrong. */
		for (t = 0; t < nt; t++) {
			struct strbuf f = STRBUF_INIT, c = STRBUF_INIT;

			strbuf_addf(&f, "/proc/%ld/status", (long)w[t].pid);
			sw_ok[t] =
				strbuf_read_file(&c, f.buf, 65536) >= 0 &&
				task_status_switches(c.buf, c.len, &sw[2 * t],
						     &sw[2 * t + 1]) == 0;
			strbuf_release(&f);
			strbuf_release(&c);
		}
		for (t = 0; t < nt; t++) {
			worker_kill(&w[t]);
			if (!bad && spin_check(&w[t], err) < 0)
				bad = 1;
		}
		memset(gshare, 0, st->ng * sizeof(double));
		for (t = 0; !bad && t < nt; t++) {
			double share =
				100.0 * (double)(cur[t] - first[t]) / wall;
			struct strbuf path = STRBUF_INIT;

			gshare[gof[t]] += share;
			strbuf_reset(&series);
			strbuf_addf(&series, "share.%s/task%zu",
				    st->g[gof[t]].path, t);
			emit_result(em, series.buf, share, "%cpu", "none");
			strbuf_addf(&path, "%s/task%zu", st->g[gof[t]].path, t);
			if (sw_ok[t]) {
				emit_counter(em, "task", path.buf,
					     "voluntary_switches",
					     (double)sw[2 * t]);
				emit_counter(em, "task", path.buf,
					     "involuntary_switches",
					     (double)sw[2 * t + 1]);
			}
			if (w[t].ts_ok) {
				emit_counter(em, "task", path.buf, "run_ns",
					     (double)w[t].ts.run_ns);
				emit_counter(em, "task", path.buf, "wait_ns",
					     (double)w[t].ts.wait_ns);
				emit_counter(em, "task", path.buf, "slices",
					     (double)w[t].ts.slices);
			}
			strbuf_release(&path);
		}
		free(sw);
		free(sw_ok);
		if (bad)
			goto out;
		for (size_t g = 0; g < st->ng; g++) {
			strbuf_reset(&series);
			strbuf_addf(&series, "share.%s", st->g[g].path);
			emit_result(em, series.buf, gshare[g], "%cpu", "none");
			strbuf_reset(&series);
			strbuf_addf(&series, "share_per_task.%s",
				    st->g[g].path);
			if (st->g[g].tasks)
				emit_result(em, series.buf,
					    gshare[g] / st->g[g].tasks, "%cpu",
					    "none");
			xnorm[g] = gshare[g] / st->weight[g];
			sum += xnorm[g];
			sumsq += xnorm[g] * xnorm[g];
			if (xnorm[g] > mx)
				mx = xnorm[g];
			if (xnorm[g] < mn)
				mn = xnorm[g];
		}
		if (sumsq > 0)
			emit_result(em, "jain_index",
				    sum * sum / ((double)st->ng * sumsq),
				    "ratio", "higher");
		if (mn > 0)
			emit_result(em, "max_min_ratio", mx / mn, "ratio",
				    "lower");
		emit_result(em, "converged", converge_at >= 0 ? 1 : 0, "bool",
			    "higher");
		emit_result(em, "converge_s",
			    converge_at >= 0 ? converge_at : wall / 1e9, "s",
			    "lower");
		emit_result(em, "samples", nsamples, "count", "none");
	}
	rc = 0;
out:
	rt_wake_end(&rt);
	spin_gate_close(&gate);
	for (t = 0; t < nt; t++)
		worker_clear(&w[t]);
	free(w);
	free(clk);
	free(gof);
	free(first);
	free(prev);
	free(cur);
	free(gshare);
	free(ent);
	free(demand);
	free(xnorm);
	free(fixed);
	strbuf_release(&series);
	strvec_clear(&tnames);
	strvec_clear(&gnames);
	return rc;
}

const struct wl_ops wl_fairness_loop = {
	.name = "fairness-loop",
	.check = fl_check,
	.add_cgroups = fl_add_cgroups,
	.setup = fl_setup,
	.run = fl_run,
	.teardown = fl_teardown,
};

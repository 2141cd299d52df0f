/*
 * counters.c - the "Scheduler counters" section of a run page, laid out
 * as `perf sched stats` shows /proc/schedstat.
 *
 * The agent reports counters as (source, scope, name, value) deltas per
 * iteration; schedstat scopes are "cpuN" or "cpuN/domainM[/idle type]".
 * Per iteration (the first MAX_COUNTER_ITERATIONS) this draws a matrix of
 * counters by CPU, one per domain level with the idle type before each
 * load-balance counter, and the other sources as a list; counters the
 * kernel could not give are listed with the agent's reason.  Every
 * counter is also in one data table, so the caps lose nothing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "store/db.h"
#include "parse.h"
#include "report/page.h"
#include "banned.h"

/* Columns (CPUs) per matrix and iterations drawn; the data table has all. */
#define MAX_COUNTER_CPUS 16
#define MAX_COUNTER_ITERATIONS 3

/* What perf sched stats says of each /proc/schedstat field. */
static const struct {
	const char *name, *desc;
} counter_desc[] = {
	{ "yld_count", "sched_yield() calls" },
	{ "sched_count", "schedule() calls" },
	{ "sched_goidle", "schedule() left the CPU idle" },
	{ "ttwu_count", "try_to_wake_up() calls" },
	{ "ttwu_local", "wakeups on the local CPU" },
	{ "rq_cpu_time", "time tasks ran on this CPU (ns)" },
	{ "run_delay", "time tasks waited to run (ns): latency" },
	{ "pcount", "timeslices run" },
	{ "lb_count", "load_balance() calls" },
	{ "lb_balanced", "found the domain already balanced" },
	{ "lb_failed", "failed to move any task" },
	{ "lb_imbalance", "imbalance found (sum)" },
	{ "lb_imbalance_load", "load imbalance found (sum)" },
	{ "lb_imbalance_util", "utilisation imbalance found (sum)" },
	{ "lb_imbalance_task", "task-count imbalance found (sum)" },
	{ "lb_imbalance_misfit", "misfit imbalance found (sum)" },
	{ "lb_gained", "tasks pulled: migrations" },
	{ "lb_hot_gained", "cache-hot tasks pulled anyway" },
	{ "lb_nobusyq", "no busier runqueue found" },
	{ "lb_nobusyg", "no busier group found" },
	{ "alb_count", "active load balance attempts" },
	{ "alb_failed", "active load balance failed" },
	{ "alb_pushed", "tasks pushed by active balance" },
	{ "sbe_count", "exec balancing: calls" },
	{ "sbe_balanced", "exec balancing: already balanced" },
	{ "sbe_pushed", "exec balancing: tasks moved" },
	{ "sbf_count", "fork balancing: calls" },
	{ "sbf_balanced", "fork balancing: already balanced" },
	{ "sbf_pushed", "fork balancing: tasks moved" },
	{ "ttwu_wake_remote", "wakeups of tasks last on another CPU" },
	{ "ttwu_move_affine", "wakeups moved to the waking CPU (affine)" },
	{ "ttwu_move_balance", "wakeups moved by balancing" },
};

static const char *describe_counter(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(counter_desc); i++)
		if (!strcmp(counter_desc[i].name, name))
			return counter_desc[i].desc;
	return "";
}

/*
 * One counter matrix: a row per counter (key), a column per CPU in the
 * order first seen, up to MAX_COUNTER_CPUS; the total covers every CPU.
 */
struct cmatrix {
	char *title;
	struct strvec rows; /* "busy lb_count", "alb_pushed" */
	struct strvec rnames; /* the bare counter name, for descriptions */
	int cpus[MAX_COUNTER_CPUS];
	int ncpus, more_cpus;
	double *cells; /* rows.nr x MAX_COUNTER_CPUS */
	double *total; /* per row, over every CPU (shown or not) */
	size_t alloc;
};

/* The row of key, added (cells NaN, total 0) when new; name is its bare
 * counter name, for describe_counter(). */
static int cm_row(struct cmatrix *m, const char *key, const char *name)
{
	size_t i;

	for (i = 0; i < m->rows.nr; i++)
		if (!strcmp(m->rows.v[i], key))
			return (int)i;
	strvec_push(&m->rows, key);
	strvec_push(&m->rnames, name);
	if (m->rows.nr > m->alloc) {
		size_t old = m->alloc;

		m->alloc = m->alloc ? m->alloc * 2 : 16;
		m->cells = xrealloc(m->cells, sizeof(double) * m->alloc *
						      MAX_COUNTER_CPUS);
		m->total = xrealloc(m->total, sizeof(double) * m->alloc);
		for (size_t k = old * MAX_COUNTER_CPUS;
		     k < m->alloc * MAX_COUNTER_CPUS; k++)
			m->cells[k] = NAN;
		for (size_t k = old; k < m->alloc; k++)
			m->total[k] = 0;
	}
	return (int)i;
}

/* Put v at (key, cpu); a CPU beyond the shown columns counts in the total
 * only, and sets more_cpus. */
static void cm_put(struct cmatrix *m, const char *key, const char *name,
		   int cpu, double v)
{
	int row = cm_row(m, key, name), c;

	if (isfinite(v))
		m->total[row] += v;
	for (c = 0; c < m->ncpus; c++)
		if (m->cpus[c] == cpu)
			break;
	if (c == m->ncpus) {
		if (m->ncpus == MAX_COUNTER_CPUS) {
			m->more_cpus = 1;
			return;
		}
		m->cpus[m->ncpus++] = cpu;
	}
	m->cells[(size_t)row * MAX_COUNTER_CPUS + (size_t)c] = v;
}

static void cm_release(struct cmatrix *m)
{
	free(m->title);
	strvec_clear(&m->rows);
	strvec_clear(&m->rnames);
	free(m->cells);
	free(m->total);
}

/* The matrix as an HTML table, with what each counter counts. */
static void cm_html(struct strbuf *b, const struct cmatrix *m)
{
	strbuf_addstr(b, "<div class=\"table-wrap\"><table class=\"data "
			 "counters\"><caption>");
	strbuf_add_html(b, m->title);
	strbuf_addstr(b, "</caption><thead><tr><th>counter</th>");
	for (int c = 0; c < m->ncpus; c++)
		strbuf_addf(b, "<th class=\"num\">cpu%d</th>", m->cpus[c]);
	strbuf_addstr(b, "<th class=\"num\">all CPUs</th><th>what it "
			 "counts</th></tr></thead><tbody>");
	for (size_t i = 0; i < m->rows.nr; i++) {
		strbuf_addstr(b, "<tr><td>");
		strbuf_add_html(b, m->rows.v[i]);
		strbuf_addstr(b, "</td>");
		for (int c = 0; c < m->ncpus; c++)
			td_value(b, m->cells[i * MAX_COUNTER_CPUS + (size_t)c]);
		td_value(b, m->total[i]);
		strbuf_addstr(b, "<td class=\"desc\">");
		strbuf_add_html(b, describe_counter(m->rnames.v[i]));
		strbuf_addstr(b, "</td></tr>");
	}
	strbuf_addstr(b, "</tbody></table></div>");
	if (m->more_cpus)
		strbuf_addf(b,
			    "<p class=\"note\">Columns for the first %d "
			    "CPUs; \"all CPUs\" and the CSV cover every "
			    "CPU.</p>",
			    MAX_COUNTER_CPUS);
}

/* Parse "cpu12" or "cpu12/domain1/busy": cpu, domain (-1), type (""). */
static int parse_scope(const char *scope, int *ret_cpu, int *ret_dom,
		       struct strbuf *ret_type)
{
	struct strvec parts = STRVEC_INIT;
	int ok = -1;

	strvec_split(&parts, scope, '/');
	*ret_dom = -1;
	strbuf_reset(ret_type);
	if (parts.nr >= 1 && parts.nr <= 3 && starts_with(parts.v[0], "cpu") &&
	    parse_int(parts.v[0] + 3, 0, 1 << 20, ret_cpu, NULL) == 0) {
		ok = 0;
		if (parts.nr >= 2 &&
		    (!starts_with(parts.v[1], "domain") ||
		     parse_int(parts.v[1] + 6, 0, 64, ret_dom, NULL) < 0))
			ok = -1;
		if (parts.nr == 3)
			strbuf_addstr(ret_type, parts.v[2]);
	}
	strvec_clear(&parts);
	return ok;
}

/*
 * The counters of one run, laid out as `perf sched stats` shows them: a
 * CPU table (one column per CPU plus the sum), one table per domain level
 * with the idle type before each load-balance counter, then every other
 * source as a plain list; counters the kernel could not give are listed
 * with the agent's reason.  rows/from/to index the run's slice of res.
 */
/*
 * The schedstat matrices of one iteration, iter, from its counter rows
 * [from, to) of res (pages_run_counters()' columns): one by CPU, one per
 * domain level.  type and key are scratch buffers.  Returns how many rows
 * are of other sources (or not available), for counters_other().
 */
static int counters_matrices(struct strbuf *b, const struct db_result *res,
			     int from, int to, int iter, struct strbuf *type,
			     struct strbuf *key)
{
	struct cmatrix cpu, dom[8];
	int ndom = 0, nother = 0;

	memset(&cpu, 0, sizeof(cpu));
	memset(dom, 0, sizeof(dom));
	strvec_init(&cpu.rows);
	strvec_init(&cpu.rnames);
	cpu.title = xstrfmt("Iteration %d: per CPU (schedstat)", iter);
	for (int k = from; k < to; k++) {
		const char *src = db_get(res, k, 2), *scope = db_get(res, k, 3),
			   *name = db_get(res, k, 4);
		int c, d;

		if (strcmp(S(src), "schedstat") ||
		    strcmp(S(db_get(res, k, 6)), "t") ||
		    parse_scope(S(scope), &c, &d, type) < 0) {
			nother++;
			continue;
		}
		if (d < 0) {
			cm_put(&cpu, name, name, c, num(db_get(res, k, 5)));
			continue;
		}
		if (d >= (int)ARRAY_SIZE(dom))
			continue;
		if (d >= ndom) {
			for (int n = ndom; n <= d; n++) {
				strvec_init(&dom[n].rows);
				strvec_init(&dom[n].rnames);
				dom[n].title =
					xstrfmt("Iteration %d: domain%d "
						"(load balancing per idle "
						"type)",
						iter, n);
			}
			ndom = d + 1;
		}
		strbuf_reset(key);
		if (type->len)
			strbuf_addf(key, "%s %s", type->buf, name);
		else
			strbuf_addstr(key, name);
		cm_put(&dom[d], key->buf, name, c, num(db_get(res, k, 5)));
	}
	if (cpu.rows.nr)
		cm_html(b, &cpu);
	for (int n = 0; n < ndom; n++)
		if (dom[n].rows.nr)
			cm_html(b, &dom[n]);
	cm_release(&cpu);
	for (int n = 0; n < ndom; n++)
		cm_release(&dom[n]);
	return nother;
}

/*
 * The rows [from, to) of res that counters_matrices() left out (other
 * sources, counters not available with the agent's reason) as a list.
 */
static void counters_other(struct strbuf *b, const struct db_result *res,
			   int from, int to, struct strbuf *type)
{
	strbuf_addstr(b, "<div class=\"table-wrap\"><table "
			 "class=\"data counters\"><caption>"
			 "Other sources</caption><thead><tr>"
			 "<th>source</th><th>scope</th>"
			 "<th>counter</th><th class=\"num\">"
			 "value</th></tr></thead><tbody>");
	for (int k = from; k < to; k++) {
		int c, d;

		if (!strcmp(S(db_get(res, k, 2)), "schedstat") &&
		    !strcmp(S(db_get(res, k, 6)), "t") &&
		    parse_scope(S(db_get(res, k, 3)), &c, &d, type) == 0)
			continue;
		strbuf_addstr(b, "<tr><td>");
		strbuf_add_html(b, db_get(res, k, 2));
		strbuf_addstr(b, "</td><td>");
		strbuf_add_html(b, db_get(res, k, 3));
		strbuf_addstr(b, "</td><td>");
		strbuf_add_html(b, db_get(res, k, 4));
		if (strcmp(S(db_get(res, k, 6)), "t")) {
			strbuf_addstr(b, "</td><td class="
					 "\"unavailable\">not "
					 "available: ");
			strbuf_add_html(b, db_get(res, k, 7));
		} else {
			strbuf_addstr(b, "</td><td class="
					 "\"num\">");
			fmt_value(b, num(db_get(res, k, 5)));
		}
		strbuf_addstr(b, "</td></tr>");
	}
	strbuf_addstr(b, "</tbody></table></div>");
}

/* Every counter row [from, to) of res in one data table, in <details>. */
static void counters_table(struct page *pg, const struct db_result *res,
			   int from, int to)
{
	static const struct col cols[] = {
		{ "iteration", "iteration", 1 },
		{ "source", "source", 0 },
		{ "scope", "scope", 0 },
		{ "name", "counter", 0 },
		{ "value", "value", 1 },
		{ "available", "available", 0 },
		{ "note", "note", 0 },
	};
	struct rtab t;

	strbuf_addstr(&pg->body, "<details><summary>All counters as a table"
				 "</summary>");
	/* rtab_end appends to the body: open details first. */
	rtab_begin(&t, pg, "counters", NULL, cols, (int)ARRAY_SIZE(cols));
	for (int k = from; k < to; k++) {
		int avail = !strcmp(S(db_get(res, k, 6)), "t");

		rtab_row(&t, NULL);
		rtab_num(&t, num(db_get(res, k, 1)), NULL);
		rtab_str(&t, db_get(res, k, 2));
		rtab_str(&t, db_get(res, k, 3));
		rtab_str(&t, db_get(res, k, 4));
		rtab_num(&t, num(db_get(res, k, 5)), NULL);
		rtab_str(&t, avail ? "yes" : "no");
		rtab_str(&t, db_get(res, k, 7));
		rtab_end_row(&t);
	}
	rtab_end(&t, "no counters");
	strbuf_addstr(&pg->body, "</details>");
}

void render_counters(struct page *pg, const struct db_result *res, int from,
		     int to)
{
	struct strbuf *b = &pg->body, type = STRBUF_INIT, key = STRBUF_INIT;
	int shown_iters = 0, last_iter = -1;

	h2(b, "counters", "Scheduler counters (deltas over the run)");
	if (from == to) {
		strbuf_addstr(b, "<p class=\"note\">No counters were "
				 "reported for this run.</p>");
		return;
	}
	for (int i = from; i < to;) {
		int iter = (int)id64(db_get(res, i, 1)), j = i;

		while (j < to && id64(db_get(res, j, 1)) == iter)
			j++;
		if (shown_iters == MAX_COUNTER_ITERATIONS) {
			strbuf_addf(b,
				    "<p class=\"note\">Iterations after %d "
				    "are in the CSV and JSON below.</p>",
				    last_iter);
			break;
		}
		shown_iters++;
		last_iter = iter;
		strbuf_addf(b, "<h3>Iteration %d</h3>", iter);
		if (counters_matrices(b, res, i, j, iter, &type, &key))
			counters_other(b, res, i, j, &type);
		i = j;
	}
	counters_table(pg, res, from, to);
	strbuf_release(&type);
	strbuf_release(&key);
}

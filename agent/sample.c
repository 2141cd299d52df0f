/*
 * sample.c - the kernel's own counters around a run: /proc/schedstat
 * (versions 15, 16 and 17), /proc/stat, and per task /proc/PID/schedstat
 * and the context switch counts of /proc/PID/status.
 *
 * Counters only grow, so everything is reported as the difference of two
 * snapshots.  The schedstat parser follows the version line and never
 * guesses: version 16 swapped the idle and busy column groups of the domain
 * lines without changing their count, so a parser that ignored the version
 * would silently swap them; it maps every version onto one canonical order
 * (idle, busy, newly idle).  An unknown version is refused, not guessed.
 * (Documentation/scheduler/sched-stats.rst; doc/REFERENCE.md §2.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "parse.h"
#include "banned.h"

#define MAX_CPUS 8192
#define MAX_DOMS (MAX_CPUS * 8)

int read_small(int fd, char *buf, size_t size)
{
	ssize_t n;

	do
		n = pread(fd, buf, size - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

uint64_t read_leading_u64(const char *buf, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		v = v * 10 + (uint64_t)(buf[i] - '0');
	return v;
}

int task_cpu_clock(pid_t pid, clockid_t *ret)
{
	return clock_getcpuclockid(pid, ret) ? -1 : 0;
}

uint64_t task_cpu_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void schedstat_release(struct schedstat *s)
{
	free(s->cpus);
	free(s->doms);
	memset(s, 0, sizeof(*s));
}

static int u64_of(const char *s, uint64_t *ret)
{
	int64_t v;

	if (parse_i64(s, 0, INT64_MAX, &v, NULL) < 0)
		return -1;
	*ret = (uint64_t)v;
	return 0;
}

/*
 * The words of one line, parted by spaces and tabs: pointers into a copy
 * of the line whose separators became NULs.  Both buffers are kept from
 * line to line, so a file of many lines costs no allocation per word.
 */
struct words {
	struct strbuf line;
	const char **v;
	size_t nr, alloc;
};

#define WORDS_INIT                                                             \
	{                                                                      \
		STRBUF_INIT, NULL, 0, 0                                        \
	}

/* Split l[0..n) (not NUL-terminated) into w, replacing what it held. */
static void split_words(const char *l, size_t n, struct words *w)
{
	char *b;
	size_t i = 0;

	strbuf_reset(&w->line);
	strbuf_add(&w->line, l, n);
	b = w->line.buf;
	w->nr = 0;
	while (i < n) {
		while (i < n && (b[i] == ' ' || b[i] == '\t'))
			b[i++] = '\0';
		if (i == n)
			break;
		ALLOC_GROW(w->v, w->nr + 1, w->alloc);
		w->v[w->nr++] = b + i;
		while (i < n && b[i] != ' ' && b[i] != '\t')
			i++;
	}
}

static void words_release(struct words *w)
{
	strbuf_release(&w->line);
	free(w->v);
}

/*
 * The next word of the line l[*i..n) (words are parted by spaces and
 * tabs) into buf, NUL-terminated and cut at size - 1 bytes, *i moved past
 * it.  Returns the word's whole length (>= size when it was cut: no name or
 * number this file reads is that long), 0 at the line's end.  For the
 * files read at every sample, without an allocation per word.
 */
static size_t next_field(const char *l, size_t n, size_t *i, char *buf,
			 size_t size)
{
	size_t s, k;

	while (*i < n && (l[*i] == ' ' || l[*i] == '\t'))
		(*i)++;
	s = *i;
	while (*i < n && l[*i] != ' ' && l[*i] != '\t')
		(*i)++;
	k = *i - s;
	memcpy(buf, l + s, k < size ? k : size - 1);
	buf[k < size ? k : size - 1] = '\0';
	return k;
}

/* u64_of of a word next_field read (one it cut is refused). */
static int field_u64(const char *w, size_t k, size_t size, uint64_t *ret)
{
	return k >= size ? -1 : u64_of(w, ret);
}

/* Parse "prefixN" into N (e.g. cpu12, domain0). */
static int numbered(const char *w, const char *prefix, int *ret)
{
	if (!starts_with(w, prefix))
		return -1;
	return parse_int(w + strlen(prefix), 0, 1 << 20, ret, NULL);
}

static int parse_domain(const struct words *w, int version,
			struct schedstat_domain *d, struct strbuf *err,
			size_t lineno)
{
	size_t per = version >= 17 ? 11 : 8;
	size_t first = version >= 17 ? 3 : 2; /* after "domainN [name] mask" */
	size_t want = first + 3 * per + 12;
	uint64_t v[3 * 11 + 12];
	/* column group t of this version -> canonical type */
	static const int map15[3] = { LB_IDLE, LB_BUSY, LB_NEWIDLE };
	static const int map16[3] = { LB_BUSY, LB_IDLE, LB_NEWIDLE };
	const int *map = version == 15 ? map15 : map16;

	if (w->nr != want) {
		strbuf_addf(err,
			    "line %zu: a version %d domain line has %zu "
			    "fields, expected %zu",
			    lineno, version, w->nr, want);
		return -1;
	}
	if (numbered(w->v[0], "domain", &d->level) < 0) {
		strbuf_addf(err, "line %zu: bad domain number", lineno);
		return -1;
	}
	if (version >= 17) {
		size_t n = strlen(w->v[1]);

		if (n >= sizeof(d->name))
			n = sizeof(d->name) - 1;
		memcpy(d->name, w->v[1], n);
		d->name[n] = '\0';
	}
	for (size_t i = first; i < want; i++)
		if (u64_of(w->v[i], &v[i - first]) < 0) {
			strbuf_addf(err, "line %zu: field %zu is not a counter",
				    lineno, i + 1);
			return -1;
		}
	for (int t = 0; t < 3; t++) {
		const uint64_t *g = v + (size_t)t * per;
		int c = map[t];

		d->lb_count[c] = g[0];
		d->lb_balanced[c] = g[1];
		d->lb_failed[c] = g[2];
		if (version >= 17) {
			/* load, util, task, misfit: kept as their sum */
			d->lb_imbalance[c] = g[3] + g[4] + g[5] + g[6];
			g += 4;
		} else {
			d->lb_imbalance[c] = g[3];
			g += 1;
		}
		d->lb_gained[c] = g[3];
		d->lb_hot_gained[c] = g[4];
		d->lb_nobusyq[c] = g[5];
		d->lb_nobusyg[c] = g[6];
	}
	{
		const uint64_t *tail = v + 3 * per;

		d->alb_count = tail[0];
		d->alb_failed = tail[1];
		d->alb_pushed = tail[2];
		d->ttwu_wake_remote = tail[9];
		d->ttwu_move_affine = tail[10];
		d->ttwu_move_balance = tail[11];
	}
	return 0;
}

int schedstat_parse(const char *text, size_t len, struct schedstat *ret,
		    struct strbuf *err)
{
	struct schedstat s = { 0 };
	struct words w = WORDS_INIT;
	size_t acpu = 0, adom = 0, lineno = 0;
	const char *p = text, *end = text + len;
	int rc = -1;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int num;

		lineno++;
		split_words(p, n, &w);
		p += n + (nl ? 1 : 0);
		if (!w.nr)
			continue;
		if (!s.version) {
			if (w.nr != 2 || strcmp(w.v[0], "version") ||
			    parse_int(w.v[1], 1, 1000, &s.version, NULL) < 0) {
				strbuf_addstr(err,
					      "line 1: expected \"version N\"");
				goto out;
			}
			if (s.version < 15 || s.version > 17) {
				strbuf_addf(err,
					    "schedstat version %d is not one "
					    "this agent knows (15, 16, 17)",
					    s.version);
				goto out;
			}
		} else if (!strcmp(w.v[0], "timestamp")) {
			/* jiffies at the snapshot: not a counter we diff */
		} else if (numbered(w.v[0], "cpu", &num) == 0) {
			struct schedstat_cpu *c;
			uint64_t f[9];

			if (w.nr != 10) {
				strbuf_addf(err,
					    "line %zu: a cpu line has %zu "
					    "fields, expected 10",
					    lineno, w.nr);
				goto out;
			}
			for (int i = 0; i < 9; i++)
				if (u64_of(w.v[i + 1], &f[i]) < 0) {
					strbuf_addf(err,
						    "line %zu: field %d is not "
						    "a counter",
						    lineno, i + 2);
					goto out;
				}
			if (s.ncpus >= MAX_CPUS) {
				strbuf_addf(err, "more than %d cpus", MAX_CPUS);
				goto out;
			}
			ALLOC_GROW(s.cpus, s.ncpus + 1, acpu);
			c = &s.cpus[s.ncpus++];
			memset(c, 0, sizeof(*c));
			c->cpu = num;
			c->yld_count = f[0];
			c->sched_count = f[2];
			c->sched_goidle = f[3];
			c->ttwu_count = f[4];
			c->ttwu_local = f[5];
			c->rq_cpu_time = f[6];
			c->run_delay = f[7];
			c->pcount = f[8];
		} else if (starts_with(w.v[0], "domain")) {
			struct schedstat_domain *d;

			if (!s.ncpus) {
				strbuf_addf(err,
					    "line %zu: a domain line before "
					    "any cpu line",
					    lineno);
				goto out;
			}
			if (s.ndoms >= MAX_DOMS) {
				strbuf_addf(err, "more than %d domains",
					    MAX_DOMS);
				goto out;
			}
			ALLOC_GROW(s.doms, s.ndoms + 1, adom);
			d = &s.doms[s.ndoms];
			memset(d, 0, sizeof(*d));
			d->cpu = s.cpus[s.ncpus - 1].cpu;
			if (parse_domain(&w, s.version, d, err, lineno) < 0)
				goto out;
			s.ndoms++;
		} else {
			strbuf_addf(err, "line %zu: unexpected \"%.40s\"",
				    lineno, w.v[0]);
			goto out;
		}
	}
	if (!s.version) {
		strbuf_addstr(err, "empty schedstat");
		goto out;
	}
	*ret = s;
	memset(&s, 0, sizeof(s));
	rc = 0;
out:
	schedstat_release(&s);
	words_release(&w);
	return rc;
}

static const char *const lb_names[LB_NTYPES] = { "idle", "busy", "newidle" };

static uint64_t d64(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

/* The cpu of before that is after->cpus[i]'s: the same index first (the
 * kernel prints its cpus in the same order each time), else a search. */
static const struct schedstat_cpu *cpu_before(const struct schedstat *before,
					      const struct schedstat *after,
					      size_t i)
{
	int cpu = after->cpus[i].cpu;

	if (i < before->ncpus && before->cpus[i].cpu == cpu)
		return &before->cpus[i];
	for (size_t j = 0; j < before->ncpus; j++)
		if (before->cpus[j].cpu == cpu)
			return &before->cpus[j];
	return NULL;
}

/* The same for after->doms[i], matched on its cpu and level. */
static const struct schedstat_domain *dom_before(const struct schedstat *before,
						 const struct schedstat *after,
						 size_t i)
{
	const struct schedstat_domain *a = &after->doms[i];

	if (i < before->ndoms && before->doms[i].cpu == a->cpu &&
	    before->doms[i].level == a->level)
		return &before->doms[i];
	for (size_t j = 0; j < before->ndoms; j++)
		if (before->doms[j].cpu == a->cpu &&
		    before->doms[j].level == a->level)
			return &before->doms[j];
	return NULL;
}

#define SCHEDSTAT_LEVELS 64 /* domain levels summed (real ones: < 10) */

/*
 * The counters of after - before: per cpu, per domain level (summed over
 * the cpus) and for the whole machine.  A cpu or domain only one of the
 * two has is left out.  Linear in the cpus and domains when both
 * snapshots list them in the same order, as the kernel does.
 */
void schedstat_emit_delta(struct emitter *em, const struct schedstat *before,
			  const struct schedstat *after)
{
	uint64_t tot_delay = 0, tot_pcount = 0, tot_ttwu = 0, tot_rq = 0,
		 migrations = 0;
	uint64_t gained[SCHEDSTAT_LEVELS][LB_NTYPES], pushed[SCHEDSTAT_LEVELS],
		affine[SCHEDSTAT_LEVELS];
	struct strbuf scope = STRBUF_INIT;
	int maxlevel = -1;

	for (size_t i = 0; i < after->ncpus; i++) {
		const struct schedstat_cpu *a = &after->cpus[i],
					   *b = cpu_before(before, after, i);

		if (!b)
			continue;
		strbuf_reset(&scope);
		strbuf_addf(&scope, "cpu%d", a->cpu);
		emit_counter(em, "schedstat", scope.buf, "run_delay_ns",
			     (double)d64(b->run_delay, a->run_delay));
		emit_counter(em, "schedstat", scope.buf, "pcount",
			     (double)d64(b->pcount, a->pcount));
		emit_counter(em, "schedstat", scope.buf, "rq_cpu_time_ns",
			     (double)d64(b->rq_cpu_time, a->rq_cpu_time));
		emit_counter(em, "schedstat", scope.buf, "ttwu_count",
			     (double)d64(b->ttwu_count, a->ttwu_count));
		tot_delay += d64(b->run_delay, a->run_delay);
		tot_pcount += d64(b->pcount, a->pcount);
		tot_ttwu += d64(b->ttwu_count, a->ttwu_count);
		tot_rq += d64(b->rq_cpu_time, a->rq_cpu_time);
	}
	memset(gained, 0, sizeof(gained));
	memset(pushed, 0, sizeof(pushed));
	memset(affine, 0, sizeof(affine));
	for (size_t i = 0; i < after->ndoms; i++) {
		const struct schedstat_domain *a = &after->doms[i], *b;
		int level = a->level;

		if (level > maxlevel)
			maxlevel = level;
		if (level >= SCHEDSTAT_LEVELS ||
		    !(b = dom_before(before, after, i)))
			continue;
		for (int t = 0; t < LB_NTYPES; t++)
			gained[level][t] +=
				d64(b->lb_gained[t], a->lb_gained[t]);
		pushed[level] += d64(b->alb_pushed, a->alb_pushed);
		affine[level] += d64(b->ttwu_move_affine, a->ttwu_move_affine);
	}
	for (int level = 0; level <= maxlevel && level < SCHEDSTAT_LEVELS;
	     level++) {
		for (int t = 0; t < LB_NTYPES; t++) {
			strbuf_reset(&scope);
			strbuf_addf(&scope, "domain%d/%s", level, lb_names[t]);
			emit_counter(em, "schedstat", scope.buf, "lb_gained",
				     (double)gained[level][t]);
			migrations += gained[level][t];
		}
		strbuf_reset(&scope);
		strbuf_addf(&scope, "domain%d", level);
		emit_counter(em, "schedstat", scope.buf, "alb_pushed",
			     (double)pushed[level]);
		emit_counter(em, "schedstat", scope.buf, "ttwu_move_affine",
			     (double)affine[level]);
		migrations += pushed[level];
	}
	emit_counter(em, "schedstat", "all", "run_delay_ns", (double)tot_delay);
	emit_counter(em, "schedstat", "all", "pcount", (double)tot_pcount);
	emit_counter(em, "schedstat", "all", "rq_cpu_time_ns", (double)tot_rq);
	emit_counter(em, "schedstat", "all", "ttwu_count", (double)tot_ttwu);
	emit_counter(em, "schedstat", "all", "balancer_migrations",
		     (double)migrations);
	strbuf_release(&scope);
}

int procstat_parse(const char *text, size_t len, struct procstat *ret,
		   struct strbuf *err)
{
	const char *p = text, *end = text + len;
	int have_cpu = 0;

	memset(ret, 0, sizeof(*ret));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *l = p;
		char w0[32], w[32], rest[1];
		size_t i = 0, k0, k, nw = 1;
		uint64_t v[10];
		int bad = 0;

		p += n + (nl ? 1 : 0);
		k0 = next_field(l, n, &i, w0, sizeof(w0));
		if (!k0 || k0 >= sizeof(w0))
			continue;
		if (!strcmp(w0, "cpu")) {
			/* user nice system idle ... guest_nice: the first
			 * ten numbers, every one checked */
			while ((k = next_field(l, n, &i, w, sizeof(w)))) {
				if (nw <= 10 &&
				    field_u64(w, k, sizeof(w), &v[nw - 1]) < 0)
					bad = 1;
				nw++;
			}
			if (nw >= 5) {
				if (bad) {
					strbuf_addstr(
						err,
						"/proc/stat: bad cpu line");
					return -1;
				}
				memcpy(ret->cpu, v,
				       (nw - 1 < 10 ? nw - 1 : 10) *
					       sizeof(*v));
				have_cpu = 1;
				continue;
			}
		}
		if (starts_with(w0, "cpu")) {
			ret->ncpu_lines++;
			continue;
		}
		k = next_field(l, n, &i, w, sizeof(w));
		if (!k)
			continue;
		if (!strcmp(w0, "intr")) {
			/* the total; the per-interrupt counts after it
			 * are not read */
			field_u64(w, k, sizeof(w), &ret->intr);
			continue;
		}
		if (next_field(l, n, &i, rest, sizeof(rest)))
			continue; /* ctxt and processes have one number */
		if (!strcmp(w0, "ctxt"))
			field_u64(w, k, sizeof(w), &ret->ctxt);
		else if (!strcmp(w0, "processes"))
			field_u64(w, k, sizeof(w), &ret->processes);
	}
	if (!have_cpu) {
		strbuf_addstr(err, "/proc/stat: no cpu line");
		return -1;
	}
	return 0;
}

void procstat_emit_delta(struct emitter *em, const struct procstat *before,
			 const struct procstat *after)
{
	static const char *const names[8] = { "user_s",	   "nice_s",
					      "system_s",  "idle_s",
					      "iowait_s",  "irq_s",
					      "softirq_s", "steal_s" };
	long hz = sysconf(_SC_CLK_TCK);

	if (hz <= 0)
		hz = 100;
	for (int i = 0; i < 8; i++)
		emit_counter(em, "stat", "all", names[i],
			     (double)d64(before->cpu[i], after->cpu[i]) /
				     (double)hz);
	emit_counter(em, "stat", "all", "ctxt",
		     (double)d64(before->ctxt, after->ctxt));
	emit_counter(em, "stat", "all", "processes",
		     (double)d64(before->processes, after->processes));
	emit_counter(em, "stat", "all", "intr",
		     (double)d64(before->intr, after->intr));
}

int task_schedstat_parse(const char *text, size_t len,
			 struct task_schedstat *ret)
{
	const char *nl = memchr(text, '\n', len);
	size_t n = nl ? (size_t)(nl - text) : len, i = 0, k;
	uint64_t *const out[3] = { &ret->run_ns, &ret->wait_ns, &ret->slices };
	uint64_t v[3];
	char w[32];

	for (int f = 0; f < 3; f++) {
		k = next_field(text, n, &i, w, sizeof(w));
		if (!k || field_u64(w, k, sizeof(w), &v[f]) < 0)
			return -1;
	}
	if (next_field(text, n, &i, w, sizeof(w)))
		return -1;
	for (int f = 0; f < 3; f++)
		*out[f] = v[f];
	return 0;
}

int task_status_switches(const char *text, size_t len, uint64_t *ret_vol,
			 uint64_t *ret_invol)
{
	const char *p = text, *end = text + len;
	int found = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *l = p;
		char name[32], w[32];
		size_t i = 0, k0, k;
		int bit;

		p += n + (nl ? 1 : 0);
		k0 = next_field(l, n, &i, name, sizeof(name));
		if (!k0 || k0 >= sizeof(name))
			continue;
		bit = !strcmp(name, "voluntary_ctxt_switches:")	     ? 1
		      : !strcmp(name, "nonvoluntary_ctxt_switches:") ? 2
								     : 0;
		if (!bit)
			continue;
		k = next_field(l, n, &i, w, sizeof(w));
		if (!k || next_field(l, n, &i, name, sizeof(name)))
			continue;
		if (field_u64(w, k, sizeof(w),
			      bit == 1 ? ret_vol : ret_invol) == 0)
			found |= bit;
	}
	return found == 3 ? 0 : -1;
}

/*
 * check.c - the checks of a plan's settings: the small checkers every
 * section uses (a scalar, a ranged number, a duration, a word list, a
 * map's keys against the known ones) and the sections that are plain
 * settings (iterations..max_boots, host, kernel, timeouts, cgroups,
 * metrics), each filling its part of the struct plan.
 *
 * Every number goes through common/parse.h's range-checked parsers.  A
 * checker reports what is wrong at the node and returns -1, leaving the
 * plan's default in place, so that the other sections are still checked.
 */
#include <inttypes.h>
#include <string.h>

#include "kind_names.h"
#include "parse.h"
#include "plan/plan-int.h"
#include "banned.h"

/* ---- small checkers ------------------------------------------------- */

/*
 * Each get_* checks node n (found at path) and stores the value on
 * success.  On failure they report one error and return -1, leaving the
 * output alone (so the caller's default stays).
 */
int get_scalar(struct ctx *c, const struct ynode *n, const char *path,
	       const char *what)
{
	if (n->kind != Y_SCALAR || ynode_is_null(n)) {
		expected(c, n, path, what);
		return -1;
	}
	return 0;
}

static int get_i64(struct ctx *c, const struct ynode *n, const char *path,
		   int64_t min, int64_t max, int64_t *out)
{
	struct strbuf what = STRBUF_INIT;
	int64_t v;
	int rc = 0;

	strbuf_addf(&what, "an integer in %" PRId64 "..%" PRId64, min, max);
	if (n->kind != Y_SCALAR || ynode_is_null(n) ||
	    parse_i64(n->text, min, max, &v, NULL) < 0) {
		expected(c, n, path, what.buf);
		rc = -1;
	} else {
		*out = v;
	}
	strbuf_release(&what);
	return rc;
}

static int get_int(struct ctx *c, const struct ynode *n, const char *path,
		   int min, int max, int *out)
{
	int64_t v;

	if (get_i64(c, n, path, min, max, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

/* A number with an optional '%' after it (tau: 2% or tau: 2). */
static int get_percent(struct ctx *c, const struct ynode *n, const char *path,
		       double min, double max, double *out)
{
	struct strbuf what = STRBUF_INIT, num = STRBUF_INIT;
	int rc = -1;

	strbuf_addf(&what, "a percentage in %g..%g (like 2%% or 2.5)", min,
		    max);
	if (n->kind == Y_SCALAR && !ynode_is_null(n)) {
		strbuf_addstr(&num, n->text);
		if (num.len && num.buf[num.len - 1] == '%')
			strbuf_setlen(&num, num.len - 1);
		if (parse_double(num.buf, min, max, out, NULL) == 0)
			rc = 0;
	}
	if (rc < 0)
		expected(c, n, path, what.buf);
	strbuf_release(&what);
	strbuf_release(&num);
	return rc;
}

static int get_duration(struct ctx *c, const struct ynode *n, const char *path,
			int64_t min_ms, int64_t max_ms, int64_t *out)
{
	struct strbuf what = STRBUF_INIT;
	int rc = 0;

	strbuf_addf(&what, "a duration in %gs..%gs (like 30s, 10m, 1h)",
		    (double)min_ms / 1000, (double)max_ms / 1000);
	if (n->kind != Y_SCALAR || ynode_is_null(n) ||
	    parse_duration_ms(n->text, min_ms, max_ms, out, NULL) < 0) {
		expected(c, n, path, what.buf);
		rc = -1;
	}
	strbuf_release(&what);
	return rc;
}

static int get_bool(struct ctx *c, const struct ynode *n, const char *path,
		    int *out)
{
	if (n->kind == Y_SCALAR && !strcmp(n->text, "true"))
		*out = 1;
	else if (n->kind == Y_SCALAR && !strcmp(n->text, "false"))
		*out = 0;
	else {
		expected(c, n, path, "true or false");
		return -1;
	}
	return 0;
}

/* Is every byte of s in the set allowed, and s 1..max bytes long? */
int is_word(const char *s, const char *allowed, size_t max)
{
	size_t len = strlen(s);

	return len && len <= max && strspn(s, allowed) == len;
}

/*
 * A cgroup path the agent may create: absolute, components of
 * [A-Za-z0-9._-] that are not "." or "..", no empty component, no
 * trailing slash.  allow_root: "/" itself is fine.
 */
int is_cgroup_path(const char *s, int allow_root)
{
	const char *p = s;

	if (s[0] != '/' || strlen(s) > 256)
		return 0;
	if (!s[1])
		return allow_root;
	while (*p == '/') {
		size_t len;

		p++;
		len = strspn(p, WORD_CHARS "._-");
		if (!len || (len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		p += len;
	}
	return *p == '\0';
}

/* A cpuset list: "0-3,6,8-9". */
static int is_cpu_list(const char *s)
{
	const char *p = s;

	if (!*s || strlen(s) > 256)
		return 0;
	for (;;) {
		size_t a = strspn(p, "0123456789");

		if (!a || a > 5)
			return 0;
		p += a;
		if (*p == '-') {
			size_t b = strspn(++p, "0123456789");

			if (!b || b > 5)
				return 0;
			p += b;
		}
		if (!*p)
			return 1;
		if (*p++ != ',')
			return 0;
	}
}

/* A map's keys must be scalars, given once each. */
int check_map_keys(struct ctx *c, const struct ynode *map, const char *path)
{
	int rc = 0;

	for (size_t i = 0; i < ymap_len(map); i++) {
		const struct ynode *k = map->kids[2 * i];

		if (k->kind != Y_SCALAR || ynode_is_null(k)) {
			struct strbuf got = STRBUF_INIT;

			nerror(c, k, "%s: expected a key name, got %s", path,
			       ydescribe(k, &got));
			strbuf_release(&got);
			rc = -1;
			continue;
		}
		for (size_t j = 0; j < i; j++) {
			const struct ynode *o = map->kids[2 * j];

			if (o->kind == Y_SCALAR && !strcmp(o->text, k->text)) {
				nerror(c, k,
				       "%s: key '%s' given twice (first at "
				       "line %u)",
				       path, k->text, o->line);
				rc = -1;
				break;
			}
		}
	}
	return rc;
}

/* The index of key in the NULL-terminated keys, or -1. */
static int key_index(const char *const *keys, const char *key)
{
	for (int i = 0; keys[i]; i++)
		if (!strcmp(keys[i], key))
			return i;
	return -1;
}

/* Report key k as unknown at path, listing the keys that are known. */
static void unknown_key(struct ctx *c, const struct ynode *k, const char *path,
			const char *const *keys)
{
	struct strbuf list = STRBUF_INIT;
	const char *near;
	size_t n = 0;

	while (keys[n])
		n++;
	near = plan_suggest(k->text, keys, n);
	for (int i = 0; keys[i]; i++)
		strbuf_addf(&list, "%s%s", i ? ", " : "", keys[i]);
	if (near)
		nerror(c, k, "%s: unknown key '%s'; did you mean '%s'?", path,
		       k->text, near);
	else
		nerror(c, k, "%s: unknown key '%s' (expected one of: %s)", path,
		       k->text, list.buf);
	strbuf_release(&list);
}

/*
 * Walk map (at path) against keys: report unknown keys, and store each
 * known key's value node in vals[index].  Return 0 or -1.
 */
int map_fields(struct ctx *c, const struct ynode *map, const char *path,
	       const char *const *keys, const struct ynode **vals)
{
	int rc = check_map_keys(c, map, path);

	for (int i = 0; keys[i]; i++)
		vals[i] = NULL;
	for (size_t i = 0; i < ymap_len(map); i++) {
		const struct ynode *k = map->kids[2 * i];
		int idx;

		if (k->kind != Y_SCALAR || ynode_is_null(k))
			continue;
		idx = key_index(keys, k->text);
		if (idx < 0) {
			unknown_key(c, k, path, keys);
			rc = -1;
		} else if (!vals[idx]) {
			vals[idx] = map->kids[2 * i + 1];
		}
	}
	return rc;
}

/*
 * A list of words (or one word standing for a list of one), each checked
 * by ok() and described by what; pushed to out.  Duplicates are errors.
 */
static int get_word_list(struct ctx *c, const struct ynode *n, const char *path,
			 int (*ok)(const char *), const char *what,
			 struct strvec *out)
{
	struct strbuf item = STRBUF_INIT;
	size_t nr = n->kind == Y_SEQ ? n->nr : 1;
	int rc = 0;

	if (n->kind == Y_MAP || ynode_is_null(n)) {
		struct strbuf w = STRBUF_INIT;

		strbuf_addf(&w, "%s, or a list of them", what);
		expected(c, n, path, w.buf);
		strbuf_release(&w);
		return -1;
	}
	if (n->kind == Y_SEQ && !n->nr) {
		nerror(c, n, "%s: empty list", path);
		return -1;
	}
	if (nr > PLAN_MAX_ITEMS) {
		nerror(c, n, "%s: more than %d items", path, PLAN_MAX_ITEMS);
		return -1;
	}
	for (size_t i = 0; i < nr; i++) {
		const struct ynode *v = n->kind == Y_SEQ ? n->kids[i] : n;
		int dup = 0;

		strbuf_reset(&item);
		if (n->kind == Y_SEQ)
			strbuf_addf(&item, "%s[%zu]", path, i);
		else
			strbuf_addstr(&item, path);
		if (v->kind != Y_SCALAR || ynode_is_null(v) || !ok(v->text)) {
			expected(c, v, item.buf, what);
			rc = -1;
			continue;
		}
		for (size_t j = 0; j < out->nr; j++)
			dup |= !strcmp(out->v[j], v->text);
		if (dup) {
			nerror(c, v, "%s: '%s' given twice", item.buf, v->text);
			rc = -1;
			continue;
		}
		strvec_push(out, v->text);
	}
	strbuf_release(&item);
	return rc;
}

/* A kind of the table (lab/host_kind.h, through common/kind_names.h). */
static int ok_kind(const char *s)
{
	return kind_name_known(s);
}

static int ok_tag(const char *s)
{
	return is_word(s, WORD_CHARS "._:=-", 64);
}

/* A file name in kernels/: no slash, not hidden. */
static int ok_config(const char *s)
{
	return s[0] != '.' && is_word(s, WORD_CHARS "._+-", 128);
}

/* ---- sections ------------------------------------------------------- */

/*
 * iterations, warmup, boots, until, max_boots and base: v holds their
 * nodes in that order (NULL when not given); defaults are already in p.
 */
void check_settings(struct ctx *c, struct plan *p, const struct ynode *const *v)
{
	const struct ynode *until = v[3], *maxb = v[4], *base = v[5];

	if (v[0])
		get_int(c, v[0], "iterations", 1, 10000, &p->iterations);
	if (v[1])
		get_int(c, v[1], "warmup", 0, 1000, &p->warmup);
	if (v[2])
		get_int(c, v[2], "boots", 1, 1000, &p->boots);
	if (until &&
	    get_scalar(c, until, "until", "'decided' or 'fixed'") == 0) {
		if (!strcmp(until->text, "decided"))
			p->until = PLAN_UNTIL_DECIDED;
		else if (!strcmp(until->text, "fixed"))
			p->until = PLAN_UNTIL_FIXED;
		else
			expected(c, until, "until", "'decided' or 'fixed'");
	}
	/* Whether a submission's answer may reuse the base runs stored on
	 * its host (store/answers.h), or boots the base anew. */
	if (base && get_scalar(c, base, "base", "'fresh' or 'reuse'") == 0) {
		if (!strcmp(base->text, "fresh"))
			p->fresh_base = 1;
		else if (!strcmp(base->text, "reuse"))
			p->fresh_base = 0;
		else
			expected(c, base, "base", "'fresh' or 'reuse'");
	}
	if (p->until == PLAN_UNTIL_DECIDED) {
		p->max_boots = p->boots > 20 ? p->boots : 20;
		if (maxb &&
		    get_int(c, maxb, "max_boots", 1, 1000, &p->max_boots) ==
			    0 &&
		    p->max_boots < p->boots)
			nerror(c, maxb,
			       "max_boots: expected at least boots (%d), got "
			       "%d",
			       p->boots, p->max_boots);
	} else {
		p->max_boots = p->boots;
		if (maxb)
			nerror(c, maxb,
			       "max_boots: only meaningful with 'until: "
			       "decided'");
	}
}

/* host: requirements into p->host; see doc/PLANS.md for the ranges. */
void check_host(struct ctx *c, struct plan *p, const struct ynode *n)
{
	static const char *const keys[] = { "kind",	"min_sockets",
					    "min_cpus", "min_memory_mb",
					    "tags",	NULL };
	const struct ynode *v[6];

	if (n->kind != Y_MAP) {
		expected(c, n, "host", "a map of host requirements");
		return;
	}
	map_fields(c, n, "host", keys, v);
	if (v[0]) {
		struct strbuf what = STRBUF_INIT;

		strbuf_addstr(&what, "a host kind (");
		kind_names_join(&what, kind_names_all(), " or ");
		strbuf_addch(&what, ')');
		get_word_list(c, v[0], "host.kind", ok_kind, what.buf,
			      &p->host.kinds);
		strbuf_release(&what);
	}
	if (v[1])
		get_int(c, v[1], "host.min_sockets", 1, 1024,
			&p->host.min_sockets);
	if (v[2])
		get_int(c, v[2], "host.min_cpus", 1, 65536, &p->host.min_cpus);
	if (v[3])
		get_i64(c, v[3], "host.min_memory_mb", 1, INT64_C(1) << 32,
			&p->host.min_memory_mb);
	if (v[4])
		get_word_list(c, v[4], "host.tags", ok_tag,
			      "a tag of at most 64 bytes of [A-Za-z0-9._:=-]",
			      &p->host.tags);
}

/* kernel: config fragment names into p->kernel_config. */
void check_kernel(struct ctx *c, struct plan *p, const struct ynode *n)
{
	static const char *const keys[] = { "config", NULL };
	const struct ynode *v[2];

	if (n->kind != Y_MAP) {
		expected(c, n, "kernel", "a map (config: FRAGMENTS)");
		return;
	}
	map_fields(c, n, "kernel", keys, v);
	if (v[0])
		get_word_list(c, v[0], "kernel.config", ok_config,
			      "a config fragment file name in kernels/ "
			      "(no slash, not hidden)",
			      &p->kernel_config);
}

/* timeouts: the phase limits and the job's budget into p->timeouts
 * (defaults stay). */
void check_timeouts(struct ctx *c, struct plan *p, const struct ynode *n)
{
	static const char *const keys[] = { "power", "boot",  "run", "collect",
					    "build", "stall", "job", NULL };
	const struct ynode *v[8];
	const int64_t s = 1000, h = 3600 * s;

	if (n->kind != Y_MAP) {
		expected(c, n, "timeouts",
			 "a map of power, boot, run, collect, build, stall, "
			 "job");
		return;
	}
	map_fields(c, n, "timeouts", keys, v);
	if (v[0])
		get_duration(c, v[0], "timeouts.power", s, h,
			     &p->timeouts.power_ms);
	if (v[1])
		get_duration(c, v[1], "timeouts.boot", s, 6 * h,
			     &p->timeouts.boot_ms);
	if (v[2])
		get_duration(c, v[2], "timeouts.run", s, 7 * 24 * h,
			     &p->timeouts.run_ms);
	if (v[3])
		get_duration(c, v[3], "timeouts.collect", s, 6 * h,
			     &p->timeouts.collect_ms);
	if (v[4])
		get_duration(c, v[4], "timeouts.build", 60 * s, 48 * h,
			     &p->timeouts.build_ms);
	if (v[5])
		get_duration(c, v[5], "timeouts.stall", 2 * s, h,
			     &p->timeouts.stall_ms);
	if (v[6])
		get_duration(c, v[6], "timeouts.job", s, 30 * 24 * h,
			     &p->timeouts.job_ms);
}

/*
 * expect: what the plan's runs are meant to crash the kernel with -- a
 * crash-path or watchdog test (`panic`), or an oops (`oops`; a panic
 * after it is expected too, as with panic_on_oops).  The console match is
 * then the expected outcome of the run, not the kernel's failure.
 */
void check_expect(struct ctx *c, struct plan *p, const struct ynode *n)
{
	if (get_scalar(c, n, "expect", "'panic' or 'oops'") < 0)
		return;
	if (!strcmp(n->text, "panic"))
		p->expect = PLAN_EXPECT_PANIC;
	else if (!strcmp(n->text, "oops"))
		p->expect = PLAN_EXPECT_OOPS;
	else
		expected(c, n, "expect", "'panic' or 'oops'");
}

/*
 * cgroups: the layout into p->cgroups.  Each item is checked whole, so a
 * bad path does not hide a bad weight beside it.
 */
void check_cgroups(struct ctx *c, struct plan *p, const struct ynode *n)
{
	static const char *const keys[] = { "path", "weight", "cpu_max_pct",
					    "cpus", NULL };
	struct strbuf path = STRBUF_INIT, f = STRBUF_INIT;

	if (n->kind != Y_SEQ) {
		expected(c, n, "cgroups",
			 "a list of cgroups (path, weight, ...)");
		return;
	}
	if (!n->nr) {
		nerror(c, n, "cgroups: empty list");
		return;
	}
	if (n->nr > PLAN_MAX_ITEMS) {
		nerror(c, n, "cgroups: more than %d items", PLAN_MAX_ITEMS);
		return;
	}
	p->cgroups = xcalloc(n->nr, sizeof(*p->cgroups));
	for (size_t i = 0; i < n->nr; i++) {
		const struct ynode *item = n->kids[i], *v[5];
		struct plan_cgroup *cg;

		strbuf_reset(&path);
		strbuf_addf(&path, "cgroups[%zu]", i);
		if (item->kind != Y_MAP) {
			expected(c, item, path.buf,
				 "a map with path and optional weight, "
				 "cpu_max_pct, cpus");
			continue;
		}
		map_fields(c, item, path.buf, keys, v);
		/*
		 * Every field is checked even when another is wrong; the
		 * entry is kept (with a NULL path) only while checking.
		 */
		cg = &p->cgroups[p->nr_cgroups++];
		cg->weight = 100;
		strbuf_reset(&f);
		strbuf_addf(&f, "%s.path", path.buf);
		if (!v[0]) {
			nerror(c, item, "%s: missing key 'path'", path.buf);
		} else if (v[0]->kind != Y_SCALAR ||
			   !is_cgroup_path(v[0]->text, 0)) {
			expected(c, v[0], f.buf,
				 "an absolute cgroup path below the root, like "
				 "/a");
		} else {
			for (size_t j = 0; j + 1 < p->nr_cgroups; j++)
				if (p->cgroups[j].path &&
				    !strcmp(p->cgroups[j].path, v[0]->text)) {
					nerror(c, v[0],
					       "%s: cgroup '%s' given twice",
					       f.buf, v[0]->text);
					break;
				}
			cg->path = xstrdup(v[0]->text);
		}
		if (v[1]) {
			strbuf_reset(&f);
			strbuf_addf(&f, "%s.weight", path.buf);
			get_int(c, v[1], f.buf, 1, 10000, &cg->weight);
		}
		if (v[2]) {
			strbuf_reset(&f);
			strbuf_addf(&f, "%s.cpu_max_pct", path.buf);
			get_percent(c, v[2], f.buf, 1, 100000,
				    &cg->cpu_max_pct);
		}
		if (v[3]) {
			strbuf_reset(&f);
			strbuf_addf(&f, "%s.cpus", path.buf);
			if (v[3]->kind != Y_SCALAR || !is_cpu_list(v[3]->text))
				expected(c, v[3], f.buf,
					 "a CPU list like 0-3,6");
			else
				cg->cpus = xstrdup(v[3]->text);
		}
	}
	strbuf_release(&path);
	strbuf_release(&f);
}

static int ok_metric_name(const char *s)
{
	return is_word(s, WORD_CHARS "._:/*?[]-", 128);
}

/* metrics: per-metric tau, direction and decides into p->metrics. */
void check_metrics(struct ctx *c, struct plan *p, const struct ynode *n)
{
	static const char *const keys[] = { "tau", "direction", "decides",
					    NULL };
	struct strbuf path = STRBUF_INIT, f = STRBUF_INIT;

	if (n->kind != Y_MAP) {
		expected(c, n, "metrics",
			 "a map of metric name to tau, direction, decides");
		return;
	}
	if (!n->nr) {
		nerror(c, n, "metrics: empty map");
		return;
	}
	if (ymap_len(n) > PLAN_MAX_ITEMS) {
		nerror(c, n, "metrics: more than %d metrics", PLAN_MAX_ITEMS);
		return;
	}
	if (check_map_keys(c, n, "metrics") < 0)
		return;
	p->metrics = xcalloc(ymap_len(n), sizeof(*p->metrics));
	for (size_t i = 0; i < ymap_len(n); i++) {
		const struct ynode *k = n->kids[2 * i],
				   *val = n->kids[2 * i + 1];
		const struct ynode *v[4];
		struct plan_metric *m;

		strbuf_reset(&path);
		strbuf_addf(&path, "metrics.%s", k->text);
		if (!ok_metric_name(k->text)) {
			expected(c, k, "metrics",
				 "a metric name or glob of "
				 "[A-Za-z0-9._:/*?[]-]");
			continue;
		}
		if (val->kind != Y_MAP || !val->nr) {
			expected(c, val, path.buf,
				 "a map with tau, direction and/or decides");
			continue;
		}
		m = &p->metrics[p->nr_metrics++];
		m->name = xstrdup(k->text);
		m->tau_pct = -1;
		map_fields(c, val, path.buf, keys, v);
		if (v[0]) {
			strbuf_reset(&f);
			strbuf_addf(&f, "%s.tau", path.buf);
			get_percent(c, v[0], f.buf, 0, 100, &m->tau_pct);
		}
		if (v[1]) {
			static const char what[] = "higher, lower or none";

			strbuf_reset(&f);
			strbuf_addf(&f, "%s.direction", path.buf);
			if (get_scalar(c, v[1], f.buf, what) < 0)
				;
			else if (!strcmp(v[1]->text, "higher"))
				m->direction = PLAN_DIR_HIGHER;
			else if (!strcmp(v[1]->text, "lower"))
				m->direction = PLAN_DIR_LOWER;
			else if (!strcmp(v[1]->text, "none"))
				m->direction = PLAN_DIR_NONE;
			else
				expected(c, v[1], f.buf, what);
		}
		if (v[2]) {
			strbuf_reset(&f);
			strbuf_addf(&f, "%s.decides", path.buf);
			get_bool(c, v[2], f.buf, &m->decides);
		}
	}
	strbuf_release(&path);
	strbuf_release(&f);
}

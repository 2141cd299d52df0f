/*
 * together.c - together: entries, several workloads in one run at the
 * same time, each in its own cgroup (seed 001's two kernel compiles in /a
 * and /b; a measured workload beside a noisy neighbour):
 *
 *   - together:
 *       - {name: a, workload: kernbench, params: {tree: /src, cgroup: /a}}
 *       - {name: b, workload: kernbench, params: {tree: /src, cgroup: /b}}
 *     variants:
 *       - {a.jobs: 8, b.jobs: 16}
 *       - {a.jobs: 7, b.jobs: 13}
 *     sample_interval: 1s
 *
 * A member's parameters are stored in the entry's groups as
 * "MEMBER.param", so sweeps, ranges and variants work on them as on any
 * entry's (sweep.c), and a variant names "a.jobs".  What is checked here:
 * the members (names, workloads, background), that one of them is
 * measured, and, once the runs are expanded, that no two members share a
 * cgroup other than / (each group's CPU must be its member's).
 */
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "plan/plan-int.h"
#include "banned.h"

/* Names the agent's cross-group figures use (agent/spec.c refuses them). */
static int reserved(const char *n)
{
	static const char *const r[] = { "share",      "cpu_pct",
					 "elapsed_s",  "elapsed_ratio",
					 "jain_index", "max_min_ratio",
					 "window_s",   NULL };

	for (size_t i = 0; r[i]; i++)
		if (!strcmp(r[i], n))
			return 1;
	return 0;
}

static int ok_member_name(const char *s)
{
	return is_word(s, WORD_CHARS "_-", 32) && !reserved(s);
}

/* Keep members (n of them) for the plan's lifetime. */
static struct plan_member *keep_members(struct plan *p, size_t n)
{
	struct plan_member *m = xcalloc(n, sizeof(*m));

	p->members_ = xrealloc(p->members_,
			       (p->nr_members_ + 1) * sizeof(*p->members_));
	p->members_[p->nr_members_++] = m;
	return m;
}

/*
 * One member at path: its name, workload, background flag, and its
 * params into base as "NAME.param".  Return 0 or -1.
 */
static int check_member(struct ctx *c, struct plan *p, struct sentry *e,
			const struct ynode *n, const char *path,
			struct plan_member *m, struct sgroup *base)
{
	static const char *const keys[] = { "name", "workload", "params",
					    "background", NULL };
	const struct ynode *v[5];
	struct strbuf f = STRBUF_INIT;
	int rc;

	if (n->kind != Y_MAP) {
		expected(c, n, path,
			 "a member: a map with name, workload, params, "
			 "background");
		return -1;
	}
	rc = map_fields(c, n, path, keys, v);
	subpath(&f, path, "name");
	if (!v[0]) {
		nerror(c, n, "%s: missing key 'name'", path);
		rc = -1;
	} else if (get_scalar(c, v[0], f.buf, "a member name") < 0) {
		rc = -1;
	} else if (!ok_member_name(v[0]->text)) {
		expected(c, v[0], f.buf,
			 "a name of 1..32 bytes of [A-Za-z0-9_-], not share, "
			 "cpu_pct, elapsed_s, elapsed_ratio, jain_index, "
			 "max_min_ratio or window_s (the cross-group figures)");
		rc = -1;
	} else {
		for (size_t i = 0; i < e->nr_members; i++)
			if (&e->members[i] != m && e->members[i].name &&
			    !strcmp(e->members[i].name, v[0]->text)) {
				nerror(c, v[0], "%s: member '%s' given twice",
				       f.buf, v[0]->text);
				rc = -1;
			}
		m->name = intern(p, v[0]->text);
	}
	subpath(&f, path, "workload");
	if (!v[1]) {
		nerror(c, n, "%s: missing key 'workload'", path);
		rc = -1;
	} else if (get_scalar(c, v[1], f.buf, "a workload name") == 0) {
		m->wl = find_workload(p, v[1]->text, &m->cmd);
		if (!m->wl && defined_badly(p, v[1]->text)) {
			rc = -1;
		} else if (!m->wl) {
			no_workload(c, p, v[1], f.buf, v[1]->text);
			rc = -1;
		}
	} else {
		rc = -1;
	}
	if (v[3]) {
		subpath(&f, path, "background");
		if (v[3]->kind == Y_SCALAR && !strcmp(v[3]->text, "true"))
			m->background = 1;
		else if (v[3]->kind != Y_SCALAR ||
			 strcmp(v[3]->text, "false")) {
			expected(c, v[3], f.buf, "true or false");
			rc = -1;
		}
	}
	if (v[2] && m->wl && m->name) {
		subpath(&f, path, "params");
		rc |= add_params(c, p, e, m, v[2], f.buf, base);
	}
	strbuf_release(&f);
	return rc ? -1 : 0;
}

/*
 * A together: entry (check_entry() saw together or sample_interval): v
 * holds workload, params, variants, together, sample_interval.  Fills e
 * like check_entry_fields() does, with members and no wl.  Return 0 or -1.
 */
int check_together(struct ctx *c, struct plan *p, const struct ynode *n,
		   const char *path, const struct ynode *const *v,
		   struct sentry *e)
{
	const struct ynode *t = v[3];
	struct strbuf f = STRBUF_INIT, mp = STRBUF_INIT;
	struct sgroup base = { 0 };
	int rc = 0, measured = 0;

	e->at = n;
	e->sample_ms = 1000;
	if (v[0] || v[1]) {
		nerror(c, v[0] ? v[0] : v[1],
		       "%s: a together: entry names its workloads and their "
		       "params in its members, not beside them",
		       path);
		rc = -1;
	}
	if (v[4]) {
		int64_t ms;

		subpath(&f, path, "sample_interval");
		if (v[4]->kind != Y_SCALAR ||
		    parse_duration_ms(v[4]->text, 100, 60000, &ms, NULL) < 0) {
			expected(c, v[4], f.buf,
				 "a duration in 0.1s..60s (like 1s, 100ms)");
			rc = -1;
		} else {
			e->sample_ms = (int)ms;
		}
	}
	subpath(&f, path, "together");
	if (!t) {
		nerror(c, n, "%s: sample_interval goes with together:", path);
		rc = -1;
		goto out;
	}
	if (t->kind != Y_SEQ || !t->nr) {
		expected(c, t, f.buf,
			 "a list of members (name, workload, ...)");
		rc = -1;
		goto out;
	}
	if (t->nr > PLAN_MAX_MEMBERS) {
		nerror(c, t, "%s: more than %d members", f.buf,
		       PLAN_MAX_MEMBERS);
		rc = -1;
		goto out;
	}
	e->members = keep_members(p, t->nr);
	e->nr_members = t->nr;
	for (size_t i = 0; i < t->nr; i++) {
		strbuf_reset(&mp);
		strbuf_addf(&mp, "%s[%zu]", f.buf, i);
		if (check_member(c, p, e, t->kids[i], mp.buf, &e->members[i],
				 &base) < 0)
			rc = -1;
		measured += !e->members[i].background;
	}
	if (rc)
		goto out;
	if (!measured) {
		nerror(c, t,
		       "%s: every member is background; at least one must be "
		       "measured",
		       f.buf);
		rc = -1;
		goto out;
	}
	e->at = t;
	rc = check_variants(c, p, v[2], path, &base, e);
out:
	sgroup_release(&base);
	strbuf_release(&f);
	strbuf_release(&mp);
	return rc;
}

/* Does cgroup path a contain b (equal, or b below a)? */
static int contains(const char *a, const char *b)
{
	size_t n = strlen(a);

	return !strncmp(a, b, n) && (b[n] == '\0' || b[n] == '/');
}

/*
 * After expansion: in every together run, members other than those in /
 * must have cgroups of their own, not one inside another's.  Reported
 * once per entry, at the entry.
 */
void check_together_runs(struct ctx *c, const struct plan *p,
			 const struct sentry *e, size_t nr_entries)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int *said = xcalloc(nr_entries ? nr_entries : 1, sizeof(int));

	for (size_t i = 0; i < p->nr_runs; i++) {
		const struct plan_run *r = &p->runs[i];

		if (!r->nr_members || said[r->entry])
			continue;
		for (size_t x = 0; x < r->nr_members && !said[r->entry]; x++)
			for (size_t y = x + 1; y < r->nr_members; y++) {
				const char *ca, *cb;

				strbuf_reset(&a);
				strbuf_reset(&b);
				strbuf_addf(&a, "%s.cgroup",
					    r->members[x].name);
				strbuf_addf(&b, "%s.cgroup",
					    r->members[y].name);
				ca = plan_run_param(r, a.buf);
				cb = plan_run_param(r, b.buf);
				if (!strcmp(ca, "/") || !strcmp(cb, "/") ||
				    !(contains(ca, cb) || contains(cb, ca)))
					continue;
				nerror(c, e[r->entry].at,
				       "workloads[%zu].together: members %s "
				       "and %s run in "
				       "cgroups %s and %s (run %zu): each "
				       "member needs a cgroup of its own (or "
				       "/) "
				       "so that its CPU can be told apart",
				       r->entry, r->members[x].name,
				       r->members[y].name, ca, cb, r->index);
				said[r->entry] = 1;
				break;
			}
	}
	free(said);
	strbuf_release(&a);
	strbuf_release(&b);
}

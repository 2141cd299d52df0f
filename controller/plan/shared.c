/*
 * shared.c - the small lookups every file of plan/ shares, so that they
 * all sit above it and none calls another sideways for them: the plan's
 * string pool (intern()), a key's path in messages (subpath()), a
 * workload by name (find_workload(), defined_badly()), a parameter
 * group's release (sgroup_release()), and a run's parameter value with
 * the workload's default (plan_run_param(), run_member() for a together
 * run's members).  It calls nothing else of plan/.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/plan-int.h"
#include "suggest.h"
#include "workloads.h"
#include "banned.h"

/* Free g's parameters and their value arrays (the strings are p's). */
void sgroup_release(struct sgroup *g)
{
	for (size_t i = 0; i < g->nr; i++)
		free(g->params[i].values);
	free(g->params);
}

/* Intern s in the plan's string pool; the copy lives as long as the plan. */
const char *intern(struct plan *p, const char *s)
{
	return strvec_push(&p->strings_, s);
}

/*
 * The workload called name: one the plan defines (commands:, include:)
 * first, else the agent's table; *ret_cmd says which (NULL: the table's).
 */
const struct wl_desc *find_workload(const struct plan *p, const char *name,
				    const struct plan_command **ret_cmd)
{
	*ret_cmd = NULL;
	if (!p)
		return workload_find(name);
	for (size_t i = 0; i < p->nr_commands; i++)
		if (!strcmp(p->commands[i]->desc.name, name)) {
			*ret_cmd = p->commands[i];
			return &p->commands[i]->desc;
		}
	return workload_find(name);
}

/*
 * The candidate word is a typo of, for a plan's keys and workloads: what
 * suggest_closest() finds, kept only within one edit per five characters
 * (at least one), so that a real other name ('lmbench' is not a typo
 * of 'kernbench', nor 'install' of 'stall') gets the list instead.  NULL
 * when none.
 */
const char *plan_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *near = suggest_closest(word, cands, n);
	size_t most = strlen(word) / 5;

	if (near && suggest_distance(word, near) > (most ? most : 1))
		near = NULL;
	return near;
}

/*
 * The error for a workload name neither the plan nor the agent has, at
 * node at (path: where): the closest known name when it looks like a
 * typo of one ("did you mean"), else every name.
 */
void no_workload(struct ctx *c, const struct plan *p, const struct ynode *at,
		 const char *path, const char *name)
{
	struct strvec names = STRVEC_INIT;
	struct strbuf list = STRBUF_INIT;
	const char *near;

	for (size_t i = 0; i < workload_count; i++)
		strvec_push(&names, workload_table[i].name);
	for (size_t i = 0; p && i < p->nr_commands; i++)
		strvec_push(&names, p->commands[i]->desc.name);
	near = plan_suggest(name, (const char *const *)names.v, names.nr);
	if (near) {
		nerror(c, at,
		       "%s: the agent has no workload '%s'; did you mean "
		       "'%s'?",
		       path, name, near);
	} else {
		for (size_t i = 0; i < names.nr; i++)
			strbuf_addf(&list, "%s%s", i ? ", " : "", names.v[i]);
		nerror(c, at, "%s: the agent has no workload '%s' (it has: %s)",
		       path, name, list.buf);
	}
	strvec_clear(&names);
	strbuf_release(&list);
}

/* Was name defined by the plan, with errors (so it is not usable)? */
int defined_badly(const struct plan *p, const char *name)
{
	for (size_t i = 0; i < p->bad_commands_.nr; i++)
		if (!strcmp(p->bad_commands_.v[i], name))
			return 1;
	return 0;
}

/* Set f to path.key, or to key alone at a plan's top level (path ""). */
void subpath(struct strbuf *f, const char *path, const char *key)
{
	strbuf_reset(f);
	if (*path)
		strbuf_addf(f, "%s.%s", path, key);
	else
		strbuf_addstr(f, key);
}

/* The member of run r called name[0..len), or NULL. */
const struct plan_member *run_member(const struct plan_run *r, const char *name,
				     size_t len)
{
	for (size_t i = 0; i < r->nr_members; i++)
		if (strlen(r->members[i].name) == len &&
		    !strncmp(r->members[i].name, name, len))
			return &r->members[i];
	return NULL;
}

const char *plan_run_param(const struct plan_run *r, const char *name)
{
	const struct wl_param *wp;

	for (size_t i = 0; i < r->nr_params; i++)
		if (!strcmp(r->params[i].name, name))
			return r->params[i].value;
	if (!r->wl) {
		/* a together run: "MEMBER.param", defaults of the member's */
		const char *dot = strchr(name, '.');
		const struct plan_member *m =
			dot ? run_member(r, name, (size_t)(dot - name)) : NULL;

		wp = m ? workload_param(m->wl, dot + 1) : NULL;
		return wp ? wp->def : NULL;
	}
	wp = workload_param(r->wl, name);
	return wp ? wp->def : NULL;
}

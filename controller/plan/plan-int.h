/*
 * plan-int.h - what the files of controller/plan/ share: the YAML tree,
 * the error list a plan's checks report into, the parameter groups of
 * a workload entry, and the functions one file offers the others.
 * Private to plan/; the rest of the controller sees only plan.h, and no
 * libyaml type appears here.
 *
 * The files: yaml.c (libyaml events into the tree, the error list),
 * check.c (the small checkers and the settings sections), sweep.c
 * (workload entries, their sweeps and ranges, the expansion into runs),
 * command.c (workloads a plan defines: commands: and include:),
 * include.c (the plan's text with the files include: names read in),
 * together.c (together: entries and their members), override.c (--set
 * KEY=VALUE applied to the tree), names.c (the metric names each run
 * reports, and the check of metrics: against them), shared.c (the
 * small lookups the others share), plan.c (the whole-plan check, the
 * API, the JSON writers).  plan.c is the driver: it calls the others;
 * together.c calls sweep.c; every file may call shared.c, check.c and
 * yaml.c; no other call goes sideways or up.  Contracts are above the
 * definitions.
 */
#ifndef SCHEDFARM_PLAN_INT_H
#define SCHEDFARM_PLAN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "command.h"
#include "strbuf.h"
#include "strvec.h"
#include "plan/plan.h"

/* ---- the tree ------------------------------------------------------- */

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ykind kind;
	unsigned line, col; /* 1-based */
	unsigned src; /* which text: 0 the plan, then includes, then --set */
	char *text; /* Y_SCALAR */
	int plain; /* Y_SCALAR: unquoted (so ~ and null mean null) */
	struct ynode **kids; /* Y_SEQ: items; Y_MAP: key, value, key, ... */
	size_t nr, alloc;
};

/* ---- errors --------------------------------------------------------- */

/*
 * Errors are collected while checking and written out sorted by position
 * (then by the order found), so a file's errors read top to bottom
 * whichever section found them.  At most PLAN_MAX_ERRORS are kept.
 */
struct perror {
	unsigned src, line, col;
	size_t seq;
	char *text; /* the message, without name and position */
};

/*
 * The texts a plan is read from, in the order errors are sorted: the plan
 * itself (source 0, c->name), the files it includes, the --set values.
 * An error in an include is "PATH:line:col: error: ..."; one in a --set
 * value "PLAN: error: --set KEY=VALUE: ...".
 */
struct psource {
	char *name; /* the include's path, or "KEY=VALUE" of a --set */
	int is_set;
};

struct ctx {
	const char *name;
	struct strbuf *err;
	int nr_errors; /* found, including those past the cap */
	struct perror *list;
	size_t nr, alloc;
	struct psource *srcs; /* srcs[0] unused: the plan is c->name */
	size_t nr_srcs;
};

#define nerror(c, n, ...)                                                      \
	report_src((c), (n)->src, (n)->line, (n)->col, __VA_ARGS__)

#define WORD_CHARS                                                             \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

/* ---- workloads and their sweeps ------------------------------------- */

/* One parameter of an entry: its name and its values (1, or a sweep). */
struct sparam {
	const char *name; /* in p->strings_ */
	const char **values; /* in p->strings_ */
	size_t nr;
};

/* One group of parameters to take the product of: params + one variant. */
struct sgroup {
	struct sparam *params;
	size_t nr, alloc;
};

/* One checked item of workloads: (or the top-level workload:). */
struct sentry {
	const struct wl_desc *wl; /* NULL for a together entry */
	const struct plan_command *cmd; /* a workload the plan defines */
	struct plan_member *members; /* together: owned by the plan */
	size_t nr_members;
	int sample_ms; /* together: the sampling interval */
	const struct ynode *at; /* the entry, for messages after expansion */
	int listed; /* an item of workloads: (path "workloads[N]") */
	struct sgroup *groups; /* one per variant, or one */
	size_t nr_groups;
};

/* yaml.c */
void ynode_free(struct ynode *n);
size_t ymap_len(const struct ynode *n);
const struct ynode *ymap_get(const struct ynode *map, const char *key);
int ynode_is_null(const struct ynode *n);
__attribute__((format(printf, 4, 5))) void
report(struct ctx *c, unsigned line, unsigned col, const char *fmt, ...);
__attribute__((format(printf, 5, 6))) void
report_src(struct ctx *c, unsigned src, unsigned line, unsigned col,
	   const char *fmt, ...);
unsigned ctx_add_source(struct ctx *c, const char *name, int is_set);
void ctx_release_sources(struct ctx *c);
void flush_errors(struct ctx *c);
const char *ydescribe(const struct ynode *n, struct strbuf *buf);
const char *yshape(const struct ynode *n);
void expected(struct ctx *c, const struct ynode *n, const char *path,
	      const char *what);
int yaml_to_tree(struct ctx *c, unsigned src, const char *text, size_t len,
		 struct ynode **ret);
struct ynode *ynode_scalar(const char *text, unsigned src, unsigned line,
			   unsigned col);
struct ynode *ynode_map(unsigned src, unsigned line, unsigned col);
void ynode_add(struct ynode *parent, struct ynode *kid);

/* shared.c (the lookups the others share; plan_run_param() is in plan.h) */
const char *intern(struct plan *p, const char *s);
void subpath(struct strbuf *f, const char *path, const char *key);
void sgroup_release(struct sgroup *g);
const struct wl_desc *find_workload(const struct plan *p, const char *name,
				    const struct plan_command **ret_cmd);
int defined_badly(const struct plan *p, const char *name);
const char *plan_suggest(const char *word, const char *const *cands, size_t n);
void no_workload(struct ctx *c, const struct plan *p, const struct ynode *at,
		 const char *path, const char *name);
const struct plan_member *run_member(const struct plan_run *r, const char *name,
				     size_t len);

/* check.c */
int get_scalar(struct ctx *c, const struct ynode *n, const char *path,
	       const char *what);
int is_word(const char *s, const char *allowed, size_t max);
int is_cgroup_path(const char *s, int allow_root);
int check_map_keys(struct ctx *c, const struct ynode *map, const char *path);
int map_fields(struct ctx *c, const struct ynode *map, const char *path,
	       const char *const *keys, const struct ynode **vals);
void check_settings(struct ctx *c, struct plan *p,
		    const struct ynode *const *v);
void check_host(struct ctx *c, struct plan *p, const struct ynode *n);
void check_kernel(struct ctx *c, struct plan *p, const struct ynode *n);
void check_timeouts(struct ctx *c, struct plan *p, const struct ynode *n);
void check_expect(struct ctx *c, struct plan *p, const struct ynode *n);
void check_cgroups(struct ctx *c, struct plan *p, const struct ynode *n);
void check_metrics(struct ctx *c, struct plan *p, const struct ynode *n);

/* sweep.c */
int add_params(struct ctx *c, struct plan *p, const struct sentry *e,
	       const struct plan_member *m, const struct ynode *map,
	       const char *path, struct sgroup *g);
int check_required(struct ctx *c, const struct sentry *e,
		   const struct sgroup *g, const struct ynode *at,
		   const char *path);
int check_variants(struct ctx *c, struct plan *p, const struct ynode *n,
		   const char *path, struct sgroup *base, struct sentry *e);
void sgroup_copy(struct sgroup *to, const struct sgroup *from);
int check_entry_fields(struct ctx *c, struct plan *p, const struct ynode *n,
		       const char *path, const struct ynode *const *v,
		       struct sentry *e);
double group_runs(const struct sgroup *g);
void expand(struct plan *p, const struct sentry *e, size_t nr_entries,
	    size_t total);
void check_run_time(struct ctx *c, const struct plan *p,
		    const struct ynode *at);
void check_run_params(struct ctx *c, const struct plan *p,
		      const struct sentry *e, size_t nr_entries);

/* command.c */
void check_commands(struct ctx *c, struct plan *p, const struct ynode *n);
void check_includes(struct ctx *c, struct plan *p, const struct ynode *n,
		    struct ynode *const *docs, size_t nr_docs);
void plan_command_free(struct plan_command *pc);
void command_def_of_run(const struct plan_command *pc, const char *prefix,
			const struct plan_run *r, struct cmd_def *d);

/* together.c */
int check_together(struct ctx *c, struct plan *p, const struct ynode *n,
		   const char *path, const struct ynode *const *v,
		   struct sentry *e);
void check_together_runs(struct ctx *c, const struct plan *p,
			 const struct sentry *e, size_t nr_entries);

/* override.c */
void apply_sets(struct ctx *c, struct ynode *root, const struct strvec *sets);

/* names.c */
void check_metric_names(struct ctx *c, const struct plan *p,
			const struct ynode *metrics);

#endif

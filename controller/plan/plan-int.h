/*
 * plan-int.h - what the files of controller/plan/ share: the YAML tree,
 * the error list a plan's checks report into, the parameter groups of
 * a workload entry, and the functions one file offers the others.
 * Private to plan/; the rest of the controller sees only plan.h, and no
 * libyaml type appears here.
 *
 * The files: yaml.c (libyaml events into the tree, the error list),
 * check.c (the small checkers and the settings sections), sweep.c
 * (workload entries, their sweeps, the expansion into runs), plan.c
 * (the whole-plan check, the API, the JSON writers).  Contracts are
 * above the definitions.
 */
#ifndef SCHEDFARM_PLAN_INT_H
#define SCHEDFARM_PLAN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "strvec.h"
#include "plan/plan.h"

/* ---- the tree ------------------------------------------------------- */

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ykind kind;
	unsigned line, col; /* 1-based */
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
	unsigned line, col;
	size_t seq;
	char *text; /* the message, without name and position */
};

struct ctx {
	const char *name;
	struct strbuf *err;
	int nr_errors; /* found, including those past the cap */
	struct perror *list;
	size_t nr, alloc;
};

#define nerror(c, n, ...) report((c), (n)->line, (n)->col, __VA_ARGS__)

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
	const struct wl_desc *wl;
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
void flush_errors(struct ctx *c);
const char *ydescribe(const struct ynode *n, struct strbuf *buf);
void expected(struct ctx *c, const struct ynode *n, const char *path,
	      const char *what);
int yaml_to_tree(struct ctx *c, const char *text, size_t len,
		 struct ynode **ret);

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
void sgroup_release(struct sgroup *g);
int check_entry_fields(struct ctx *c, struct plan *p, const struct ynode *n,
		       const char *path, const struct ynode *const *v,
		       struct sentry *e);
int check_entry(struct ctx *c, struct plan *p, const struct ynode *n,
		const char *path, struct sentry *e);
double group_runs(const struct sgroup *g);
void expand(struct plan *p, const struct sentry *e, size_t nr_entries,
	    size_t total);
void check_run_time(struct ctx *c, const struct plan *p,
		    const struct ynode *at);

#endif

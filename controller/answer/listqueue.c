/*
 * listqueue.c - a complete series given its base and queued; see
 * listqueue.h.
 *
 * The patches queued are what the list carried, decoded: each one's
 * From: and Subject: over its text (quoted-printable and base64 undone by
 * lab/mime.c), the form `git am` and the farm's builds read.  The series
 * is queued with mail_to "" so that the ordinary answer mail goes to the
 * configured recipients only; the reply on the thread is the list's own
 * (not built yet: doc/LISTS.md).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "answer/listmail.h"
#include "answer/listqueue.h"
#include "lab/baserepo.h"
#include "plan/plan.h"
#include "store/queue.h"
#include "banned.h"

int listqueue_base_commit(const char *text, struct strbuf *ret)
{
	static const char key[] = "base-commit:";

	strbuf_reset(ret);
	for (const char *l = text; l && *l;) {
		const char *nl = strchr(l, '\n'), *p;

		if (!strncmp(l, key, sizeof(key) - 1)) {
			p = l + sizeof(key) - 1;
			while (*p == ' ' || *p == '\t')
				p++;
			while (isxdigit((unsigned char)p[ret->len]) &&
			       ret->len < 64)
				strbuf_addch(
					ret,
					(char)tolower(
						(unsigned char)p[ret->len]));
			if (ret->len >= 7)
				return 1;
			strbuf_reset(ret);
		}
		l = nl ? nl + 1 : NULL;
	}
	return 0;
}

/* A series' texts as read back from the store. */
struct series_mails {
	struct strvec authors, subjects, bodies;
	struct strvec patches; /* "From: ..\nSubject: ..\n\n" + body */
	struct strvec paths; /* every path the patches touch */
};

static void series_mails_release(struct series_mails *sm)
{
	strvec_clear(&sm->authors);
	strvec_clear(&sm->subjects);
	strvec_clear(&sm->bodies);
	strvec_clear(&sm->patches);
	strvec_clear(&sm->paths);
}

/* Read series_id's mails and make its patch texts.  0 or -1. */
static int series_read(struct db *db, int64_t series_id,
		       struct series_mails *sm, struct strbuf *err)
{
	if (lists_series_mails(db, series_id, &sm->authors, &sm->subjects,
			       &sm->bodies, err) < 0)
		return -1;
	for (size_t i = 0; i < sm->bodies.nr; i++) {
		if (patch_touched_paths(sm->bodies.v[i], &sm->paths) == 0)
			continue; /* the cover letter */
		strvec_pushf(&sm->patches, "From: %s\nSubject: %s\n\n%s",
			     sm->authors.v[i], sm->subjects.v[i],
			     sm->bodies.v[i]);
	}
	return 0;
}

/*
 * Try base on l's base repository: 1 when the series applies (or there
 * is no repository to try it on), 0 with a line in tried.  -1 with err.
 */
static int try_base(const struct list_row *l, const char *base, const char *how,
		    const struct series_mails *sm, struct strbuf *tried,
		    struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int r;

	if (!l->base_repo)
		return 1;
	if (!baserepo_has(l->base_repo, base)) {
		strbuf_addf(tried, "%s%s %s: not in %s", tried->len ? "; " : "",
			    how, base, l->base_repo);
		return 0;
	}
	r = baserepo_applies(l->base_repo, base, &sm->patches, &why, err);
	/* One note, one line: git's lines joined. */
	for (size_t i = 0; i < why.len; i++)
		if (why.buf[i] == '\n')
			why.buf[i] = ' ';
	if (r == 0)
		strbuf_addf(tried, "%s%s %s: does not apply (%s)",
			    tried->len ? "; " : "", how, base, why.buf);
	strbuf_release(&why);
	return r;
}

/*
 * The base of the series: 1 with *ret_base (the caller frees) and
 * *ret_method, 0 when none applies (tried says what was tried), -1.
 */
static int choose_base(const struct list_row *l, const struct series_mails *sm,
		       char **ret_base, const char **ret_method,
		       struct strbuf *tried, struct strbuf *err)
{
	struct strbuf sha = STRBUF_INIT;
	int r = 0;

	*ret_base = NULL;
	for (size_t i = 0; i < sm->bodies.nr && !sha.len; i++)
		listqueue_base_commit(sm->bodies.v[i], &sha);
	if (sha.len && !l->base_repo)
		strbuf_addf(tried,
			    "base-commit %s: the list has no base "
			    "repository",
			    sha.buf);
	else if (sha.len)
		r = try_base(l, sha.buf, "base-commit", sm, tried, err);
	if (r == 1) {
		*ret_base = strbuf_detach(&sha, NULL);
		*ret_method = "base-commit";
		return 1;
	}
	strbuf_release(&sha);
	for (size_t i = 0; r == 0 && i < l->base_map.nr; i++) {
		const char *eq = strchr(l->base_map.v[i], '=');
		char *glob = xstrndup(l->base_map.v[i],
				      (size_t)(eq - l->base_map.v[i]));
		int hit = 0;

		for (size_t j = 0; !hit && j < sm->paths.nr; j++)
			hit = policy_path_matches(glob, sm->paths.v[j]);
		if (hit)
			r = try_base(l, eq + 1, "map", sm, tried, err);
		if (r == 1) {
			*ret_base = xstrdup(eq + 1);
			*ret_method = "path map";
		}
		free(glob);
	}
	if (r == 0 && !tried->len)
		strbuf_addstr(tried, "no base-commit: trailer, and no path of "
				     "the map is touched");
	return r;
}

/* Queue the series on base with l's plan: *ret_patch_id.  0 or -1. */
static int queue_it(struct db *db, const struct list_row *l,
		    const struct series_mails *sm, const char *base,
		    int64_t *ret_patch_id, struct strbuf *err)
{
	struct queue_submit s = { 0 };
	struct queue_submitted done;
	struct queue_patch *qp;
	struct strbuf text = STRBUF_INIT, name = STRBUF_INIT;
	struct plan *plan = NULL;
	int r;

	*ret_patch_id = 0;
	if (queue_load_plan(l->plan_path, NULL, &text, &plan, err) < 0)
		return -1;
	qp = xcalloc(sm->patches.nr, sizeof(*qp));
	for (size_t i = 0; i < sm->patches.nr; i++) {
		qp[i].name = sm->subjects.v[0];
		qp[i].data = sm->patches.v[i];
		qp[i].len = strlen(sm->patches.v[i]);
	}
	strbuf_addf(&name, "%.400s (list %s)", sm->subjects.v[0], l->name);
	s.patches = qp;
	s.nr_patches = sm->patches.nr;
	s.base = base;
	s.plan_name = plan->name;
	s.plan_text = text.buf;
	s.plan_len = text.len;
	s.plan = plan;
	s.host = l->host;
	s.name = name.buf;
	s.submitter = sm->authors.v[0];
	s.mail_to = "";
	r = queue_submit(db, &s, &done, err);
	if (r == 0)
		*ret_patch_id = done.patch_id;
	free(qp);
	plan_free(plan);
	strbuf_release(&text);
	strbuf_release(&name);
	return r;
}

/*
 * The older versions of series_id superseded by it, their queued jobs
 * cancelled; a line for each in out.  0 or -1 with err.
 */
static int supersede(struct db *db, int64_t series_id, struct strbuf *out,
		     struct strbuf *err)
{
	struct strvec old = STRVEC_INIT, plms = STRVEC_INIT;
	int r = lists_series_supersede(db, series_id, &old, &plms, err);

	for (size_t i = 0; r == 0 && i < old.nr; i++) {
		struct strvec jobs = STRVEC_INIT;
		int64_t plm = strtoll(plms.v[i], NULL, 10);

		strbuf_addf(out, "series %s superseded by series %lld",
			    old.v[i], (long long)series_id);
		if (plm)
			r = lists_patch_queued_jobs(db, plm, &jobs, err);
		for (size_t j = 0; r == 0 && j < jobs.nr; j++) {
			r = queue_cancel(db, strtoll(jobs.v[j], NULL, 10), err);
			if (r >= 0)
				strbuf_addf(out, "%s STP#%s",
					    j ? "," : ": cancelled", jobs.v[j]);
			r = r < 0 ? -1 : 0;
		}
		strbuf_addch(out, '\n');
		strvec_clear(&jobs);
	}
	strvec_clear(&old);
	strvec_clear(&plms);
	return r;
}

int listqueue_series(struct db *db, const struct list_row *l, int64_t series_id,
		     struct strbuf *out, struct strbuf *err)
{
	struct series_mails sm;
	struct strbuf tried = STRBUF_INIT, note = STRBUF_INIT;
	const char *method = NULL;
	char *base = NULL;
	int64_t plm = 0;
	int r;

	strvec_init(&sm.authors);
	strvec_init(&sm.subjects);
	strvec_init(&sm.bodies);
	strvec_init(&sm.patches);
	strvec_init(&sm.paths);
	r = series_read(db, series_id, &sm, err);
	if (r == 0 && !sm.patches.nr) {
		strbuf_addstr(err, "a complete series without a patch text");
		r = -1;
	}
	if (r == 0)
		r = choose_base(l, &sm, &base, &method, &tried, err);
	if (r == 0) {
		strbuf_addf(&note, "applies to no base: %s", tried.buf);
		strbuf_addf(out, "series %lld: %s\n", (long long)series_id,
			    note.buf);
		r = lists_series_based(db, series_id, NULL, NULL, 0, "no-base",
				       note.buf, err);
		goto out;
	}
	if (r < 0)
		goto out;
	r = 0;
	if (tried.len)
		strbuf_addf(&note, "base by %s (%s)", method, tried.buf);
	if (l->plan_path) {
		struct strbuf why = STRBUF_INIT;

		/* A refusal (no host for the plan, a plan that no longer
		 * checks) is the series' note, not the list's failure: the
		 * poll goes on.  The store rolled its part back. */
		if (queue_it(db, l, &sm, base, &plm, &why) < 0) {
			strbuf_reset(&note);
			strbuf_addf(&note, "not queued: %s", why.buf);
			strbuf_addf(out, "series %lld: %s\n",
				    (long long)series_id, note.buf);
		}
		strbuf_release(&why);
	}
	if (r == 0)
		r = lists_series_based(db, series_id, base, method, plm,
				       plm ? "queued" : "complete",
				       note.len ? note.buf : NULL, err);
	if (r == 0 && plm)
		strbuf_addf(out,
			    "series %lld queued as PLM#%lld on %s (by %s)\n",
			    (long long)series_id, (long long)plm, base, method);
	else if (r == 0)
		strbuf_addf(out,
			    "series %lld: base %s (by %s); no plan, not "
			    "queued\n",
			    (long long)series_id, base, method);
	if (r == 0 && plm)
		r = supersede(db, series_id, out, err);
	if (r == 0 && tried.len && plm)
		strbuf_addf(out, "series %lld: %s\n", (long long)series_id,
			    note.buf);
out:
	free(base);
	series_mails_release(&sm);
	strbuf_release(&tried);
	strbuf_release(&note);
	return r;
}

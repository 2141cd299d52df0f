/*
 * changes_db.c - each host's history brought up to date and read; see
 * changes.h (the method, E-divisive means, is changes.c's).
 *
 * The database step streams one host's points at a time (one query,
 * grouped into observations by PostgreSQL), searches the series whose
 * fingerprint changed, and writes their rows with one statement per
 * table and host (arrays unnested by PostgreSQL), so the cost grows with
 * the number of points, not with round trips per series.  The listing
 * and the tau suggestion read what is stored.  Every statement is
 * parameterised.
 * The statements are store/history.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "analysis/changes.h"
#include "analysis/compare.h"
#include "analysis/stats.h"
#include "parse.h"
#include "store/history.h"
#include "strvec.h"
#include "banned.h"

/* --- The database layer ------------------------------------------------ */

enum {
	PT_WORKLOAD,
	PT_PARAMS,
	PT_METRIC,
	PT_UNIT,
	PT_DIR,
	PT_AT,
	PT_RUN,
	PT_KERNEL,
	PT_MEAN,
	PT_HMEAN,
	PT_FP,
	PT_PARAMS_TEXT,
	PT_KERNEL_NAME,
};

/* One series as points_sql returns it: rows [first, first + n). */
struct pseries {
	int first;
	size_t n;
	double *x;
};

/* A glob with * and ? as a LIKE pattern (% and _ escaped). */
static char *glob_to_like(const char *glob)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = glob; *p; p++) {
		if (*p == '*')
			strbuf_addch(&sb, '%');
		else if (*p == '?')
			strbuf_addch(&sb, '_');
		else {
			if (*p == '%' || *p == '_' || *p == '\\')
				strbuf_addch(&sb, '\\');
			strbuf_addch(&sb, *p);
		}
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * Run points_sql for host_id into *ret and cut it into series (*ret_s,
 * *ret_ns; free each x and the array).  Values are each point's mean, or
 * its harmonic mean for a rate.  Returns 0, or -1 with err.
 */
static int load_points(struct db *db, int64_t host_id, int pages,
		       const char *metric_glob, struct db_result **ret,
		       struct pseries **ret_s, size_t *ret_ns,
		       struct strbuf *err)
{
	_cleanup_free_ char *like =
		metric_glob ? glob_to_like(metric_glob) : NULL;
	struct pseries *s = NULL;
	size_t ns = 0, alloc = 0;
	int nrows;

	*ret_s = NULL;
	*ret_ns = 0;
	if (history_points(db, host_id, pages, like, ret, err) < 0)
		return -1;
	nrows = db_nrows(*ret);
	for (int i = 0; i < nrows; i++) {
		int rate;
		double v;

		if (!ns ||
		    strcmp(db_get(*ret, i, PT_WORKLOAD),
			   db_get(*ret, s[ns - 1].first, PT_WORKLOAD)) ||
		    strcmp(db_get(*ret, i, PT_PARAMS),
			   db_get(*ret, s[ns - 1].first, PT_PARAMS)) ||
		    strcmp(db_get(*ret, i, PT_METRIC),
			   db_get(*ret, s[ns - 1].first, PT_METRIC))) {
			ALLOC_GROW(s, ns + 1, alloc);
			memset(&s[ns], 0, sizeof(s[ns]));
			s[ns].first = i;
			ns++;
		}
		rate = compare_unit_is_rate(db_get(*ret, i, PT_UNIT));
		if (parse_double(db_get(*ret, i,
					rate && db_get(*ret, i, PT_HMEAN)
						? PT_HMEAN
						: PT_MEAN),
				 -HUGE_VAL, HUGE_VAL, &v, NULL) < 0) {
			strbuf_addstr(err,
				      "an unreadable point in the history");
			goto fail;
		}
		s[ns - 1].x = xrealloc(s[ns - 1].x,
				       (s[ns - 1].n + 1) * sizeof(double));
		s[ns - 1].x[s[ns - 1].n++] = v;
	}
	*ret_s = s;
	*ret_ns = ns;
	return 0;
fail:
	for (size_t k = 0; k < ns; k++)
		free(s[k].x);
	free(s);
	db_result_free(*ret);
	*ret = NULL;
	return -1;
}

static void free_pseries(struct pseries *s, size_t ns)
{
	for (size_t k = 0; k < ns; k++)
		free(s[k].x);
	free(s);
}

static void push_num(struct strvec *sv, double v)
{
	char buf[40];

	if (!isfinite(v)) {
		strvec_push(sv, "");
		return;
	}
	snprintf(buf, sizeof(buf), "%.17g", v);
	strvec_push(sv, buf);
}

static void push_int(struct strvec *sv, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	strvec_push(sv, buf);
}

/* The columns of history_changes for one host's analysed series. */
enum {
	HC_SERIES,
	HC_IDX,
	HC_RUN,
	HC_AT,
	HC_KB,
	HC_KA,
	HC_NB,
	HC_NA,
	HC_MB,
	HC_MA,
	HC_SHIFT,
	HC_PCT,
	HC_P,
	HC_Q,
	HC_NCOLS
};
_Static_assert(HC_NCOLS == HISTORY_CHANGE_COLS,
	       "history_changes_insert() takes these columns");

/*
 * Write one host's analysed series: upsert history_series, replace their
 * history_changes.  cps[k] are the change points of s[k].  One
 * transaction.  Returns the number of change points stored, or -1.
 */
static int store_host(struct db *db, int64_t host_id,
		      const struct db_result *res, const struct pseries *s,
		      size_t ns, const struct changes_list *cps,
		      struct strbuf *err)
{
	struct strvec w = STRVEC_INIT, p = STRVEC_INIT, m = STRVEC_INIT,
		      u = STRVEC_INIT, b = STRVEC_INIT, n = STRVEC_INIT,
		      f = STRVEC_INIT, ids = STRVEC_INIT, col[HC_NCOLS];
	_cleanup_db_result_ struct db_result *up = NULL;
	_cleanup_free_ int64_t *sid = xcalloc(ns ? ns : 1, sizeof(*sid));
	int r = -1, stored = 0;

	for (int c = 0; c < HC_NCOLS; c++)
		strvec_init(&col[c]);
	for (size_t k = 0; k < ns; k++) {
		strvec_push(&w, db_get(res, s[k].first, PT_WORKLOAD));
		strvec_push(&p, db_get(res, s[k].first, PT_PARAMS));
		strvec_push(&m, db_get(res, s[k].first, PT_METRIC));
		strvec_push(&u, db_get(res, s[k].first, PT_UNIT));
		strvec_push(&b, db_get(res, s[k].first, PT_DIR));
		push_int(&n, (int64_t)s[k].n);
		strvec_push(&f, db_get(res, s[k].first, PT_FP));
	}
	if (db_begin(db, err) < 0)
		goto out;
	if (history_series_upsert(db, host_id, CHANGES_METHOD_VERSION, &w, &p,
				  &m, &u, &b, &n, &f, &up, err) < 0)
		goto rollback;
	/* RETURNING does not promise the order: match the keys. */
	for (int i = 0; i < db_nrows(up); i++) {
		int64_t id;

		if (db_get_i64(up, i, 0, 1, INT64_MAX, &id) < 0)
			continue;
		for (size_t k = 0; k < ns; k++)
			if (!sid[k] && !strcmp(db_get(up, i, 1), w.v[k]) &&
			    !strcmp(db_get(up, i, 2), p.v[k]) &&
			    !strcmp(db_get(up, i, 3), m.v[k])) {
				sid[k] = id;
				break;
			}
	}
	for (size_t k = 0; k < ns; k++) {
		if (!sid[k]) {
			strbuf_addf(err, "history_series lost the row of %s",
				    m.v[k]);
			goto rollback;
		}
		push_int(&ids, sid[k]);
		for (size_t c = 0; c < cps[k].nr; c++) {
			const struct changes_point *cp = &cps[k].v[c];
			int row = s[k].first + (int)cp->idx;

			push_int(&col[HC_SERIES], sid[k]);
			push_int(&col[HC_IDX], (int64_t)cp->idx);
			strvec_push(&col[HC_RUN], db_get(res, row, PT_RUN));
			strvec_push(&col[HC_AT], db_get(res, row, PT_AT));
			strvec_push(&col[HC_KB],
				    db_get(res, row - 1, PT_KERNEL));
			strvec_push(&col[HC_KA], db_get(res, row, PT_KERNEL));
			push_int(&col[HC_NB], (int64_t)cp->n_before);
			push_int(&col[HC_NA], (int64_t)cp->n_after);
			push_num(&col[HC_MB], cp->mean_before);
			push_num(&col[HC_MA], cp->mean_after);
			push_num(&col[HC_SHIFT],
				 cp->mean_after - cp->mean_before);
			push_num(&col[HC_PCT],
				 cp->mean_before != 0
					 ? 100 *
						   (cp->mean_after -
						    cp->mean_before) /
						   fabs(cp->mean_before)
					 : NAN);
			push_num(&col[HC_P], cp->p);
			push_num(&col[HC_Q], cp->qhat);
			stored++;
		}
	}
	if (history_changes_delete(db, &ids, err) < 0)
		goto rollback;
	if (stored) {
		if (history_changes_insert(db, CHANGES_METHOD_VERSION, col,
					   err) < 0)
			goto rollback;
	}
	if (db_commit(db, err) < 0)
		goto out;
	r = stored;
	goto out;
rollback:
	db_rollback(db);
out:
	strvec_clear(&w);
	strvec_clear(&p);
	strvec_clear(&m);
	strvec_clear(&u);
	strvec_clear(&b);
	strvec_clear(&n);
	strvec_clear(&f);
	strvec_clear(&ids);
	for (int c = 0; c < HC_NCOLS; c++)
		strvec_clear(&col[c]);
	return r;
}

/*
 * Keep in s[0..*n) only the series of host_id whose fingerprint or
 * method differ from what history_series holds (the others are freed);
 * *n becomes how many are left.  0, or -1 with err.
 */
static int drop_fresh(struct db *db, int64_t host_id,
		      const struct db_result *res, struct pseries *s, size_t *n,
		      struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *st = NULL;
	size_t keep = 0;
	int r;

	r = history_series_fingerprints(db, host_id, CHANGES_METHOD_VERSION,
					&st, err);
	if (r < 0)
		return -1;
	/* Both lists are in the same bytewise order: one merge. */
	for (size_t k = 0, j = 0; k < *n; k++) {
		const char *w = db_get(res, s[k].first, PT_WORKLOAD),
			   *p = db_get(res, s[k].first, PT_PARAMS),
			   *m = db_get(res, s[k].first, PT_METRIC);
		int c = 1, fresh = 0;

		while (j < (size_t)db_nrows(st)) {
			c = strcmp(db_get(st, (int)j, 0), w);
			if (!c)
				c = strcmp(db_get(st, (int)j, 1), p);
			if (!c)
				c = strcmp(db_get(st, (int)j, 2), m);
			if (c >= 0)
				break;
			j++;
		}
		if (!c && !strcmp(db_get(st, (int)j, 3),
				  db_get(res, s[k].first, PT_FP)))
			fresh = 1;
		if (fresh) {
			free(s[k].x);
			continue;
		}
		s[keep++] = s[k];
	}
	*n = keep;
	return 0;
}

/*
 * Did host_id's finished and imported runs stay as they were when its
 * history was last brought up to date (history_hosts)?  1 when so, 0
 * when not (its fingerprint now in *fp, to record once it is), -1 with
 * err.  Runs get their results once (ingest), so the runs stand for
 * them: the check reads an index, not the results.
 */
static int host_fresh(struct db *db, int64_t host_id, struct strbuf *fp,
		      struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	strbuf_reset(fp);
	r = history_host_fingerprint(db, host_id, CHANGES_METHOD_VERSION, &res,
				     err);
	if (r < 0)
		return -1;
	strbuf_addstr(fp, db_get(res, 0, 0));
	return db_get(res, 0, 1) && !strcmp(db_get(res, 0, 1), "t");
}

int changes_update(struct db *db, const char *host,
		   struct changes_update_stats *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *hosts = NULL;
	struct strbuf fp = STRBUF_INIT;
	int rc = -1;

	memset(ret, 0, sizeof(*ret));
	if (history_hosts_with_runs(db, host, &hosts, err) < 0)
		return -1;
	for (int h = 0; h < db_nrows(hosts); h++) {
		_cleanup_db_result_ struct db_result *res = NULL;
		struct pseries *s;
		struct changes_list *cps;
		size_t ns;
		int64_t host_id;
		int r = 0;

		if (db_get_i64(hosts, h, 0, 1, INT64_MAX, &host_id) < 0)
			continue;
		r = host_fresh(db, host_id, &fp, err);
		if (r < 0)
			goto out;
		if (r > 0) {
			ret->series += history_series_count(db, host_id);
			continue;
		}
		if (load_points(db, host_id, 0, NULL, &res, &s, &ns, err) < 0)
			goto out;
		ret->series += ns;
		/* Only the series whose fingerprint moved are searched. */
		if (drop_fresh(db, host_id, res, s, &ns, err) < 0) {
			free_pseries(s, ns);
			goto out;
		}
		if (ns == 0) {
			free(s);
			if (history_host_mark(db, host_id, fp.buf,
					      CHANGES_METHOD_VERSION, err) < 0)
				goto out;
			continue;
		}
		cps = xcalloc(ns, sizeof(*cps));
		for (size_t k = 0; k < ns && r == 0; k++) {
			r = changes_find(s[k].x, s[k].n, &cps[k]);
			ret->points += s[k].n;
		}
		if (r == 0)
			r = store_host(db, host_id, res, s, ns, cps, err);
		else
			strbuf_addstr(err, "a series of the history holds a "
					   "value that is not finite");
		for (size_t k = 0; k < ns; k++)
			changes_list_release(&cps[k]);
		free(cps);
		free_pseries(s, ns);
		if (r < 0 || history_host_mark(db, host_id, fp.buf,
					       CHANGES_METHOD_VERSION, err) < 0)
			goto out;
		ret->analysed += ns;
		ret->changes += (size_t)r;
	}
	rc = 0;
out:
	strbuf_release(&fp);
	return rc;
}

void changes_rows_release(struct changes_rows *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		struct changes_row *c = &r->v[i];

		free(c->host);
		free(c->workload);
		free(c->params_text);
		free(c->metric);
		free(c->unit);
		free(c->better);
		free(c->at);
		free(c->kernel_before);
		free(c->kernel_after);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static char *dup_or_empty(const char *s)
{
	return xstrdup(s ? s : "");
}

static double num_or_nan(const char *s)
{
	double v;

	return s && parse_double(s, -HUGE_VAL, HUGE_VAL, &v, NULL) == 0 ? v
									: NAN;
}

int changes_list(struct db *db, const struct changes_query *q,
		 struct changes_rows *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	_cleanup_free_ char *like = q->metric ? glob_to_like(q->metric) : NULL;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = history_changes_list(db, q->host, like, q->since, q->limit, &res,
				 err);
	if (r < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++) {
		struct changes_row *c;
		int64_t v;

		ALLOC_GROW(ret->v, ret->nr + 1, ret->alloc);
		c = &ret->v[ret->nr++];
		memset(c, 0, sizeof(*c));
		c->host = dup_or_empty(db_get(res, i, 0));
		c->workload = dup_or_empty(db_get(res, i, 1));
		c->params_text = dup_or_empty(db_get(res, i, 2));
		c->metric = dup_or_empty(db_get(res, i, 3));
		c->unit = dup_or_empty(db_get(res, i, 4));
		c->better = dup_or_empty(db_get(res, i, 5));
		c->at = dup_or_empty(db_get(res, i, 6));
		c->kernel_before = dup_or_empty(db_get(res, i, 7));
		c->kernel_after = dup_or_empty(db_get(res, i, 8));
		c->idx = db_get_i64(res, i, 9, 0, INT64_MAX, &v) == 0
				 ? (size_t)v
				 : 0;
		c->n_points = db_get_i64(res, i, 10, 0, INT64_MAX, &v) == 0
				      ? (size_t)v
				      : 0;
		c->n_before = db_get_i64(res, i, 11, 0, INT64_MAX, &v) == 0
				      ? (size_t)v
				      : 0;
		c->n_after = db_get_i64(res, i, 12, 0, INT64_MAX, &v) == 0
				     ? (size_t)v
				     : 0;
		c->mean_before = num_or_nan(db_get(res, i, 13));
		c->mean_after = num_or_nan(db_get(res, i, 14));
		c->shift = num_or_nan(db_get(res, i, 15));
		c->pct_shift = num_or_nan(db_get(res, i, 16));
		c->p = num_or_nan(db_get(res, i, 17));
		if (!strcmp(c->better, "higher"))
			c->direction = c->shift > 0 ? "better" : "worse";
		else if (!strcmp(c->better, "lower"))
			c->direction = c->shift < 0 ? "better" : "worse";
		else
			c->direction = "changed";
	}
	return 0;
}

void changes_taus_release(struct changes_taus *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		free(t->v[i].metric);
		free(t->v[i].unit);
	}
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* What suggest_tau gathers per metric before the percentile. */
struct tau_acc {
	char *metric, *unit;
	size_t series;
	double *d; /* |%change| of each A/A pair of blocks */
	size_t nd, alloc;
	double cv2_df, df; /* sum of CV^2 x df over segments, and of df */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The A/A pairs of one series x[0..n) into acc: between its change
 * points, adjacent blocks of `boots` points, and its within-segment CV.
 * Series that cross zero have no percentage and are left out.
 */
static void tau_series(const double *x, size_t n, int boots,
		       struct tau_acc *acc)
{
	struct changes_list cps = { NULL, 0, 0 };
	size_t start = 0;
	int neg = 0, pos = 0;

	for (size_t i = 0; i < n; i++) {
		neg |= x[i] < 0;
		pos |= x[i] > 0;
	}
	if ((neg && pos) || !(neg || pos) || changes_find(x, n, &cps) < 0) {
		changes_list_release(&cps);
		return;
	}
	acc->series++;
	for (size_t c = 0; c <= cps.nr; c++) {
		size_t end = c < cps.nr ? cps.v[c].idx : n;
		struct stats_summary sm;

		if (end - start >= 2) {
			stats_summarize(x + start, end - start, &sm);
			if (sm.mean != 0 && isfinite(sm.sd)) {
				double cv = sm.sd / fabs(sm.mean);

				acc->cv2_df += cv * cv * (double)(sm.n - 1);
				acc->df += (double)(sm.n - 1);
			}
		}
		for (size_t b = start; b + 2 * (size_t)boots <= end;
		     b += 2 * (size_t)boots) {
			double m1 = stats_mean(x + b, (size_t)boots),
			       m2 = stats_mean(x + b + boots, (size_t)boots);

			if (m1 == 0)
				continue;
			ALLOC_GROW(acc->d, acc->nd + 1, acc->alloc);
			acc->d[acc->nd++] = fabs(100 * (m2 - m1) / fabs(m1));
		}
		start = end;
	}
	changes_list_release(&cps);
}

int changes_suggest_tau(struct db *db, const struct changes_query *q, int boots,
			struct changes_taus *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *hosts = NULL;
	struct tau_acc *acc = NULL;
	size_t nacc = 0, alloc = 0;
	int r = -1;

	memset(ret, 0, sizeof(*ret));
	if (boots < 1)
		boots = 1;
	if (history_hosts_with_runs(db, q->host, &hosts, err) < 0)
		return -1;
	for (int h = 0; h < db_nrows(hosts); h++) {
		_cleanup_db_result_ struct db_result *res = NULL;
		struct pseries *s;
		size_t ns;
		int64_t host_id;

		if (db_get_i64(hosts, h, 0, 1, INT64_MAX, &host_id) < 0)
			continue;
		if (load_points(db, host_id, 0, q->metric, &res, &s, &ns, err) <
		    0)
			goto out;
		for (size_t k = 0; k < ns; k++) {
			const char *m = db_get(res, s[k].first, PT_METRIC);
			size_t j;

			for (j = 0; j < nacc; j++)
				if (!strcmp(acc[j].metric, m))
					break;
			if (j == nacc) {
				ALLOC_GROW(acc, nacc + 1, alloc);
				memset(&acc[nacc], 0, sizeof(acc[nacc]));
				acc[nacc].metric = xstrdup(m);
				acc[nacc].unit = dup_or_empty(
					db_get(res, s[k].first, PT_UNIT));
				nacc++;
			}
			tau_series(s[k].x, s[k].n, boots, &acc[j]);
		}
		free_pseries(s, ns);
	}
	for (size_t j = 0; j < nacc; j++) {
		struct changes_tau *t;

		ALLOC_GROW(ret->v, ret->nr + 1, ret->alloc);
		t = &ret->v[ret->nr++];
		memset(t, 0, sizeof(*t));
		t->metric = TAKE_PTR(acc[j].metric);
		t->unit = TAKE_PTR(acc[j].unit);
		t->series = acc[j].series;
		t->pairs = acc[j].nd;
		t->cv = acc[j].df > 0 ? 100 * sqrt(acc[j].cv2_df / acc[j].df)
				      : NAN;
		t->p95 = t->tau = NAN;
		t->current = compare_default_tau(t->metric);
		if (acc[j].nd) {
			qsort(acc[j].d, acc[j].nd, sizeof(double), cmp_double);
			t->p95 = acc[j].d[(size_t)ceil(0.95 *
						       (double)acc[j].nd) -
					  1];
			t->tau = ceil(t->p95 * 2) / 2;
			if (t->tau < 0.5)
				t->tau = 0.5;
		}
	}
	r = 0;
out:
	for (size_t j = 0; j < nacc; j++) {
		free(acc[j].metric);
		free(acc[j].unit);
		free(acc[j].d);
	}
	free(acc);
	return r;
}

void changes_series_release(struct changes_series *s)
{
	free(s->host);
	free(s->workload);
	free(s->params_text);
	free(s->metric);
	free(s->unit);
	free(s->value);
	for (size_t i = 0; s->kernel && i < s->n; i++)
		free(s->kernel[i]);
	free(s->kernel);
	free(s->cp);
	memset(s, 0, sizeof(*s));
}

/* The stored change points of series (host_id, workload, params, metric). */
static int stored_cps(struct db *db, int64_t host_id, const char *workload,
		      const char *params, const char *metric,
		      struct changes_series *out, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = history_change_points(db, host_id, workload, params, metric, &res,
				  err);
	if (r < 0)
		return -1;
	out->cp = xcalloc((size_t)db_nrows(res) + 1, sizeof(*out->cp));
	for (int i = 0; i < db_nrows(res); i++) {
		int64_t v;

		if (db_get_i64(res, i, 0, 1, INT64_MAX, &v) == 0 &&
		    (size_t)v < out->n)
			out->cp[out->ncp++] = (size_t)v;
	}
	return 0;
}

int changes_load_series(struct db *db, int64_t host_id, const char *metric,
			struct changes_series **ret, size_t *ret_n,
			struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *hosts = NULL, *names = NULL;
	struct changes_series *out = NULL;
	size_t nout = 0, alloc = 0;

	*ret = NULL;
	*ret_n = 0;
	if ((host_id > 0
		     ? history_host_of_id(db, host_id, &hosts, err)
		     : history_hosts_of_metric(db, metric, &hosts, err)) < 0)
		return -1;
	for (int h = 0; h < db_nrows(hosts); h++) {
		_cleanup_db_result_ struct db_result *res = NULL;
		_cleanup_free_ char *glob = NULL;
		struct pseries *s;
		size_t ns;
		int64_t hid;

		if (db_get_i64(hosts, h, 0, 1, INT64_MAX, &hid) < 0)
			continue;
		/* An exact metric name: escape what LIKE would read. */
		if (host_id <= 0) {
			struct strbuf g = STRBUF_INIT;

			for (const char *p = metric; *p; p++) {
				if (*p == '*' || *p == '?')
					goto skip; /* not a stored name */
				strbuf_addch(&g, *p);
			}
			glob = strbuf_detach(&g, NULL);
		}
		if (load_points(db, hid, 1, glob, &res, &s, &ns, err) < 0)
			goto fail;
		for (size_t k = 0; k < ns; k++) {
			struct changes_series *cs;

			ALLOC_GROW(out, nout + 1, alloc);
			cs = &out[nout++];
			memset(cs, 0, sizeof(*cs));
			cs->host_id = hid;
			cs->host = xstrdup(db_get(hosts, h, 1));
			cs->workload =
				xstrdup(db_get(res, s[k].first, PT_WORKLOAD));
			cs->params_text = dup_or_empty(
				db_get(res, s[k].first, PT_PARAMS_TEXT));
			cs->metric =
				xstrdup(db_get(res, s[k].first, PT_METRIC));
			cs->unit =
				dup_or_empty(db_get(res, s[k].first, PT_UNIT));
			cs->n = s[k].n;
			cs->value = TAKE_PTR(s[k].x);
			cs->kernel = xcalloc(cs->n, sizeof(*cs->kernel));
			for (size_t i = 0; i < cs->n; i++)
				cs->kernel[i] = dup_or_empty(
					db_get(res, s[k].first + (int)i,
					       PT_KERNEL_NAME));
			if (stored_cps(db, hid, cs->workload,
				       db_get(res, s[k].first, PT_PARAMS),
				       cs->metric, cs, err) < 0) {
				free_pseries(s, ns);
				goto fail;
			}
		}
		free_pseries(s, ns);
	skip:;
	}
	*ret = out;
	*ret_n = nout;
	return 0;
fail:
	for (size_t i = 0; i < nout; i++)
		changes_series_release(&out[i]);
	free(out);
	return -1;
}

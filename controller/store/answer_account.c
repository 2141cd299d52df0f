/*
 * answer_account.c - whose base runs an answer compared, and where its
 * time went; see answer_account.h.
 *
 * Both are read from the rows, never guessed: the reused runs through the
 * comparison's own filter (store/comparisons.c), the phases from the
 * timestamps the queue writes as a job moves (store/queue.c).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "parse.h"
#include "time-util.h"
#include "store/answer_account.h"
#include "store/answers.h"
#include "store/comparisons.h"
#include "banned.h"

void answer_reuse_release(struct answer_reuse *r)
{
	free(r->jobs);
	memset(r, 0, sizeof(*r));
}

int answers_base_reused(struct db *db, const struct answer_sub *s,
			struct answer_reuse *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	memset(ret, 0, sizeof(*ret));
	if (s->fresh_base || !s->host_name || !s->base_kernel_id)
		return 0;
	if (comparisons_base_sources(db, s->base_kernel_id, s->host_name,
				     s->plan_id, &s->plan_set, s->patch_id,
				     &res, err) < 0)
		return -1;
	ret->jobs = xcalloc((size_t)db_nrows(res) + 1, sizeof(*ret->jobs));
	for (int i = 0; i < db_nrows(res); i++) {
		int64_t n;

		if (db_get_i64(res, i, 1, 1, INT64_MAX, &n) < 0)
			goto bad;
		if (!db_get(res, i, 0)) {
			ret->imported += n;
			continue;
		}
		if (db_get_i64(res, i, 0, 1, INT64_MAX,
			       &ret->jobs[ret->nr_jobs]) < 0)
			goto bad;
		ret->nr_jobs++;
	}
	return 0;
bad:
	strbuf_addf(err, "PLM#%lld: an unreadable row of its base runs",
		    (long long)s->patch_id);
	answer_reuse_release(ret);
	return -1;
}

int answer_reuse_any(const struct answer_reuse *r)
{
	return r->nr_jobs > 0 || r->imported > 0;
}

void answer_reuse_text(const struct answer_reuse *r, const char *kernel,
		       struct strbuf *out)
{
	if (!answer_reuse_any(r))
		return;
	strbuf_addstr(out, "base runs reused from ");
	for (size_t i = 0; i < r->nr_jobs; i++)
		strbuf_addf(out, "%sSTP#%" PRId64, i ? ", " : "", r->jobs[i]);
	if (r->imported)
		strbuf_addf(out, "%s%" PRId64 " imported run%s",
			    r->nr_jobs ? ", " : "", r->imported,
			    r->imported == 1 ? "" : "s");
	strbuf_addf(out, ", kernel %s", kernel ? kernel : "-");
}

void answer_reuse_json(const struct answer_reuse *r, const char *kernel,
		       struct strbuf *out)
{
	struct strbuf text = STRBUF_INIT;

	if (!answer_reuse_any(r)) {
		strbuf_addstr(out, "null");
		return;
	}
	strbuf_addstr(out, "{\"kernel\":");
	strbuf_add_json_str(out, kernel ? kernel : "");
	strbuf_addstr(out, ",\"jobs\":[");
	for (size_t i = 0; i < r->nr_jobs; i++)
		strbuf_addf(out, "%s%" PRId64, i ? "," : "", r->jobs[i]);
	strbuf_addf(out, "],\"imported\":%" PRId64 ",\"text\":", r->imported);
	answer_reuse_text(r, kernel, &text);
	strbuf_add_json_str(out, text.buf);
	strbuf_addch(out, '}');
	strbuf_release(&text);
}

int answers_record_reuse(struct db *db, int64_t patch_id, const char *json,
			 struct strbuf *err)
{
	return db_query(db, NULL, err,
			"UPDATE patches SET answer_base_reused = $2::jsonb "
			"WHERE id = $1",
			db_i64(patch_id), db_str(json), db_end());
}

/*
 * The phases' parts as intervals (x.span, x.first_wait, x.waits,
 * x.build, x.boot, x.jobs, x.compare), of the jobs that ran, in the
 * order they started: each one's wait is from the end of the one before.
 */
static const char phases_sql[] =
	"WITH j AS (SELECT j.id, j.started_at AS s, j.finished_at AS f, "
	"  lag(j.finished_at) OVER (ORDER BY j.started_at, j.id) AS prev_f "
	"  FROM jobs j WHERE j.patch_id = $1 AND j.bisect_step_id IS NULL "
	"  AND j.started_at IS NOT NULL AND j.finished_at IS NOT NULL), "
	"ph AS (SELECT f.phase, sum(f.finished_at - f.started_at) AS d "
	"  FROM job_phases f WHERE f.job_id IN (SELECT id FROM j) "
	"  AND f.finished_at IS NOT NULL GROUP BY f.phase) "
	"SELECT x.n, "
	"  round(extract(epoch FROM x.span) * 1000)::bigint, "
	"  round(extract(epoch FROM x.first_wait) * 1000)::bigint, "
	"  round(extract(epoch FROM x.waits) * 1000)::bigint, "
	"  round(extract(epoch FROM x.build) * 1000)::bigint, "
	"  round(extract(epoch FROM x.boot) * 1000)::bigint, "
	"  round(extract(epoch FROM x.jobs) * 1000)::bigint, "
	"  round(extract(epoch FROM x.compare) * 1000)::bigint "
	"FROM (SELECT (SELECT count(*) FROM j) AS n, "
	"  p.answered_at - p.created_at AS span, "
	"  coalesce((SELECT min(s) FROM j), p.answered_at) - p.created_at "
	"    AS first_wait, "
	"  coalesce((SELECT sum(greatest(s - prev_f, interval '0')) FROM j), "
	"    interval '0') AS waits, "
	"  coalesce((SELECT d FROM ph WHERE phase = 'build'), interval '0') "
	"    AS build, "
	"  coalesce((SELECT d FROM ph WHERE phase = 'boot'), interval '0') "
	"    AS boot, "
	"  coalesce((SELECT sum(f - s) FROM j), interval '0') AS jobs, "
	"  coalesce(p.answered_at - (SELECT max(f) FROM j), interval '0') "
	"    AS compare "
	"  FROM patches p WHERE p.id = $1 AND p.answered_at IS NOT NULL) x";

int answers_phases(struct db *db, int64_t patch_id, struct answer_phases *ret,
		   struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int64_t v[7], jobs_ms;

	memset(ret, 0, sizeof(*ret));
	if (db_query(db, &res, err, phases_sql, db_i64(patch_id), db_end()) < 0)
		return -1;
	if (db_nrows(res) != 1)
		return 0;
	if (parse_int(db_get(res, 0, 0), 0, INT_MAX, &ret->jobs, NULL) < 0)
		goto bad;
	for (int c = 0; c < 7; c++)
		if (db_get_i64(res, 0, c + 1, INT64_MIN, INT64_MAX, &v[c]) < 0)
			goto bad;
	ret->answered = 1;
	ret->span_ms = v[0] > 0 ? v[0] : 0;
	ret->queued_ms = (v[1] > 0 ? v[1] : 0) + (v[2] > 0 ? v[2] : 0);
	ret->build_ms = v[3] > 0 ? v[3] : 0;
	ret->boot_ms = v[4] > 0 ? v[4] : 0;
	jobs_ms = v[5] > 0 ? v[5] : 0;
	ret->run_ms = jobs_ms - ret->build_ms - ret->boot_ms;
	if (ret->run_ms < 0)
		ret->run_ms = 0;
	ret->compare_ms = ret->jobs && v[6] > 0 ? v[6] : 0;
	return 0;
bad:
	strbuf_addf(err, "PLM#%lld: an unreadable row of its phases",
		    (long long)patch_id);
	memset(ret, 0, sizeof(*ret));
	return -1;
}

void answer_phases_text(const struct answer_phases *ph, struct strbuf *out)
{
	strbuf_addstr(out, "queued ");
	format_duration_ms(out, ph->queued_ms);
	strbuf_addstr(out, ", build ");
	format_duration_ms(out, ph->build_ms);
	strbuf_addstr(out, ", boot ");
	format_duration_ms(out, ph->boot_ms);
	strbuf_addstr(out, ", run ");
	format_duration_ms(out, ph->run_ms);
	strbuf_addstr(out, ", compare ");
	format_duration_ms(out, ph->compare_ms);
}

void answer_phases_json(const struct answer_phases *ph, struct strbuf *out)
{
	if (!ph->answered) {
		strbuf_addstr(out, "null");
		return;
	}
	strbuf_addf(
		out,
		"{\"total_seconds\":%.3f,\"queued\":%.3f,\"build\":%.3f,"
		"\"boot\":%.3f,\"run\":%.3f,\"compare\":%.3f}",
		(double)ph->span_ms / 1000.0, (double)ph->queued_ms / 1000.0,
		(double)ph->build_ms / 1000.0, (double)ph->boot_ms / 1000.0,
		(double)ph->run_ms / 1000.0, (double)ph->compare_ms / 1000.0);
}

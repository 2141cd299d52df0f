/*
 * comparisons.c - reads of the `comparisons` rows for the verbs; see
 * comparisons.h.
 */
#include "store/comparisons.h"
#include "banned.h"

int comparisons_regressions(struct db *db, const char *since, const char *host,
			    double min_change, int64_t limit,
			    struct db_result **ret, struct strbuf *err)
{
	/* $1 since, $2 host, $3 min |%change|, $4 limit; NULL = no filter. */
	static const char sql[] =
		"SELECT to_char(computed_at AT TIME ZONE 'UTC', "
		"         'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), patch_id, "
		"       base_kernel, new_kernel, host, workload, params::text, "
		"       metric, unit, pct_change, ci_low, ci_high, p_value "
		"  FROM regressions "
		" WHERE ($1::timestamptz IS NULL OR computed_at >= "
		"$1::timestamptz) "
		"   AND ($2::text IS NULL OR host = $2) "
		"   AND ($3::float8 IS NULL OR abs(pct_change) >= $3::float8) "
		" ORDER BY computed_at DESC, id DESC LIMIT $4";
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_str(&a, since);
	db_args_str(&a, host);
	db_args_double(&a, min_change);
	db_args_i64(&a, limit);
	r = db_exec_args(db, ret, err, sql, &a);
	db_args_clear(&a);
	return r;
}

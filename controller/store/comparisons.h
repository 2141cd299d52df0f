/*
 * comparisons.h - the `comparisons` rows as the verbs read them.
 *
 * analysis/compare_db.c still writes and deletes them (issue 30 moves
 * that here); this file holds what the verbs ask of them, so that no verb
 * writes SQL.  Nothing here prints.
 */
#ifndef SCHEDFARM_COMPARISONS_H
#define SCHEDFARM_COMPARISONS_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/*
 * The `regressions` view for `regressions`, newest first, at most limit
 * rows, filtered by since (an ISO time), host (a name) and min_change (the
 * least |%change|); a NULL string or a NaN min_change filters nothing.
 * Columns: computed_at (ISO, UTC), patch_id, base_kernel, new_kernel,
 * host, workload, params, metric, unit, pct_change, ci_low, ci_high,
 * p_value.  Into *ret (the caller frees it).  0, or -1 with err.
 */
int comparisons_regressions(struct db *db, const char *since, const char *host,
			    double min_change, int64_t limit,
			    struct db_result **ret, struct strbuf *err);

#endif

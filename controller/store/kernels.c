/*
 * kernels.c - `kernels` rows; see kernels.h.
 *
 * One INSERT for every way a kernel gets a name, and the three updates of
 * a build's life.  A row keeps the last MiB of a build log; the build's
 * folder keeps all of it.
 */
#include <string.h>

#include "cleanup.h"
#include "parse.h"
#include "store/kernels.h"
#include "banned.h"

#define KERNEL_LOG_DB_MAX ((size_t)1 << 20)

int kernels_upsert(struct db *db, const struct kernel_fields *f,
		   enum kernel_upsert how, int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	if (check_name("a kernel name", f->name, KERNEL_NAME_MAX_LEN, err) < 0)
		return -1;
	/*
	 * On a name that exists: "keep" touches nothing (the no-op SET is
	 * what makes RETURNING give the id); "source" and "image" overwrite
	 * their group of columns.
	 */
	r = db_query(
		db, &res, err,
		"INSERT INTO kernels AS k (name, base, base_ref, config_spec, "
		"series_sha256, build_state, image_path, vmlinux_path, "
		"initrd_path, release, labelled) VALUES ($1, $2, $3, $4, $5, "
		"$6, $7, $8, $9, $10, $12::boolean) ON CONFLICT (name) DO "
		"UPDATE SET "
		"labelled = k.labelled OR ($12::boolean AND k.build_state = "
		"'external' AND k.image_path IS NULL), "
		"base = CASE WHEN $11 = 'source' THEN $2 ELSE k.base END, "
		"base_ref = CASE WHEN $11 = 'source' THEN $3 ELSE k.base_ref "
		"END, "
		"config_spec = CASE WHEN $11 = 'source' THEN $4 ELSE "
		"k.config_spec END, "
		"build_state = CASE WHEN $11 = 'source' AND k.build_state <> "
		"'built' THEN 'building' ELSE k.build_state END, "
		"image_path = CASE WHEN $11 = 'image' THEN $7 ELSE "
		"k.image_path "
		"END, "
		"vmlinux_path = CASE WHEN $11 = 'image' THEN $8 ELSE "
		"k.vmlinux_path END, "
		"initrd_path = CASE WHEN $11 = 'image' THEN $9 ELSE "
		"k.initrd_path END, "
		"release = CASE WHEN $11 = 'image' OR ($12::boolean AND "
		"k.build_state = 'external' AND k.image_path IS NULL AND $10 "
		"IS NOT NULL) THEN $10 ELSE k.release END "
		"RETURNING id",
		db_str(f->name), db_str(f->base ? f->base : f->name),
		db_str(f->base_ref), db_str(f->config_spec),
		db_str(f->series_sha256),
		db_str(f->build_state ? f->build_state : "external"),
		db_str(f->image_path), db_str(f->vmlinux_path),
		db_str(f->initrd_path), db_str(f->release),
		db_str(how == KERNEL_SET_SOURCE	 ? "source"
		       : how == KERNEL_SET_IMAGE ? "image"
						 : "keep"),
		db_str(f->labelled ? "t" : "f"), db_end());
	if (r < 0)
		return -1;
	if (db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0) {
		strbuf_addf(err, "kernel %s: the insert returned no id",
			    f->name);
		return -1;
	}
	return 0;
}

int kernels_set_series(struct db *db, int64_t kernel_id, int64_t patch_id,
		       int count, int incremental, struct strbuf *err)
{
	int r;

	r = db_query(db, NULL, err,
		     "UPDATE kernels SET series_patch_id = nullif($2, 0), "
		     "series_count = $3, build_mode = $4 WHERE id = $1",
		     db_i64(kernel_id), db_i64(patch_id), db_i64(count),
		     db_str(incremental ? "incremental" : "fresh"), db_end());
	return r;
}

int kernels_build_started(struct db *db, int64_t kernel_id, struct strbuf *err)
{
	int r;

	r = db_query(
		db, NULL, err,
		"UPDATE kernels SET build_state = 'building' WHERE id = $1",
		db_i64(kernel_id), db_end());
	return r;
}

/*
 * The last KERNEL_LOG_DB_MAX bytes of a log (with a line saying where the
 * whole one is when it was cut), as text the database takes: compilers
 * and patch print whatever bytes the sources hold, and one byte that is
 * not UTF-8 must not cost the whole record.
 */
static void log_tail(struct strbuf *out, const char *log, size_t len,
		     const char *whole)
{
	if (len > KERNEL_LOG_DB_MAX) {
		if (whole)
			strbuf_addf(out, "(log cut; the whole log is %s)\n",
				    whole);
		log += len - KERNEL_LOG_DB_MAX;
		len = KERNEL_LOG_DB_MAX;
	}
	strbuf_add_utf8_safe(out, log, len);
}

int kernels_build_failed(struct db *db, int64_t kernel_id, const char *error,
			 const char *log, size_t log_len, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT, tail = STRBUF_INIT;
	int r;

	strbuf_add_utf8_safe(&e, error, strlen(error));
	log_tail(&tail, log ? log : "", log ? log_len : 0, NULL);
	r = db_query(db, NULL, err,
		     "UPDATE kernels SET build_state = 'failed', "
		     "build_error = $2, build_log = $3 WHERE id = $1",
		     db_i64(kernel_id), db_str(e.buf), db_str(tail.buf),
		     db_end());
	strbuf_release(&e);
	strbuf_release(&tail);
	return r;
}

int kernels_build_done(struct db *db, int64_t kernel_id,
		       const struct kernel_build_result *res,
		       struct strbuf *err)
{
	struct strbuf tail = STRBUF_INIT;
	int r;

	log_tail(&tail, res->log.buf, res->log.len, res->log_path);
	/* The cache key is unique: only the first row of a key carries it. */
	r = db_query(
		db, NULL, err,
		"UPDATE kernels SET build_state = 'built', release = $2, "
		"image_path = $3, vmlinux_path = $4, vmlinux_text = $5, "
		"vmlinux_data = $6, vmlinux_bss = $7, build_seconds = $8, "
		"build_log = $9, build_dir = $10, build_error = NULL, "
		"series_sha256 = coalesce(series_sha256, $11), "
		"config_sha256 = $12, "
		"cache_key = CASE WHEN EXISTS (SELECT 1 FROM kernels k2 WHERE "
		"k2.cache_key = $13 AND k2.id <> $1) THEN cache_key ELSE $13 "
		"END, "
		"build_mode = $14, "
		"built_at = coalesce(built_at, now()) WHERE id = $1",
		db_i64(kernel_id), db_str(res->release),
		db_str(res->bzimage ? res->bzimage : res->vmlinux),
		db_str(res->vmlinux), db_i64(res->text), db_i64(res->data),
		db_i64(res->bss), db_double(res->seconds), db_str(tail.buf),
		db_str(res->dir), db_str(res->series_sha256),
		db_str(res->config_sha256), db_str(res->cache_key),
		db_str(res->incremental ? "incremental" : "fresh"), db_end());
	if (r < 0) {
		/* The kernel is built but its row refused the record: say
		 * failed with why, rather than leave it `building` for
		 * ever (a job waiting on it would never learn). */
		struct strbuf why = STRBUF_INIT, e2 = STRBUF_INIT;

		strbuf_addf(&why,
			    "the build finished (%s) but recording it "
			    "failed: %s",
			    res->dir ? res->dir : "?", err->buf);
		kernels_build_failed(db, kernel_id, why.buf, tail.buf, tail.len,
				     &e2);
		strbuf_release(&why);
		strbuf_release(&e2);
	}
	strbuf_release(&tail);
	return r;
}

int kernels_remove(struct db *db, int64_t kernel_id, struct strbuf *ret_gone,
		   struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL, *pres = NULL;
	int r;

	if (db_begin(db, err) < 0)
		return -1;
	/* Jobs that were cancelled before anything of theirs was measured
	 * (no boot, no run) go with the kernel: a mistyped --kernel. */
	r = db_query(db, &res, err,
		     "DELETE FROM jobs j WHERE kernel_id = $1 AND "
		     "state = 'cancelled' AND NOT EXISTS (SELECT 1 FROM runs "
		     "WHERE job_id = j.id) AND NOT EXISTS (SELECT 1 FROM "
		     "boots WHERE job_id = j.id) RETURNING id",
		     db_i64(kernel_id), db_end());
	/* A patch left with no job at all (each was cancelled so) no
	 * longer names the kernel. */
	if (r == 0)
		r = db_query(
			db, &pres, err,
			"UPDATE patches p SET kernel_id = CASE WHEN "
			"kernel_id = $1 THEN NULL ELSE kernel_id END, "
			"base_kernel_id = CASE WHEN base_kernel_id = $1 "
			"THEN NULL ELSE base_kernel_id END WHERE "
			"(kernel_id = $1 OR base_kernel_id = $1) AND NOT "
			"EXISTS (SELECT 1 FROM jobs WHERE patch_id = p.id) "
			"RETURNING id",
			db_i64(kernel_id), db_end());
	if (r == 0)
		r = db_query(db, NULL, err, "DELETE FROM kernels WHERE id = $1",
			     db_i64(kernel_id), db_end());
	if (r < 0) {
		int used = !strcmp(db_last_sqlstate(db), "23503");

		db_rollback(db);
		return used ? 1 : -1;
	}
	if (db_commit(db, err) < 0)
		return -1;
	for (int i = 0; i < db_nrows(res); i++)
		strbuf_addf(ret_gone, "%sjob %s", i ? ", " : "",
			    db_get(res, i, 0));
	for (int i = 0; i < db_nrows(pres); i++)
		strbuf_addf(ret_gone, "%spatch PLM#%s no longer names it",
			    ret_gone->len ? "; " : "", db_get(pres, i, 0));
	return 0;
}

int kernels_users(struct db *db, int64_t kernel_id, struct strbuf *out,
		  struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int64_t jobs = 0, runs = 0;

	if (db_query(
		    db, &res, err,
		    "SELECT coalesce((SELECT string_agg(format('job %s (%s)', "
		    "id, state), ', ' ORDER BY id) FROM (SELECT id, state FROM "
		    "jobs WHERE kernel_id = $1 ORDER BY id LIMIT 5) j), ''), "
		    "(SELECT count(*) FROM jobs WHERE kernel_id = $1), "
		    "coalesce((SELECT string_agg('PLM#' || id, ', ' ORDER BY "
		    "id) FROM patches WHERE kernel_id = $1 OR "
		    "base_kernel_id = $1), ''), "
		    "(SELECT count(*) FROM runs WHERE kernel_id = $1)",
		    db_i64(kernel_id), db_end()) < 0)
		return -1;
	if (db_get_i64(res, 0, 1, 0, INT64_MAX, &jobs) < 0 ||
	    db_get_i64(res, 0, 3, 0, INT64_MAX, &runs) < 0) {
		strbuf_addstr(err, "the database gave no count of the "
				   "kernel's jobs and runs");
		return -1;
	}
	strbuf_addstr(out, db_get(res, 0, 0));
	if (jobs > 5)
		strbuf_addf(out, " and %lld more jobs", (long long)(jobs - 5));
	if (*db_get(res, 0, 2))
		strbuf_addf(out, "%spatch %s", out->len ? ", " : "",
			    db_get(res, 0, 2));
	if (runs)
		strbuf_addf(out, "%s%lld run%s", out->len ? ", " : "",
			    (long long)runs, runs == 1 ? "" : "s");
	return 0;
}

int kernels_lookup(struct db *db, const char *name_or_id,
		   struct db_result **ret, struct strbuf *err)
{
	const char *p[1] = { name_or_id };

	return db_exec(db, ret, err,
		       "SELECT id FROM kernels WHERE name = $1 OR "
		       "(id::text = $1)",
		       1, p);
}

int kernels_list(struct db *db, struct db_result **ret, struct strbuf *err)
{
	return db_exec(
		db, ret, err,
		"SELECT id, name, CASE WHEN labelled THEN 'labelled' "
		"WHEN build_state = 'queued' AND EXISTS (SELECT 1 FROM jobs "
		"WHERE kernel_id = k.id) AND NOT EXISTS (SELECT 1 FROM jobs "
		"WHERE kernel_id = k.id AND state <> 'cancelled') THEN "
		"'cancelled' ELSE build_state END, coalesce(release, ''), "
		"vmlinux_text, vmlinux_data, vmlinux_bss, build_seconds, "
		"coalesce(cache_key, ''), labelled, build_state FROM "
		"kernels k ORDER BY id",
		0, NULL);
}

int kernels_show(struct db *db, const char *id, int with_log,
		 struct db_result **ret, struct strbuf *err)
{
	return db_exec(
		db, ret, err,
		"SELECT name, base, base_ref, config_spec, cache_key, "
		"series_sha256, config_sha256, build_state, release, "
		"image_path, vmlinux_path, initrd_path, build_dir, "
		"vmlinux_text, vmlinux_data, vmlinux_bss, build_seconds, "
		"build_error, built_at, coalesce(build_log, ''), "
		"labelled, (to_jsonb(k) - 'build_log' - 'labelled') || "
		"jsonb_build_object('labelled', labelled) || CASE WHEN $2 "
		"THEN jsonb_build_object('build_log', build_log) ELSE "
		"'{}' END FROM kernels k WHERE id = $1",
		2, (const char *[]){ id, with_log ? "t" : "f" });
}

int kernels_job_build_row(struct db *db, int64_t job_id, struct db_result **ret,
			  struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_i64(&a, job_id);
	r = db_exec_args(
		db, ret, err,
		"SELECT k.id, k.build_state, k.base, k.base_ref, "
		"k.config_spec, CASE WHEN k.series_patch_id IS NULL THEN "
		"encode(p.series, 'hex') END, k.image_path, "
		"k.release, coalesce(k.series_patch_id, 0), "
		"coalesce(k.series_count, 0), k.build_mode, k.name "
		"FROM jobs j JOIN kernels k ON k.id = j.kernel_id "
		"LEFT JOIN patches p ON p.id = j.patch_id WHERE j.id = $1",
		&a);
	db_args_clear(&a);
	return r;
}

int kernels_base_source(struct db *db, const char *name, int64_t not_id,
			struct db_result **ret, struct strbuf *err)
{
	struct db_args a = DB_ARGS_INIT;
	int r;

	db_args_str(&a, name);
	db_args_i64(&a, not_id);
	r = db_exec_args(db, ret, err,
			 "SELECT base, base_ref, config_spec FROM kernels "
			 "WHERE name = $1 AND id <> $2",
			 &a);
	db_args_clear(&a);
	return r;
}

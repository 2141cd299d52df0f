/*
 * queue.c - the patch queue and host leases; see queue.h.
 *
 * The claim is two statements in one transaction: the first locks the
 * best queued job for which some idle, healthy, matching host exists
 * (SKIP LOCKED, so concurrent controllers pass each other by); the second
 * locks one such host (SKIP LOCKED again).  When the second finds none --
 * another controller took the last host between the two -- the
 * transaction is rolled back and the claim retried a few times.  Both rows
 * are then leased with the same owner and expiry before COMMIT.  Hashes of
 * patches and plans are computed by the server (sha256()), so the
 * controller carries no crypto code of its own.
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "kind_names.h"
#include "parse.h"
#include "plan/plan.h"
#include "store/answers.h"
#include "store/hosts.h"
#include "store/jobs.h"
#include "store/kernels.h"
#include "store/queue.h"
#include "store/queue_match.h"
#include "store/runs.h"
#include "banned.h"

#define JOB_LOG_CAP (1 << 20)

/*
 * The host-matching condition, over a job row j and a host row h.  A host
 * whose topology is not known yet (never contacted) is not held to the
 * plan's minimums: its first run records what it has.  A host the job was
 * sent away from (quarantined by its boot check) is not matched again.
 */
#define HOST_MATCH                                                             \
	"h.state = 'idle' AND h.health IN ('good', 'unknown')"                 \
	" AND (j.host_constraint IS NULL OR h.name = j.host_constraint)"       \
	" AND (cardinality(j.req_kinds) = 0 OR h.kind = ANY (j.req_kinds))"    \
	" AND coalesce(h.sockets >= j.req_min_sockets, true)"                  \
	" AND coalesce(h.cpus >= j.req_min_cpus, true)"                        \
	" AND coalesce(h.memory_mb >= j.req_min_memory_mb, true)"              \
	" AND h.tags @> j.req_tags"                                            \
	" AND NOT (h.id = ANY (j.excluded_hosts))"

int queue_check_patch(const char *name, const char *data, size_t len,
		      struct strbuf *err)
{
	int minus = 0, plus = 0, hunk = 0;
	const char *p = data, *end = data + len;

	if (memchr(data, '\0', len)) {
		strbuf_addf(err, "%s is not a patch: it holds NUL bytes", name);
		return -1;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (l >= 4 && !memcmp(p, "--- ", 4))
			minus = 1;
		else if (l >= 4 && !memcmp(p, "+++ ", 4) && minus)
			plus = 1;
		else if (l >= 3 && !memcmp(p, "@@ ", 3) && plus)
			hunk = 1;
		p += l + 1;
	}
	if (!hunk) {
		strbuf_addf(err,
			    "%s is not a patch: no unified diff (---/+++ "
			    "lines and an @@ hunk) in it",
			    name);
		return -1;
	}
	return 0;
}

static char *submitter_name(void)
{
	const struct passwd *pw = getpwuid(getuid());
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	return xstrfmt("%s@%s", pw ? pw->pw_name : "unknown",
		       host[0] ? host : "localhost");
}

/* Find, or make, the kernel row called name (see kernels_upsert()). */
static int ensure_kernel(struct db *db, const char *name, const char *base,
			 const char *series_sha, const char *state,
			 int64_t *ret_id, struct strbuf *err)
{
	struct kernel_fields f = { .name = name,
				   .base = base,
				   .series_sha256 = series_sha,
				   .build_state = state };

	return kernels_upsert(db, &f, KERNEL_KEEP, ret_id, err);
}

/* May a job with these required kinds (empty: any) go to one that boots? */
static int kinds_allow_boot(const struct strvec *kinds)
{
	if (!kinds->nr)
		return 1;
	for (size_t i = 0; i < kinds->nr; i++)
		if (hosts_kind_boots(kinds->v[i]))
			return 1;
	return 0;
}

int queue_store_plan(struct db *db, const char *name, const char *text,
		     size_t len, int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	_cleanup_free_ char *body = xstrndup(text, len);
	int r;

	r = db_query(db, &res, err,
		     "INSERT INTO plans (name, sha256, body) VALUES ($1, "
		     "encode(sha256(convert_to($2, 'UTF8')), 'hex'), $2) "
		     "ON CONFLICT (sha256) DO UPDATE SET name = plans.name "
		     "RETURNING id",
		     db_str(name), db_str(body), db_end());
	if (r < 0 || db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0)
		return -1;
	return 0;
}

/* The base kernel of the patch just inserted (0 when it has none). */
static int64_t base_id_of(struct db *db, const struct queue_submitted *ret)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf err = STRBUF_INIT;
	int64_t id = 0;

	if (db_query(db, &res, &err,
		     "SELECT base_kernel_id FROM patches WHERE id = $1",
		     db_i64(ret->patch_id), db_end()) == 0 &&
	    db_nrows(res) == 1)
		db_get_i64(res, 0, 0, 1, INT64_MAX, &id);
	strbuf_release(&err);
	return id;
}

/*
 * The checks queue_submit() makes before it writes: a host s names must
 * be able to take job (job holds the plan's requirements), a series to
 * build needs a plan that allows a kind that boots, and without a named
 * host some registered host must be able to take it.  0, or -1 with err.
 */
static int submit_check_fit(struct db *db, const struct queue_submit *s,
			    const struct job_row *job, struct strbuf *err)
{
	if (s->host &&
	    queue_host_can_take(
		    db, s->host, job, s->plan_name,
		    (s->nr_patches && !s->kernel ? QUEUE_HOST_NEEDS_BOOT : 0) |
			    (s->now ? QUEUE_HOST_NOW : 0),
		    s->base, err) < 0)
		return -1;
	if (s->nr_patches && !s->kernel && !s->host &&
	    !kinds_allow_boot(&s->plan->host.kinds)) {
		strbuf_addf(err, "the plan %s runs only on ", s->plan_name);
		for (size_t i = 0; i < s->plan->host.kinds.nr; i++)
			strbuf_addf(err, "%s%s", i ? " or " : "",
				    s->plan->host.kinds.v[i]);
		strbuf_addf(err,
			    " hosts, which run their own kernel and cannot "
			    "build or boot %s with the series: give --kernel "
			    "NAME, the name of the kernel they run with the "
			    "series already applied",
			    s->base);
		return -1;
	}
	/* A job no host could ever take is refused now, not left queued
	 * with its answer pending for ever. */
	if (!s->host &&
	    queue_any_host_can_take(
		    db, job, s->plan_name,
		    (s->nr_patches && !s->kernel ? QUEUE_HOST_NEEDS_BOOT : 0) |
			    (s->now ? QUEUE_HOST_NOW : 0),
		    s->base, err) < 0)
		return -1;
	return 0;
}

/*
 * The host s pins the job to (none: nothing to do), from `hosts` (columns
 * id, kind): its id in *ret_host_id, whether its kind boots in
 * ret->host_boots.  0, or -1 with err when there is no such host.
 */
static int submit_find_host(struct db *db, const struct queue_submit *s,
			    struct queue_submitted *ret, int64_t *ret_host_id,
			    struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;

	if (!s->host)
		return 0;
	if (db_query(db, &res, err,
		     "SELECT id, kind FROM hosts WHERE name = $1",
		     db_str(s->host), db_end()) < 0)
		return -1;
	if (db_nrows(res) != 1) {
		strbuf_addf(err,
			    "no host named '%s' ('schedfarm host "
			    "list' shows them)",
			    s->host);
		return -1;
	}
	db_get_i64(res, 0, 0, 1, INT64_MAX, ret_host_id);
	ret->host_boots = hosts_kind_boots(db_get(res, 0, 1));
	return 0;
}

/*
 * Store s's series (s->nr_patches > 0) submitted by who: the base
 * kernel's row, one `patches` row (columns name, submitter, base, series,
 * series_sha256, n_patches, base_kernel_id, mail_to, auto_bisect,
 * fresh_base;
 * RETURNING id, series_sha256) and its files (answers_store_files()).
 * The series' name is --name, else the first patch's subject when it is a
 * name that prints as itself (check_name()), else its file name.  Fills
 * ret->patch_id and *ret_sha (the series' sha256, the caller frees it).
 * 0, or -1 with err.
 */
static int submit_store_series(struct db *db, const struct queue_submit *s,
			       const char *who, struct queue_submitted *ret,
			       char **ret_sha, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf hex = STRBUF_INIT, subject = STRBUF_INIT,
		      mail_to = STRBUF_INIT;
	int64_t base_id;
	int r = -1;

	for (size_t i = 0; i < s->nr_patches; i++)
		strbuf_add_hex(&hex, s->patches[i].data, s->patches[i].len);
	if (!s->name) {
		struct strbuf why = STRBUF_INIT;

		if (answers_patch_subject(s->patches[0].data, s->patches[0].len,
					  &subject) < 0 ||
		    check_name("a patch name", subject.buf, PATCH_NAME_MAX_LEN,
			       &why) < 0) {
			strbuf_reset(&subject);
			strbuf_addstr(&subject, s->patches[0].name);
		}
		strbuf_release(&why);
	}
	if (check_name("a patch name", s->name ? s->name : subject.buf,
		       PATCH_NAME_MAX_LEN, err) < 0 ||
	    ensure_kernel(db, s->base, s->base, NULL, "external", &base_id,
			  err) < 0)
		goto out;
	if (s->mail_to)
		strbuf_addstr(&mail_to, s->mail_to);
	else
		answers_patch_author(s->patches[0].data, s->patches[0].len,
				     &mail_to);
	if (db_query(db, &res, err,
		     "INSERT INTO patches (name, submitter, base, "
		     "series, series_sha256, n_patches, "
		     "base_kernel_id, mail_to, auto_bisect, fresh_base) "
		     "VALUES (left($1, 500), $2, $3, decode($4, 'hex'), "
		     "encode(sha256(decode($4, 'hex')), 'hex'), "
		     "$5, $6, $7, $8, $9) RETURNING id, series_sha256",
		     db_str(s->name ? s->name : subject.buf), db_str(who),
		     db_str(s->base), db_str(hex.buf),
		     db_i64((int64_t)s->nr_patches), db_i64(base_id),
		     db_str(mail_to.len ? mail_to.buf : NULL),
		     db_bool(!s->no_bisect), db_bool(ret->fresh_base),
		     db_end()) < 0 ||
	    db_get_i64(res, 0, 0, 1, INT64_MAX, &ret->patch_id) < 0)
		goto out;
	if (answers_store_files(db, ret->patch_id, s->patches, s->nr_patches,
				err) < 0)
		goto out;
	*ret_sha = xstrdup(db_get(res, 0, 1));
	r = 0;
out:
	strbuf_release(&hex);
	strbuf_release(&subject);
	strbuf_release(&mail_to);
	return r;
}

/*
 * The kernel under test, its id in ret->kernel_id: with s->kernel a label
 * for hosts that do not boot, else base + series ("BASE+PLM<patch id>",
 * for the build phase to make; sha: the series' sha256), else the base
 * itself; then the series' `patches` row gets it (column kernel_id).  0,
 * or -1 with err.
 */
static int submit_kernel(struct db *db, const struct queue_submit *s,
			 const char *sha, struct queue_submitted *ret,
			 struct strbuf *err)
{
	struct strbuf kname = STRBUF_INIT;
	int r = -1;

	if (s->kernel) {
		struct kernel_fields f = { .name = s->kernel,
					   .base = s->base,
					   .build_state = "external",
					   .release = s->kernel_release,
					   .labelled = 1 };

		if (kernels_upsert(db, &f, KERNEL_KEEP, &ret->kernel_id, err) <
		    0)
			goto out;
	} else if (ret->patch_id) {
		strbuf_addf(&kname, "%s+PLM%lld", s->base,
			    (long long)ret->patch_id);
		if (ensure_kernel(db, kname.buf, s->base, sha, "queued",
				  &ret->kernel_id, err) < 0)
			goto out;
		/* A series that may be bisected is built in the incremental
		 * tree its prefixes will share (lab/build.c): the bisection's
		 * steps then rebuild only what each prefix changes. */
		if (s->nr_patches >= 2 && !s->no_bisect &&
		    kernels_set_series(db, ret->kernel_id, ret->patch_id,
				       (int)s->nr_patches, 1, err) < 0)
			goto out;
	} else if (ensure_kernel(db, s->base, s->base, NULL, "external",
				 &ret->kernel_id, err) < 0) {
		goto out;
	}
	if (ret->patch_id) {
		if (db_query(db, NULL, err,
			     "UPDATE patches SET kernel_id = $1 WHERE id = $2",
			     db_i64(ret->kernel_id), db_i64(ret->patch_id),
			     db_end()) < 0)
			goto out;
	}
	r = 0;
out:
	strbuf_release(&kname);
	return r;
}

/*
 * A series with a fixed plan starts its answer: the first job runs the
 * first unit of the answer's ABBA order (answer_first_boots()), with
 * fewer base boots when the booting host host_id (0: none) has base runs
 * of this plan stored.  Sets ret->boots, ret->base_boots,
 * ret->base_stored and job's boots and nr_runs; nothing for other
 * submissions.  0, or -1 with err.
 */
static int submit_first_unit(struct db *db, const struct queue_submit *s,
			     int64_t host_id, struct queue_submitted *ret,
			     struct job_row *job, struct strbuf *err)
{
	int k = -1;

	if (!ret->patch_id || s->plan->until != PLAN_UNTIL_FIXED)
		return 0;
	if (host_id && ret->host_boots == 1) {
		/* A fresh base counts nothing stored: all its boots run. */
		if (!ret->fresh_base &&
		    answers_observations(db, base_id_of(db, ret), host_id,
					 ret->plan_id, s->plan_set, 0,
					 &ret->base_stored, err) < 0)
			return -1;
		k = answer_base_boots(s->plan->boots, ret->base_stored,
				      ret->fresh_base);
		ret->base_boots = k;
	} else if (ret->host_boots == 0) {
		ret->base_boots = 0;
	}
	ret->boots = answer_first_boots(s->plan->boots, ret->host_boots, k);
	job->boots = ret->boots;
	job->nr_runs = (int64_t)s->plan->nr_runs * ret->boots;
	return 0;
}

/*
 * A fresh base (--fresh-base, the plan's `base: fresh`) is booted by the
 * submission itself: refused for a named host whose kind cannot boot
 * (ret->host_boots 0: local, ssh), and, without a host, for a plan whose
 * kinds all run their own kernel; otherwise the job goes only to kinds
 * that boot (queue_submit()).  0, or -1 with err.
 */
static int submit_check_fresh(const struct queue_submit *s,
			      const struct queue_submitted *ret,
			      struct strbuf *err)
{
	const char *why =
		s->fresh_base ? "--fresh-base" : "the plan's 'base: fresh'";
	struct strbuf kinds = STRBUF_INIT;
	int r = -1;

	if (!ret->fresh_base)
		return 0;
	kind_names_join(&kinds, kind_names_booting(), ", ");
	if (ret->host_boots == 0)
		strbuf_addf(err,
			    "%s needs a host that boots kernels (%s): %s runs "
			    "its own kernel and cannot boot the base %s; its "
			    "answer uses the base results stored there",
			    why, kinds.buf, s->host, s->base);
	else if (!s->host && !kinds_allow_boot(&s->plan->host.kinds))
		strbuf_addf(err,
			    "%s needs a host that boots kernels (%s): the plan "
			    "%s runs only on hosts that run their own kernel",
			    why, kinds.buf, s->plan_name);
	else
		r = 0;
	strbuf_release(&kinds);
	return r;
}

int queue_submit(struct db *db, const struct queue_submit *s,
		 struct queue_submitted *ret, struct strbuf *err)
{
	_cleanup_free_ char *who = NULL;
	struct job_row job;
	int64_t host_id = 0;
	char *sha = NULL;
	int r = -1;

	memset(ret, 0, sizeof(*ret));
	job_row_init(&job);
	if (!s->base || !*s->base) {
		strbuf_addstr(err, "a base kernel is required");
		return -1;
	}
	who = s->submitter ? xstrdup(s->submitter) : submitter_name();
	if (db_begin(db, err) < 0)
		return -1;

	job_row_from_plan(&job, s->plan, s->plan->boots);
	if (submit_check_fit(db, s, &job, err) < 0)
		goto out;
	ret->host_boots = -1;
	ret->base_boots = -1;
	if (submit_find_host(db, s, ret, &host_id, err) < 0)
		goto out;
	ret->fresh_base =
		s->nr_patches && (s->fresh_base || s->plan->fresh_base);
	if (submit_check_fresh(s, ret, err) < 0)
		goto out;

	/* The plan, stored once per distinct text. */
	if (queue_store_plan(db, s->plan_name, s->plan_text, s->plan_len,
			     &ret->plan_id, err) < 0)
		goto out;

	if (s->nr_patches &&
	    submit_store_series(db, s, who, ret, &sha, err) < 0)
		goto out;
	/* The kernel under test. */
	if (submit_kernel(db, s, sha, ret, err) < 0)
		goto out;

	job.patch_id = ret->patch_id;
	job.kernel_id = ret->kernel_id;
	job.plan_id = ret->plan_id;
	job.host_constraint = s->host ? xstrdup(s->host) : NULL;
	job.priority = s->priority;
	job.name = s->name ? xstrdup(s->name) : NULL;
	if (s->nr_patches && (!s->kernel || ret->fresh_base)) {
		/* The kernel is to be built, or the base booted anew: only
		 * kinds that boot may take the job (checked above that the
		 * plan allows one). */
		struct strvec boots = STRVEC_INIT;

		for (size_t i = 0; i < job.req_kinds.nr; i++)
			if (hosts_kind_boots(job.req_kinds.v[i]))
				strvec_push(&boots, job.req_kinds.v[i]);
		if (!boots.nr)
			strvec_pushv(&boots, kind_names_booting());
		strvec_clear(&job.req_kinds);
		job.req_kinds = boots;
	}
	job.rerun_of = s->rerun_of;
	if (s->plan_set)
		strvec_pushv(&job.plan_set,
			     (const char *const *)s->plan_set->v);
	ret->boots = s->plan->boots;
	if (submit_first_unit(db, s, host_id, ret, &job, err) < 0)
		goto out;
	if (jobs_insert(db, &job, &ret->job_id, err) < 0)
		goto out;
	if (db_commit(db, err) < 0)
		goto out_norollback;
	r = 0;
	goto out_norollback;
out:
	db_rollback(db);
out_norollback:
	job_row_release(&job);
	free(sha);
	return r;
}

char *queue_owner_new(void)
{
	char host[256] = "";
	struct timespec ts;

	gethostname(host, sizeof(host) - 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	return xstrfmt("%s:%ld:%lx", host[0] ? host : "localhost",
		       (long)getpid(),
		       (unsigned long)(ts.tv_nsec ^ (ts.tv_sec << 20)));
}

/*
 * One claim attempt: 1 claimed, 0 nothing to claim, 2 lost a race.
 *
 * The EXISTS over hosts ends in OFFSET 0 on purpose: that keeps it a
 * per-row filter instead of a semi-join, whose row estimate (1) made the
 * planner scan and sort every queued job; as a filter the claim walks the
 * jobs_claim index in priority order and stops at the first match, so a
 * queue of 10 000 costs what a queue of one does (bench/queue).
 */
static int claim_once(struct db *db, const char *owner, int lease_s,
		      int64_t only_job, struct queue_claim *ret,
		      struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int64_t job, host, attempts;
	int r = -1;

	if (db_begin(db, err) < 0)
		return -1;
	if (only_job) {
		r = db_query(db, &res, err,
			     "SELECT j.id FROM jobs j WHERE j.id = $1 AND "
			     "j.state = 'queued' AND EXISTS (SELECT 1 FROM "
			     "hosts h WHERE " HOST_MATCH " OFFSET 0) "
			     "FOR UPDATE OF j SKIP LOCKED",
			     db_i64(only_job), db_end());
	} else {
		r = db_exec(
			db, &res, err,
			"SELECT j.id FROM jobs j WHERE j.state = 'queued' "
			"AND EXISTS (SELECT 1 FROM hosts h WHERE " HOST_MATCH
			" OFFSET 0) ORDER BY j.priority DESC, j.id "
			"LIMIT 1 FOR UPDATE OF j SKIP LOCKED",
			0, NULL);
	}
	r = r < 0 ? -1 : 0;
	if (r < 0)
		goto fail;
	r = -1;
	if (db_nrows(res) == 0) {
		db_rollback(db);
		return 0;
	}
	if (db_get_i64(res, 0, 0, 1, INT64_MAX, &job) < 0)
		goto bad;
	db_result_free(res);
	res = NULL;

	if (db_query(db, &res, err,
		     "SELECT h.id FROM hosts h, jobs j WHERE j.id = $1 "
		     "AND " HOST_MATCH
		     " ORDER BY (h.health = 'good') DESC, h.id "
		     "LIMIT 1 FOR UPDATE OF h SKIP LOCKED",
		     db_i64(job), db_end()) < 0)
		goto fail;
	if (db_nrows(res) == 0) {
		db_rollback(db);
		return 2;
	}
	if (db_get_i64(res, 0, 0, 1, INT64_MAX, &host) < 0)
		goto bad;
	db_result_free(res);
	res = NULL;

	if (db_query(db, &res, err,
		     "UPDATE jobs SET state = 'claimed', host_id = $2, "
		     "lease_owner = $3, lease_expires = now() + "
		     "make_interval(secs => $4), claimed_at = now(), "
		     "started_at = coalesce(started_at, now()), "
		     "attempts = attempts + 1, error = NULL, "
		     "error_phase = NULL WHERE id = $1 RETURNING attempts",
		     db_i64(job), db_i64(host), db_str(owner), db_i64(lease_s),
		     db_end()) < 0 ||
	    db_get_i64(res, 0, 0, 0, INT64_MAX, &attempts) < 0)
		goto fail;
	if (db_query(db, NULL, err,
		     "UPDATE hosts SET state = 'leased', lease_owner = $3, "
		     "lease_job_id = $1, lease_expires = now() + "
		     "make_interval(secs => $4), updated_at = now() "
		     "WHERE id = $2",
		     db_i64(job), db_i64(host), db_str(owner), db_i64(lease_s),
		     db_end()) < 0)
		goto fail;
	if (db_commit(db, err) < 0)
		return -1;
	ret->job_id = job;
	ret->host_id = host;
	ret->attempt = (int)attempts;
	return 1;
bad:
	strbuf_addstr(err, "claim: the database returned a bad id");
fail:
	db_rollback(db);
	return r;
}

int queue_claim(struct db *db, const char *owner, int lease_s,
		struct queue_claim *ret, struct strbuf *err)
{
	return queue_claim_job(db, owner, lease_s, 0, ret, err);
}

int queue_claim_job(struct db *db, const char *owner, int lease_s,
		    int64_t job_id, struct queue_claim *ret, struct strbuf *err)
{
	for (int i = 0; i < 20; i++) {
		int r = claim_once(db, owner, lease_s, job_id, ret, err);

		if (r != 2)
			return r;
		/* The host went to another controller; let it commit. */
		{
			struct timespec ts = { 0, (long)(1 + i) * 2000000L };
			nanosleep(&ts, NULL);
		}
	}
	return 0;
}

int queue_heartbeat(struct db *db, const struct queue_claim *c,
		    const char *owner, int lease_s, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = db_query(db, &res, err,
		     "WITH j AS (UPDATE jobs SET lease_expires = now() + "
		     "make_interval(secs => $4) WHERE id = $1 AND "
		     "lease_owner = $3 AND state NOT IN ('queued', 'done', "
		     "'failed', 'cancelled') RETURNING id), "
		     "h AS (UPDATE hosts SET lease_expires = now() + "
		     "make_interval(secs => $4) WHERE id = $2 AND "
		     "lease_owner = $3 RETURNING id) "
		     "SELECT (SELECT count(*) FROM j), "
		     "(SELECT count(*) FROM h)",
		     db_i64(c->job_id), db_i64(c->host_id), db_str(owner),
		     db_i64(lease_s), db_end());
	if (r < 0)
		return -1;
	if (strcmp(db_get(res, 0, 0), "1") || strcmp(db_get(res, 0, 1), "1"))
		return -2;
	return 0;
}

int queue_hold_lease(struct db *db, const struct queue_claim *c,
		     const char *owner, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = db_query(db, &res, err,
		     "SELECT coalesce(lease_owner = $2 AND state NOT IN "
		     "('queued', 'done', 'failed', 'cancelled'), false), "
		     "coalesce(finished_by = $2 AND attempts = $3 AND state "
		     "IN ('done', 'failed'), false) FROM jobs WHERE id = $1 "
		     "FOR UPDATE",
		     db_i64(c->job_id), db_str(owner), db_i64(c->attempt),
		     db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "job %lld is gone", (long long)c->job_id);
		return -1;
	}
	if (!strcmp(db_get(res, 0, 0), "t"))
		return 0;
	if (!strcmp(db_get(res, 0, 1), "t"))
		return 1;
	strbuf_addf(err, "the job's lease was lost (cancelled, or expired and "
			 "taken by another controller)");
	return -2;
}

int queue_set_state(struct db *db, const struct queue_claim *c,
		    const char *owner, const char *state, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = db_query(db, &res, err,
		     "UPDATE jobs SET state = $3 WHERE id = $1 AND "
		     "lease_owner = $2 AND state NOT IN ('done', 'failed', "
		     "'cancelled', 'queued')",
		     db_i64(c->job_id), db_str(owner), db_str(state), db_end());
	if (r < 0)
		return -1;
	return db_cmd_tuples(res) == 1 ? 0 : -2;
}

int queue_set_host_state(struct db *db, const struct queue_claim *c,
			 const char *owner, const char *state,
			 struct strbuf *err)
{
	int r;

	r = db_query(db, NULL, err,
		     "UPDATE hosts SET state = $3, updated_at = now() "
		     "WHERE id = $1 AND lease_owner = $2",
		     db_i64(c->host_id), db_str(owner), db_str(state),
		     db_end());
	return r;
}

int queue_log(struct db *db, int64_t job_id, const char *text,
	      struct strbuf *err)
{
	struct strbuf t = STRBUF_INIT;
	int r;

	/* What programs printed: bytes that are not UTF-8 as \xNN. */
	strbuf_add_utf8_safe(&t, text, strlen(text));
	r = db_query(db, NULL, err,
		     "UPDATE jobs SET log = right(log || $2, $3::int) "
		     "WHERE id = $1",
		     db_i64(job_id), db_str(t.buf), db_i64(JOB_LOG_CAP),
		     db_end());
	strbuf_release(&t);
	return r;
}

int queue_phase_begin(struct db *db, const struct queue_claim *c,
		      const char *phase, int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = db_query(db, &res, err,
		     "INSERT INTO job_phases (job_id, phase, attempt) "
		     "VALUES ($1, $2, $3) RETURNING id",
		     db_i64(c->job_id), db_str(phase), db_i64(c->attempt),
		     db_end());
	if (r < 0 || db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id) < 0)
		return -1;
	return 0;
}

int queue_phase_end(struct db *db, int64_t phase_id, const char *status,
		    const char *log, struct strbuf *err)
{
	struct strbuf t = STRBUF_INIT;
	int r;

	if (log)
		strbuf_add_utf8_safe(&t, log, strlen(log));
	r = db_query(db, NULL, err,
		     "UPDATE job_phases SET status = $2, finished_at = "
		     "now(), log = right(log || $3, $4::int) WHERE id = $1",
		     db_i64(phase_id), db_str(status),
		     db_str(t.len ? t.buf : ""), db_i64(JOB_LOG_CAP), db_end());
	strbuf_release(&t);
	return r;
}

int queue_phase_skip(struct db *db, const struct queue_claim *c,
		     const char *phase, const char *why, struct strbuf *err)
{
	int r;

	r = db_query(db, NULL, err,
		     "INSERT INTO job_phases (job_id, phase, attempt, "
		     "status, finished_at, log) VALUES ($1, $2, $3, "
		     "'skipped', now(), $4)",
		     db_i64(c->job_id), db_str(phase), db_i64(c->attempt),
		     db_str(why), db_end());
	return r;
}

/*
 * The last step of queue_finish() and queue_requeue_elsewhere(), inside
 * the transaction they began once the job and its run are settled: the
 * claim's host back to idle with its lease dropped (only while owner
 * still holds it), then the commit.  0, or -1 with err and the
 * transaction rolled back.
 */
static int release_host_and_commit(struct db *db, const struct queue_claim *c,
				   const char *owner, struct strbuf *err)
{
	if (db_query(db, NULL, err,
		     "UPDATE hosts SET state = 'idle', lease_owner = NULL, "
		     "lease_job_id = NULL, lease_expires = NULL, "
		     "updated_at = now() WHERE id = $1 AND lease_owner = $2",
		     db_i64(c->host_id), db_str(owner), db_end()) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

int queue_finish(struct db *db, const struct queue_claim *c, const char *owner,
		 const char *state, const char *error_phase, const char *error,
		 struct strbuf *err)
{
	if (db_begin(db, err) < 0)
		return -1;
	if (db_query(db, NULL, err,
		     "UPDATE jobs SET state = $3, error_phase = $4, "
		     "error = CASE WHEN $3 = 'cancelled' THEN NULL ELSE $5 "
		     "END, stop_reason = CASE WHEN $3 = 'cancelled' THEN $5 "
		     "ELSE stop_reason END, lease_owner = NULL, "
		     "lease_expires = "
		     "NULL, finished_by = CASE WHEN $3 = 'queued' THEN "
		     "NULL ELSE $2 END, finished_at = CASE WHEN $3 = 'queued' "
		     "THEN "
		     "NULL ELSE now() END, attempts = CASE WHEN $3 = "
		     "'queued' THEN greatest(attempts - 1, 0) ELSE "
		     "attempts END WHERE id = $1 AND "
		     "lease_owner = $2 AND state NOT IN ('done', 'failed', "
		     "'cancelled', 'queued')",
		     db_i64(c->job_id), db_str(owner), db_str(state),
		     db_str(error_phase), db_str(error), db_end()) < 0)
		goto fail;
	if (runs_abort_unfinished(db, c->job_id, c->attempt, state, err) < 0)
		goto fail;
	return release_host_and_commit(db, c, owner, err);
fail:
	db_rollback(db);
	return -1;
}

int queue_requeue_elsewhere(struct db *db, const struct queue_claim *c,
			    const char *owner, const char *error_phase,
			    const char *error, struct strbuf *err)
{
	if (db_begin(db, err) < 0)
		return -1;
	/* Back to the queue for another host, unless the job may run on
	 * that host alone or has used up its attempts. */
	if (db_query(db, NULL, err,
		     "UPDATE jobs SET state = CASE WHEN attempts >= "
		     "max_attempts OR host_constraint IS NOT NULL THEN "
		     "'failed' ELSE 'queued' END, error_phase = $3, error = "
		     "$4 || CASE WHEN attempts >= max_attempts THEN ' (no "
		     "attempts left)' WHEN host_constraint IS NOT NULL THEN "
		     "' (the job may run on that host only)' ELSE ' (sent to "
		     "another host)' END, excluded_hosts = "
		     "array_append(excluded_hosts, $5::bigint), lease_owner = "
		     "NULL, lease_expires = NULL, finished_by = CASE WHEN "
		     "attempts >= max_attempts OR host_constraint IS NOT NULL "
		     "THEN $2 END, finished_at = CASE WHEN attempts >= "
		     "max_attempts OR host_constraint IS NOT NULL THEN now() "
		     "END WHERE id = $1 AND lease_owner = $2 AND state NOT IN "
		     "('done', 'failed', 'cancelled', 'queued')",
		     db_i64(c->job_id), db_str(owner), db_str(error_phase),
		     db_str(error), db_i64(c->host_id), db_end()) < 0)
		goto fail;
	if (runs_abort_sent_elsewhere(db, c->job_id, c->attempt, err) < 0)
		goto fail;
	return release_host_and_commit(db, c, owner, err);
fail:
	db_rollback(db);
	return -1;
}

int queue_requeue_expired(struct db *db, int *ret_jobs, int *ret_hosts,
			  struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	_cleanup_db_result_ struct db_result *hres = NULL;

	if (db_exec(db, &res, err,
		    "WITH e AS (UPDATE jobs SET state = CASE WHEN attempts >= "
		    "max_attempts THEN 'failed' ELSE 'queued' END, "
		    "error_phase = CASE WHEN attempts >= max_attempts THEN "
		    "'infra' END, error = 'the lease of ' || lease_owner || "
		    "' expired (its controller stopped renewing it)', "
		    "finished_at = CASE WHEN attempts >= max_attempts THEN "
		    "now() END, lease_owner = NULL, lease_expires = NULL "
		    "WHERE lease_owner IS NOT NULL AND lease_expires < now() "
		    "AND state NOT IN ('queued', 'done', 'failed', "
		    "'cancelled') RETURNING id), "
		    "r AS (UPDATE runs SET status = 'aborted', finished_at = "
		    "now(), error = 'lease expired' WHERE job_id IN (SELECT id "
		    "FROM e) AND status IN ('pending', 'running') RETURNING "
		    "1), "
		    "p AS (UPDATE job_phases SET status = 'failed', "
		    "finished_at = now(), log = log || 'lease expired' "
		    "WHERE job_id IN (SELECT id FROM e) AND status = "
		    "'running' RETURNING 1) "
		    "SELECT (SELECT count(*) FROM e), (SELECT count(*) FROM r),"
		    " (SELECT count(*) FROM p)",
		    0, NULL) < 0)
		return -1;
	if (db_exec(db, &hres, err,
		    "UPDATE hosts SET state = 'idle', lease_owner = NULL, "
		    "lease_job_id = NULL, lease_expires = NULL, updated_at = "
		    "now() WHERE lease_owner IS NOT NULL AND lease_expires < "
		    "now()",
		    0, NULL) < 0)
		return -1;
	if (ret_jobs) {
		int64_t n = 0;

		db_get_i64(res, 0, 0, 0, INT64_MAX, &n);
		*ret_jobs = (int)n;
	}
	if (ret_hosts)
		*ret_hosts = (int)db_cmd_tuples(hres);
	return 0;
}

int queue_cancel(struct db *db, int64_t job_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = db_query(db, &res, err,
		     "WITH c AS (UPDATE jobs SET state = 'cancelled', "
		     "stop_reason = 'cancelled by the user', lease_owner = "
		     "NULL, lease_expires = NULL, finished_at = now() "
		     "WHERE id = $1 AND state NOT IN ('done', 'failed', "
		     "'cancelled') RETURNING id) "
		     "SELECT (SELECT count(*) FROM c), "
		     "(SELECT count(*) FROM jobs WHERE id = $1)",
		     db_i64(job_id), db_end());
	if (r < 0)
		return -1;
	if (!strcmp(db_get(res, 0, 1), "0")) {
		strbuf_addf(err, "no job %lld", (long long)job_id);
		return -1;
	}
	return strcmp(db_get(res, 0, 0), "0") ? 1 : 0;
}

int queue_plan_of_id(struct db *db, int64_t plan_id, const struct strvec *sets,
		     struct plan **ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	const char *body;
	int r;

	*ret = NULL;
	r = db_query(db, &res, err,
		     "SELECT name, body FROM plans WHERE id = $1",
		     db_i64(plan_id), db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "no plan %lld", (long long)plan_id);
		return -1;
	}
	body = db_get(res, 0, 1);
	if (plan_parse_set(db_get(res, 0, 0), body, strlen(body), sets, ret,
			   err) < 0) {
		strbuf_rtrim(err);
		return -1;
	}
	return 0;
}

int queue_load_plan(const char *path, const struct strvec *sets,
		    struct strbuf *text, struct plan **ret, struct strbuf *err)
{
	*ret = NULL;
	if (plan_load_text(path, text, err) < 0 ||
	    plan_parse_set(path, text->buf, text->len, sets, ret, err) < 0) {
		strbuf_rtrim(err);
		return -1;
	}
	return 0;
}

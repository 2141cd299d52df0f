/*
 * adaptive.c - adaptive repetitions; see adaptive.h.
 *
 * The database step reads the job, its patch (which names both kernels)
 * and its plan, finds the other kernel's job of the same block, and then
 * queues a job, or closes the block: claims its row in adaptive_steps
 * (so a block is closed once, whatever reruns and controllers do),
 * compares at a look of the design, and queues the next block or records
 * why the sequence stopped.  Jobs are queued by copying the finishing
 * job's row, guarded so that a job cancelled meanwhile queues nothing and
 * a retried job does not queue a block twice.  The comparison is
 * compare.c's own (compare_run restricted to the sequence's jobs,
 * compare_store, compare_set_next), so what stopped a sequence is what
 * the stored comparisons of its looks show.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/adaptive.h"
#include "store/jobs.h"
#include "store/sequences.h"
#include "cleanup.h"
#include "analysis/compare.h"
#include "analysis/stats.h"
#include "parse.h"
#include "plan/plan.h"
#include "banned.h"

const char *adaptive_side_name(enum adaptive_side side)
{
	return side == ADAPTIVE_PATCH ? "patch" : "base";
}

enum adaptive_side adaptive_first_side(int block)
{
	return block % 2 == 0 ? ADAPTIVE_PATCH : ADAPTIVE_BASE;
}

int adaptive_block_boots(int plan_boots, int block)
{
	return block <= 0 ? plan_boots : COMPARE_BLOCK;
}

int adaptive_first_boot(int plan_boots, int block)
{
	int64_t n;

	if (block <= 0)
		return 0;
	n = (int64_t)plan_boots + (int64_t)COMPARE_BLOCK * (block - 1);
	return n > INT_MAX ? INT_MAX : (int)n;
}

int adaptive_job_is_adaptive(const struct plan *p, int64_t patch_id)
{
	return p && patch_id > 0 && p->until == PLAN_UNTIL_DECIDED;
}

void adaptive_job_boots(const struct plan *p, int64_t patch_id, int block,
			int *ret_boots, int *ret_first_boot)
{
	if (!adaptive_job_is_adaptive(p, patch_id)) {
		*ret_boots = p->boots;
		*ret_first_boot = 0;
		return;
	}
	*ret_boots = adaptive_block_boots(p->boots, block);
	*ret_first_boot = adaptive_first_boot(p->boots, block);
}

int adaptive_design_make(int plan_boots, int max_boots,
			 struct adaptive_design *ret)
{
	double info[ADAPTIVE_MAX_LOOKS], c;
	int last = 0;

	memset(ret, 0, sizeof(*ret));
	if (plan_boots < 1 || max_boots < plan_boots)
		return -EINVAL;
	ret->plan_boots = plan_boots;
	ret->max_boots = max_boots;
	/* The last block within the cap. */
	while ((int64_t)plan_boots + (int64_t)COMPARE_BLOCK * (last + 1) <=
	       max_boots)
		last++;
	for (int b = 0; b <= last && ret->looks < ADAPTIVE_MAX_LOOKS; b++) {
		int n = plan_boots + COMPARE_BLOCK * b;

		if (n < ADAPTIVE_FIRST_LOOK_N && b < last)
			continue;
		ret->look_block[ret->looks] = b;
		ret->look_n[ret->looks] = n;
		info[ret->looks++] = n;
	}
	ret->last_block = ret->look_block[ret->looks - 1];
	if (ret->looks == 1) {
		/* One look is a fixed design: its own levels, exactly. */
		ret->alpha = COMPARE_ALPHA;
		ret->nc_level = COMPARE_NOCHANGE_LEVEL;
		return 0;
	}
	if (stats_gs_constant(info, (size_t)ret->looks, COMPARE_ALPHA, 2, &c) <
	    0)
		return -EINVAL;
	ret->alpha = 2 * (1 - stats_norm_cdf(c));
	if (stats_gs_constant(info, (size_t)ret->looks, ADAPTIVE_NOCHANGE_ALPHA,
			      1, &c) < 0)
		return -EINVAL;
	ret->nc_level = 1 - 2 * (1 - stats_norm_cdf(c));
	return 0;
}

int adaptive_design_look(const struct adaptive_design *d, int block)
{
	for (int k = 0; k < d->looks; k++)
		if (d->look_block[k] == block)
			return k + 1;
	return 0;
}

int adaptive_last_look(const struct plan *p, int max_block,
		       struct compare_query *q)
{
	struct adaptive_design d;
	int look = 0;

	if (adaptive_design_make(p->boots, p->max_boots, &d) < 0)
		return -EINVAL;
	for (int k = 0; k < d.looks; k++)
		if (d.look_block[k] <= max_block)
			look = k + 1;
	if (!look)
		return 0;
	q->look = look;
	q->looks = d.looks;
	q->max_block = d.look_block[look - 1];
	q->alpha = d.alpha;
	q->nc_level = d.nc_level;
	return look;
}

enum adaptive_action adaptive_after_job(enum adaptive_side side, int block,
					enum adaptive_pair pair)
{
	switch (pair) {
	case ADAPTIVE_PAIR_DONE:
		return ADAPTIVE_COMPARE;
	case ADAPTIVE_PAIR_PENDING:
		return ADAPTIVE_WAIT;
	case ADAPTIVE_PAIR_ENDED:
		return ADAPTIVE_END;
	case ADAPTIVE_PAIR_NONE:
		break;
	}
	/* The job that should have opened this block is missing (not
	 * something this module queues): close the block with what there
	 * is. */
	if (side != adaptive_first_side(block))
		return ADAPTIVE_COMPARE;
	return ADAPTIVE_QUEUE_PAIR;
}

int adaptive_may_continue(const struct adaptive_design *d, int block,
			  struct strbuf *reason)
{
	int look = adaptive_design_look(d, block);

	if (block < 0 || block >= d->last_block) {
		if (look == d->looks)
			strbuf_addf(reason,
				    "stopped after the last look (%d of %d): "
				    "no more blocks",
				    look, d->looks);
		else
			strbuf_addf(reason,
				    "stopped at the cap (%d boots per side): "
				    "another block of %d would make %d",
				    d->max_boots, COMPARE_BLOCK,
				    d->plan_boots +
					    COMPARE_BLOCK * (block + 1));
		return 0;
	}
	return 1;
}

void adaptive_outcome_init(struct adaptive_outcome *o)
{
	memset(o, 0, sizeof(*o));
	strbuf_init(&o->msg, 0);
	strbuf_init(&o->warn, 0);
}

void adaptive_outcome_release(struct adaptive_outcome *o)
{
	strbuf_release(&o->msg);
	strbuf_release(&o->warn);
}

/* --- The database step ------------------------------------------------- */

static enum adaptive_side other_side(enum adaptive_side side)
{
	return side == ADAPTIVE_PATCH ? ADAPTIVE_BASE : ADAPTIVE_PATCH;
}

/* One job of a sequence, with what the step needs of its patch and plan. */
struct seq {
	int64_t job_id, patch_id, plan_id, host_id;
	int64_t kernel[2]; /* by enum adaptive_side */
	char *kernel_name[2];
	char *host, *plan_sha;
	int block;
	enum adaptive_side side;
	struct plan *plan;
	struct adaptive_design d;
};

static void seq_release(struct seq *s)
{
	free(s->kernel_name[0]);
	free(s->kernel_name[1]);
	free(s->host);
	free(s->plan_sha);
	plan_free(s->plan);
	memset(s, 0, sizeof(*s));
}

/*
 * Load job_id into *s.  Return 1 for a job of a sequence, 0 for any other
 * job (or one whose patch lacks a kernel: nothing to compare), -1 with
 * err on a database error or a stored plan that no longer parses.
 */
static int seq_load(struct db *db, int64_t job_id, struct seq *s,
		    struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf perr = STRBUF_INIT;
	int64_t kernel_id;
	int r;

	memset(s, 0, sizeof(*s));
	s->job_id = job_id;
	r = sequences_job(db, job_id, &res, err);
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1) {
		strbuf_addf(err, "no job %lld", (long long)job_id);
		return -1;
	}
	/* No patch, no host, or a patch without both kernels: not a
	 * sequence. */
	if (db_get_i64(res, 0, 0, 1, INT64_MAX, &s->patch_id) < 0 ||
	    db_get_i64(res, 0, 4, 1, INT64_MAX, &s->host_id) < 0 ||
	    db_get_i64(res, 0, 9, 1, INT64_MAX, &s->kernel[ADAPTIVE_PATCH]) <
		    0 ||
	    db_get_i64(res, 0, 11, 1, INT64_MAX, &s->kernel[ADAPTIVE_BASE]) < 0)
		return 0;
	if (db_get_i64(res, 0, 1, 1, INT64_MAX, &kernel_id) < 0 ||
	    db_get_i64(res, 0, 2, 1, INT64_MAX, &s->plan_id) < 0 ||
	    parse_int(db_get(res, 0, 3), 0, INT_MAX, &s->block, NULL) < 0) {
		strbuf_addf(err, "job %lld: unreadable row", (long long)job_id);
		return -1;
	}
	r = jobs_load_plan(db, job_id, &s->plan, &perr);
	if (r < 0) {
		if (r == -2)
			strbuf_addstr(err, "the job's plan no longer parses: ");
		strbuf_addbuf(err, &perr);
		strbuf_release(&perr);
		return -1;
	}
	strbuf_release(&perr);
	if (!adaptive_job_is_adaptive(s->plan, s->patch_id))
		return 0;
	if (kernel_id == s->kernel[ADAPTIVE_PATCH])
		s->side = ADAPTIVE_PATCH;
	else if (kernel_id == s->kernel[ADAPTIVE_BASE])
		s->side = ADAPTIVE_BASE;
	else
		return 0; /* a kernel of neither side: not a sequence */
	if (adaptive_design_make(s->plan->boots, s->plan->max_boots, &s->d) <
	    0) {
		strbuf_addf(err,
			    "the plan's boots (%d) and max_boots (%d) "
			    "make no sequence",
			    s->plan->boots, s->plan->max_boots);
		return -1;
	}
	s->host = xstrdup(db_get(res, 0, 5));
	s->plan_sha = xstrdup(db_get(res, 0, 8));
	s->kernel_name[ADAPTIVE_PATCH] = xstrdup(db_get(res, 0, 10));
	s->kernel_name[ADAPTIVE_BASE] = xstrdup(db_get(res, 0, 12));
	return 1;
}

/*
 * The other kernel's job of s's block on s's host (the latest, should
 * there be several): its state in *ret, its id in *ret_id (0 for none).
 */
static int seq_pair(struct db *db, const struct seq *s, enum adaptive_pair *ret,
		    int64_t *ret_id, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	const char *state;
	int r;

	*ret = ADAPTIVE_PAIR_NONE;
	*ret_id = 0;
	r = sequences_pair_job(db, s->patch_id, s->plan_id,
			       s->kernel[other_side(s->side)], s->block,
			       s->job_id, s->host_id, s->host, &res, err);
	if (r < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 0;
	db_get_i64(res, 0, 0, 1, INT64_MAX, ret_id);
	state = db_get(res, 0, 1);
	if (!strcmp(state, "done"))
		*ret = ADAPTIVE_PAIR_DONE;
	else if (!strcmp(state, "failed") || !strcmp(state, "cancelled"))
		*ret = ADAPTIVE_PAIR_ENDED;
	else
		*ret = ADAPTIVE_PAIR_PENDING;
	return 0;
}

/*
 * Queue the job of kernel `side`, block `block` on s's host, copying the
 * finishing job's row.  Return 1 with its id in *ret_id, 0 when nothing
 * was queued (the finishing job is no longer live -- cancelled -- or the
 * sequence has that job already), -1 with err.
 */
static int seq_queue(struct db *db, const struct seq *s,
		     enum adaptive_side side, int block, int64_t *ret_id,
		     struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct job_row job;
	int r = -1;

	*ret_id = 0;
	job_row_init(&job);
	if (db_begin(db, err) < 0)
		return -1;
	/* The finishing job's row is locked, so two controllers ending the
	 * two jobs of a block at once queue the next block once. */
	if (sequences_lock_job(db, s->job_id, s->kernel[side], s->host, block,
			       s->host_id, &res, err) < 0)
		goto out;
	if (db_nrows(res) != 1) {
		r = 0;
		goto out;
	}
	if (jobs_load_row(db, s->job_id, &job, err) != 0)
		goto out;
	job.kernel_id = s->kernel[side];
	free(job.host_constraint);
	job.host_constraint = xstrdup(s->host);
	job.nr_runs = (int64_t)s->plan->nr_runs *
		      adaptive_block_boots(s->plan->boots, block);
	job.block = block;
	job.rerun_of = 0;
	if (jobs_insert(db, &job, ret_id, err) < 0)
		goto out;
	r = 1;
out:
	if (r < 0)
		db_rollback(db);
	else if (db_commit(db, err) < 0)
		r = -1;
	job_row_release(&job);
	return r;
}

/* Set job_id's stop_reason (a cancelled job keeps its own). */
static int set_stop_reason(struct db *db, int64_t job_id, const char *why,
			   struct strbuf *err)
{
	int r;

	r = sequences_set_stop_reason(db, job_id, why, err);
	return r;
}

/* Queue the job of (side, block) and say so in ret->msg. */
static int step_queue(struct db *db, const struct seq *s,
		      enum adaptive_side side, int block,
		      struct adaptive_outcome *ret, struct strbuf *err)
{
	int boots = adaptive_block_boots(s->plan->boots, block);
	int64_t id;
	int r = seq_queue(db, s, side, block, &id, err);

	if (r < 0)
		return -1;
	if (r == 0) {
		strbuf_addf(&ret->msg,
			    "block %d of the %s kernel %s not queued: this "
			    "job was cancelled meanwhile, or the block is "
			    "queued already\n",
			    block, adaptive_side_name(side),
			    s->kernel_name[side]);
		return 0;
	}
	ret->queued_job = id;
	strbuf_addf(&ret->msg,
		    "queued STP#%lld: block %d, the %s kernel %s, %d boot%s "
		    "on %s\n",
		    (long long)id, block, adaptive_side_name(side),
		    s->kernel_name[side], boots, boots == 1 ? "" : "s",
		    s->host);
	return 0;
}

/* End the sequence at this job: stop_reason = why. */
static int step_stop(struct db *db, const struct seq *s, const char *why,
		     struct adaptive_outcome *ret, struct strbuf *err)
{
	if (set_stop_reason(db, s->job_id, why, err) < 0)
		return -1;
	ret->stopped = 1;
	strbuf_addf(&ret->msg, "the sequence ends here: %s\n", why);
	return 0;
}

/*
 * compare_run over s's own jobs (its patch's, on its host, with its plan,
 * blocks 0..s->block) at look `look` of its design.
 */
static int seq_compare(struct db *db, const struct seq *s, int look,
		       struct compare_set *set, struct strbuf *err)
{
	struct compare_query q = { .patch_id = s->patch_id,
				   .host = s->host,
				   .plan = s->plan_sha,
				   .tau_pct = NAN,
				   .look = look,
				   .looks = s->d.looks,
				   .max_block = s->block,
				   .alpha = s->d.alpha,
				   .nc_level = s->d.nc_level };

	return compare_run(db, &q, set, err);
}

/*
 * Claim the step of s's block in adaptive_steps: 1 when this job closes
 * the block, 0 when the block was closed before (a rerun joining it, or
 * another controller first), -1 with err.
 */
static int step_claim(struct db *db, const struct seq *s, int look,
		      struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	r = sequences_step_claim(
		db, s->patch_id, s->plan_id, s->host_id, s->block, s->job_id,
		look, s->d.looks, s->d.alpha, s->d.nc_level,
		(int64_t)s->d.plan_boots + (int64_t)COMPARE_BLOCK * s->block,
		&res, err);
	if (r < 0)
		return -1;
	return db_nrows(res) == 1;
}

/* Has s's block been closed already (its step recorded)? 1, 0 or -1. */
static int step_exists(struct db *db, const struct seq *s, int *ret_look,
		       struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	int r;

	*ret_look = 0;
	r = sequences_step_look(db, s->patch_id, s->plan_id, s->host_id,
				s->block, &res, err);
	if (r < 0)
		return -1;
	if (db_nrows(res) == 0)
		return 0;
	parse_int(db_get(res, 0, 0), 0, INT_MAX, ret_look, NULL);
	return 1;
}

/* Record how the step of s's block ended: continue or stop, and why. */
static int step_record(struct db *db, const struct seq *s, int stop,
		       const char *why, struct strbuf *err)
{
	int r;

	r = sequences_step_record(db, s->patch_id, s->plan_id, s->host_id,
				  s->block, stop ? "stop" : "continue", why,
				  err);
	return r;
}

/*
 * When every deciding row of set (compare_row_decides()) has a verdict,
 * append them to why: "; metric verdict (+x%) on host, ...", at most
 * five.  compare_set_next() says only that they are decided; job show
 * should say how.
 */
static void add_verdicts(const struct compare_set *set, struct strbuf *why)
{
	size_t shown = 0, n = 0;

	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *r = &set->rows[i];

		if (!compare_row_decides(set, i))
			continue;
		if (r->verdict == CMP_INCONCLUSIVE ||
		    r->verdict == CMP_INSUFFICIENT)
			return;
		n++;
	}
	for (size_t i = 0; i < set->nr && shown < 5; i++) {
		const struct compare_row *r = &set->rows[i];

		if (!compare_row_decides(set, i))
			continue;
		strbuf_addstr(why, shown++ ? ", " : "; ");
		strbuf_addf(why, "%s %s", r->metric,
			    compare_verdict_name(r->verdict));
		if (r->s.scale == CMP_SCALE_DIFF && isfinite(r->s.diff))
			strbuf_addf(why, " (%+.4g%s%s)", r->s.diff,
				    r->unit[0] ? " " : "", r->unit);
		else if (isfinite(r->s.pct_change))
			strbuf_addf(why, " (%+.1f%%)", r->s.pct_change);
		strbuf_addf(why, " on %s", r->host);
	}
	if (n > shown)
		strbuf_addf(why, " and %zu more", n - shown);
}

/* Stop the sequence at s with why, and record the step as stopped. */
static int close_stop(struct db *db, const struct seq *s, const char *why,
		      struct adaptive_outcome *ret, struct strbuf *err)
{
	if (step_stop(db, s, why, ret, err) < 0)
		return -1;
	return step_record(db, s, 1, why, err);
}

/* Queue block s->block + 1 after the step said to go on. */
static int close_continue(struct db *db, const struct seq *s, const char *why,
			  struct adaptive_outcome *ret, struct strbuf *err)
{
	if (step_record(db, s, 0, why, err) < 0)
		return -1;
	return step_queue(db, s, adaptive_first_side(s->block + 1),
			  s->block + 1, ret, err);
}

/*
 * The end of block s->block, claimed by this job: before the first look,
 * queue the next block; at a look, compare and stop or queue the next.
 */
static int step_close(struct db *db, const struct seq *s,
		      struct adaptive_outcome *ret, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT, e = STRBUF_INIT;
	struct compare_set set;
	int look = adaptive_design_look(&s->d, s->block), stop, add, r;

	memset(&set, 0, sizeof(set));
	if (look == 0) {
		strbuf_addf(&why,
			    "block %d: %d boots per side, the first look is "
			    "at %d (look 1 of %d, p < %.2g per look)",
			    s->block,
			    s->d.plan_boots + COMPARE_BLOCK * s->block,
			    s->d.look_n[0], s->d.looks, s->d.alpha);
		strbuf_addf(&ret->msg, "%s\n", why.buf);
		r = close_continue(db, s, why.buf, ret, err);
		goto out;
	}
	if (seq_compare(db, s, look, &set, &e) < 0) {
		strbuf_addf(&why,
			    "stopped: the comparison at look %d failed: %s",
			    look, e.buf);
		r = close_stop(db, s, why.buf, ret, err);
		goto out;
	}
	ret->look = look;
	strbuf_reset(&e);
	if (compare_store(db, &set, &e) < 0)
		strbuf_addf(&ret->warn,
			    "the verdicts of look %d were not stored: %s\n",
			    look, e.buf);
	if (compare_set_next(&set, look, s->d.looks, s->d.max_boots, &stop,
			     &add, &why) < 0) {
		strbuf_reset(&why);
		strbuf_addf(&why, "stopped: block %d is past the last look",
			    s->block);
		stop = 1;
	}
	if (!stop) {
		/* compare_set_next() counted observations; hold the
		 * sequence's own blocks to the design as well. */
		strbuf_addf(&ret->msg, "%s\n", why.buf);
		strbuf_reset(&why);
		if (!adaptive_may_continue(&s->d, s->block, &why))
			stop = 1;
	}
	if (stop) {
		add_verdicts(&set, &why);
		r = close_stop(db, s, why.buf, ret, err);
	} else {
		r = close_continue(db, s, "another block", ret, err);
	}
out:
	compare_set_release(&set);
	strbuf_release(&why);
	strbuf_release(&e);
	return r;
}

int adaptive_job_done(struct db *db, int64_t job_id,
		      struct adaptive_outcome *ret, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	enum adaptive_pair pair;
	struct seq s;
	int64_t pair_id;
	int r, closed_look;

	r = seq_load(db, job_id, &s, err);
	if (r <= 0) {
		seq_release(&s);
		return r;
	}
	ret->adaptive = 1;
	ret->side = s.side;
	ret->block = s.block;
	if (s.kernel[ADAPTIVE_PATCH] == s.kernel[ADAPTIVE_BASE]) {
		strbuf_addf(&why,
			    "stopped: the patch's kernel is its base kernel "
			    "(%s): nothing to compare",
			    s.kernel_name[ADAPTIVE_BASE]);
		r = step_stop(db, &s, why.buf, ret, err);
		goto out;
	}
	r = step_exists(db, &s, &closed_look, err);
	if (r < 0)
		goto out;
	if (r > 0) {
		/* A rerun of a job of a block that has ended: its boots
		 * count in the sequence's later looks, it adds none. */
		ret->joined = 1;
		strbuf_addf(&ret->msg,
			    "block %d ended before%s: this job's boots join "
			    "the sequence's later looks; no new look\n",
			    s.block, closed_look ? " (with its look)" : "");
		r = 0;
		goto out;
	}
	r = seq_pair(db, &s, &pair, &pair_id, err);
	if (r < 0)
		goto out;
	switch (adaptive_after_job(s.side, s.block, pair)) {
	case ADAPTIVE_QUEUE_PAIR:
		r = step_queue(db, &s, other_side(s.side), s.block, ret, err);
		break;
	case ADAPTIVE_WAIT:
		strbuf_addf(&ret->msg,
			    "block %d: STP#%lld (the %s kernel) is still to "
			    "run; it closes the block\n",
			    s.block, (long long)pair_id,
			    adaptive_side_name(other_side(s.side)));
		r = 0;
		break;
	case ADAPTIVE_END:
		strbuf_addf(&why,
			    "stopped: STP#%lld, the %s kernel's job of block "
			    "%d, did not finish",
			    (long long)pair_id,
			    adaptive_side_name(other_side(s.side)), s.block);
		r = step_stop(db, &s, why.buf, ret, err);
		break;
	case ADAPTIVE_COMPARE:
		r = step_claim(db, &s, adaptive_design_look(&s.d, s.block),
			       err);
		if (r == 0) {
			ret->joined = 1;
			strbuf_addf(&ret->msg,
				    "block %d was closed meanwhile: nothing "
				    "more to do\n",
				    s.block);
		} else if (r > 0) {
			r = step_close(db, &s, ret, err);
		}
		break;
	}
out:
	strbuf_release(&why);
	seq_release(&s);
	return r < 0 ? -1 : 0;
}

int adaptive_job_failed(struct db *db, int64_t job_id, const char *phase,
			struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int r;

	strbuf_addf(&why,
		    "stopped: this block failed%s%s%s; no more blocks are "
		    "queued",
		    phase ? " (in " : "", phase ? phase : "", phase ? ")" : "");
	r = sequences_job_failed(db, job_id, why.buf, err);
	strbuf_release(&why);
	return r;
}

int adaptive_rerun_check(struct db *db, int64_t job_id, const char *host,
			 struct strbuf *err)
{
	struct seq s;
	int r;

	r = seq_load(db, job_id, &s, err);
	if (r > 0 && strcmp(s.host, host)) {
		strbuf_addf(err,
			    "STP#%lld is block %d of the `until: decided` "
			    "sequence of PLM#%lld on %s: a rerun joins that "
			    "sequence, so it runs on %s (submit the patch "
			    "again for %s)",
			    (long long)job_id, s.block, (long long)s.patch_id,
			    s.host, s.host, host);
		r = -1;
	}
	seq_release(&s);
	return r < 0 ? -1 : 0;
}

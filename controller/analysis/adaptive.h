/*
 * adaptive.h - adaptive repetitions (`until: decided`, issue 5): after each
 * block of boots the patch is compared with its base kernel on the host,
 * and while a deciding metric is open another block is queued, up to the
 * plan's cap, as a group-sequential design that keeps the overall error
 * of a fixed comparison (REFERENCE.md section 1, doc/STATISTICS.md).
 *
 * A sequence is one patch (PLM#) measured with one plan on one host.
 * Block b is a pair of jobs on that host, one per kernel: block 0 runs
 * the plan's `boots` per kernel, every later block COMPARE_BLOCK (4).  The
 * submitted patch job is the first job of block 0; every later job is
 * queued by the job before it, once that one is done, so the order holds
 * however many controllers there are:
 *
 *     block 0: patch, base   block 1: base, patch   block 2: patch, base ...
 *
 * which is ABBA order (P B B P P B).  The job that closes a block (the
 * second of its pair) records the block's step (adaptive_steps) and, when
 * the design has a look there, compares -- only the sequence's own jobs,
 * at the design's per-look level -- and either queues the first job of
 * block b + 1 or writes why the sequence stopped into its
 * jobs.stop_reason.  The design (adaptive_design_make) puts the first
 * look at the first block with ADAPTIVE_FIRST_LOOK_N boots per kernel,
 * at most ADAPTIVE_MAX_LOOKS looks, none past the cap; its per-look alpha
 * is Pocock's constant for those looks at COMPARE_ALPHA overall, its
 * no-change interval widened the same way for the 5% per side of the
 * fixed design's 90% interval.  A job that fails, or is cancelled, queues
 * nothing: the sequence ends there, until a `rerun` of it (which keeps
 * its block) finishes it.  A rerun in a block already closed joins the
 * later looks and adds none.
 *
 * The pure functions (order, boot numbering, the design, the next step)
 * are apart from the database step so that they can be tested alone.
 * Nothing here prints; errors go to the caller's strbuf.
 */
#ifndef SCHEDFARM_ADAPTIVE_H
#define SCHEDFARM_ADAPTIVE_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

struct plan;

#define ADAPTIVE_MAX_LOOKS 4 /* looks per sequence at most */
#define ADAPTIVE_FIRST_LOOK_N 6 /* boots per kernel before the first look */
#define ADAPTIVE_NOCHANGE_ALPHA 0.05 /* per side: the fixed 90% interval */

/*
 * The looks of a sequence, fixed by the plan before its first boot.
 * Blocks 0..last_block run; look k (1-based) ends block look_block[k-1],
 * with look_n[k-1] boots per kernel; every look tests at alpha (two-sided,
 * Pocock's constant for these looks at COMPARE_ALPHA overall) and calls
 * no-change with an interval at nc_level.
 */
struct adaptive_design {
	int plan_boots, max_boots;
	int looks;
	int look_block[ADAPTIVE_MAX_LOOKS];
	int look_n[ADAPTIVE_MAX_LOOKS];
	int last_block;
	double alpha;
	double nc_level;
};

/*
 * The design for a plan's `boots` (block 0) and `max_boots` (the cap per
 * kernel): blocks b with plan_boots + 4b <= max_boots; looks at the
 * first ADAPTIVE_MAX_LOOKS of them with at least ADAPTIVE_FIRST_LOOK_N
 * boots (or, when none has, at the last); the per-look levels from
 * stats_gs_constant() with the looks' boots as information.  Returns 0,
 * or -EINVAL for boots < 1 or max_boots < boots.
 */
int adaptive_design_make(int plan_boots, int max_boots,
			 struct adaptive_design *ret);

/* The look (1..looks) that block `block` ends with, 0 for none. */
int adaptive_design_look(const struct adaptive_design *d, int block);

struct compare_query;
/*
 * The latest look of a sequence of plan p whose blocks 0..max_block ran:
 * fills q's look, looks, max_block (that look's block), alpha and
 * nc_level as the sequence's own comparison at that look had them, so
 * that compare_run() on q (with its patch, host and plan) reads the
 * verdicts again.  Returns the look (>= 1), 0 when the sequence had no
 * look yet (q left alone), or -EINVAL when p has no design.
 */
int adaptive_last_look(const struct plan *p, int max_block,
		       struct compare_query *q);

/* Which kernel of the pair a job measures. */
enum adaptive_side {
	ADAPTIVE_PATCH, /* the patch's kernel (patches.kernel_id) */
	ADAPTIVE_BASE, /* its base kernel */
};

/* "patch" or "base". */
const char *adaptive_side_name(enum adaptive_side side);

/*
 * The kernel that runs first in block `block` (>= 0): the patch in even
 * blocks (block 0 starts with the submitted patch job), the base in odd
 * ones, so that consecutive blocks read P B B P: ABBA.
 */
enum adaptive_side adaptive_first_side(int block);

/*
 * Boots per kernel in block `block`: the plan's `boots` in block 0,
 * COMPARE_BLOCK in every later one.
 */
int adaptive_block_boots(int plan_boots, int block);

/*
 * runs.boot of the first boot of block `block`: boots are numbered per
 * kernel across the whole sequence (0 .. plan_boots - 1 in block 0, then
 * on), so every boot of a kernel in a sequence has its own number.  It is
 * also the number of boots per kernel that blocks 0 .. block - 1 ran.
 */
int adaptive_first_boot(int plan_boots, int block);

/*
 * Is this a job of an adaptive sequence: a patch job (patch_id > 0)
 * whose plan says `until: decided`.  Jobs of a plan on a kernel alone
 * (`schedfarm run PLAN`) have nothing to compare with and run once.
 */
int adaptive_job_is_adaptive(const struct plan *p, int64_t patch_id);

/*
 * The boots job of block `block` runs and the runs.boot of its first one:
 * for a job of a sequence, adaptive_block_boots() and
 * adaptive_first_boot(); for any other job, the plan's `boots` from 0.
 */
void adaptive_job_boots(const struct plan *p, int64_t patch_id, int block,
			int *ret_boots, int *ret_first_boot);

/* The other kernel's job of the same block, as the database has it. */
enum adaptive_pair {
	ADAPTIVE_PAIR_NONE, /* there is none (yet) */
	ADAPTIVE_PAIR_PENDING, /* queued or running */
	ADAPTIVE_PAIR_DONE,
	ADAPTIVE_PAIR_ENDED, /* failed or cancelled */
};

enum adaptive_action {
	ADAPTIVE_QUEUE_PAIR, /* queue the other kernel's job of this block */
	ADAPTIVE_COMPARE, /* the block is complete: compare at look block+1 */
	ADAPTIVE_WAIT, /* the other job of the block is still to run: it
			* closes the block */
	ADAPTIVE_END, /* the other job of the block failed or was
		       * cancelled: the sequence ended there */
};

/*
 * What a sequence does after a job of it (kernel `side`, block `block`)
 * ended done, given the state of the other kernel's job of that block.
 * A job that opens its block queues the other one; a job whose pair is
 * done closes the block.  Every block of a sequence runs both kernels:
 * earlier measurements of the base (other sequences, other plans) never
 * stand in for its own.  Pure.
 */
enum adaptive_action adaptive_after_job(enum adaptive_side side, int block,
					enum adaptive_pair pair);

/*
 * After block `block` ended without a decision: may block + 1 run?  It
 * may when the design has it (block < d->last_block).  Return 1 when it
 * may; 0 with one sentence for stop_reason in reason when not.  Pure.
 */
int adaptive_may_continue(const struct adaptive_design *d, int block,
			  struct strbuf *reason);

/* What adaptive_job_done() did, for the job's log. */
struct adaptive_outcome {
	int adaptive; /* 0: the job belongs to no sequence; nothing done */
	enum adaptive_side side;
	int block;
	int look; /* > 0: a comparison ran at this look */
	int joined; /* the job's block had ended already: no new step */
	int64_t queued_job; /* > 0: the job queued next */
	int stopped; /* the sequence ended: stop_reason is set */
	struct strbuf msg; /* one or more lines saying what happened */
	struct strbuf warn; /* what went wrong but did not stop the step */
};

void adaptive_outcome_init(struct adaptive_outcome *o);
void adaptive_outcome_release(struct adaptive_outcome *o);

/*
 * The step after job job_id ended well (all its runs ingested), called
 * by the job's own process while it still holds the lease, before the
 * end is recorded.  For a job of a sequence: find the other kernel's job
 * of its block, and queue it, or close the block: record its step in
 * adaptive_steps (once per block: a job of a block that has its step
 * already -- a rerun -- only says so), then, at a look of the design,
 * compare (compare_run on the patch, the host and the plan, blocks
 * 0..block only, at the design's alpha and no-change level; the verdicts
 * stored with compare_store) and queue the first job of the next block
 * or set jobs.stop_reason of job_id to why it stopped; before the first
 * look, queue the next block.  Jobs are queued on the same host
 * (host_constraint), with the same priority, requirements and plan, and
 * only while job_id is still live (a job cancelled meanwhile queues
 * nothing) and the sequence has no such job yet (a retried job does not
 * queue twice).  A comparison that cannot run stops the sequence with its
 * error as the reason.  Fills *ret (release it); returns 0, or -1 with
 * err on a database error.
 */
int adaptive_job_done(struct db *db, int64_t job_id,
		      struct adaptive_outcome *ret, struct strbuf *err);

/*
 * Job job_id of a sequence failed (in phase `phase`): say in its
 * stop_reason that the sequence stops there.  A job that is not failed
 * (cancelled, requeued) or already has a reason is left alone.  Returns
 * 0, or -1 with err.
 */
int adaptive_job_failed(struct db *db, int64_t job_id, const char *phase,
			struct strbuf *err);

/*
 * May job job_id be rerun on host `host`?  A rerun keeps the job's block
 * (jobs_load_row() copies it), so a rerun of a job of a sequence joins
 * that sequence and block and never adds a look; a sequence is one
 * host's, so its job rerun on another host is refused: -1 with err
 * saying why (and -1 with err on a database error).  0 when it may.
 */
int adaptive_rerun_check(struct db *db, int64_t job_id, const char *host,
			 struct strbuf *err);

#endif

/*
 * phase_collect.c - the collect phase: the results file of each run whose
 * stream was cut, fetched from the host; see phase.h.
 */
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "job/jobguard.h"
#include "job/phase.h"
#include "plan/plan.h"
#include "store/queue.h"
#include "banned.h"

/*
 * Fetch the results file of a run whose stream was cut, within the collect
 * phase's limit.  The run files stay on the host until the run is stored
 * (forget_runs()).
 */
static void collect_one(struct job_ctx *jc, struct runner *runner,
			struct run_rec *rr, struct strbuf *log)
{
	struct strbuf err = STRBUF_INIT, file = STRBUF_INIT;
	struct ingest_summary sum;

	if (rr->need_fetch && !rr->error && job_limit_check(jc) < 0) {
		run_failed(rr, "collect", jc->timeout_msg.buf);
	} else if (rr->need_fetch && !rr->error) {
		/* The fetch gets what is left of the collect phase's limit. */
		int64_t left = budget_left(&jc->phase_budget);
		int tmo = left > 30000 ? 30000 : left < 1000 ? 1000 : (int)left;

		if (runner_fetch(runner, rr->id, RUN_LINES_CAP, tmo, &file,
				 &err) < 0) {
			if (job_limit_check(jc) < 0)
				run_failed(rr, "collect", jc->timeout_msg.buf);
			else
				run_failed(rr, "collect", err.buf);
		} else if (ingest_check_all(file.buf, file.len, &rr->ex, &sum,
					    &err) < 0) {
			run_failed(rr, "collect", err.buf);
		} else {
			strbuf_addf(log,
				    "run %lld: the stream was cut after %zu "
				    "bytes; results file has %zu lines (%zu "
				    "results)\n",
				    (long long)rr->id, rr->lines.len, sum.lines,
				    sum.results);
			strbuf_release(&rr->lines);
			rr->lines = file;
			strbuf_init(&file, 0);
			ingest_summary_release(&sum);
		}
	} else if (!rr->error) {
		strbuf_addf(log, "run %lld: stream complete (%zu bytes)\n",
			    (long long)rr->id, rr->lines.len);
	}
	/* Only the collect phase's own failures: the run phase said its. */
	if (rr->error && rr->phase && !strcmp(rr->phase, "collect"))
		strbuf_addf(log, "run %lld: failed: %s\n", (long long)rr->id,
			    rr->error);
	strbuf_release(&err);
	strbuf_release(&file);
}

/* Remove the run files of runs from..to-1 on the host. */
void forget_runs(struct runner *runner, struct run_rec *rr, size_t from,
		 size_t to)
{
	for (size_t i = from; runner && i < to; i++)
		runner_forget(runner, rr[i].id);
}

/*
 * collect: a booted host loses its files when it goes down, so kinds that
 * boot collect each round before the power-off; the others once, after
 * the last round.  A booted host's run files go with its round.
 */
int round_collect(struct job_exec *x)
{
	struct job_ctx *jc = &x->jc;
	size_t nr = jc->plan->nr_runs;

	if (x->b == jc->boots - 1 || jc->kind_boots) {
		size_t from = jc->kind_boots ? (size_t)x->b * nr : 0;
		size_t to = (size_t)(x->b + 1) * nr;

		if (set_phase_state(jc, "collecting") < 0 ||
		    phase_row(jc, "collect", &x->pid, &x->e) < 0)
			return PHASE_STOP;
		job_phase_limit(jc, "collect", "timeouts.collect",
				jc->plan->timeouts.collect_ms, 1);
		/* A host that crashed has nothing left to fetch. */
		for (size_t i = from; i < to && !jc->console_fatal; i++)
			if (!x->rr[i].done_before && !x->rr[i].stopped)
				collect_one(jc, x->runner, &x->rr[i], &x->log);
		queue_phase_end(jc->db, x->pid, "ok", x->log.buf, &x->e);
		strbuf_reset(&x->log);
		strbuf_reset(&x->e);
	}
	/* A booted host keeps nothing past its power-off: its run files go
	 * now, its lines are in memory.  The others keep theirs until the
	 * runs are stored. */
	if (jc->kind_boots) {
		forget_runs(x->runner, x->rr, (size_t)x->b * nr,
			    (size_t)(x->b + 1) * nr);
		runner_close(x->runner);
		x->runner = NULL;
	}
	free(jc->console_fatal);
	jc->console_fatal = NULL;
	jc->console_oops = 0;
	return PHASE_NEXT;
}

/*
 * jobguard.c - a job's limits and its database retries; see jobguard.h.
 */
#include <string.h>
#include <time.h>

#include "job/jobguard.h"
#include "plan/plan.h"
#include "store/queue.h"
#include "time-util.h"
#include "banned.h"

#define RETRY_FIRST_MS 500
#define RETRY_MAX_MS 10000

/*
 * A line for the job's log from here: it joins the lines waiting for the
 * database (joblog.c's jlog() sends them with its next one) and goes to
 * the display hook at once.
 */
static void guard_log(struct job_ctx *jc, const char *msg)
{
	time_t now = time(NULL);
	struct tm tm;
	char ts[32];

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	strbuf_addf(&jc->pending_log, "%s warning: %s\n", ts, msg);
	if (jc->hooks && jc->hooks->log)
		jc->hooks->log(jc->hooks->ctx, 1, msg);
}

void job_guard_init(struct job_ctx *jc)
{
	strbuf_init(&jc->job_budget_name, 0);
	strbuf_init(&jc->phase_budget_name, 0);
	strbuf_init(&jc->timeout_msg, 0);
	strbuf_init(&jc->pending_log, 0);
	budget_start(&jc->job_budget, "no limit", -1, NULL);
	budget_start(&jc->phase_budget, "no limit", -1, &jc->job_budget);
}

void job_guard_release(struct job_ctx *jc)
{
	strbuf_release(&jc->job_budget_name);
	strbuf_release(&jc->phase_budget_name);
	strbuf_release(&jc->timeout_msg);
	strbuf_release(&jc->pending_log);
}

void job_budget_begin(struct job_ctx *jc)
{
	int64_t ms = plan_job_budget_ms(jc->plan, jc->boots);

	strbuf_reset(&jc->job_budget_name);
	strbuf_addstr(&jc->job_budget_name, "the job's budget (");
	if (jc->plan->timeouts.job_ms > 0)
		strbuf_addstr(&jc->job_budget_name, "timeouts.job, ");
	else
		strbuf_addstr(&jc->job_budget_name,
			      "the sum of its phases' limits, ");
	format_duration_ms(&jc->job_budget_name, ms);
	strbuf_addch(&jc->job_budget_name, ')');
	budget_start(&jc->job_budget, jc->job_budget_name.buf, ms, NULL);
	budget_start(&jc->phase_budget, jc->job_budget_name.buf, -1,
		     &jc->job_budget);
}

void job_phase_limit(struct job_ctx *jc, const char *phase, const char *key,
		     int64_t own_ms, int nested)
{
	strbuf_reset(&jc->phase_budget_name);
	strbuf_addf(&jc->phase_budget_name, "the %s phase's limit (", phase);
	if (key)
		strbuf_addf(&jc->phase_budget_name, "%s, ", key);
	format_duration_ms(&jc->phase_budget_name, own_ms);
	strbuf_addch(&jc->phase_budget_name, ')');
	budget_start(&jc->phase_budget, jc->phase_budget_name.buf, own_ms,
		     nested ? &jc->job_budget : NULL);
}

int job_limit_check(struct job_ctx *jc)
{
	if (jc->timed_out)
		return -1;
	if (!budget_expired(&jc->phase_budget))
		return 0;
	jc->timed_out = 1;
	strbuf_reset(&jc->timeout_msg);
	budget_describe(&jc->phase_budget, &jc->timeout_msg);
	return -1;
}

void job_command_limit(struct job_ctx *jc, struct budget *b,
		       struct strbuf *name, int64_t own_ms)
{
	budget_start(b, name->buf, own_ms, &jc->phase_budget);
}

int job_db_retry(struct job_ctx *jc, const char *what,
		 int (*fn)(struct job_ctx *jc, void *arg, struct strbuf *err),
		 void *arg, struct strbuf *err)
{
	int64_t pause = RETRY_FIRST_MS, t0 = mono_ms();
	int tries = 0;

	for (;;) {
		struct strbuf e = STRBUF_INIT;
		int r;

		tries++;
		r = fn(jc, arg, &e);
		if (r == 0 || r == -1) {
			if (r < 0)
				strbuf_addbuf(err, &e);
			strbuf_release(&e);
			return r;
		}
		/* The database went away. */
		if (budget_left(&jc->phase_budget) <= pause) {
			struct strbuf d = STRBUF_INIT;

			format_duration_ms(&d, mono_ms() - t0);
			strbuf_addf(err,
				    "%s: the database was not back after %s "
				    "(%d tries; %s): %s",
				    what, d.buf, tries,
				    budget_left(&jc->phase_budget) ? "the "
								     "limit "
								     "is near"
								   : "out of "
								     "time",
				    e.buf);
			strbuf_release(&d);
			strbuf_release(&e);
			return -1;
		}
		strbuf_release(&e);
		sleep_ms(pause);
		pause = pause * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : pause * 2;
		strbuf_init(&e, 0);
		if (db_lost(jc->db) && db_reconnect(jc->db, &e) < 0) {
			strbuf_release(&e);
			continue;
		}
		/* Back: the lease first, before anyone takes it as expired.
		 * Lost already, the job is someone else's now. */
		if (queue_heartbeat(jc->db, &jc->claim, jc->owner, jc->lease_s,
				    &e) == -2) {
			jc->lease_lost = 1;
			strbuf_addf(
				err,
				"%s: the database came back, but the "
				"job's lease had expired meanwhile (the job "
				"went back to the queue)",
				what);
			strbuf_release(&e);
			return -1;
		}
		jc->last_beat_ms = mono_ms();
		strbuf_reset(&e);
		{
			struct strbuf d = STRBUF_INIT;

			format_duration_ms(&d, mono_ms() - t0);
			strbuf_addf(&e,
				    "%s: the database is back after %s (try "
				    "%d); the job's lease renewed",
				    what, d.buf, tries + 1);
			guard_log(jc, e.buf);
			strbuf_release(&d);
		}
		strbuf_release(&e);
	}
}

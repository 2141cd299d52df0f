/*
 * answer.c - the answer step of the controllers; see answer.h.
 *
 * One submission at a time, under its advisory lock (answers_try_lock):
 * the rows say how far it got, so the step either queues the next job of
 * its ABBA order or answers.  An answer is: compare and store the
 * verdicts (its own transactions, harmless to repeat), start the
 * bisection (at most one per submission: bisect_find_auto), then record
 * the answer and queue its mail in one transaction -- the state that
 * makes the step not run again.  Pages are rewritten after, and again by
 * any later tick: a page's fingerprint covers the answer.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "analysis/adaptive.h"
#include "analysis/bisect.h"
#include "analysis/compare.h"
#include "answer/answer.h"
#include "answer/listreply.h"
#include "cleanup.h"
#include "config.h"
#include "fs.h"
#include "home.h"
#include "lab/mail.h"
#include "plan/plan.h"
#include "report/report.h"
#include "shquote.h"
#include "time-util.h"
#include "store/answer_account.h"
#include "store/answers.h"
#include "store/jobs.h"
#include "store/mails.h"
#include "banned.h"

/* Per tick, at most: submissions looked at, mails sent. */
#define ANSWER_TICK_MAX 64
#define MAIL_TICK_MAX 16

static void alog(const struct answer_ctx *ac, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void alog(const struct answer_ctx *ac, int level, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!ac->log)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strbuf_rtrim(&sb);
	ac->log(ac->log_ctx, level, sb.buf);
	strbuf_release(&sb);
}

/* Who gets a mail, and who was left out of it and why. */
struct rcpts {
	struct strvec to, bad, why;
};

static void rcpts_init(struct rcpts *r)
{
	strvec_init(&r->to);
	strvec_init(&r->bad);
	strvec_init(&r->why);
}

static void rcpts_release(struct rcpts *r)
{
	strvec_clear(&r->to);
	strvec_clear(&r->bad);
	strvec_clear(&r->why);
}

/*
 * The mail's recipients: the submitter (unless [mail] submitter = no)
 * and the configured list, each address once.  Each is checked on its
 * own: one that is not a mail address (a patch's "From: a@x, b@y") goes
 * to r->bad with the reason, and the others still get the mail -- so no
 * author can keep a report off the list with a bad From:.
 */
static void recipients(const struct farm_config *cfg, const char *submitter,
		       struct rcpts *r)
{
	struct strvec cand = STRVEC_INIT, seen = STRVEC_INIT;

	if (cfg->mail_submitter && submitter && *submitter)
		strvec_push(&cand, submitter);
	for (size_t i = 0; i < cfg->to.nr; i++)
		strvec_push(&cand, cfg->to.v[i]);
	for (size_t i = 0; i < cand.nr; i++) {
		struct strbuf addr = STRBUF_INIT;
		const char *why;
		size_t j;

		if (mail_parse_mailbox(cand.v[i], NULL, &addr, &why) < 0) {
			struct strbuf v = STRBUF_INIT;

			mail_add_printable(&v, cand.v[i], 300);
			strvec_push(&r->bad, v.buf);
			strvec_pushf(&r->why, "not a mail address: it %s", why);
			strbuf_release(&v);
			strbuf_release(&addr);
			continue;
		}
		for (j = 0; j < seen.nr; j++)
			if (!strcasecmp(seen.v[j], addr.buf))
				break;
		if (j == seen.nr) {
			strvec_push(&seen, addr.buf);
			strvec_push(&r->to, cand.v[i]);
		}
		strbuf_release(&addr);
	}
	strvec_clear(&cand);
	strvec_clear(&seen);
}

/* "a (why); b (why)" of the recipients left out. */
static void add_refused(struct strbuf *out, const struct strvec *bad,
			const struct strvec *why)
{
	for (size_t i = 0; i < bad->nr; i++)
		strbuf_addf(out, "%s'%s' (%s)", i ? "; " : "", bad->v[i],
			    why->v[i]);
}

/* Rewrite the report pages whose data changed; count what was written. */
static void refresh_pages(const struct answer_ctx *ac, struct answer_stats *st)
{
	struct strbuf err = STRBUF_INIT, stat_dir = STRBUF_INIT;
	struct report_opts o = { 0 };
	struct report_stats rs;
	_cleanup_free_ char *dir = NULL;
	char now[64];
	time_t t = time(NULL);
	struct tm tm;

	if (report_find_static(&stat_dir, &err) < 0) {
		alog(ac, 1, "report not written: %s", err.buf);
		goto out;
	}
	/* The default folder is the state folder's, made private. */
	{
		char *def = xstrfmt("%s/%s", ac->home, HOME_REPORT);
		int is_def = !strcmp(def, ac->cfg->report_dir);

		free(def);
		if (is_def &&
		    home_subdir(ac->home, HOME_REPORT, &dir, &err) < 0) {
			alog(ac, 1, "report not written: %s", err.buf);
			goto out;
		}
	}
	o.out_dir = dir ? dir : ac->cfg->report_dir;
	o.static_dir = stat_dir.buf;
	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%d %H:%M:%S UTC", &tm);
	o.now = now;
	report_stats_init(&rs);
	if (report_write(ac->db, &o, &rs, &err) < 0)
		alog(ac, 1, "report into %s: %s", o.out_dir, err.buf);
	else
		alog(ac, 0, "report: %d page(s) written into %s",
		     rs.pages_written, rs.out_dir);
	st->pages_written += rs.pages_written;
	report_stats_release(&rs);
out:
	strbuf_release(&err);
	strbuf_release(&stat_dir);
}

/* The plan as a file a user can run, under the state folder. */
static int plan_file(const struct answer_ctx *ac, const struct answer_sub *s,
		     struct strbuf *path, struct strbuf *err)
{
	_cleanup_free_ char *dir = NULL;

	if (home_subdir(ac->home, HOME_PLANS, &dir, err) < 0)
		return -1;
	strbuf_addf(path, "%s/%s-%.12s.yaml", dir, s->plan_name, s->plan_sha);
	for (size_t i = strlen(dir) + 1; i < path->len; i++)
		if (path->buf[i] == '/' || path->buf[i] == ' ')
			path->buf[i] = '_';
	return write_file_if_changed(path->buf, s->plan_body,
				     strlen(s->plan_body), 0600, 0, err) < 0
		       ? -1
		       : 0;
}

/* The deciding rows of set: those the plan marks, else all. */
static int is_deciding(const struct compare_set *set, size_t i)
{
	for (size_t j = 0; j < set->nr; j++)
		if (set->rows[j].decides)
			return set->rows[i].decides;
	return 1;
}

/*
 * The overall verdict of set's deciding rows (regression over
 * improvement over inconclusive/insufficient over no-change), its
 * headline row, and the rows as a JSON array.
 */
static const char *summarize(const struct compare_set *set,
			     const struct compare_row **ret_head,
			     struct strbuf *json)
{
	static const enum cmp_verdict order[] = {
		CMP_REGRESSION,	  CMP_IMPROVEMENT, CMP_INCONCLUSIVE,
		CMP_INSUFFICIENT, CMP_NO_CHANGE,
	};
	const struct compare_row *head = NULL;
	size_t n = 0;

	strbuf_addch(json, '[');
	for (size_t i = 0; i < set->nr; i++) {
		const struct compare_row *r = &set->rows[i];

		if (!is_deciding(set, i))
			continue;
		if (n++)
			strbuf_addch(json, ',');
		strbuf_addch(json, '{');
		compare_row_json_name(r, json);
		strbuf_addstr(json, ",\"verdict\":");
		strbuf_add_json_str(json, compare_verdict_name(r->verdict));
		compare_row_json_numbers(r, 0, json);
		strbuf_addch(json, '}');
	}
	strbuf_addch(json, ']');
	for (size_t k = 0; k < ARRAY_SIZE(order) && !head; k++)
		for (size_t i = 0; i < set->nr; i++) {
			const struct compare_row *r = &set->rows[i];

			if (!is_deciding(set, i) || r->verdict != order[k])
				continue;
			if (!head || (isfinite(r->s.pct_change) &&
				      (!isfinite(head->s.pct_change) ||
				       fabs(r->s.pct_change) >
					       fabs(head->s.pct_change))))
				head = r;
		}
	*ret_head = head;
	return head ? compare_verdict_name(head->verdict) : NULL;
}

/* The errors of a submission's failed jobs, one sentence. */
static void job_failures(const struct answer_sub *s, struct strbuf *out,
			 const char **ret_phase)
{
	*ret_phase = NULL;
	for (size_t i = 0; i < s->nr_jobs; i++) {
		const struct answer_job *j = &s->jobs[i];

		if (!strcmp(j->state, "done"))
			continue;
		if (!*ret_phase)
			*ret_phase = j->error_phase ? j->error_phase : j->state;
		strbuf_addf(out, "%sSTP#%lld (%s) %s%s%s%s%s",
			    out->len ? "; " : "", (long long)j->id,
			    j->side == ANSWER_PATCH ? "patch" : "base",
			    j->state, j->error_phase ? " in " : "",
			    j->error_phase ? j->error_phase : "",
			    j->error ? ": " : "", j->error ? j->error : "");
	}
}

/* Record the answer and queue its mail in one transaction. */
static int record(const struct answer_ctx *ac, const struct answer_sub *s,
		  const char *state, const char *verdict, const char *headline,
		  const char *note, const char *metrics,
		  const struct compare_set *set, const struct answer_text *t,
		  struct strbuf *err)
{
	struct rcpts rc;
	struct strbuf subject = STRBUF_INIT, body = STRBUF_INIT,
		      left = STRBUF_INIT;
	int64_t mid;
	int r = -1;

	rcpts_init(&rc);
	recipients(ac->cfg, s->mail_to, &rc);
	add_refused(&left, &rc.bad, &rc.why);
	if (db_begin(ac->db, err) < 0)
		goto out;
	if (answers_record(ac->db, s->patch_id, state, s->host_id, verdict,
			   headline, note, metrics, err) < 0 ||
	    answers_record_reuse(ac->db, s->patch_id, t->base_reused_json,
				 err) < 0 ||
	    (verdict &&
	     listreply_queue(ac->db, ac->cfg, s, verdict, set, t, err) < 0))
		goto fail;
	if (ac->cfg->smtp && rc.to.nr && strcmp(state, "waiting")) {
		answer_mail_subject(s, headline, &subject);
		answer_mail_body(s, set, t, &body);
		if (mails_queue(ac->db, "answer", s->patch_id, 0, ac->cfg->from,
				&rc.to, &rc.bad, &rc.why, subject.buf, body.buf,
				&mid, err) < 0)
			goto fail;
	}
	r = db_commit(ac->db, err);
	if (r == 0 && ac->cfg->smtp && left.len && strcmp(state, "waiting"))
		alog(ac, 1, "PLM#%lld: %s: %s", (long long)s->patch_id,
		     rc.to.nr ? "left out of its mail"
			      : "no mail: every recipient left out",
		     left.buf);
	goto out;
fail:
	db_rollback(ac->db);
out:
	rcpts_release(&rc);
	strbuf_release(&left);
	strbuf_release(&subject);
	strbuf_release(&body);
	return r;
}

/*
 * A host that does not boot (host_boots 0) runs its own kernel: the
 * answer needs base results of the plan stored on it.  With none, the
 * answer waits: recorded with a note naming the command that adds them
 * (1 returned, st->waiting counted).  With fewer boots than the plan's,
 * note says so.  0 to go on, 1 when waiting, -1 with err.
 */
static int check_base(const struct answer_ctx *ac, struct answer_sub *s,
		      const struct plan *plan, struct strbuf *note,
		      struct answer_text *t, struct answer_stats *st,
		      struct strbuf *err)
{
	int m = 0, r;

	if (answers_observations(ac->db, s->base_kernel_id, s->host_id,
				 s->plan_id, &s->plan_set, 0, &m, err) < 0)
		return -1;
	if (!m) {
		struct strbuf path = STRBUF_INIT;

		if (plan_file(ac, s, &path, err) < 0) {
			strbuf_release(&path);
			return -1;
		}
		strbuf_reset(note);
		strbuf_addf(note,
			    "no results of the base kernel %s on %s "
			    "with plan %s: boot %s into %s, then run: ",
			    s->base, s->host_name, s->plan_name, s->host_name,
			    s->base);
		answer_base_command(s, path.buf, note);
		strbuf_release(&path);
		r = record(ac, s, "waiting", NULL, NULL, note->buf, NULL, NULL,
			   t, err);
		if (r == 0) {
			alog(ac, 0, "PLM#%lld waits: %s",
			     (long long)s->patch_id, note->buf);
			st->waiting++;
			r = 1;
		}
		return r;
	}
	if (m < plan->boots) {
		strbuf_addf(note,
			    "%sthe base %s has %d of %d boots on %s "
			    "(another 'schedfarm run' of the plan "
			    "there with --kernel ",
			    note->len ? "; " : "", s->base, m, plan->boots,
			    s->host_name);
		strbuf_add_sh_quoted(note, s->base);
		strbuf_addstr(note, " adds more)");
	}
	return 0;
}

/*
 * A series of two or more patches whose deciding metric hr regressed:
 * its bisection, started unless the settings, the submission or the host
 * forbid it (bnote says why not), or the one already started.  The
 * bisection's id, page (*ret_bpage, the caller frees it) and note go into
 * t; st->queued counts a start.  cerr: the answer's scratch buffer for
 * the start's error.  0, or -1 with err.
 */
static int bisect_series(const struct answer_ctx *ac,
			 const struct answer_sub *s,
			 const struct compare_row *hr, struct answer_stats *st,
			 struct answer_text *t, struct strbuf *bnote,
			 char **ret_bpage, struct strbuf *cerr,
			 struct strbuf *err)
{
	struct strbuf bmsg = STRBUF_INIT;
	int64_t bid = 0;
	int f = bisect_find_auto(ac->db, s->patch_id, &bid, err);

	if (f < 0)
		return -1;
	if (!ac->cfg->bisect_auto)
		strbuf_addstr(bnote, "not started ([bisect] auto = "
				     "no)");
	else if (!s->auto_bisect)
		strbuf_addstr(bnote, "not started (submitted with "
				     "--no-bisect)");
	else if (s->host_boots != 1)
		strbuf_addf(bnote,
			    "not started: %s cannot boot the kernels "
			    "of the series' prefixes",
			    s->host_name);
	else if (!f) {
		struct bisect_request rq = {
			.patch_id = s->patch_id,
			.host = s->host_name,
			.metric = hr->metric,
			.max_boots = ac->cfg->bisect_max_boots,
			.is_auto = 1,
		};

		if (bisect_start(ac->db, &rq, &bid, &bmsg, cerr) < 0) {
			strbuf_addf(bnote, "not started: %s", cerr->buf);
			bid = 0;
		} else {
			alog(ac, 0, "%s", bmsg.buf);
			st->queued++;
		}
	}
	if (bid) {
		char *file = xstrfmt("bisect-%lld.html", (long long)bid);

		*ret_bpage = farm_config_page_url(ac->cfg, file);
		free(file);
		t->bisection_id = bid;
		t->bisection_url = *ret_bpage;
	}
	if (bnote->len)
		t->bisection_note = bnote->buf;
	strbuf_release(&bmsg);
	return 0;
}

/*
 * The stored base runs of others that s's comparison read, as the
 * sentence its page and mail say (into text) and the JSON its row keeps
 * (into json); both stay empty when it read none.  0, or -1 with err.
 */
static int base_reused(const struct answer_ctx *ac, const struct answer_sub *s,
		       struct strbuf *text, struct strbuf *json,
		       struct strbuf *err)
{
	struct answer_reuse ru;
	const char *kernel = s->base_name ? s->base_name : s->base;

	if (answers_base_reused(ac->db, s, &ru, err) < 0)
		return -1;
	answer_reuse_text(&ru, kernel, text);
	answer_reuse_json(&ru, kernel, json);
	if (text->len)
		alog(ac, 0, "PLM#%lld: %s", (long long)s->patch_id, text->buf);
	answer_reuse_release(&ru);
	return 0;
}

/*
 * Answer s now: every boot ran (or a job failed).  0 when answered (or
 * failed), 1 when it waits for base results, -1 with err.
 */
static int answer_now(const struct answer_ctx *ac, struct answer_sub *s,
		      const struct plan *plan, struct answer_stats *st,
		      struct strbuf *err)
{
	struct compare_query q = { .patch_id = s->patch_id, .tau_pct = NAN };
	struct compare_set set;
	struct strbuf note = STRBUF_INIT, head = STRBUF_INIT,
		      metrics = STRBUF_INIT, cerr = STRBUF_INIT,
		      bnote = STRBUF_INIT, reuse = STRBUF_INIT,
		      reuse_json = STRBUF_INIT;
	struct answer_text t = { 0 };
	const struct compare_row *hr = NULL;
	const char *verdict = NULL, *phase = NULL;
	_cleanup_free_ char *page = NULL, *bpage = NULL;
	int done_patch = 0, max_block = 0, r = -1, have_set = 0;

	memset(&set, 0, sizeof(set));
	{
		char *file = xstrfmt("patch-%lld.html", (long long)s->patch_id);

		page = farm_config_page_url(ac->cfg, file);
		free(file);
	}
	t.page_url = page;
	for (size_t i = 0; i < s->nr_jobs; i++) {
		if (s->jobs[i].side == ANSWER_PATCH &&
		    !strcmp(s->jobs[i].state, "done"))
			done_patch++;
		if (s->jobs[i].block > max_block)
			max_block = s->jobs[i].block;
	}
	job_failures(s, &note, &phase);
	if (!s->host_id || !done_patch) {
		/* A job cancelled by someone is not a failure of it: the
		 * headline says "cancelled", and the log says it plainly. */
		int cancelled = phase && !strcmp(phase, "cancelled");

		if (cancelled)
			strbuf_addstr(&head, "cancelled");
		else
			strbuf_addf(&head, "%s failed",
				    phase ? phase : "the job");
		if (s->host_name)
			strbuf_addf(&head, " on %s", s->host_name);
		if (!note.len)
			strbuf_addstr(&note, "no job of the patch ran");
		t.headline = head.buf;
		t.note = note.buf;
		r = record(ac, s, "failed", NULL, head.buf, note.buf, NULL,
			   NULL, &t, err);
		if (r == 0)
			alog(ac, !cancelled, "PLM#%lld answered: %s (%s)",
			     (long long)s->patch_id, head.buf, note.buf);
		goto out;
	}
	if (s->host_boots == 0) {
		int w = check_base(ac, s, plan, &note, &t, st, err);

		if (w) {
			r = w;
			goto out;
		}
	}
	q.host = s->host_name;
	q.plan = s->plan_sha;
	/* The base runs of the same --set overrides only, as counted for
	 * the ABBA order; with a fresh base the submission's own only. */
	q.plan_set = &s->plan_set;
	q.own_jobs = s->fresh_base;
	/* An `until: decided` sequence: its latest look, as adaptive.c
	 * compared it (its own jobs, the design's levels); a fixed plan, or
	 * a sequence that ended before its first look: one comparison at
	 * the fixed design's levels. */
	if (plan->until == PLAN_UNTIL_DECIDED &&
	    adaptive_last_look(plan, max_block, &q) < 0)
		strbuf_addstr(&cerr, "the plan has no sequential design");
	if (cerr.len || compare_run(ac->db, &q, &set, &cerr) < 0 || !set.nr) {
		have_set = 1;
		strbuf_addf(&head, "no comparison on %s", s->host_name);
		strbuf_addf(&note, "%s%s", note.len ? "; " : "",
			    cerr.len ? cerr.buf
				     : "no results of both kernels to compare");
		t.headline = head.buf;
		t.note = note.buf;
		r = record(ac, s, "failed", NULL, head.buf, note.buf, NULL,
			   NULL, &t, err);
		goto out;
	}
	have_set = 1;
	if (plan->until != PLAN_UNTIL_DECIDED &&
	    base_reused(ac, s, &reuse, &reuse_json, err) < 0)
		goto out;
	t.base_reused = reuse.len ? reuse.buf : NULL;
	t.base_reused_json = reuse.len ? reuse_json.buf : NULL;
	/* An adaptive sequence stored its last look already (adaptive.c):
	 * the answer reads it again, it does not add a look. */
	if (plan->until != PLAN_UNTIL_DECIDED &&
	    compare_store(ac->db, &set, &cerr) < 0)
		alog(ac, 1, "PLM#%lld: the verdicts were not stored: %s",
		     (long long)s->patch_id, cerr.buf);
	verdict = summarize(&set, &hr, &metrics);
	if (hr) {
		strbuf_addf(&head, "%s ", hr->metric);
		if (isfinite(hr->s.pct_change))
			strbuf_addf(&head, "%+.1f%% ", hr->s.pct_change);
		strbuf_addf(&head, "%s on %s", verdict, hr->host);
	} else {
		strbuf_addf(&head, "no deciding metric on %s", s->host_name);
	}
	/* A series that regressed: find the patch. */
	if (hr && hr->verdict == CMP_REGRESSION && s->n_patches >= 2 &&
	    bisect_series(ac, s, hr, st, &t, &bnote, &bpage, &cerr, err) < 0)
		goto out;
	t.verdict = verdict;
	t.headline = head.buf;
	t.note = note.len ? note.buf : NULL;
	r = record(ac, s, "answered", verdict, head.buf, t.note, metrics.buf,
		   &set, &t, err);
	if (r == 0)
		alog(ac, 0, "PLM#%lld answered: %s", (long long)s->patch_id,
		     head.buf);
out:
	if (have_set)
		compare_set_release(&set);
	strbuf_release(&note);
	strbuf_release(&head);
	strbuf_release(&metrics);
	strbuf_release(&cerr);
	strbuf_release(&bnote);
	strbuf_release(&reuse);
	strbuf_release(&reuse_json);
	return r;
}

/*
 * The line the controllers log when s is answered: "PLM#N answered in
 * 12m3s: queued 5s, build 1m2s, boot 2m10s, run 8m, compare 3s".
 */
static void log_phases(const struct answer_ctx *ac, int64_t patch_id)
{
	struct strbuf line = STRBUF_INIT, err = STRBUF_INIT;
	struct answer_phases ph;

	if (answers_phases(ac->db, patch_id, &ph, &err) < 0) {
		alog(ac, 1, "PLM#%lld: its phases: %s", (long long)patch_id,
		     err.buf);
	} else if (ph.answered) {
		format_duration_ms(&line, ph.span_ms);
		strbuf_addstr(&line, ": ");
		answer_phases_text(&ph, &line);
		alog(ac, 0, "PLM#%lld answered in %s", (long long)patch_id,
		     line.buf);
	}
	strbuf_release(&line);
	strbuf_release(&err);
}

/*
 * The step of one submission (locked): queue its next job, or answer.
 * 1 when something was done, 0 when nothing, -1 with err.
 */
static int step_one(const struct answer_ctx *ac, int64_t id,
		    struct answer_stats *st, struct strbuf *err)
{
	struct answer_sub s;
	struct plan *plan = NULL;
	struct strbuf perr = STRBUF_INIT;
	int r;

	r = answers_load(ac->db, id, &s, err);
	if (r != 0)
		goto out;
	if ((strcmp(s.state, "pending") && strcmp(s.state, "waiting")) ||
	    s.live)
		goto out;
	/* The first job's effective plan (every unit runs it). */
	if (s.plan_body) {
		r = jobs_load_plan(ac->db, s.jobs[0].id, &plan, &perr);
		if (r == -1) {
			strbuf_addbuf(err, &perr);
			goto out;
		}
	}
	if (!s.plan_body || r < 0) {
		struct answer_text t = { 0 };

		strbuf_addf(&perr, "%s", s.plan_body ? "" : "it has no job");
		t.headline = "nothing to run";
		t.note = perr.buf;
		r = record(ac, &s, "failed", NULL, "nothing to run", perr.buf,
			   NULL, NULL, &t, err);
		r = r < 0 ? -1 : 1;
		goto out;
	}
	if (!strcmp(s.state, "pending") && plan->until == PLAN_UNTIL_FIXED &&
	    s.host_id) {
		int failed = 0, dp = 0, dbb = 0, k = 0, m = 0;
		struct answer_unit u;

		for (size_t i = 0; i < s.nr_jobs; i++) {
			const struct answer_job *j = &s.jobs[i];
			int b = j->boots ? j->boots : plan->boots;

			if (strcmp(j->state, "done"))
				failed = 1;
			else if (j->side == ANSWER_PATCH)
				dp += b;
			else
				dbb += b;
		}
		/* A fresh base counts nothing stored: k is the plan's. */
		if (s.host_boots == 1 && !s.fresh_base &&
		    answers_observations(ac->db, s.base_kernel_id, s.host_id,
					 s.plan_id, &s.plan_set, s.patch_id, &m,
					 err) < 0) {
			r = -1;
			goto out;
		}
		if (s.host_boots == 1)
			k = answer_base_boots(plan->boots, m, s.fresh_base);
		if (!failed && s.base_kernel_id != s.kernel_id &&
		    answer_next_unit(plan->boots, k, dp, dbb, &u)) {
			int64_t jid;

			r = answers_queue_unit(ac->db, &s, &u, &jid, err);
			if (r == 1) {
				st->queued++;
				alog(ac, 0,
				     "PLM#%lld: queued STP#%lld, the %s kernel "
				     "%s, %d boot%s on %s (ABBA: %d of %d "
				     "patch, %d of %d base boots done)",
				     (long long)id, (long long)jid,
				     u.side == ANSWER_PATCH ? "patched"
							    : "base",
				     u.side == ANSWER_PATCH ? s.kernel_name
							    : s.base_name,
				     u.boots, u.boots == 1 ? "" : "s",
				     s.host_name, dp, plan->boots, dbb, k);
			}
			goto out;
		}
	}
	r = answer_now(ac, &s, plan, st, err);
	if (r == 0) {
		st->answered++;
		log_phases(ac, id);
	}
	if (r >= 0)
		r = 1;
out:
	plan_free(plan);
	strbuf_release(&perr);
	answer_sub_release(&s);
	return r;
}

/* Step 1: every open submission. */
static int answers(const struct answer_ctx *ac, struct answer_stats *st,
		   struct strbuf *err)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int any = 0;

	if (answers_open(ac->db, &ids, &n, ANSWER_TICK_MAX, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct strbuf e = STRBUF_INIT;
		int got = answers_try_lock(ac->db, ids[i], &e), r;

		if (got < 0)
			alog(ac, 1, "PLM#%lld: %s", (long long)ids[i], e.buf);
		if (got != 1) {
			strbuf_release(&e);
			continue;
		}
		r = step_one(ac, ids[i], st, &e);
		answers_unlock(ac->db, ids[i]);
		if (r < 0)
			alog(ac, 1, "PLM#%lld: the answer step failed: %s",
			     (long long)ids[i], e.buf);
		any |= r > 0;
		strbuf_release(&e);
	}
	free(ids);
	return any;
}

/* Step 2: bisections; the ones that ended get their mail. */
static int bisections(const struct answer_ctx *ac, struct answer_stats *st,
		      struct strbuf *err)
{
	struct strbuf log = STRBUF_INIT;
	int64_t *done = NULL;
	size_t n = 0;
	int r, any;

	r = bisect_tick(ac->db, &done, &n, &log, err);
	any = log.len > 0;
	for (char *line = log.buf, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		alog(ac, 0, "%s", line);
		if (strstr(line, "queued STP#"))
			st->queued++;
	}
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct strbuf json = STRBUF_INIT, subject = STRBUF_INIT,
			      body = STRBUF_INIT, e = STRBUF_INIT;
		struct rcpts rc;
		_cleanup_db_result_ struct db_result *res = NULL;
		char *page = xstrfmt("bisect-%lld.html", (long long)done[i]);
		char *url = farm_config_page_url(ac->cfg, page);
		int64_t mid;

		st->bisections_done++;
		rcpts_init(&rc);
		/* Who hears of it: the submitter of its series, the list. */
		if (answers_bisection_mail_to(ac->db, done[i], &res, &e) == 0 &&
		    db_nrows(res) == 1)
			recipients(ac->cfg, db_get(res, 0, 0), &rc);
		if (ac->cfg->smtp && rc.to.nr &&
		    bisect_show_json(ac->db, done[i], url, &json, &e) == 0 &&
		    answer_bisect_mail(json.buf, &subject, &body, &e) == 0 &&
		    mails_queue(ac->db, "bisection", 0, done[i], ac->cfg->from,
				&rc.to, &rc.bad, &rc.why, subject.buf, body.buf,
				&mid, &e) < 0)
			alog(ac, 1, "bisect #%lld: its mail: %s",
			     (long long)done[i], e.buf);
		else if (e.len)
			alog(ac, 1, "bisect #%lld: its mail: %s",
			     (long long)done[i], e.buf);
		free(page);
		free(url);
		rcpts_release(&rc);
		strbuf_release(&json);
		strbuf_release(&subject);
		strbuf_release(&body);
		strbuf_release(&e);
	}
	free(done);
	strbuf_release(&log);
	return r < 0 ? -1 : any;
}

/* Step 4: send what is due. */
static void send_mails(const struct answer_ctx *ac, struct answer_stats *st)
{
	const struct farm_config *cfg = ac->cfg;

	if (!cfg->smtp)
		return;
	for (int i = 0; i < MAIL_TICK_MAX; i++) {
		struct strbuf err = STRBUF_INIT, pw = STRBUF_INIT;
		struct mail_row m;
		struct mail_server srv = { 0 };
		struct mail_message msg = { 0 };
		struct mail_outcome o;
		int r, pw_set = 0;

		mail_row_init(&m);
		mail_outcome_init(&o);
		r = mails_claim_due(ac->db, ac->owner, &m, &err);
		if (r <= 0) {
			if (r < 0)
				alog(ac, 1, "mail: %s", err.buf);
			mail_row_release(&m);
			mail_outcome_release(&o);
			strbuf_release(&err);
			break;
		}
		srv.url = cfg->smtp;
		srv.starttls = (int)cfg->starttls;
		srv.insecure_auth = cfg->insecure_auth;
		srv.user = cfg->user;
		srv.ca_file = cfg->ca_file;
		srv.timeout_ms = cfg->timeout_ms;
		msg.from = m.sender;
		msg.to = &m.to;
		msg.subject = m.subject;
		msg.body = m.body;
		msg.message_id = m.message_id;
		msg.date = (int64_t)time(NULL);
		r = farm_config_password(cfg, &pw, &pw_set, &err);
		if (r == 0) {
			srv.password = pw_set ? pw.buf : NULL;
			r = mail_send(&srv, &msg, &o, &err);
		}
		if (r == 0) {
			size_t n = m.to.nr - o.refused.nr;

			strbuf_reset(&err);
			if (mails_sent(ac->db, m.id, ac->owner, &o.refused,
				       &o.refused_why, &err) < 0)
				alog(ac, 1, "mail %lld sent, not recorded: %s",
				     (long long)m.id, err.buf);
			alog(ac, 0, "mail %lld sent to %zu recipient%s: %s",
			     (long long)m.id, n, n == 1 ? "" : "s", m.subject);
			if (o.refused.nr) {
				strbuf_reset(&err);
				add_refused(&err, &o.refused, &o.refused_why);
				alog(ac, 1, "mail %lld: left out: %s",
				     (long long)m.id, err.buf);
			}
			st->mails_sent++;
		} else if (r == MAIL_UNKNOWN) {
			struct strbuf e2 = STRBUF_INIT;

			if (mails_unknown(ac->db, m.id, ac->owner, err.buf,
					  &e2) < 0)
				alog(ac, 1, "mail %lld: %s", (long long)m.id,
				     e2.buf);
			alog(ac, 1,
			     "mail %lld (attempt %d): %s; not sent again by "
			     "itself",
			     (long long)m.id, m.attempts, err.buf);
			st->mails_failed++;
			strbuf_release(&e2);
		} else {
			struct strbuf e2 = STRBUF_INIT;

			if (mails_failed(ac->db, m.id, ac->owner, err.buf,
					 cfg->retry_min_ms, cfg->retry_max_ms,
					 cfg->max_attempts, &e2) < 0)
				alog(ac, 1, "mail %lld: %s", (long long)m.id,
				     e2.buf);
			alog(ac, 1, "mail %lld (attempt %d of %d) failed: %s",
			     (long long)m.id, m.attempts, cfg->max_attempts,
			     err.buf);
			st->mails_failed++;
			strbuf_release(&e2);
		}
		/* The password lives no longer than the send. */
		memset(pw.buf, 0, pw.len);
		strbuf_release(&pw);
		strbuf_release(&err);
		mail_row_release(&m);
		mail_outcome_release(&o);
	}
}

int answer_tick(const struct answer_ctx *ac, struct answer_stats *st,
		struct strbuf *err)
{
	int a, b;

	memset(st, 0, sizeof(*st));
	a = answers(ac, st, err);
	if (a < 0)
		return -1;
	b = bisections(ac, st, err);
	if (b < 0)
		return -1;
	/* Pages: after an answer, and as a bisection moves on. */
	if (st->answered || b > 0)
		refresh_pages(ac, st);
	send_mails(ac, st);
	listreply_send_due(ac, st);
	return 0;
}

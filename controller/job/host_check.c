/*
 * host_check.c - check a host before use; see host_check.h.  The boot is
 * boot.c's, the health rules are store/hosts.c's: this file only strings
 * them together.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "job/host_check.h"
#include "job/job.h"
#include "kind_names.h"
#include "lab/boot.h"
#include "parse.h"
#include "store/hosts.h"
#include "banned.h"

void host_check_result_init(struct host_check_result *r)
{
	memset(r, 0, sizeof(*r));
	r->blame = "none";
	strbuf_init(&r->why, 0);
}

void host_check_result_release(struct host_check_result *r)
{
	free(r->release);
	strbuf_release(&r->why);
	memset(r, 0, sizeof(*r));
}

/*
 * The known-good kernel of the host (0 when it has none); -1 with err
 * when there is no such host, or when its kind does not boot kernels (a
 * local or ssh host runs the kernel it has: nothing to boot, and the
 * error says how such a host's health is made instead).
 */
static int known_good_of(struct db *db, const struct host_check_request *rq,
			 int64_t *ret, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *h = NULL;
	const char *name = rq->host_name ? rq->host_name : "?";
	int r;

	r = hosts_known_good_row(db, rq->host_name, rq->host_id, &h, err);
	if (r < 0)
		return -1;
	if (db_nrows(h) != 1) {
		strbuf_addf(err, "no host %s",
			    rq->host_name ? rq->host_name : "with that id");
		return -1;
	}
	if (!hosts_kind_boots(db_get(h, 0, 1))) {
		strbuf_addf(err,
			    "host %s is of kind %s: it runs the kernel it has, "
			    "so there is nothing to boot; host check boots "
			    "hosts of kind ",
			    name, db_get(h, 0, 1));
		kind_names_join(err, kind_names_booting(), " or ");
		strbuf_addf(err,
			    ".  A %s host's health comes from its jobs: "
			    "schedfarm run plans/smoke.yaml --host %s",
			    db_get(h, 0, 1), name);
		return -1;
	}
	return db_get_i64(h, 0, 0, 0, INT64_MAX, ret);
}

int host_check(struct db *db, const struct host_check_request *rq,
	       struct host_check_result *ret, struct strbuf *err)
{
	struct boot_request req;
	struct boot_result br;
	struct strbuf out = STRBUF_INIT, e = STRBUF_INIT;
	int64_t kid = rq->kernel_id, good;
	int r = -1;

	/* The host's kind is checked with --kernel too. */
	if (known_good_of(db, rq, rq->kernel_id ? &good : &kid, err) < 0)
		return -1;
	if (!kid) {
		strbuf_addf(err,
			    "host %s has no known-good kernel to check it "
			    "with: give one (host check --kernel)",
			    rq->host_name ? rq->host_name : "?");
		return -1;
	}
	boot_request_init(&req);
	req.host_name = rq->host_name;
	req.host_id = rq->host_id;
	req.job_id = rq->job_id;
	req.controller_id = rq->controller_id;
	req.kernel_id = kid;
	req.state_dir = rq->state_dir;
	req.timeout_ms = rq->timeout_ms ? rq->timeout_ms : 300000;
	req.on_event = rq->on_event;
	req.tick = rq->tick;
	req.ctx = rq->ctx;
	boot_result_init(&br);
	if (boot_host(db, &req, &br, &e) < 0) {
		if (br.outcome == BOOT_RUNNING) {
			/* The farm's own failure: nothing was checked. */
			strbuf_addbuf(err, &e);
			goto out;
		}
		/* boot_host() recorded the blame and the host's health. */
		ret->blame = br.blame;
		snprintf(ret->health, sizeof(ret->health), "%s",
			 br.host_health);
		strbuf_addf(&ret->why, "boot of the known-good kernel: %s",
			    e.buf);
		r = 0;
		goto out;
	}
	ret->release = br.release ? xstrdup(br.release) : NULL;
	ret->ready_s = (double)br.ready_ms / 1000.0;
	if (boot_ssh_run(&br, "schedfarm-agent info", 60000, &out, &e) < 0) {
		struct host_observation o = { 0 };
		struct host_verdict v = { 0 };

		o.host_id = br.host_id;
		o.kernel_id = kid;
		o.outcome = HOST_FAILED;
		o.what = "host check";
		o.failure = "the agent's info failed";
		o.reason = e.buf;
		if (hosts_observe(db, &o, &v, err) < 0)
			goto out_off;
		ret->blame = v.blame;
		snprintf(ret->health, sizeof(ret->health), "%s",
			 v.after.health);
		strbuf_addf(&ret->why, "the agent's info: %s", e.buf);
		r = 0;
		goto out_off;
	}
	strbuf_reset(&e);
	strbuf_addf(&e,
		    "host check passed: %s up in %.1f s, agent info answered",
		    br.release ? br.release : "?", ret->ready_s);
	if (hosts_check_passed(db, br.host_id, kid, e.buf, err) < 0)
		goto out_off;
	ret->passed = 1;
	snprintf(ret->health, sizeof(ret->health), "good");
	r = 0;
out_off:
	strbuf_reset(&e);
	if (!rq->keep || !ret->passed) {
		if (boot_power_off(db, &br, &e) < 0 && ret->passed)
			strbuf_addf(&ret->why, "power off: %s", e.buf);
	}
out:
	boot_result_release(&br);
	strbuf_release(&out);
	strbuf_release(&e);
	return r;
}

static void check_event(void *ctx, const char *msg)
{
	struct job_ctx *jc = ctx;

	if (jc->hooks && jc->hooks->phase_progress)
		jc->hooks->phase_progress(jc->hooks->ctx, jc->claim.job_id,
					  msg);
}

static int check_tick(void *ctx)
{
	struct job_ctx *jc = ctx;

	return jc->beat(jc);
}

int host_check_for_job(struct job_ctx *jc, struct strbuf *log,
		       struct strbuf *err)
{
	struct host_check_request rq = { 0 };
	struct host_check_result res;
	int r;

	rq.host_id = jc->claim.host_id;
	rq.state_dir = jc->home;
	rq.job_id = jc->claim.job_id;
	rq.controller_id = jc->owner;
	rq.on_event = check_event;
	rq.tick = check_tick;
	rq.ctx = jc;
	host_check_result_init(&res);
	r = host_check(jc->db, &rq, &res, err);
	if (r == 0 && !res.passed) {
		strbuf_addf(log,
			    "host check of %s failed (blame %s, health %s): "
			    "%s\n",
			    jc->host_name, res.blame, res.health, res.why.buf);
		strbuf_addf(err, "host %s failed its check: %s", jc->host_name,
			    res.why.buf);
		r = 1;
	} else if (r == 0) {
		strbuf_addf(log,
			    "host check of %s passed: %s ready in %.1f s\n",
			    jc->host_name, res.release ? res.release : "?",
			    res.ready_s);
	} else {
		strbuf_addf(log, "host check of %s could not run: %s\n",
			    jc->host_name, err->buf);
	}
	host_check_result_release(&res);
	return r;
}

/*
 * boot_job.c - the job path's hooks for libvirt and ipmi hosts; see
 * boot_job.h.  Glue only: the work is in build.c and boot.c.
 */
#include <stdlib.h>
#include <string.h>

#include "boot.h"
#include "boot_job.h"
#include "build.h"
#include "cleanup.h"
#include "banned.h"

static int beat_on_line(void *ctx, const char *line, int steps, int expected)
{
	(void)line;
	(void)steps;
	(void)expected;
	return job_beat(ctx);
}

static int beat(void *ctx)
{
	return job_beat(ctx);
}

int boot_job_build(struct job_ctx *jc, struct strbuf *log, struct strbuf *err)
{
	const char *home = getenv("SCHEDFARM_HOME");
	_cleanup_free_ char *cache =
		kernel_cache_dir(home && *home ? home : "/var/tmp/schedfarm");
	int64_t kid = 0;

	if (build_kernel_for_job(jc->db, jc->claim.job_id, cache, 0,
				 beat_on_line, jc, &kid, log, err) < 0)
		return -1;
	jc->kernel_id = kid;
	return 0;
}

static void append_event(void *ctx, const char *msg)
{
	struct strbuf *log = ctx;

	strbuf_addf(log, "boot: %s\n", msg);
}

struct boot_state {
	struct boot_result res;
	struct job_ctx *jc;
	struct strbuf *log;
};

static void state_event(void *ctx, const char *msg)
{
	struct boot_state *st = ctx;

	append_event(st->log, msg);
}

static int state_tick(void *ctx)
{
	struct boot_state *st = ctx;

	return beat(st->jc);
}

int boot_job_boot(struct job_ctx *jc, int boot_index, struct strbuf *log,
		  struct strbuf *err)
{
	struct boot_state *st = xcalloc(1, sizeof(*st));
	struct boot_request req;

	boot_request_init(&req);
	req.job_id = jc->claim.job_id;
	req.host_id = jc->claim.host_id;
	req.kernel_id = jc->kernel_id;
	req.on_event = state_event;
	req.tick = state_tick;
	req.ctx = st;
	st->jc = jc;
	st->log = log;
	boot_result_init(&st->res);
	strbuf_addf(log, "boot round %d\n", boot_index);
	if (boot_host(jc->db, &req, &st->res, err) < 0) {
		/* boot_host powered the host off and recorded the blame. */
		strbuf_addf(log, "boot: %s, blame %s, host %s\n",
			    boot_outcome_name(st->res.outcome), st->res.blame,
			    st->res.host_health);
		boot_result_release(&st->res);
		free(st);
		return -1;
	}
	jc->kind_state = st;
	jc->target.name = st->res.host_name;
	jc->target.kind = "ssh";
	jc->target.address = st->res.ssh_addr;
	jc->target.port = st->res.ssh_port;
	jc->target.user = st->res.ssh_user;
	jc->target.key_file = st->res.key_file;
	jc->target.known_hosts = st->res.known_hosts;
	return 0;
}

int boot_job_power_off(struct job_ctx *jc, struct strbuf *log,
		       struct strbuf *err)
{
	struct boot_state *st = jc->kind_state;
	int r;

	if (!st)
		return 0;
	r = boot_power_off(jc->db, &st->res, err);
	strbuf_addf(log, "power off: %s\n", r < 0 ? err->buf : "done");
	boot_result_release(&st->res);
	free(st);
	jc->kind_state = NULL;
	memset(&jc->target, 0, sizeof(jc->target));
	return r;
}

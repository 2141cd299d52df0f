/*
 * wl_tbench.c - dbench's tbench: the network half of dbench's file server
 * load, a tbench client against tbench_srv over loopback TCP, the
 * throughput every AMD and Intel scheduler report sweeps over client
 * counts (1, 2, 4, ... up to 2 x CPUs).
 *
 * One run does the whole sweep: the server is started once per run (in
 * the workload's cgroup, beside its clients), each iteration runs
 * `tbench -t DURATION N 127.0.0.1` for every client count in turn, and
 * each count is a metric of its own, throughput_mb_s.N (MB/s, higher is
 * better) with max_latency_ms.N, so a comparison lines the counts up as
 * the reports' tables do.  tbench_srv has a fixed port (7003) and no
 * option to change it: a port already taken is a clear failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"
#include "parse.h"
#include "run-command.h"
#include "wl_check.h"
#include "banned.h"

#define TBENCH_PORT 7003

struct tb_state {
	struct child_process srv;
	int inited, started;
	int counts[TBENCH_MAX_COUNTS];
	int ncounts;
};

static int tb_check(const struct run_spec *s, struct strbuf *field,
		    struct strbuf *err)
{
	return spec_check_params(s, "tbench", field, err);
}

static int tb_available(const struct run_spec *s, struct strbuf *why)
{
	(void)s;
	if (!program_exists("tbench") || !program_exists("tbench_srv")) {
		strbuf_addstr(why, "tbench and tbench_srv are not installed "
				   "(Debian package dbench)");
		return -1;
	}
	return 0;
}

/* Is something accepting connections on 127.0.0.1:TBENCH_PORT? */
static int port_open(void)
{
	struct sockaddr_in a = { 0 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

	if (fd < 0)
		return 0;
	a.sin_family = AF_INET;
	a.sin_port = htons(TBENCH_PORT);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

/* Start tbench_srv in the workload's cgroup and wait (5 s) until it
 * listens.  The server runs until teardown. */
static int tb_setup(struct agent_ctx *ctx, struct strbuf *err)
{
	struct tb_state *st = xcalloc(1, sizeof(*st));

	ctx->wl_state = st;
	st->ncounts = workload_tbench_counts(spec_param(ctx->spec, "clients"),
					     ctx->ncpus, st->counts, err);
	if (st->ncounts < 0)
		return -1;
	/* The last run's server children hold the listening socket until
	 * they have ended (they inherit it): give them a moment. */
	for (int i = 0; i < 300 && port_open(); i++)
		usleep(10000);
	if (port_open()) {
		strbuf_addf(err,
			    "port %d on 127.0.0.1 is taken already (another "
			    "tbench_srv?); tbench_srv cannot use another",
			    TBENCH_PORT);
		return -1;
	}
	child_process_init(&st->srv);
	st->inited = 1;
	strvec_push(&st->srv.args, "tbench_srv");
	st->srv.quiet = 1;
	if (wrapped_prepare(ctx, &st->srv, err) < 0 ||
	    start_command(&st->srv, err) < 0)
		return -1;
	st->started = 1;
	for (int i = 0; i < 500; i++) {
		if (port_open())
			return 0;
		if (!command_running(&st->srv)) {
			strbuf_addstr(err,
				      "tbench_srv ended before listening: ");
			finish_command(&st->srv, err);
			st->started = 0;
			return -1;
		}
		usleep(10000);
	}
	strbuf_addf(err, "tbench_srv did not listen on port %d within 5 s",
		    TBENCH_PORT);
	return -1;
}

static int tb_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct tb_state *st = ctx->wl_state;
	int64_t dur_s = (spec_param_ms(ctx->spec, "duration") + 999) / 1000;

	for (int i = 0; i < st->ncounts; i++) {
		struct child_process cp;
		int rc;

		if (!command_running(&st->srv)) {
			strbuf_addstr(err, "tbench_srv has ended");
			return -1;
		}
		child_process_init(&cp);
		strvec_push(&cp.args, "tbench");
		strvec_pushf(&cp.args, "--timelimit=%lld", (long long)dur_s);
		strvec_pushf(&cp.args, "%d", st->counts[i]);
		strvec_push(&cp.args, "127.0.0.1");
		cp.dir = "/tmp";
		rc = wrapped_run(ctx, &cp, parse_tbench, "tbench", err);
		child_process_clear(&cp);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static void tb_teardown(struct agent_ctx *ctx)
{
	struct tb_state *st = ctx->wl_state;
	struct strbuf ignore = STRBUF_INIT;

	if (!st)
		return;
	if (st->started) {
		stop_command(&st->srv, 2000, &ignore);
		/* its per-connection children got the TERM too: leave when
		 * the port is free for the next run */
		for (int i = 0; i < 300 && port_open(); i++)
			usleep(10000);
	}
	if (st->inited)
		child_process_clear(&st->srv);
	free(st);
	ctx->wl_state = NULL;
	strbuf_release(&ignore);
}

const struct wl_ops wl_tbench = {
	.name = "tbench",
	.check = tb_check,
	.available = tb_available,
	.setup = tb_setup,
	.run = tb_run,
	.teardown = tb_teardown,
};

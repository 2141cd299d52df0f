/*
 * wl_hackbench.c - rt-tests hackbench: groups of senders and receivers
 * passing messages over sockets or pipes, as processes or threads.  The one
 * number it prints, "Time: N" (seconds), is the result.
 */
#include <string.h>

#include "agent.h"
#include "run-command.h"
#include "banned.h"

static int hb_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct child_process cp;
	int rc;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "hackbench", "-g",
		     spec_param(ctx->spec, "groups"), "-l",
		     spec_param(ctx->spec, "loops"), (char *)NULL);
	if (!strcmp(spec_param(ctx->spec, "mode"), "thread"))
		strvec_push(&cp.args, "-T");
	else
		strvec_push(&cp.args, "-P");
	if (spec_param_bool(ctx->spec, "pipe"))
		strvec_push(&cp.args, "-p");
	rc = wrapped_run(ctx, &cp, parse_hackbench, "hackbench", err);
	child_process_clear(&cp);
	return rc;
}

const struct wl_ops wl_hackbench = {
	.name = "hackbench",
	.run = hb_run,
};

/*
 * wl_reaim.c - OSDL's re-aim-7 (seed 003), when the user provides it: the
 * spec names the binary and workfile; the agent runs
 * `reaim -s START -e END -i INC -f WORKFILE` and reports "Max Jobs per
 * Minute".  Debian does not ship it, so its absence is a clear error.
 */
#include <string.h>

#include "agent.h"
#include "run-command.h"
#include "banned.h"

static int ra_setup(struct agent_ctx *ctx, struct strbuf *err)
{
	const char *prog = spec_param(ctx->spec, "program");

	if (!program_exists(prog)) {
		strbuf_addf(err,
			    "re-aim program \"%s\" not found (re-aim is not "
			    "packaged by Debian: build osdl-aim-7 and name its "
			    "reaim binary in params.program)",
			    prog);
		return -1;
	}
	return 0;
}

static int ra_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct child_process cp;
	int rc;

	child_process_init(&cp);
	strvec_pushl(&cp.args, spec_param(ctx->spec, "program"), "-s",
		     spec_param(ctx->spec, "start_users"), "-e",
		     spec_param(ctx->spec, "users"), "-i",
		     spec_param(ctx->spec, "increment"), "-f",
		     spec_param(ctx->spec, "workfile"), (char *)NULL);
	rc = wrapped_run(ctx, &cp, parse_reaim, "reaim", err);
	child_process_clear(&cp);
	return rc;
}

const struct wl_ops wl_reaim = {
	.name = "reaim",
	.setup = ra_setup,
	.run = ra_run,
};

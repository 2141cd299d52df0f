/*
 * wl_volanomark.c - VolanoMark's loop client (seed 001), when the user has
 * it: runs the named script with LOOP_CLIENT_COUNT set and reports the mean
 * of its "Average throughput = N messages per second" lines.  The built-in
 * `chat` workload is the same shape without Java.
 */
#include <string.h>

#include "agent.h"
#include "run-command.h"
#include "banned.h"

static int vm_setup(struct agent_ctx *ctx, struct strbuf *err)
{
	const char *prog = spec_param(ctx->spec, "program");

	if (!program_exists(prog)) {
		strbuf_addf(err,
			    "volanomark program \"%s\" not found (VolanoMark "
			    "is not packaged by Debian: name its loopclient.sh "
			    "in params.program, or use the chat workload)",
			    prog);
		return -1;
	}
	return 0;
}

static int vm_run(struct agent_ctx *ctx, struct strbuf *err)
{
	struct child_process cp;
	int rc;

	child_process_init(&cp);
	strvec_push(&cp.args, spec_param(ctx->spec, "program"));
	strvec_pushf(&cp.env, "LOOP_CLIENT_COUNT=%s",
		     spec_param(ctx->spec, "clients"));
	rc = wrapped_run(ctx, &cp, parse_volanomark, "volanomark", err);
	child_process_clear(&cp);
	return rc;
}

const struct wl_ops wl_volanomark = {
	.name = "volanomark",
	.setup = vm_setup,
	.run = vm_run,
};

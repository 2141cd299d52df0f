/*
 * wl_command.c - a plan-defined command workload (common/command.h): the
 * spec's argv run like any wrapped program (in the workload's cgroup from
 * its first instruction, no shell, its timeout bounded by the run's
 * deadline), its output parsed with the declared format, each declared
 * metric reported with its unit and direction.  Output that does not parse
 * fails the iteration with the offending line quoted.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "run-command.h"
#include "banned.h"

static int cw_available(const struct run_spec *s, struct strbuf *why)
{
	if (!s || !s->cmd)
		return 0;
	if (!program_exists(s->cmd->argv.v[0])) {
		strbuf_addf(why, "%s: %s is not installed (not found in PATH)",
			    s->cmd->name, s->cmd->argv.v[0]);
		return -1;
	}
	return 0;
}

/*
 * The farm's user a local controller named for plan commands
 * ($SCHEDFARM_AGENT_USER, UID:GID), when the agent is root and the plan
 * did not say root: true: the command is started through __exec-in with
 * --user (main.c), after it joined its cgroups.  An agent that is not
 * root, or was told no user (an SSH host), runs it as itself.
 */
static void drop_command(const struct cmd_def *d, struct child_process *cp)
{
	const char *u = getenv("SCHEDFARM_AGENT_USER");
	struct strvec nv = STRVEC_INIT;
	int wrapped;

	if (d->root || !u || !*u || geteuid() != 0)
		return;
	wrapped = cp->args.nr > 2 && !strcmp(cp->args.v[0], "/proc/self/exe") &&
		  !strcmp(cp->args.v[1], "__exec-in");
	strvec_pushl(&nv, "/proc/self/exe", "__exec-in", (char *)NULL);
	strvec_pushf(&nv, "--user=%s", u);
	if (!wrapped)
		strvec_push(&nv, "--");
	for (size_t i = wrapped ? 2 : 0; i < cp->args.nr; i++)
		strvec_push(&nv, cp->args.v[i]);
	strvec_clear(&cp->args);
	cp->args = nv;
}

static int cw_run(struct agent_ctx *ctx, struct strbuf *err)
{
	const struct cmd_def *d = ctx->spec->cmd;
	struct child_process cp;
	const struct strbuf *text;
	double *values = xcalloc(d->nmetrics, sizeof(double));
	int rc = -1;

	child_process_init(&cp);
	strvec_pushv(&cp.args, (const char *const *)d->argv.v);
	cp.max_output = CMD_MAX_OUTPUT + 1;
	if (d->timeout_ms)
		cp.timeout_ms = d->timeout_ms > INT32_MAX ? INT32_MAX
							  : (int)d->timeout_ms;
	if (d->stream == CMD_STDERR) {
		cp.capture_out = 1;
		cp.capture_err = 1;
	} else {
		cp.capture_out = 1;
		cp.merge_err = d->stream == CMD_BOTH;
		cp.quiet = d->stream == CMD_STDOUT;
	}
	if (wrapped_prepare(ctx, &cp, err) < 0)
		goto out;
	drop_command(d, &cp);
	text = d->stream == CMD_STDERR ? &cp.err : &cp.out;
	if (wrapped_exec(ctx, &cp, err) < 0) {
		if (text->len)
			strbuf_addf(err, "; output ends: %s",
				    text->len > 600
					    ? text->buf + text->len - 600
					    : text->buf);
		goto out;
	}
	if (cp.truncated) {
		strbuf_addf(err,
			    "%s printed more than the %u MiB a command may",
			    d->name, CMD_MAX_OUTPUT >> 20);
		goto out;
	}
	if (cmd_parse_output(d, text->buf, text->len, values, err) < 0) {
		struct strbuf msg = STRBUF_INIT;

		strbuf_addf(&msg, "%s: bad output: %s", d->name, err->buf);
		strbuf_reset(err);
		strbuf_addbuf(err, &msg);
		strbuf_release(&msg);
		goto out;
	}
	for (size_t i = 0; i < d->nmetrics; i++)
		emit_result(ctx->em, d->metrics[i].name, values[i],
			    d->metrics[i].unit, d->metrics[i].direction);
	rc = 0;
out:
	child_process_clear(&cp);
	free(values);
	return rc;
}

const struct wl_ops wl_command = {
	.name = "command",
	.available = cw_available,
	.run = cw_run,
};

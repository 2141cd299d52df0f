/*
 * wrapped.c - what every wrapped program (sysbench, hackbench, make, reaim,
 * volanomark, perf) needs: start it through run-command (argv, no shell,
 * the deadline as its timeout), inside the workload's cgroup from its very
 * first instruction, then parse its output into result lines.
 *
 * Placement without a race: the program is started as
 * `/proc/self/exe __exec-in PROCS_FILE... -- PROGRAM ARGS`, i.e. the agent
 * itself, which writes its own pid into each cgroup.procs and then execs
 * the program, so neither it nor anything it forks runs outside the group.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "agent.h"
#include "run-command.h"
#include "banned.h"

void split_command(struct strvec *argv, const char *cmd)
{
	const char *p = cmd;

	while (*p) {
		size_t n;

		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, " \t");
		if (n) {
			char *w = xstrndup(p, n);

			strvec_push(argv, w);
			free(w);
		}
		p += n;
	}
}

void wrapped_emit_metrics(struct agent_ctx *ctx, const struct metrics *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		emit_result(ctx->em, ms->m[i].name, ms->m[i].value,
			    ms->m[i].unit, ms->m[i].direction);
}

/* Prefix cp's argv so the program starts inside the group at path. */
static int wrap_in_cgroup(struct agent_ctx *ctx, struct child_process *cp,
			  const char *path, struct strbuf *err)
{
	struct strvec files = STRVEC_INIT, nv = STRVEC_INIT;

	if (!path || !strcmp(path, "/") || !ctx->cg)
		return 0;
	if (cg_run_procs_files(ctx->cg, path, &files, err) < 0) {
		strvec_clear(&files);
		return -1;
	}
	strvec_push(&nv, "/proc/self/exe");
	strvec_push(&nv, "__exec-in");
	for (size_t i = 0; i < files.nr; i++)
		strvec_push(&nv, files.v[i]);
	strvec_push(&nv, "--");
	for (size_t i = 0; i < cp->args.nr; i++)
		strvec_push(&nv, cp->args.v[i]);
	strvec_clear(&cp->args);
	cp->args = nv;
	strvec_clear(&files);
	return 0;
}

static int64_t remaining_ms(void)
{
	struct itimerval it;

	if (getitimer(ITIMER_REAL, &it) < 0 ||
	    (!it.it_value.tv_sec && !it.it_value.tv_usec))
		return 0;
	return (int64_t)it.it_value.tv_sec * 1000 + it.it_value.tv_usec / 1000 +
	       1;
}

int wrapped_exec(struct agent_ctx *ctx, struct child_process *cp,
		 struct strbuf *err)
{
	size_t mark = err->len;
	const char *self = "/proc/self/exe";
	int rc = agent_run_program(ctx, cp, err);

	/* Name the program, not the agent that joined the cgroup for it. */
	if (rc < 0 && starts_with(err->buf + mark, self) && cp->args.nr > 2) {
		const char *prog = NULL;
		struct strbuf fixed = STRBUF_INIT;

		for (size_t i = 2; i + 1 < cp->args.nr; i++)
			if (!strcmp(cp->args.v[i], "--")) {
				prog = cp->args.v[i + 1];
				break;
			}
		if (prog) {
			strbuf_addstr(&fixed, prog);
			strbuf_addstr(&fixed, err->buf + mark + strlen(self));
			strbuf_setlen(err, mark);
			strbuf_addbuf(err, &fixed);
		}
		strbuf_release(&fixed);
	}
	return rc;
}

int wrapped_prepare(struct agent_ctx *ctx, struct child_process *cp,
		    struct strbuf *err)
{
	int64_t left = remaining_ms();

	if (left > 0 && (!cp->timeout_ms || cp->timeout_ms > left))
		cp->timeout_ms = left > INT32_MAX ? INT32_MAX : (int)left;
	return wrap_in_cgroup(ctx, cp, spec_param(ctx->spec, "cgroup"), err);
}

static int run_parse(struct agent_ctx *ctx, struct child_process *cp,
		     output_parser parse, const char *scope, int use_stderr,
		     struct strbuf *err)
{
	struct metrics ms;
	int64_t left = remaining_ms();
	const struct strbuf *text;
	int rc;

	if (use_stderr) {
		cp->capture_out = 1;
		cp->capture_err = 1;
		cp->merge_err = 0;
	} else if (!cp->capture_out) {
		cp->capture_out = 1;
		cp->merge_err = 1;
	}
	(void)left;
	if (wrapped_prepare(ctx, cp, err) < 0)
		return -1;
	rc = wrapped_exec(ctx, cp, err);
	if (rc < 0) {
		const char *tail = cp->out.buf;

		if (cp->out.len > 600)
			tail = cp->out.buf + cp->out.len - 600;
		strbuf_addf(err, "%s%s", cp->out.len ? "; output ends: " : "",
			    tail);
		if (cp->err.len)
			strbuf_addf(err, "; stderr: %.600s", cp->err.buf);
		return -1;
	}
	metrics_init(&ms);
	text = use_stderr ? &cp->err : &cp->out;
	rc = parse(text->buf, text->len, &ms, err);
	if (rc == 0 && !ms.n) {
		strbuf_addstr(err, "no numbers in the output");
		rc = -1;
	}
	if (rc < 0) {
		const char *tail = text->buf;

		if (text->len > 600)
			tail = text->buf + text->len - 600;
		strbuf_addf(err, "; output ends: %s", tail);
	} else {
		wrapped_emit_metrics(ctx, &ms);
		for (size_t i = 0; i < ms.unsupported.nr; i++)
			emit_counter_unavailable(
				ctx->em, "perf", scope, ms.unsupported.v[i],
				"the program reports it as not supported or "
				"not counted here");
	}
	metrics_release(&ms);
	return rc;
}

int wrapped_run(struct agent_ctx *ctx, struct child_process *cp,
		output_parser parse, const char *scope, struct strbuf *err)
{
	return run_parse(ctx, cp, parse, scope, 0, err);
}

int wrapped_run_stderr(struct agent_ctx *ctx, struct child_process *cp,
		       output_parser parse, const char *scope,
		       struct strbuf *err)
{
	return run_parse(ctx, cp, parse, scope, 1, err);
}

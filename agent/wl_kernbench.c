/*
 * wl_kernbench.c - kernbench as seeds 001 and 002 ran it: `make -jN` of a
 * configured kernel tree the spec names, `make clean` before each
 * iteration (not timed), and elapsed, user, system and CPU% of the build.
 * User and system time are the build's own (the agent's reaped-children
 * rusage across the make), so nothing else on the host is counted.  Seed
 * 001's two compiles in two cgroups at the same time are a together run of
 * two kernbench members, each in its own cgroup: the clean is the untimed
 * prepare step, so both builds start together after both trees are clean.
 */
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "run-command.h"
#include "banned.h"

static int kb_setup(struct agent_ctx *ctx, struct strbuf *err)
{
	const char *tree = spec_param(ctx->spec, "tree");
	const char *obj = spec_param(ctx->spec, "objdir");
	struct strbuf mk = STRBUF_INIT;
	struct stat st;
	int rc = 0;

	strbuf_addf(&mk, "%s/Makefile", tree);
	if (stat(mk.buf, &st) < 0) {
		strbuf_addf(err,
			    "kernbench: %s has no Makefile (params.tree must "
			    "be a configured kernel tree)",
			    tree);
		rc = -1;
	} else if (*obj && (stat(obj, &st) < 0 || !S_ISDIR(st.st_mode))) {
		strbuf_addf(err,
			    "kernbench: params.objdir %s is not a folder "
			    "(make it and configure the build there: make -C "
			    "%s O=%s defconfig)",
			    obj, tree, obj);
		rc = -1;
	}
	strbuf_release(&mk);
	return rc;
}

static int kb_make(struct agent_ctx *ctx, const char *target, int jobs,
		   struct strbuf *err)
{
	struct child_process cp;
	int rc;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "make", "-C", spec_param(ctx->spec, "tree"),
		     (char *)NULL);
	if (*spec_param(ctx->spec, "objdir"))
		strvec_pushf(&cp.args, "O=%s", spec_param(ctx->spec, "objdir"));
	if (jobs)
		strvec_pushf(&cp.args, "-j%d", jobs);
	strvec_push(&cp.args, target);
	cp.capture_out = 1;
	cp.merge_err = 1;
	rc = wrapped_prepare(ctx, &cp, err);
	if (rc == 0)
		rc = wrapped_exec(ctx, &cp, err);
	if (rc < 0 && cp.out.len)
		strbuf_addf(err, "; output ends: %s",
			    cp.out.len > 600 ? cp.out.buf + cp.out.len - 600
					     : cp.out.buf);
	child_process_clear(&cp);
	return rc;
}

static int kb_prepare(struct agent_ctx *ctx, struct strbuf *err)
{
	if (spec_param_bool(ctx->spec, "clean") &&
	    kb_make(ctx, "clean", 0, err) < 0)
		return -1;
	return 0;
}

static int kb_run(struct agent_ctx *ctx, struct strbuf *err)
{
	int jobs = (int)spec_param_i64(ctx->spec, "jobs");
	struct rusage a, b;
	int64_t t0;
	double el, u, s;

	if (!jobs)
		jobs = 2 * ctx->ncpus;
	agent_children_usage(&a);
	t0 = mono_ms();
	if (kb_make(ctx, spec_param(ctx->spec, "target"), jobs, err) < 0)
		return -1;
	el = (double)(mono_ms() - t0) / 1000.0;
	agent_children_usage(&b);
	u = timeval_s(b.ru_utime) - timeval_s(a.ru_utime);
	s = timeval_s(b.ru_stime) - timeval_s(a.ru_stime);
	emit_result(ctx->em, "elapsed_s", el, "s", "lower");
	emit_result(ctx->em, "user_s", u, "s", "lower");
	emit_result(ctx->em, "system_s", s, "s", "lower");
	emit_result(ctx->em, "cpu_pct", el > 0 ? 100 * (u + s) / el : 0, "%",
		    "none");
	emit_result(ctx->em, "context_switches",
		    (double)((b.ru_nvcsw - a.ru_nvcsw) +
			     (b.ru_nivcsw - a.ru_nivcsw)),
		    "count", "lower");
	return 0;
}

const struct wl_ops wl_kernbench = {
	.name = "kernbench",
	.setup = kb_setup,
	.prepare = kb_prepare,
	.run = kb_run,
};

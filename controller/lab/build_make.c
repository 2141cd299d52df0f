/*
 * build_make.c - make in a build's tree: the config (a base config and
 * its fragments), make with its progress (the compile steps seen, against
 * those expected), and what it made (the kernel release, the sizes of
 * vmlinux).  See build-int.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "home.h"
#include "lab/build-int.h"
#include "lab/build.h"
#include "lab/sandbox.h"
#include "cleanup.h"
#include "fs.h"
#include "parse.h"
#include "run-command.h"
#include "time-util.h"
#include "banned.h"

int build_configure(const struct kernel_build_spec *spec, const char *src,
		    const char *outdir, struct strbuf *log, struct strbuf *err)
{
	struct child_process cp;
	struct strbuf dot = STRBUF_INIT;
	int r;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "make", "-C", src, (char *)NULL);
	strvec_pushf(&cp.args, "O=%s", outdir);
	build_ccache_make_args(&cp.args);
	if (!strcmp(spec->config, "tinyconfig") ||
	    !strcmp(spec->config, "defconfig")) {
		strvec_push(&cp.args, spec->config);
	} else {
		struct strbuf body = STRBUF_INIT;

		strbuf_addf(&dot, "%s/.config", build_host_path(spec, outdir));
		r = strbuf_read_file(&body, spec->config, 16u << 20);
		if (r < 0 ||
		    build_write_file(dot.buf, body.buf, body.len, err) < 0) {
			if (r < 0)
				strbuf_addf(err, "cannot read %s",
					    spec->config);
			strbuf_release(&body);
			child_process_clear(&cp);
			strbuf_release(&dot);
			return -1;
		}
		strbuf_release(&body);
		strvec_push(&cp.args, "olddefconfig");
	}
	r = build_run_logged_in(spec, &cp, src, outdir, log, err);
	child_process_clear(&cp);
	if (r < 0 || !spec->fragments.nr)
		goto out;
	child_process_init(&cp);
	strbuf_reset(&dot);
	strbuf_addf(&dot, "%s/.config", outdir);
	strvec_pushf(&cp.args, "%s/scripts/kconfig/merge_config.sh", src);
	strvec_pushl(&cp.args, "-m", "-O", outdir, dot.buf, (char *)NULL);
	for (size_t i = 0; i < spec->fragments.nr; i++) {
		_cleanup_free_ char *abs = realpath(spec->fragments.v[i], NULL);

		strvec_push(&cp.args, abs ? abs : spec->fragments.v[i]);
	}
	/* It makes its temporary file in its folder: the output one (the
	 * tree is read-only to the build). */
	cp.dir = outdir;
	r = build_run_logged_in(spec, &cp, src, outdir, log, err);
	child_process_clear(&cp);
	if (r < 0)
		goto out;
	child_process_init(&cp);
	strvec_pushl(&cp.args, "make", "-C", src, (char *)NULL);
	strvec_pushf(&cp.args, "O=%s", outdir);
	build_ccache_make_args(&cp.args);
	strvec_push(&cp.args, "olddefconfig");
	r = build_run_logged_in(spec, &cp, src, outdir, log, err);
	child_process_clear(&cp);
out:
	strbuf_release(&dot);
	return r;
}

/* The number of compile steps of the last build, from the cache's memo. */
static int expected_steps(const struct kernel_build_spec *spec)
{
	struct strbuf p = STRBUF_INIT, b = STRBUF_INIT;
	int n = 0;

	strbuf_addf(&p, "%s/last-steps", spec->cache_dir);
	if (strbuf_read_file(&b, p.buf, 64) == 0) {
		strbuf_trim(&b);
		if (parse_int(b.buf, 0, 10000000, &n, NULL) < 0)
			n = 0;
	}
	strbuf_release(&p);
	strbuf_release(&b);
	return n;
}

/* One line of make's output: logged, counted, told to spec's progress
 * (line NULL: a second went by without one).  Negative: stop the build. */
static int make_line(const struct kernel_build_spec *spec, const char *line,
		     size_t len, int *steps, int expected, struct strbuf *log)
{
	if (line) {
		strbuf_add(log, line, len);
		strbuf_addch(log, '\n');
		/* Each "  CC      kernel/sched/core.o" is a step. */
		if (len > 2 && line[0] == ' ' && line[1] == ' ' &&
		    line[2] != ' ')
			(*steps)++;
	}
	return spec->progress ? spec->progress(spec->progress_ctx, line, *steps,
					       expected)
			      : 0;
}

/* run_make's tick: make's output captured so far (cp->out), and how much
 * of it the progress callback has heard. */
struct make_progress {
	const struct kernel_build_spec *spec;
	struct child_process *cp;
	struct strbuf *log;
	size_t told;
	int steps, expected;
};

/*
 * Hand the lines make printed since the last call to make_line(), or a
 * NULL line when it printed none.  final: make has ended; its last line
 * may lack a newline, and no NULL line is sent.  Negative: stop the
 * build.
 */
static int make_tell(struct make_progress *mp, int final)
{
	struct strbuf *out = &mp->cp->out;
	int lines = 0, r = 0;
	char *nl;

	while (r >= 0 &&
	       (nl = memchr(out->buf + mp->told, '\n', out->len - mp->told))) {
		size_t len = (size_t)(nl - (out->buf + mp->told));

		*nl = '\0'; /* the callback reads a C string */
		r = make_line(mp->spec, out->buf + mp->told, len, &mp->steps,
			      mp->expected, mp->log);
		*nl = '\n';
		mp->told += len + 1;
		lines++;
	}
	if (r >= 0 && final && mp->told < out->len) {
		r = make_line(mp->spec, out->buf + mp->told,
			      out->len - mp->told, &mp->steps, mp->expected,
			      mp->log);
		mp->told = out->len;
	} else if (r >= 0 && !final && !lines) {
		r = make_line(mp->spec, NULL, 0, &mp->steps, mp->expected,
			      mp->log);
	}
	return r;
}

static int make_tick(void *ctx)
{
	return make_tell(ctx, 0);
}

/*
 * make -jN vmlinux bzImage.  Its output is captured, and about once a
 * second the lines printed since (or, in a silent second such as the link
 * of vmlinux, a NULL line) go to spec's progress, so that a job renews its
 * lease all through the build and can stop it.  The build's timeout
 * counts from make's start.
 */
int build_run_make(const struct kernel_build_spec *spec, const char *src,
		   const char *outdir, int *ret_steps, struct strbuf *log,
		   struct strbuf *err)
{
	struct child_process cp;
	struct make_progress mp = { .spec = spec,
				    .cp = &cp,
				    .log = log,
				    .expected = expected_steps(spec) };
	int jobs = spec->jobs > 0 ? spec->jobs
				  : (int)sysconf(_SC_NPROCESSORS_ONLN);
	int timeout_s = spec->timeout_s > 0 ? spec->timeout_s : 4 * 3600;
	int r;

	if (timeout_s > INT_MAX / 1000)
		timeout_s = INT_MAX / 1000;
	child_process_init(&cp);
	strvec_pushl(&cp.args, "make", "-C", src, (char *)NULL);
	strvec_pushf(&cp.args, "O=%s", outdir);
	build_ccache_make_args(&cp.args);
	strvec_pushf(&cp.args, "-j%d", jobs > 0 ? jobs : 1);
	strvec_pushl(&cp.args, "vmlinux", "bzImage", (char *)NULL);
	cp.capture_out = 1;
	cp.merge_err = 1;
	cp.timeout_ms = timeout_s * 1000;
	cp.tick = make_tick;
	cp.tick_ctx = &mp;
	build_ccache_describe(spec, log);
	strbuf_addstr(log, "$");
	for (size_t i = 0; i < cp.args.nr; i++)
		strbuf_addf(log, " %s", cp.args.v[i]);
	strbuf_addch(log, '\n');
	r = build_confine(spec, &cp, src, outdir, err);
	if (!r)
		r = run_command(&cp, err);
	/* Its last lines; a stop asked for now is too late to matter. */
	(void)make_tell(&mp, 1);
	if (cp.truncated)
		strbuf_addstr(log, "(make printed more than the log keeps: "
				   "the rest was dropped)\n");
	if (cp.stopped) {
		strbuf_reset(err);
		strbuf_addstr(err, "the build was stopped");
	}
	child_process_clear(&cp);
	*ret_steps = mp.steps;
	return r;
}

int build_read_release(const struct kernel_build_spec *spec, const char *src,
		       const char *outdir, char **ret, struct strbuf *err)
{
	struct child_process cp;
	int r;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "make", "-s", "-C", src, (char *)NULL);
	strvec_pushf(&cp.args, "O=%s", outdir);
	build_ccache_make_args(&cp.args);
	strvec_push(&cp.args, "kernelrelease");
	cp.capture_out = cp.capture_err = 1;
	cp.timeout_ms = 120000;
	r = build_confine(spec, &cp, src, outdir, err);
	if (!r)
		r = run_command(&cp, err);
	if (!r) {
		/* make -C prints "make[1]: Entering..." with -s off only;
		 * the release is the last line. */
		char *nl;

		strbuf_trim(&cp.out);
		nl = strrchr(cp.out.buf, '\n');
		*ret = xstrdup(nl ? nl + 1 : cp.out.buf);
	}
	child_process_clear(&cp);
	return r;
}

/* size(1) of vmlinux: "   text    data     bss     dec     hex filename". */
int build_read_size(const char *vmlinux, struct kernel_build_result *res,
		    struct strbuf *err)
{
	struct child_process cp;
	struct strvec words = STRVEC_INIT;
	char *nl;
	int r;

	child_process_init(&cp);
	strvec_pushl(&cp.args, "size", "--", vmlinux, (char *)NULL);
	cp.capture_out = cp.capture_err = 1;
	cp.timeout_ms = 60000;
	r = run_command(&cp, err);
	if (r < 0)
		goto out;
	nl = strchr(cp.out.buf, '\n');
	r = -1;
	if (!nl)
		goto bad;
	for (char *s = nl + 1; *s;) {
		size_t n;

		s += strspn(s, " \t");
		n = strcspn(s, " \t\n");
		if (!n)
			break;
		strvec_push(&words, "");
		free(words.v[words.nr - 1]);
		words.v[words.nr - 1] = xstrndup(s, n);
		s += n;
	}
	if (words.nr < 3 ||
	    parse_i64(words.v[0], 0, INT64_MAX, &res->text, NULL) < 0 ||
	    parse_i64(words.v[1], 0, INT64_MAX, &res->data, NULL) < 0 ||
	    parse_i64(words.v[2], 0, INT64_MAX, &res->bss, NULL) < 0)
		goto bad;
	r = 0;
	goto out;
bad:
	strbuf_addf(err, "cannot read the output of size %s", vmlinux);
out:
	strvec_clear(&words);
	child_process_clear(&cp);
	return r;
}

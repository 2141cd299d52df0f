/*
 * wl_crash.c - crash the kernel on purpose: the workload of crash-path
 * and watchdog tests (a plan that says `expect: panic`).  After delay_ms
 * it syncs and writes 'c' to /proc/sysrq-trigger, which makes the kernel
 * dereference NULL in sysrq's handler and panic ("sysrq triggered crash").
 * The write never returns on a kernel that works as documented; one that
 * comes back (no CONFIG_MAGIC_SYSRQ, or not root) is this run's failure,
 * said in words.  Nothing here is a measurement.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "banned.h"

#define SYSRQ_TRIGGER "/proc/sysrq-trigger"

static int crash_available(const struct run_spec *s, struct strbuf *why)
{
	(void)s;
	if (access(SYSRQ_TRIGGER, W_OK) < 0) {
		strbuf_addf(why,
			    "cannot write %s: %s (needs root and a kernel "
			    "with CONFIG_MAGIC_SYSRQ)",
			    SYSRQ_TRIGGER, strerror(errno));
		return -1;
	}
	return 0;
}

static int crash_run(struct agent_ctx *ctx, struct strbuf *err)
{
	int64_t delay = spec_param_i64(ctx->spec, "delay_ms");
	struct timespec ts = { (time_t)(delay / 1000),
			       (long)(delay % 1000) * 1000000L };
	int fd;

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	/* What the agent wrote so far reaches the results file first. */
	sync();
	fd = open(SYSRQ_TRIGGER, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		strbuf_addf(err, "cannot open %s: %s", SYSRQ_TRIGGER,
			    strerror(errno));
		return -1;
	}
	if (write(fd, "c", 1) != 1) {
		strbuf_addf(err, "writing 'c' to %s: %s", SYSRQ_TRIGGER,
			    strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	/* A crash takes the machine at once; give a slow one a moment. */
	sleep(5);
	strbuf_addstr(err, "sysrq-c was written and the kernel did not crash");
	return -1;
}

const struct wl_ops wl_crash = {
	.name = "crash",
	.available = crash_available,
	.run = crash_run,
};

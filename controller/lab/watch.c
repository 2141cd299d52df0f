/*
 * watch.c - the console of a booted host while it runs the plan; see
 * boot.h (boot_watch(), boot_run_fatal()).
 *
 * A kernel that panics in the middle of a run takes its SSH connection
 * with it; the console is the only place that says why.  The run phase
 * feeds what the console printed since the boot became ready to a scanner
 * of its own (the patterns of console.h), about once a second, and the
 * first fatal line ends the round.  Whose fault that is, is the health
 * rules' call (store/hosts.c) -- unless the plan declared the panic as
 * what it tests, when it is the expected outcome and nobody is blamed.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "lab/boot.h"
#include "lab/host_kind.h"
#include "store/hosts.h"
#include "store/runs.h"
#include "time-util.h"
#include "banned.h"

int boot_watch(struct boot_result *res, const struct console_hit **ret_hit)
{
	_cleanup_close_ int fd = -1;
	struct strbuf e = STRBUF_INIT;
	char buf[8192];
	ssize_t n;

	*ret_hit = NULL;
	if (!res->console_path || res->outcome != BOOT_READY)
		return 0;
	if (!res->watch) {
		res->watch = xcalloc(1, sizeof(*res->watch));
		console_scanner_init(res->watch);
	}
	if (res->hk && res->hk->console_keep)
		res->hk->console_keep(res, &e);
	strbuf_release(&e);
	fd = open(res->console_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while ((n = pread(fd, buf, sizeof(buf), (off_t)res->watch_off)) > 0) {
		console_scanner_feed(res->watch, buf, (size_t)n,
				     mono_ms() - res->watch_t0);
		res->watch_off += (uint64_t)n;
	}
	*ret_hit = console_scanner_fatal(res->watch);
	return *ret_hit ? 1 : 0;
}

size_t boot_watch_count(const struct boot_result *res, enum console_event ev)
{
	return res->watch ? console_scanner_count(res->watch, ev) : 0;
}

int boot_run_fatal(struct db *db, struct boot_result *res, const char *what,
		   const char *line, int expected, struct strbuf *ret_blame,
		   struct strbuf *err)
{
	struct strbuf reason = STRBUF_INIT, events = STRBUF_INIT;
	const char *blame = "none";
	int r;

	strbuf_addf(&reason, "%s: %s", what, line);
	if (res->watch)
		console_scanner_summary(res->watch, 0, &events);
	if (!expected) {
		struct host_observation o = { 0 };
		struct host_verdict v;

		o.host_id = res->host_id;
		o.kernel_id = res->kernel_id;
		o.outcome = HOST_FAILED;
		o.what = what;
		o.failure = "panicked";
		o.reason = line;
		if (hosts_observe(db, &o, &v, err) < 0) {
			strbuf_release(&reason);
			strbuf_release(&events);
			return -1;
		}
		blame = v.blame;
		snprintf(res->host_health, sizeof(res->host_health), "%s",
			 v.after.health);
	}
	strbuf_addstr(ret_blame, blame);
	r = boots_run_fatal(
		db, res->boot_id, expected ? "expected-panic" : "kernel-failed",
		blame, reason.buf, expected ? line : NULL, events.buf, err);
	strbuf_release(&reason);
	strbuf_release(&events);
	return r;
}

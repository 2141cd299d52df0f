/*
 * build_lock.c - the locks of the kernel cache, which say who holds them.
 *
 * Two builds that want the same thing at once take turns: the same
 * kernel (builds/KEY.lock: the second finds the first's result) or the
 * same incremental tree (trees/TKEY.lock: the second finds the base's
 * tree built by the first and builds only its own layer, issue 29).  A
 * build that has to wait must say so, since the wait can last a whole
 * kernel build: whoever takes a lock writes into the lock file who it is
 * (its pid, spec->who such as "kernel NAME / job N", and since when),
 * and a build that finds the lock held reads that back and reports
 * "waiting for WHAT (another build holds it: WHO, for 1m20s)" through
 * its spec's progress and its log, again every few seconds, until the
 * lock is free.  The wait polls (flock LOCK_NB, then a second's sleep),
 * so the job behind it renews its lease each second and stops when told.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "lab/build-int.h"
#include "cleanup.h"
#include "parse.h"
#include "time-util.h"
#include "banned.h"

/* How often a waiting build says again whom it waits for. */
#define LOCK_REPORT_MS 5000
/* How long it sleeps between two tries of the lock. */
#define LOCK_POLL_MS 1000

/*
 * Write who holds the lock open at fd (just taken): "pid=P", "who=WHO"
 * and "since=EPOCH" lines.  Best effort: a holder that cannot say who it
 * is still holds the lock (a waiting build then says "unknown").
 */
static void lock_write_holder(int fd, const struct kernel_build_spec *spec)
{
	struct strbuf s = STRBUF_INIT, who = STRBUF_INIT;

	/* A newline in who would forge a line of its own. */
	strbuf_addstr(&who, spec->who ? spec->who : "");
	for (size_t i = 0; i < who.len; i++)
		if (who.buf[i] == '\n' || who.buf[i] == '\r')
			who.buf[i] = ' ';
	strbuf_addf(&s, "pid=%ld\nwho=%s\nsince=%lld\n", (long)getpid(),
		    who.buf, (long long)time(NULL));
	if (ftruncate(fd, 0) == 0 &&
	    pwrite(fd, s.buf, s.len, 0) == (ssize_t)s.len)
		(void)fdatasync(fd);
	strbuf_release(&s);
	strbuf_release(&who);
}

/*
 * Who holds the lock path, as its holder wrote it, into out: "WHO, pid
 * P, for 1m20s", or "unknown" when the file says nothing readable.
 */
static void lock_describe_holder(const char *path, struct strbuf *out)
{
	struct strbuf body = STRBUF_INIT, who = STRBUF_INIT;
	struct strvec lines = STRVEC_INIT;
	int64_t pid = 0, since = 0;

	if (strbuf_read_file(&body, path, 4096) == 0) {
		strvec_split(&lines, body.buf, '\n');
		for (size_t i = 0; i < lines.nr; i++) {
			const char *l = lines.v[i];

			if (starts_with(l, "pid="))
				(void)parse_i64(l + 4, 1, INT32_MAX, &pid,
						NULL);
			else if (starts_with(l, "since="))
				(void)parse_i64(l + 6, 1, INT64_MAX, &since,
						NULL);
			else if (starts_with(l, "who=") && l[4])
				strbuf_addf(&who, "%.200s", l + 4);
		}
	}
	if (!pid) {
		strbuf_addstr(out, "unknown");
	} else {
		strbuf_addf(out, "%s%spid %" PRId64, who.buf,
			    who.len ? ", " : "", pid);
		if (since && time(NULL) >= since) {
			strbuf_addstr(out, ", for ");
			format_duration_ms(out, (time(NULL) - since) * 1000);
		}
	}
	strvec_clear(&lines);
	strbuf_release(&body);
	strbuf_release(&who);
}

/*
 * One report of the wait for what: "waiting for WHAT (another build holds
 * it: WHO)" as a line of the build's own (steps -1) to spec's progress,
 * and into log when log is not NULL (the first report: the log keeps one
 * line, not one per 5 s of a wait that can last a whole build).  Its
 * return: the callback's (negative: stop).
 */
static int lock_report(const struct kernel_build_spec *spec, const char *path,
		       const char *what, struct strbuf *log)
{
	struct strbuf line = STRBUF_INIT;
	int r = 0;

	strbuf_addf(&line, "waiting for %s (another build holds it: ", what);
	lock_describe_holder(path, &line);
	strbuf_addch(&line, ')');
	if (log)
		strbuf_addf(log, "%s\n", line.buf);
	if (spec->progress)
		r = spec->progress(spec->progress_ctx, line.buf, -1, 0);
	strbuf_release(&line);
	return r;
}

int build_lock(const struct kernel_build_spec *spec, const char *path,
	       const char *what, struct strbuf *log, struct strbuf *err)
{
	_cleanup_close_ int fd = -1;
	int64_t t0 = mono_ms(), last = 0;
	int waited = 0;

	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		strbuf_addf(err, "cannot open the lock file %s: %s", path,
			    errno == ELOOP ? "it is a symbolic link (refused)"
					   : strerror(errno));
		return -1;
	}
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int64_t now = mono_ms();

		if (errno != EWOULDBLOCK && errno != EINTR) {
			strbuf_addf(err, "cannot lock %s: %s", path,
				    strerror(errno));
			return -1;
		}
		if (!waited || now - last >= LOCK_REPORT_MS) {
			last = now;
			if (lock_report(spec, path, what, waited ? NULL : log) <
			    0)
				goto stopped;
			waited = 1;
		} else if (spec->progress &&
			   spec->progress(spec->progress_ctx, NULL, 0, 0) < 0) {
			goto stopped; /* a job that lost its lease */
		}
		sleep_ms(LOCK_POLL_MS);
	}
	if (waited) {
		strbuf_addstr(log, "waited ");
		format_duration_ms(log, (mono_ms() - t0) / 1000 * 1000);
		strbuf_addf(log, " for %s\n", what);
	}
	lock_write_holder(fd, spec);
	return TAKE_FD(fd);
stopped:
	strbuf_addf(err, "the build was stopped while waiting for %s", what);
	return -1;
}

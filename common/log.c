/*
 * log.c - leveled messages on stderr; see log.h.
 *
 * When stderr is a journald stream (systemd sets JOURNAL_STREAM to the
 * device and inode of the stream it connected; the match is checked, so
 * a child that inherited the variable but not the stream is not fooled),
 * every line starts with its syslog priority, "<3>" and the like, which
 * journald strips and keeps as the entry's level; journald stamps the
 * time itself, so our timestamps are left out.  (sd-daemon(3).)
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "strbuf.h"
#include "banned.h"

static const char *prog = "schedfarm";
static enum log_level cur_level = LOG_LEVEL_INFO;
static int timestamps;
static int journal = -1; /* -1: not looked at yet */

void log_init(const char *progname, enum log_level level)
{
	prog = progname;
	cur_level = level;
}

void log_set_level(enum log_level level)
{
	cur_level = level;
}

enum log_level log_get_level(void)
{
	return cur_level;
}

void log_set_timestamps(int on)
{
	timestamps = on;
}

int log_journal_stream(void)
{
	const char *v = getenv("JOURNAL_STREAM");
	uintmax_t dev, ino;
	struct stat st;
	char *end;

	if (journal >= 0)
		return journal;
	journal = 0;
	if (!v || fstat(STDERR_FILENO, &st) < 0)
		return 0;
	dev = strtoumax(v, &end, 10);
	if (end == v || *end != ':')
		return 0;
	v = end + 1;
	ino = strtoumax(v, &end, 10);
	if (end == v || *end)
		return 0;
	journal = dev == (uintmax_t)st.st_dev && ino == (uintmax_t)st.st_ino;
	return journal;
}

/* syslog(3)'s priorities: LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG. */
static int syslog_priority(enum log_level level)
{
	switch (level) {
	case LOG_LEVEL_ERROR:
		return 3;
	case LOG_LEVEL_WARN:
		return 4;
	case LOG_LEVEL_INFO:
		return 6;
	case LOG_LEVEL_DEBUG:
		break;
	}
	return 7;
}

/*
 * Give every line of sb (a whole message, ending in a newline) the
 * priority prefix: journald reads its stream line by line, and a line
 * without one would be logged at the unit's default level.
 */
static void add_priorities(struct strbuf *sb, int prio)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = sb->buf, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		strbuf_addf(&out, "<%d>", prio);
		if (!nl) {
			strbuf_addstr(&out, p);
			strbuf_addch(&out, '\n');
			break;
		}
		strbuf_add(&out, p, (size_t)(nl - p) + 1);
		p = nl + 1;
	}
	strbuf_reset(sb);
	strbuf_addbuf(sb, &out);
	strbuf_release(&out);
}

static void vlog(enum log_level level, const char *tag, const char *fmt,
		 va_list ap)
{
	struct strbuf sb = STRBUF_INIT, msg = STRBUF_INIT;
	int to_journal = log_journal_stream();

	if (level > cur_level)
		return;
	if (timestamps && !to_journal) {
		struct timespec ts;
		struct tm tm;
		char when[32];

		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
		strbuf_addf(&sb, "%s.%03ldZ [%ld] ", when, ts.tv_nsec / 1000000,
			    (long)getpid());
	}
	strbuf_addf(&sb, "%s: ", prog);
	if (tag)
		strbuf_addf(&sb, "%s: ", tag);
	/* The message often quotes what came from outside (a name, an
	 * agent's line, a program's error): shown, never acted on. */
	strbuf_vaddf(&msg, fmt, ap);
	strbuf_add_printablen(&sb, msg.buf, msg.len, PRINTABLE_LINES);
	strbuf_release(&msg);
	strbuf_addch(&sb, '\n');
	if (to_journal)
		add_priorities(&sb, syslog_priority(level));
	fwrite(sb.buf, 1, sb.len, stderr);
	fflush(stderr);
	strbuf_release(&sb);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LEVEL_DEBUG, "debug", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LEVEL_INFO, NULL, fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LEVEL_WARN, "warning", fmt, ap);
	va_end(ap);
}

void log_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LEVEL_ERROR, "error", fmt, ap);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LEVEL_ERROR, "fatal", fmt, ap);
	va_end(ap);
	exit(1);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(LOG_LEVEL_ERROR, "usage", fmt, ap);
	va_end(ap);
	exit(2);
}

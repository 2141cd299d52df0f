/*
 * log.c - leveled messages on stderr; see log.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "strbuf.h"
#include "banned.h"

static const char *prog = "schedfarm";
static enum log_level cur_level = LOG_LEVEL_INFO;
static int timestamps;

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

static void vlog(enum log_level level, const char *tag, const char *fmt,
		 va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	if (level > cur_level)
		return;
	if (timestamps) {
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
	strbuf_vaddf(&sb, fmt, ap);
	strbuf_addch(&sb, '\n');
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

/*
 * log.h - the controller's and agent's own messages, on stderr.
 *
 * Library and wrapper code never calls these: it fills an error strbuf and
 * returns.  Only main(), cmd_* and the daemon's job handlers log.
 * (After OpenBSD's log.c.)
 */
#ifndef SCHEDFARM_LOG_H
#define SCHEDFARM_LOG_H

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG
};

void log_init(const char *progname, enum log_level level);
void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Prefix each line with an ISO timestamp and pid (for the daemon's log;
 * left out when stderr is a journald stream, which stamps lines itself). */
void log_set_timestamps(int on);
/* 1 when stderr is the journald stream JOURNAL_STREAM names: lines then
 * start with their syslog priority ("<4>"). */
int log_journal_stream(void);

__attribute__((format(printf, 1, 2))) void log_debug(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_info(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_warn(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_error(const char *fmt, ...);
/* Print "progname: fatal: ..." and exit(1).  Only main() and cmd_*. */
__attribute__((format(printf, 1, 2), noreturn)) void fatal(const char *fmt,
							   ...);
/* Print a usage error and exit(2). */
__attribute__((format(printf, 1, 2), noreturn)) void die_usage(const char *fmt,
							       ...);

#endif

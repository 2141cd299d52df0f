/*
 * joblog.c - a line of a job's log; see joblog.h.
 */
#include <stdarg.h>
#include <time.h>

#include "cleanup.h"
#include "job/joblog.h"
#include "banned.h"

void jlog(struct job_ctx *jc, int level, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT, err = STRBUF_INIT;
	time_t now = time(NULL);
	struct tm tm;
	char ts[32];
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	strbuf_addf(&line, "%s %s%s\n", ts, level ? "warning: " : "", sb.buf);
	/* Lines the database could not take (it was away) go with this one:
	 * the log loses nothing to an outage shorter than its 1 MiB. */
	strbuf_addbuf(&jc->pending_log, &line);
	if (queue_log(jc->db, jc->claim.job_id, jc->pending_log.buf, &err) == 0)
		strbuf_reset(&jc->pending_log);
	else if (jc->pending_log.len > (1u << 20))
		strbuf_reset(&jc->pending_log);
	if (jc->hooks && jc->hooks->log)
		jc->hooks->log(jc->hooks->ctx, level, sb.buf);
	strbuf_release(&sb);
	strbuf_release(&line);
	strbuf_release(&err);
}

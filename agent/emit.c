/*
 * emit.c - the agent's JSON lines (doc/PROTOCOL.md), written to stdout and
 * appended to the results file.
 *
 * Each line goes out with one write() per destination, so a line is never
 * interleaved or half-written by us, and the file holds everything said even
 * if the connection that carried stdout dropped.  Sample lines are buffered
 * and written together, so during the measured window the sampler only
 * reads counters and sleeps.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "banned.h"

void emitter_init(struct emitter *em, int64_t run_id, int out_fd)
{
	memset(em, 0, sizeof(*em));
	em->run_id = run_id;
	em->out_fd = out_fd;
	em->file_fd = -1;
	strbuf_init(&em->pending, 0);
}

int emitter_open_file(struct emitter *em, const char *path, struct strbuf *err)
{
	em->file_fd = open(
		path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
		0644);
	if (em->file_fd < 0) {
		strbuf_addf(err, "cannot open results file %s: %s", path,
			    strerror(errno));
		return -1;
	}
	return 0;
}

void emitter_release(struct emitter *em)
{
	emit_flush(em);
	if (em->file_fd >= 0)
		close(em->file_fd);
	em->file_fd = -1;
	strbuf_release(&em->pending);
}

static void write_all(int fd, const char *buf, size_t len, int *failed)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*failed = 1;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

static void emit_raw(struct emitter *em, const char *buf, size_t len)
{
	if (em->out_fd >= 0)
		write_all(em->out_fd, buf, len, &em->write_failed);
	if (em->file_fd >= 0)
		write_all(em->file_fd, buf, len, &em->write_failed);
}

void line_begin(struct strbuf *sb, const char *type, int64_t run_id)
{
	strbuf_addstr(sb, "{\"type\":");
	strbuf_add_json_str(sb, type);
	strbuf_addf(sb, ",\"run_id\":%lld", (long long)run_id);
}

void line_str(struct strbuf *sb, const char *key, const char *val)
{
	strbuf_addch(sb, ',');
	strbuf_add_json_str(sb, key);
	strbuf_addch(sb, ':');
	strbuf_add_json_str(sb, val);
}

void line_num(struct strbuf *sb, const char *key, double val)
{
	strbuf_addch(sb, ',');
	strbuf_add_json_str(sb, key);
	strbuf_addch(sb, ':');
	strbuf_add_json_double(sb, val);
}

void line_int(struct strbuf *sb, const char *key, int64_t val)
{
	strbuf_addch(sb, ',');
	strbuf_add_json_str(sb, key);
	strbuf_addf(sb, ":%lld", (long long)val);
}

void line_bool(struct strbuf *sb, const char *key, int val)
{
	strbuf_addch(sb, ',');
	strbuf_add_json_str(sb, key);
	strbuf_addstr(sb, val ? ":true" : ":false");
}

void line_raw(struct strbuf *sb, const char *key, const char *json)
{
	strbuf_addch(sb, ',');
	strbuf_add_json_str(sb, key);
	strbuf_addch(sb, ':');
	strbuf_addstr(sb, json);
}

void line_end(struct strbuf *sb)
{
	strbuf_addstr(sb, "}\n");
}

void emit_line(struct emitter *em, const struct strbuf *line)
{
	emit_flush(em);
	emit_raw(em, line->buf, line->len);
}

void emit_result(struct emitter *em, const char *metric, double value,
		 const char *unit, const char *direction)
{
	struct strbuf sb = STRBUF_INIT;

	line_begin(&sb, "result", em->run_id);
	line_int(&sb, "iteration", em->iteration);
	line_bool(&sb, "warmup", em->warmup);
	line_str(&sb, "metric", metric);
	line_num(&sb, "value", value);
	line_str(&sb, "unit", unit);
	line_str(&sb, "direction", direction);
	line_end(&sb);
	emit_line(em, &sb);
	strbuf_release(&sb);
}

/*
 * A sample value with three decimals, formatted as integers: samples are
 * written while the workload runs, and the shortest-round-trip double
 * formatting of line_num() costs more than everything else the sampler
 * does.  Shares in percent and times in seconds need no more precision.
 */
static void add_fixed3(struct strbuf *sb, double v)
{
	long long m;

	if (!isfinite(v) || fabs(v) > 9e15) {
		strbuf_add_json_double(sb, v);
		return;
	}
	m = llround(v * 1000);
	if (m < 0) {
		strbuf_addch(sb, '-');
		m = -m;
	}
	strbuf_addf(sb, "%lld", m / 1000);
	if (m % 1000)
		strbuf_addf(sb, ".%03lld", m % 1000);
}

void emit_sample(struct emitter *em, const char *series, double t, double value)
{
	struct strbuf *sb = &em->pending;

	line_begin(sb, "sample", em->run_id);
	line_int(sb, "iteration", em->iteration);
	line_str(sb, "series", series);
	strbuf_addstr(sb, ",\"t\":");
	add_fixed3(sb, t);
	strbuf_addstr(sb, ",\"value\":");
	add_fixed3(sb, value);
	line_end(sb);
}

void emit_flush(struct emitter *em)
{
	if (!em->pending.len)
		return;
	emit_raw(em, em->pending.buf, em->pending.len);
	strbuf_reset(&em->pending);
}

void emit_counter(struct emitter *em, const char *source, const char *scope,
		  const char *name, double value)
{
	struct strbuf sb = STRBUF_INIT;

	line_begin(&sb, "counter", em->run_id);
	line_int(&sb, "iteration", em->iteration);
	line_str(&sb, "source", source);
	line_str(&sb, "scope", scope);
	line_str(&sb, "name", name);
	line_num(&sb, "value", value);
	line_end(&sb);
	emit_line(em, &sb);
	strbuf_release(&sb);
}

void emit_counter_unavailable(struct emitter *em, const char *source,
			      const char *scope, const char *name,
			      const char *note)
{
	struct strbuf sb = STRBUF_INIT;

	line_begin(&sb, "counter", em->run_id);
	line_int(&sb, "iteration", em->iteration);
	line_str(&sb, "source", source);
	line_str(&sb, "scope", scope);
	line_str(&sb, "name", name);
	line_bool(&sb, "available", 0);
	line_str(&sb, "note", note);
	line_end(&sb);
	emit_line(em, &sb);
	strbuf_release(&sb);
}

void emit_error(struct emitter *em, const char *message, const char *field)
{
	struct strbuf sb = STRBUF_INIT;

	line_begin(&sb, "error", em->run_id);
	if (em->iteration >= 0)
		line_int(&sb, "iteration", em->iteration);
	line_str(&sb, "message", message);
	if (field && *field)
		line_str(&sb, "field", field);
	line_end(&sb);
	emit_line(em, &sb);
	strbuf_release(&sb);
}

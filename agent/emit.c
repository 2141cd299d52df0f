/*
 * emit.c - the agent's JSON lines (doc/PROTOCOL.md), written to stdout and
 * appended to the results file.
 *
 * Each line goes out whole within one write() per destination, so a line is
 * never interleaved or half-written by us, and the file holds everything
 * said even if the connection that carried stdout dropped.  Sample, result
 * and counter lines are buffered and written together (at the end of an
 * iteration, before any other line, or past 32 KiB), so during the
 * measured window the sampler only reads counters and sleeps, and an
 * iteration's dozens of lines cost a write or two, not one each.
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
	strbuf_init(&em->sample_head, 0);
	em->sample_head_iteration = -2;
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
	strbuf_release(&em->sample_head);
}

static void emit_raw(struct emitter *em, const char *buf, size_t len)
{
	if (em->out_fd >= 0 && write_all(em->out_fd, buf, len) < 0)
		em->write_failed = 1;
	if (em->file_fd >= 0 && write_all(em->file_fd, buf, len) < 0)
		em->write_failed = 1;
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

/* "key":"MEMBER<sep>name", or "key":"name" outside a together member. */
static void line_member_str(struct strbuf *sb, const struct emitter *em,
			    const char *key, char sep, const char *name)
{
	struct strbuf full = STRBUF_INIT;

	if (!em->member) {
		line_str(sb, key, name);
		return;
	}
	strbuf_addf(&full, "%s%c%s", em->member, sep, name);
	line_str(sb, key, full.buf);
	strbuf_release(&full);
}

void emit_raw_line(struct emitter *em, const char *line, size_t len)
{
	emit_flush(em);
	emit_raw(em, line, len);
}

/* Buffer a finished line; written by the next flush. */
static void emit_buffered(struct emitter *em, const struct strbuf *line)
{
	strbuf_addbuf(&em->pending, line);
	if (em->pending.len > 32768)
		emit_flush(em);
}

void emit_result(struct emitter *em, const char *metric, double value,
		 const char *unit, const char *direction)
{
	struct strbuf sb = STRBUF_INIT;

	line_begin(&sb, "result", em->run_id);
	line_int(&sb, "iteration", em->iteration);
	line_bool(&sb, "warmup", em->warmup);
	line_member_str(&sb, em, "metric", '.', metric);
	line_num(&sb, "value", value);
	line_str(&sb, "unit", unit);
	line_str(&sb, "direction", direction);
	line_end(&sb);
	emit_buffered(em, &sb);
	strbuf_release(&sb);
}

/* Append the decimal digits of v (no sign). */
static void add_u64(struct strbuf *sb, unsigned long long v)
{
	char buf[24];
	size_t i = sizeof(buf);

	do
		buf[--i] = (char)('0' + v % 10);
	while ((v /= 10));
	strbuf_add(sb, buf + i, sizeof(buf) - i);
}

/*
 * A sample value with three decimals, formatted by hand: samples are
 * written while the workload runs, and printf-style formatting (let
 * alone the shortest-round-trip double formatting of line_num()) costs
 * more than everything else the sampler does.  Shares in percent and
 * times in seconds need no more precision.
 */
static void add_fixed3(struct strbuf *sb, double v)
{
	long long m;
	unsigned long long a;

	if (!isfinite(v) || fabs(v) > 9e15) {
		strbuf_add_json_double(sb, v);
		return;
	}
	m = llround(v * 1000);
	if (m < 0)
		strbuf_addch(sb, '-');
	a = m < 0 ? (unsigned long long)-m : (unsigned long long)m;
	add_u64(sb, a / 1000);
	if (a % 1000) {
		char f[4] = { (char)('0' + a % 1000 / 100),
			      (char)('0' + a % 100 / 10), (char)('0' + a % 10),
			      0 };

		strbuf_addch(sb, '.');
		strbuf_addstr(sb, f);
	}
}

/*
 * {"type":"sample","run_id":N,"iteration":I,"series": for the emitter's
 * current iteration, built once per iteration rather than per sample.
 */
static const struct strbuf *sample_head(struct emitter *em)
{
	if (em->sample_head_iteration != em->iteration) {
		strbuf_reset(&em->sample_head);
		line_begin(&em->sample_head, "sample", em->run_id);
		line_int(&em->sample_head, "iteration", em->iteration);
		strbuf_addstr(&em->sample_head, ",\"series\":");
		em->sample_head_iteration = em->iteration;
	}
	return &em->sample_head;
}

void emit_sample(struct emitter *em, const char *series, double t, double value)
{
	struct strbuf *sb = &em->pending;

	strbuf_addbuf(sb, sample_head(em));
	if (em->member) {
		struct strbuf full = STRBUF_INIT;

		strbuf_addf(&full, "%s.%s", em->member, series);
		strbuf_add_json_str(sb, full.buf);
		strbuf_release(&full);
	} else {
		strbuf_add_json_str(sb, series);
	}
	strbuf_addstr(sb, ",\"t\":");
	add_fixed3(sb, t);
	strbuf_addstr(sb, ",\"value\":");
	add_fixed3(sb, value);
	strbuf_addstr(sb, "}\n");
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
	line_member_str(&sb, em, "scope", ':', scope);
	line_str(&sb, "name", name);
	line_num(&sb, "value", value);
	line_end(&sb);
	emit_buffered(em, &sb);
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
	line_member_str(&sb, em, "scope", ':', scope);
	line_str(&sb, "name", name);
	line_bool(&sb, "available", 0);
	line_str(&sb, "note", note);
	line_end(&sb);
	emit_buffered(em, &sb);
	strbuf_release(&sb);
}

void emit_error(struct emitter *em, const char *message, const char *field)
{
	emit_host_error(em, message, field, 0);
}

void emit_host_error(struct emitter *em, const char *message, const char *field,
		     int host)
{
	struct strbuf sb = STRBUF_INIT;

	line_begin(&sb, "error", em->run_id);
	if (em->iteration >= 0)
		line_int(&sb, "iteration", em->iteration);
	line_str(&sb, "message", message);
	if (field && *field)
		line_str(&sb, "field", field);
	if (host)
		line_str(&sb, "blame", "host");
	line_end(&sb);
	emit_line(em, &sb);
	strbuf_release(&sb);
}

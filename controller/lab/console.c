/*
 * console.c - the console scanner: lines, one pattern table, milestones.
 * See console.h.  The table is the whole policy: adding a pattern is adding
 * a row, and the unit test walks every row.
 */
#include <stdlib.h>
#include <string.h>

#include "lab/console.h"
#include "banned.h"

const struct console_pattern console_patterns[] = {
	{ "Kernel panic - not syncing", CONSOLE_EV_PANIC, CONSOLE_FATAL,
	  "panic" },
	/* Firmware banners: fatal only after Linux started (a reset). */
	{ "SeaBIOS (version", CONSOLE_EV_FIRMWARE, CONSOLE_FATAL, "firmware" },
	{ "iPXE (http", CONSOLE_EV_FIRMWARE, CONSOLE_FATAL, "firmware" },
	{ "iPXE initialising", CONSOLE_EV_FIRMWARE, CONSOLE_FATAL, "firmware" },
	{ "U-Boot 20", CONSOLE_EV_FIRMWARE, CONSOLE_FATAL, "firmware" },
	{ "kernel BUG at", CONSOLE_EV_KERNEL_BUG, CONSOLE_RECORDED,
	  "kernel-bug" },
	{ "general protection fault", CONSOLE_EV_GPF, CONSOLE_RECORDED, "gpf" },
	{ "KASAN", CONSOLE_EV_KASAN, CONSOLE_RECORDED, "kasan" },
	{ "BUG:", CONSOLE_EV_BUG, CONSOLE_RECORDED, "bug" },
	{ "Oops", CONSOLE_EV_OOPS, CONSOLE_RECORDED, "oops" },
	{ "WARNING:", CONSOLE_EV_WARNING, CONSOLE_RECORDED, "warning" },
	{ "-[ cut here ]-", CONSOLE_EV_CUT_HERE, CONSOLE_RECORDED, "cut-here" },
	{ "Linux version ", CONSOLE_EV_LINUX_VERSION, CONSOLE_MILESTONE,
	  "linux-version" },
	{ CONSOLE_BEACON, CONSOLE_EV_BEACON, CONSOLE_MILESTONE,
	  "agent-beacon" },
};
const size_t console_patterns_count =
	sizeof(console_patterns) / sizeof(console_patterns[0]);

void console_scanner_init(struct console_scanner *cs)
{
	memset(cs, 0, sizeof(*cs));
	strbuf_init(&cs->line, 256);
	strbuf_init(&cs->tail, 0);
	cs->linux_ms = cs->beacon_ms = cs->fatal_ms = -1;
	cs->fatal_index = -1;
}

void console_scanner_release(struct console_scanner *cs)
{
	if (!cs)
		return;
	for (size_t i = 0; i < cs->nhits; i++)
		free(cs->hits[i].line);
	strbuf_release(&cs->line);
	strbuf_release(&cs->tail);
	free(cs->linux_release);
	free(cs->beacon_release);
	cs->nhits = 0;
	cs->linux_release = cs->beacon_release = NULL;
}

/* The word starting at s (up to a blank), as a new string; NULL if empty. */
static char *word_at(const char *s)
{
	size_t n = strcspn(s, " \t");

	return n ? xstrndup(s, n) : NULL;
}

static void add_hit(struct console_scanner *cs, const struct console_pattern *p,
		    const char *line, int64_t now_ms)
{
	struct console_hit *h;
	/* Recorded hits leave room for the milestones and the first fatal. */
	size_t cap = p->kind == CONSOLE_RECORDED ? CONSOLE_MAX_HITS - 4
						 : CONSOLE_MAX_HITS;

	if (cs->nhits >= cap) {
		cs->dropped_hits++;
		return;
	}
	h = &cs->hits[cs->nhits];
	h->event = p->event;
	h->kind = p->kind;
	h->name = p->name;
	h->at_ms = now_ms;
	h->offset = cs->line_start;
	h->line = xstrdup(line);
	if (p->kind == CONSOLE_FATAL && cs->fatal_index < 0) {
		cs->fatal_index = (int)cs->nhits;
		cs->fatal_ms = now_ms;
	}
	cs->nhits++;
}

/* Match one complete line against the table (first match wins). */
static void scan_line(struct console_scanner *cs, const char *line,
		      int64_t now_ms)
{
	for (size_t i = 0; i < console_patterns_count; i++) {
		const struct console_pattern *p = &console_patterns[i];
		const char *m = strstr(line, p->needle);

		if (!m)
			continue;
		switch (p->event) {
		case CONSOLE_EV_FIRMWARE:
			/* A machine starting is normal; a reset is not. */
			if (cs->linux_ms < 0)
				return;
			break;
		case CONSOLE_EV_LINUX_VERSION:
			if (cs->linux_ms >= 0)
				return;
			cs->linux_ms = now_ms;
			cs->linux_release = word_at(m + strlen(p->needle));
			break;
		case CONSOLE_EV_BEACON: {
			const char *r = strstr(m, " release=");

			if (cs->beacon_ms >= 0)
				return;
			cs->beacon_ms = now_ms;
			if (r)
				cs->beacon_release =
					word_at(r + strlen(" release="));
			break;
		}
		default:
			break;
		}
		add_hit(cs, p, line, now_ms);
		return;
	}
}

static void end_line(struct console_scanner *cs, int64_t now_ms)
{
	scan_line(cs, cs->line.buf, now_ms);
	strbuf_reset(&cs->line);
	cs->line_overflow = 0;
	cs->line_start = cs->offset;
}

static void keep_tail(struct console_scanner *cs, const char *data, size_t len)
{
	if (len >= CONSOLE_TAIL_MAX) {
		strbuf_reset(&cs->tail);
		strbuf_add(&cs->tail, data + len - CONSOLE_TAIL_MAX,
			   CONSOLE_TAIL_MAX);
		return;
	}
	if (cs->tail.len + len > 2 * CONSOLE_TAIL_MAX) {
		size_t drop = cs->tail.len + len - CONSOLE_TAIL_MAX;

		memmove(cs->tail.buf, cs->tail.buf + drop, cs->tail.len - drop);
		strbuf_setlen(&cs->tail, cs->tail.len - drop);
	}
	strbuf_add(&cs->tail, data, len);
}

int console_scanner_feed(struct console_scanner *cs, const char *data,
			 size_t len, int64_t now_ms)
{
	keep_tail(cs, data, len);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];

		cs->offset++;
		if (c == '\n') {
			end_line(cs, now_ms);
			continue;
		}
		if (c == '\t')
			c = ' ';
		if (c < 0x20 || c == 0x7f)
			continue;
		if (cs->line.len >= CONSOLE_LINE_MAX) {
			cs->line_overflow = 1;
			continue;
		}
		strbuf_addch(&cs->line, c);
	}
	return cs->fatal_index >= 0;
}

void console_scanner_flush(struct console_scanner *cs, int64_t now_ms)
{
	if (cs->line.len)
		end_line(cs, now_ms);
}

const struct console_hit *
console_scanner_fatal(const struct console_scanner *cs)
{
	return cs->fatal_index < 0 ? NULL : &cs->hits[cs->fatal_index];
}

size_t console_scanner_count(const struct console_scanner *cs,
			     enum console_event ev)
{
	size_t n = 0;

	for (size_t i = 0; i < cs->nhits; i++)
		n += cs->hits[i].event == ev;
	return n;
}

void console_scanner_summary(const struct console_scanner *cs, int64_t t0_ms,
			     struct strbuf *out)
{
	for (size_t i = 0; i < cs->nhits; i++) {
		const struct console_hit *h = &cs->hits[i];
		int64_t d = h->at_ms - t0_ms;

		strbuf_addf(out, "%+.3fs %s: %s\n", (double)d / 1000.0, h->name,
			    h->line);
	}
	if (cs->dropped_hits)
		strbuf_addf(out, "(%zu more console events not kept)\n",
			    cs->dropped_hits);
}

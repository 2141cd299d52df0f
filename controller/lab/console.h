/*
 * console.h - reading a booting machine's serial console.
 *
 * The console is the only witness of a kernel that dies before the network
 * comes up, so every boot is watched through it.  A scanner is fed bytes as
 * they arrive (from a libvirt serial log file, an ipmi_sim SOL stream...),
 * splits them into lines, and matches each line against one table of
 * patterns: fatal ones end the boot at once (`Kernel panic - not syncing`,
 * a firmware banner after Linux started, i.e. an unexpected reset), recorded
 * ones are kept for the run's report (Oops, BUG:, WARNING: ...), and the
 * milestones of a good boot (`Linux version`, the agent's beacon) are
 * noted with the time they were seen.  Memory is bounded: a line is
 * considered up to CONSOLE_LINE_MAX bytes, at most CONSOLE_MAX_HITS hits are
 * kept, and only the last CONSOLE_TAIL_MAX bytes of text are held for
 * error messages.  Pure code: no I/O, no clock of its own.
 */
#ifndef SCHEDFARM_CONSOLE_H
#define SCHEDFARM_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

#define CONSOLE_LINE_MAX 1024
#define CONSOLE_MAX_HITS 64
#define CONSOLE_TAIL_MAX (16u << 10)

/* What the init of the farm's guest image prints once the agent is ready. */
#define CONSOLE_BEACON "SCHEDFARM-AGENT-READY"

enum console_kind {
	CONSOLE_MILESTONE, /* part of a good boot */
	CONSOLE_RECORDED, /* kept for the report; the boot goes on */
	CONSOLE_FATAL, /* the boot (or run) is over */
};

enum console_event {
	CONSOLE_EV_LINUX_VERSION,
	CONSOLE_EV_BEACON,
	CONSOLE_EV_PANIC,
	CONSOLE_EV_FIRMWARE,
	CONSOLE_EV_OOPS,
	CONSOLE_EV_BUG,
	CONSOLE_EV_KERNEL_BUG,
	CONSOLE_EV_WARNING,
	CONSOLE_EV_GPF,
	CONSOLE_EV_KASAN,
	CONSOLE_EV_CUT_HERE,
	CONSOLE_EV__COUNT
};

struct console_pattern {
	const char *needle; /* fixed string searched anywhere in a line */
	enum console_event event;
	enum console_kind kind;
	const char *name; /* short stable name: "panic", "oops", ... */
};

/* The table, in match order (first match per line wins). */
extern const struct console_pattern console_patterns[];
extern const size_t console_patterns_count;

struct console_hit {
	enum console_event event;
	enum console_kind kind;
	const char *name; /* from the table */
	int64_t at_ms; /* the caller's clock when the line was complete */
	uint64_t offset; /* byte offset of the line in the stream */
	char *line; /* the line (at most CONSOLE_LINE_MAX bytes) */
};

struct console_scanner {
	struct strbuf line; /* the current, incomplete line */
	int line_overflow; /* the current line went past CONSOLE_LINE_MAX */
	uint64_t offset; /* bytes fed so far */
	uint64_t line_start; /* offset of the current line */
	struct strbuf tail; /* the last CONSOLE_TAIL_MAX bytes, roughly */
	struct console_hit hits[CONSOLE_MAX_HITS];
	size_t nhits;
	size_t dropped_hits; /* recorded hits past CONSOLE_MAX_HITS */
	/* Milestones: -1 until seen, else the caller's ms when seen. */
	int64_t linux_ms, beacon_ms, fatal_ms;
	int fatal_index; /* index into hits of the first fatal, or -1 */
	char *linux_release; /* the word after "Linux version " */
	char *beacon_release; /* "release=" of the beacon, if given */
};

void console_scanner_init(struct console_scanner *cs);
void console_scanner_release(struct console_scanner *cs);

/*
 * Feed len bytes of console output that arrived at now_ms (the caller's
 * monotonic clock).  Lines end at '\n'; '\r' and other control bytes are
 * dropped.  A firmware banner is fatal only once "Linux version" was seen
 * (before that it is the normal start of a machine).  Returns the number of
 * fatal events seen so far (0 while the boot is healthy).
 */
int console_scanner_feed(struct console_scanner *cs, const char *data,
			 size_t len, int64_t now_ms);
/* Scan the incomplete last line too (at the end of the stream). */
void console_scanner_flush(struct console_scanner *cs, int64_t now_ms);

/* The first fatal hit, or NULL. */
const struct console_hit *
console_scanner_fatal(const struct console_scanner *cs);
/* How many hits of event ev were seen (kept ones only). */
size_t console_scanner_count(const struct console_scanner *cs,
			     enum console_event ev);
/* One line per hit ("+12.345s panic: Kernel panic - ...") appended to out. */
void console_scanner_summary(const struct console_scanner *cs, int64_t t0_ms,
			     struct strbuf *out);

#endif

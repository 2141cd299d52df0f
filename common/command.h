/*
 * command.h - a workload defined by a plan instead of C code: a program
 * run from an argv (no shell), with a timeout, and a parser that reads its
 * metrics from what it printed.
 *
 * A new benchmark is then one YAML file (doc/PLANS.md, "Command
 * workloads"): the plan checker (controller/plan/command.c) turns it into a
 * struct cmd_def with the parameters substituted, writes it into the run
 * spec with cmd_def_to_json(), and the agent reads it back with
 * cmd_def_from_json(), runs it under the run's cgroups and counters like a
 * wrapped program, and parses the output with cmd_parse_output().  Both
 * sides link this file, so the checks the plan makes and the ones the agent
 * makes are the same code.
 *
 * Four output formats:
 *   keyvalue  lines "KEY: VALUE" (the separator can be changed); the first
 *             word of VALUE is the number, the rest (a unit) is ignored
 *   regex     POSIX extended regular expressions applied to every line;
 *             named groups (?<name>...) (or (?P<name>...)) give the values;
 *             \d and \D are accepted; (?:...) groups do not capture names
 *   csv       a header line naming the columns, then rows; the last row
 *   jsonl     one JSON object per line; top-level number fields
 * A metric's value is the last one the output gives.  Output is hostile:
 * a line past CMD_MAX_LINE, a value that is not a finite number, a row of
 * the wrong width, or a declared metric the output never gives fails the
 * run with the line (or the output's tail) quoted.
 */
#ifndef SCHEDFARM_COMMAND_H
#define SCHEDFARM_COMMAND_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "json.h"
#include "strbuf.h"
#include "strvec.h"

#define CMD_MAX_ARGS 256 /* argv words */
#define CMD_MAX_ARG 4096 /* bytes of one argv word */
#define CMD_MAX_METRICS 256 /* declared metrics */
#define CMD_MAX_PATTERNS 64 /* regex patterns */
#define CMD_MAX_GROUPS 64 /* capture groups of one pattern */
#define CMD_MAX_EXPANSION 10000 /* how far repeats may multiply a pattern */
#define CMD_MAX_STACKED 2 /* repeats on one atom: (a+)? but not (a+)?* */
#define CMD_MAX_REPEATS 100 /* repeat operators in one pattern */
#define CMD_MAX_LINE 65536 /* bytes of one output line */
#define CMD_MAX_OUTPUT (16u << 20) /* bytes of output parsed */

enum cmd_format { CMD_KEYVALUE, CMD_REGEX, CMD_CSV, CMD_JSONL };
enum cmd_stream { CMD_STDOUT, CMD_STDERR, CMD_BOTH };

struct cmd_metric {
	char *name; /* as reported: [A-Za-z0-9._:/-], 1..128 bytes */
	char *key; /* what the output calls it (key, group, column, field) */
	char *unit; /* free text, at most 32 bytes ("" allowed) */
	const char *direction; /* "higher", "lower" or "none" (static) */
};

struct cmd_def {
	char *name; /* the workload's name, [A-Za-z0-9._-], 1..64 bytes */
	struct strvec argv; /* parameters already substituted */
	int64_t timeout_ms; /* per iteration; 0: only the run's deadline */
	/* The plan's root: true: a local host's agent runs the command as
	 * root; otherwise as the farm's user it was told (agent/wl_command.c).
	 */
	int root;
	enum cmd_format format;
	enum cmd_stream stream;
	char separator; /* keyvalue (default ':') and csv (default ',') */
	struct strvec patterns; /* regex */
	struct cmd_metric *metrics;
	size_t nmetrics;
};

void cmd_def_init(struct cmd_def *d);
void cmd_def_release(struct cmd_def *d);

/* "keyvalue", "regex", "csv", "jsonl"; and back (-1 when unknown). */
const char *cmd_format_name(enum cmd_format f);
int cmd_format_from_name(const char *s);
const char *cmd_stream_name(enum cmd_stream s);
int cmd_stream_from_name(const char *s);
/* Is s fit for a metric name / a command name? */
int cmd_metric_name_ok(const char *s);
int cmd_name_ok(const char *s);

/* A compiled pattern: POSIX ERE plus the name of each capture group. */
struct cmd_regex {
	regex_t re;
	int compiled;
	size_t ngroups; /* capture groups, 1-based in regexec's array */
	char *names[CMD_MAX_GROUPS + 1]; /* names[i]: group i, or NULL */
};

/*
 * Translate pattern (with named groups) to POSIX ERE and compile it.
 * Return 0, or -1 with what is wrong in err ("unsupported construct
 * '(?=' at offset 4", regerror's text).  Release with cmd_regex_free()
 * either way.
 */
int cmd_regex_compile(const char *pattern, struct cmd_regex *re,
		      struct strbuf *err);
void cmd_regex_free(struct cmd_regex *re);

/*
 * Check d as a whole: argv, metrics, format and its settings (patterns
 * compile, each named group is a declared key and each regex key has a
 * group).  Return 0 or -1 with the first problem in err; *field gets the
 * spec field at fault ("argv", "metrics[2].direction", "patterns[0]").
 */
int cmd_def_check(const struct cmd_def *d, struct strbuf *field,
		  struct strbuf *err);

/* Append d as the run spec's "command" object (doc/PROTOCOL.md). */
void cmd_def_to_json(const struct cmd_def *d, struct strbuf *out);
/*
 * Read a spec's "command" object into d (initialised by the caller) and
 * check it with cmd_def_check().  Return 0 or -1 with err and *field
 * ("command.argv", ...).
 */
int cmd_def_from_json(const struct json_value *o, struct cmd_def *d,
		      struct strbuf *field, struct strbuf *err);

/*
 * Parse what the command printed (text[0..len)) into values[i] for each
 * of d's metrics.  Return 0 when every declared metric got a finite
 * value; otherwise -1 with a sentence in err that quotes the offending
 * line ("line 3: \"rate: NaN\": 'rate' is not a finite number") or, for a
 * metric never given, names it.
 */
int cmd_parse_output(const struct cmd_def *d, const char *text, size_t len,
		     double *values, struct strbuf *err);

#endif

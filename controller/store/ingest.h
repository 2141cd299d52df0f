/*
 * ingest.h - checking the agent's JSON lines and storing them.
 *
 * Every line an agent prints is untrusted (doc/PROTOCOL.md): at most 64
 * KiB, one JSON object of a known type, the run's own id, every field of
 * the right type, strings short and free of control characters, numbers
 * finite and in range, iterations within what the spec asked for.  The
 * first line that breaks a rule fails its run, and the error quotes it.
 * A run's lines are stored with COPY in one transaction keyed by the run
 * id: a run already ingested is left alone, so re-ingesting after a
 * reconnect or a retry never doubles a row.
 */
#ifndef SCHEDFARM_INGEST_H
#define SCHEDFARM_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "store/db.h"
#include "strvec.h"
#include "strbuf.h"

#define INGEST_MAX_LINE 65536
#define INGEST_MAX_NAME 128 /* metric, series, scope, counter name */
#define INGEST_MAX_UNIT 32

struct json_value;

enum agent_line_type {
	AGENT_HELLO,
	AGENT_RESULT,
	AGENT_SAMPLE,
	AGENT_COUNTER,
	AGENT_ERROR,
	AGENT_DONE,
};

/* What the spec told the agent: the bounds its lines must respect. */
struct ingest_expect {
	int64_t run_id;
	int iterations; /* measured */
	int warmup; /* warm-up iterations, numbered first */
};

/* One checked line.  Strings point into root (owned here). */
struct agent_line {
	enum agent_line_type type;
	struct json_value *root;
	int64_t iteration;
	int warmup; /* result */
	const char *metric; /* result */
	const char *unit; /* result */
	const char *direction; /* result */
	const char *series; /* sample */
	double t; /* sample */
	const char *source; /* counter */
	const char *scope; /* counter */
	const char *name; /* counter */
	int available; /* counter */
	const char *note; /* counter (available: false) */
	double value; /* result, sample, counter (if available) */
	const char *message; /* error */
	int host_blame; /* error: "blame": "host", the host lacks something */
	char *text_; /* owns message or note, its controls made visible */
	const char *status; /* done */
	double elapsed_s; /* done */
	const struct json_value *info; /* hello */
};

/*
 * Check one line (without its newline).  Return 0 with *ret filled
 * (release it with agent_line_release()), or -1 with err saying what is
 * wrong and quoting the line (the first 200 bytes of it, escaped).
 */
int ingest_check_line(const char *line, size_t len,
		      const struct ingest_expect *ex, struct agent_line *ret,
		      struct strbuf *err);
void agent_line_release(struct agent_line *l);

/*
 * Can a measurement in unit be value?  A duration (unit s, sec, ms, us,
 * µs, ns, min or h) cannot be negative; anything else can be any finite
 * number.  0, or -1 with why ("-3 is a negative time (unit ms)").  Agent
 * lines and imported numbers are both held to it.
 */
int ingest_check_value(const char *unit, double value, struct strbuf *why);

/* What a run's lines add up to. */
struct ingest_summary {
	size_t lines, results, samples, counters, errors;
	int done; /* a done line arrived */
	char status[16]; /* its status ("ok", "failed", ...) */
	double elapsed_s;
	char *first_error; /* message of the first error line, or NULL */
	int host_fault; /* ... which blames the host (no program, no cgroups) */
};
void ingest_summary_release(struct ingest_summary *s);

/*
 * Check every line of text (lines separated by '\n'; a final line without
 * one is checked too) and summarise them.  Return 0, or -1 at the first
 * bad line with err quoting it.
 */
int ingest_check_all(const char *text, size_t len,
		     const struct ingest_expect *ex, struct ingest_summary *ret,
		     struct strbuf *err);

/*
 * Store the run's lines (already checked or not: they are checked again)
 * in one transaction: results, samples and counters by COPY, and the runs
 * row marked done with its agent info and the first MiB of raw lines.
 * Return 1 when the run had already been ingested (nothing changes), 0
 * when stored, -1 on failure (nothing stored; err says why).  A run whose
 * lines do not end with `done` status ok is refused here with
 * INGEST_RUN_FAILED (-3): the run failed, not its storing (err says how:
 * "the workload failed: ...", without the run's id, or "the host's fault:
 * ..." when its first error line blames the host, with ret_sum->host_fault
 * set); mark it failed with ingest_mark_failed() instead.
 */
#define INGEST_RUN_FAILED (-3)
int ingest_run(struct db *db, const struct ingest_expect *ex, const char *text,
	       size_t len, struct ingest_summary *ret_sum, struct strbuf *err);

/* Mark the run failed with error (and the raw lines, first MiB), unless
 * it was already ingested. */
int ingest_mark_failed(struct db *db, int64_t run_id, const char *error,
		       const char *text, size_t len, struct strbuf *err);
/* The run ended in the panic (or oops) its plan declared (`expect:`):
 * status expected-panic, what the console showed in error, the raw lines
 * the agent printed before.  Nothing of it is a result. */
int ingest_mark_expected_panic(struct db *db, int64_t run_id, const char *what,
			       const char *text, size_t len,
			       struct strbuf *err);

/* Append v as JSON text (a tree from json_parse, so depth is bounded). */
void ingest_json_write(const struct json_value *v, struct strbuf *out);

/* Append s to out quoted for a log: at most max bytes, escaped. */
void ingest_quote_line(struct strbuf *out, const char *s, size_t len,
		       size_t max);
/*
 * Run run_id's iterations and warmup (1 and 0 when not set), for an
 * ingest by hand (`job ingest`): no row when there is no such run.  Into
 * *ret (the caller frees it).  0, or -1 with err.
 */
int ingest_run_shape(struct db *db, int64_t run_id, struct db_result **ret,
		     struct strbuf *err);

/*
 * Is what `results` asks about there: job (when not 0), else run (when
 * not 0), else the kernel named kernel?  One row, one column, 't' or 'f'.
 * Into *ret (the caller frees it).  0, or -1 with err.
 */
int ingest_results_target(struct db *db, int64_t job, int64_t run,
			  const char *kernel, struct db_result **ret,
			  struct strbuf *err);

/*
 * The results of job, else run, else kernel (as ingest_results_target()
 * picks), of workload (NULL: any) whose run's parameters hold every
 * keys[i] = vals[i]: job_id, run id, host, kernel, workload, params,
 * iteration, warmup, metric, value, unit, direction; by run, metric,
 * iteration.  Into *ret.  0, or -1 with err.
 */
int ingest_results_rows(struct db *db, int64_t job, int64_t run,
			const char *kernel, const char *workload,
			const struct strvec *keys, const struct strvec *vals,
			struct db_result **ret, struct strbuf *err);

/*
 * One `results` row as the one COPY of them takes it: an agent's result
 * line (ingest_run()) and an imported file's row (analysis/import.c).
 * Numbers are text in the server's input syntax (an agent's are sent as
 * it wrote them); n and stddev are NULL for none (an imported summary
 * has them).
 */
struct results_line {
	const char *run_id;
	const char *metric;
	long long iteration;
	int warmup;
	const char *value;
	const char *unit;
	const char *direction; /* "higher", "lower" or "none" */
	const char *n, *stddev;
};

/*
 * Start the COPY of `results` rows (columns run_id, metric, iteration,
 * warmup, value, unit, direction, n, stddev) on db: the lines that
 * ingest_results_line() makes follow with db_copy_put(), and
 * db_copy_end() ends it.  0, or -1 with err.
 */
int ingest_results_copy_begin(struct db *db, struct strbuf *err);

/* Append row's line of that COPY (text format) to sb. */
void ingest_results_line(struct strbuf *sb, const struct results_line *row);

#endif

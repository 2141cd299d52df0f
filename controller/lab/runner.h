/*
 * runner.h - running schedfarm-agent on a host and reading its lines.
 *
 * A `local` host runs the agent as a child (common/run-command.h), its
 * stdout streamed.  An `ssh` host (and any kind that ends up reachable
 * over SSH once booted) gets the agent copied when the copy there has
 * another sha256, then `schedfarm-agent run SPEC` over an exec channel,
 * its stdout streamed.  The agent also appends every line to the spec's
 * results file on the host; when the connection drops mid-run, the runner
 * reconnects, waits for the agent to end, and the caller fetches that file
 * (runner_fetch) instead of trusting the partial stream.
 */
#ifndef SCHEDFARM_RUNNER_H
#define SCHEDFARM_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "time-util.h"

/* Where and how to reach a host (strings owned by the caller). */
struct runner_host {
	const char *name;
	const char *kind; /* "local", "ssh", ... */
	const char *address; /* ssh: address */
	int port; /* ssh: 0 = 22 */
	const char *user; /* ssh: NULL = the local user */
	const char *key_file; /* ssh: path, or NULL for ssh-agent */
	const char *known_hosts; /* ssh: required */
	const char *run_dir; /* local: where run files go (a private folder
			      * is made in it); required for runs */
	int connect_timeout_ms; /* 0: 10 s */
	/* ssh: no line and no keepalive answer for this long and the
	 * connection is lost (keepalives go every quarter of it); the runner
	 * then tries to get back for as long again.  0: no keepalives, and a
	 * silent drop is seen only at the run's deadline. */
	int stall_ms;
};

struct runner;

/*
 * Prepare to run on h: for ssh, connect and make sure the agent at
 * agent_path is the one on the host (copied when its hash differs); for
 * local, check agent_path runs.  What happened (copied or not) is appended
 * to log.  Return 0 with *ret, or -1 with err.
 */
int runner_open(const struct runner_host *h, const char *agent_path,
		struct runner **ret, struct strbuf *log, struct strbuf *err);
void runner_close(struct runner *r);

/* The agent binary this controller hands out: $SCHEDFARM_AGENT, else
 * schedfarm-agent next to this program (or in ../agent/), else PATH. */
char *runner_default_agent_path(void);

/*
 * Hash the agent at agent_path now and keep its sha256 for this process and
 * those it forks later (the hash is taken again if the file changes), so
 * that runner_open() does not run sha256sum for every job.  0, or -1 with
 * err.
 */
int runner_prepare_agent(const char *agent_path, struct strbuf *err);

/* Run `schedfarm-agent info` and append its output (one JSON object). */
int runner_info(struct runner *r, struct strbuf *out, struct strbuf *err);

/* Where the agent of run run_id keeps its lines on the host (owned by r
 * until the next call). */
const char *runner_results_file(struct runner *r, int64_t run_id);

struct runner_callbacks {
	/* Each complete line as it arrives (no newline); return < 0 to stop
	 * the run (the agent is told to stop). */
	int (*line)(void *ctx, const char *line, size_t len);
	/* At least once a second; return < 0 to stop the run. */
	int (*tick)(void *ctx);
	/* Something the operator should know (connection lost, ...). */
	void (*note)(void *ctx, const char *msg);
	void *ctx;
};

enum runner_end {
	RUNNER_ENDED, /* the agent's stdout ended; the stream is whole */
	RUNNER_STOPPED, /* a callback stopped it */
	RUNNER_LOST, /* the connection dropped; the agent has ended since
		      * (or was stopped): fetch the results file */
	RUNNER_TIMEOUT, /* past timeout_ms; the agent was stopped */
};

/*
 * Hand the agent spec (JSON text naming runner_results_file() as its
 * results_file) and stream its lines to cb until it ends, a callback
 * stops it, or budget b (the run's limit, nested in its phase's and the
 * job's) runs out: RUNNER_TIMEOUT, and budget_describe(b) names the limit
 * that fired.  On an SSH host with a stall limit (runner_host.stall_ms),
 * a connection that brings no line and no keepalive answer for that long
 * is given up; so is one that drops.  The runner then reconnects (for up
 * to the stall limit again; without one, until the deadline) and waits
 * for the agent to end: RUNNER_LOST, fetch the results file.  Return 0
 * with *ret_end and *ret_status (the agent's exit status, -1 when
 * unknown), or -1 when the host could not be reached again: err begins
 * with "connection lost" and says how long it was tried.
 */
int runner_run(struct runner *r, int64_t run_id, const char *spec,
	       const struct budget *b, const struct runner_callbacks *cb,
	       enum runner_end *ret_end, int *ret_status, struct strbuf *err);

/* Fetch the results file of run_id from the host (reconnecting if
 * needed) and append its lines to out (at most max bytes), each try of
 * the SSH command within timeout_ms (0: the runner's default, 30 s). */
int runner_fetch(struct runner *r, int64_t run_id, size_t max, int timeout_ms,
		 struct strbuf *out, struct strbuf *err);

/* Remove the run's files on the host; failures are ignored. */
void runner_forget(struct runner *r, int64_t run_id);

#endif

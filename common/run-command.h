/*
 * run-command.h - run a program from an argv: no shell, a timeout, captured
 * output, the exit status checked.
 *
 * Every external program the farm runs (pg_ctl, initdb, make, patch,
 * ipmitool, qemu-img, the agent on a local host) goes through here.  The
 * child gets its own process group so a timeout kills everything it started.
 * (After git's run-command.h.)
 */
#ifndef SCHEDFARM_RUN_COMMAND_H
#define SCHEDFARM_RUN_COMMAND_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "strbuf.h"
#include "strvec.h"

struct child_process {
	struct strvec args; /* args.v[0] is looked up in PATH if no '/' */
	struct strvec env; /* "NAME=value" added, "NAME" removed */
	/* What errors call the program ("make timed out"); NULL: args.v[0].
	 * For a program started through a wrapper (lab/sandbox.c). */
	const char *name;
	/* The child's environment is only env's "NAME=value" entries, none
	 * of ours: for a program that must not see the controller's
	 * settings or secrets (lab/sandbox.c). */
	int clear_env;
	const char *dir; /* chdir here first, if set */
	int as_user; /* switch to uid/gid/groups first */
	uid_t uid;
	gid_t gid;
	const gid_t *groups; /* supplementary groups (caller owns) */
	size_t ngroups; /* 0: just gid */
	const char *stdin_data; /* written to the child's stdin, then closed */
	size_t stdin_len;
	int capture_out; /* collect stdout into `out` */
	int capture_err; /* collect stderr into `err` */
	int merge_err; /* stderr goes where stdout goes */
	int quiet; /* without capture: stdout/stderr to /dev/null */
	int stream_out; /* start_command: give the caller out_fd */
	/* The child's stdout (and stderr with merge_err) appended to this
	 * file, made mode 0600 when missing (a console capture that must
	 * outlive nobody reading it); NULL: as the flags above say. */
	const char *out_file;
	/* start_command: the child's stdin is a pipe held open (nothing is
	 * written) until stop_command() or finish_command(): for programs
	 * that end at EOF on their input (ipmitool sol activate). */
	int hold_stdin;
	size_t max_output; /* cap on out and err each; 0 = 64 MiB */
	int timeout_ms; /* 0 = none; on expiry TERM, then KILL after 2 s */
	/* Called about once a second while finish_command() waits (NULL:
	 * never), whether or not the child writes anything: a step of a
	 * kernel build that is silent for minutes (tar of a source tree)
	 * while the job must renew its lease.  A negative return stops the
	 * child as a timeout does (TERM, KILL after 2 s) and the command
	 * fails with "... was stopped". */
	int (*tick)(void *ctx);
	void *tick_ctx;

	/* Results. */
	struct strbuf out;
	struct strbuf err;
	pid_t pid;
	int out_fd; /* stream_out: read end of stdout */
	int in_fd; /* private: write end of stdin */
	int reaped; /* private: command_running() saw it end */
	int err_fd; /* private: read end of stderr */
	size_t in_off; /* private: stdin bytes written */
	int status; /* raw wait status */
	int exit_code; /* exit code, or 128+signal */
	int timed_out;
	int stopped; /* tick asked to stop it */
	int truncated; /* output exceeded max_output and was cut */
	struct rusage ru; /* the child's and its reaped descendants', once
			   * reaped (wait4): what it cost, for a caller that
			   * cannot use RUSAGE_CHILDREN (a thread) */
};

void child_process_init(struct child_process *cp);
void child_process_clear(struct child_process *cp);

/*
 * Run cp to completion.  Return 0 when it exited with status 0; otherwise
 * -1, with a sentence in *err ("initdb exited with status 1", "make timed out
 * after 60 s", "cannot run ipmitool: No such file or directory").  The
 * captured output stays in cp->out / cp->err either way.
 */
int run_command(struct child_process *cp, struct strbuf *err);

/*
 * Start cp and return at once (cp->pid set; with stream_out, cp->out_fd is
 * the read end of its stdout, owned by cp).  Pair with finish_command().
 */
int start_command(struct child_process *cp, struct strbuf *err);
/* Wait for a started child; same return contract as run_command(). */
int finish_command(struct child_process *cp, struct strbuf *err);

/*
 * For a started child: 1 while it runs, 0 once it has ended (it is
 * reaped; finish_command() then only reports its status).
 */
int command_running(struct child_process *cp);
/*
 * End a started child: SIGTERM to its process group, SIGKILL after
 * grace_ms, then reap it.  Returns finish_command()'s result (a child
 * that ended by the TERM is not an error: 0).
 */
int stop_command(struct child_process *cp, int grace_ms, struct strbuf *err);

/* Convenience: run argv (NULL-terminated), capture stdout; stderr in err. */
int run_capture(const char *const *argv, int timeout_ms, struct strbuf *out,
		struct strbuf *err);

/* Return 1 if an executable named name is found in PATH (or is a path). */
int program_exists(const char *name);

#endif

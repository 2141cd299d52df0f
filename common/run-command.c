/*
 * run-command.c - fork/exec with pipes, poll, timeout; see run-command.h.
 *
 * fork() rather than posix_spawn() because a child may need to change its
 * user (PostgreSQL refuses to run as root) and its directory before exec.
 * Everything the child needs is prepared before fork(); between fork() and
 * exec() it makes only async-signal-safe calls.
 *
 * A child that keeps its user is started with vfork(): it borrows the
 * parent's memory until exec instead of copying its page tables, which on
 * a machine where a page fault is dear (a paravirtualised guest: ~20 us
 * each here) saves the parent's fork and the faults both processes take
 * on the pages they then write.  What that child does before exec is
 * system calls only, on its own stack frame; its signal handlers are its
 * own (vfork shares memory, not them).  setuid() stays with fork(): in a
 * threaded parent glibc would signal the parent's threads from the child.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run-command.h"
#include "time-util.h"
#include "banned.h"

extern char **environ;

#define DEFAULT_MAX_OUTPUT (64u << 20)
#define KILL_GRACE_MS 2000
#define TICK_MS 1000 /* how often finish_command() calls cp->tick */

void child_process_init(struct child_process *cp)
{
	memset(cp, 0, sizeof(*cp));
	strvec_init(&cp->args);
	strvec_init(&cp->env);
	strbuf_init(&cp->out, 0);
	strbuf_init(&cp->err, 0);
	cp->pid = -1;
	cp->out_fd = cp->in_fd = cp->err_fd = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void child_process_clear(struct child_process *cp)
{
	strvec_clear(&cp->args);
	strvec_clear(&cp->env);
	strbuf_release(&cp->out);
	strbuf_release(&cp->err);
	close_fd(&cp->out_fd);
	close_fd(&cp->in_fd);
	close_fd(&cp->err_fd);
}

/* What messages call cp's program: its name, or argv[0]. */
static const char *cmd_name(const struct child_process *cp)
{
	return cp->name ? cp->name : cp->args.v[0];
}

/*
 * Secrets the controller may hold in its environment: no child inherits
 * one; a caller that must hand one on (PGPASSWORD to pg_ctl, the BMC's
 * password to ipmitool -E) adds it to that child's env itself.
 */
static const char *const secret_env[] = { "PGPASSWORD", "SCHEDFARM_DB",
					  "SCHEDFARM_SMTP_PASSWORD",
					  "IPMI_PASSWORD" };

static int is_secret(const char *e, size_t klen)
{
	for (size_t i = 0; i < sizeof(secret_env) / sizeof(secret_env[0]); i++)
		if (strlen(secret_env[i]) == klen &&
		    !strncmp(e, secret_env[i], klen))
			return 1;
	return 0;
}

/* Build the child's environment: ours (none with clear) less the
 * secrets, minus removals, plus additions. */
static char **build_env(const struct strvec *changes, int clear,
			struct strvec *store)
{
	for (char **e = clear ? NULL : environ; e && *e; e++) {
		size_t klen = strcspn(*e, "=");
		int drop = is_secret(*e, klen);

		for (size_t i = 0; i < changes->nr; i++) {
			const char *c = changes->v[i];

			if (strcspn(c, "=") == klen && !strncmp(c, *e, klen))
				drop = 1;
		}
		if (!drop)
			strvec_push(store, *e);
	}
	for (size_t i = 0; i < changes->nr; i++)
		if (strchr(changes->v[i], '='))
			strvec_push(store, changes->v[i]);
	return store->v;
}

int program_exists(const char *name)
{
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;
	int found = 0;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path && !found) {
		size_t n = strcspn(path, ":");

		strbuf_reset(&sb);
		strbuf_add(&sb, path, n);
		strbuf_addch(&sb, '/');
		strbuf_addstr(&sb, name);
		found = access(sb.buf, X_OK) == 0;
		path += n;
		if (*path == ':')
			path++;
	}
	strbuf_release(&sb);
	return found;
}

/* In the child: report errno and the failing step to the parent, exit. */
__attribute__((noreturn)) static void child_fail(int fd, const char *what)
{
	int e = errno;

	if (write(fd, &e, sizeof(e)) >= 0 && write(fd, what, strlen(what)) >= 0)
		_exit(127);
	_exit(127);
}

/*
 * In the child: stdin from in_fd, stdout to out_fd (-1: inherited, or
 * null_fd when quiet), stderr to err_fd (the same rules, or stdout when
 * merged), the user and folder changed, exec.  A failure is written to
 * st_fd.  System calls only: it may run in a vfork() child.
 */
__attribute__((noreturn)) static void child_exec(const struct child_process *cp,
						 int in_fd, int out_fd,
						 int err_fd, int null_fd,
						 int st_fd, char **envp)
{
	sigset_t none;
	gid_t one_group = cp->gid;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	setpgid(0, 0);
	if (dup2(in_fd, 0) < 0)
		child_fail(st_fd, "dup2");
	if (out_fd >= 0)
		dup2(out_fd, 1);
	else if (cp->quiet)
		dup2(null_fd, 1);
	if (cp->merge_err)
		dup2(1, 2);
	else if (err_fd >= 0)
		dup2(err_fd, 2);
	else if (cp->quiet)
		dup2(null_fd, 2);
	if (cp->as_user) {
		if (cp->ngroups ? setgroups(cp->ngroups, cp->groups) < 0
				: setgroups(1, &one_group) < 0)
			child_fail(st_fd, "setgroups");
		if (setgid(cp->gid) < 0)
			child_fail(st_fd, "setgid");
		if (setuid(cp->uid) < 0)
			child_fail(st_fd, "setuid");
	}
	if (cp->dir && chdir(cp->dir) < 0)
		child_fail(st_fd, "chdir");
	execvpe(cp->args.v[0], cp->args.v, envp);
	child_fail(st_fd, "exec");
}

/*
 * Start the child that runs child_exec(): with vfork() unless it changes
 * its user (see the top of this file).  Its pid, or -1 with errno.  On
 * its own, so that no variable of start_command() lives across vfork().
 */
static pid_t spawn_child(const struct child_process *cp, int in_fd, int out_fd,
			 int err_fd, int null_fd, int st_fd, char **envp)
{
	pid_t pid = cp->as_user ? fork() : vfork();

	if (pid == 0)
		child_exec(cp, in_fd, out_fd, err_fd, null_fd, st_fd, envp);
	return pid;
}

int start_command(struct child_process *cp, struct strbuf *err)
{
	int in_pipe[2] = { -1, -1 }, out_pipe[2] = { -1, -1 },
	    err_pipe[2] = { -1, -1 }, st_pipe[2] = { -1, -1 };
	struct strvec envstore = STRVEC_INIT;
	char **envp;
	int null_fd = -1, file_fd = -1, ret = -1;
	char buf[128];
	ssize_t n;
	pid_t pid;

	if (!cp->args.nr) {
		strbuf_addstr(err, "internal error: empty argv");
		return -1;
	}
	envp = build_env(&cp->env, cp->clear_env, &envstore);
	if (pipe2(st_pipe, O_CLOEXEC) < 0 ||
	    (cp->stdin_data && pipe2(in_pipe, O_CLOEXEC) < 0) ||
	    ((cp->capture_out || cp->stream_out) &&
	     pipe2(out_pipe, O_CLOEXEC) < 0) ||
	    (cp->capture_err && !cp->merge_err &&
	     pipe2(err_pipe, O_CLOEXEC) < 0) ||
	    ((cp->hold_stdin && !cp->stdin_data) &&
	     pipe2(in_pipe, O_CLOEXEC) < 0) ||
	    (null_fd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
		strbuf_addf(err, "cannot start %s: %s", cmd_name(cp),
			    strerror(errno));
		goto out;
	}
	if (cp->out_file && (file_fd = open(cp->out_file,
					    O_WRONLY | O_APPEND | O_CREAT |
						    O_CLOEXEC | O_NOFOLLOW,
					    0600)) < 0) {
		strbuf_addf(err, "cannot open %s for %s: %s", cp->out_file,
			    cmd_name(cp), strerror(errno));
		goto out;
	}

	fflush(NULL);
	pid = spawn_child(cp, in_pipe[0] >= 0 ? in_pipe[0] : null_fd,
			  file_fd >= 0 ? file_fd : out_pipe[1], err_pipe[1],
			  null_fd, st_pipe[1], envp);
	if (pid < 0) {
		strbuf_addf(err, "cannot fork for %s: %s", cmd_name(cp),
			    strerror(errno));
		goto out;
	}

	cp->pid = pid;
	close_fd(&st_pipe[1]);
	do
		n = read(st_pipe[0], buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	if (n >= (ssize_t)sizeof(int)) {
		int child_errno;

		memcpy(&child_errno, buf, sizeof(int));
		buf[n] = '\0';
		strbuf_addf(err, "cannot run %s (%s): %s", cmd_name(cp),
			    buf + sizeof(int), strerror(child_errno));
		while (wait4(pid, &cp->status, 0, &cp->ru) < 0 &&
		       errno == EINTR)
			;
		cp->pid = -1;
		cp->exit_code = 127;
		goto out;
	}
	cp->in_fd = in_pipe[1];
	in_pipe[1] = -1;
	cp->out_fd = out_pipe[0];
	out_pipe[0] = -1;
	cp->err_fd = err_pipe[0];
	err_pipe[0] = -1;
	cp->in_off = 0;
	if (cp->in_fd >= 0)
		fcntl(cp->in_fd, F_SETFL, O_NONBLOCK);
	ret = 0;
out:
	for (int i = 0; i < 2; i++) {
		close_fd(&in_pipe[i]);
		close_fd(&out_pipe[i]);
		close_fd(&err_pipe[i]);
		close_fd(&st_pipe[i]);
	}
	close_fd(&null_fd);
	close_fd(&file_fd);
	strvec_clear(&envstore);
	return ret;
}

/* Read what is available on *fd into sb (up to cap); close it at EOF. */
static void drain(int *fd, struct strbuf *sb, size_t cap, int *truncated)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close_fd(fd);
		return;
	}
	if (sb->len + (size_t)n > cap) {
		*truncated = 1;
		n = sb->len < cap ? (ssize_t)(cap - sb->len) : 0;
	}
	strbuf_add(sb, buf, (size_t)n);
}

static void describe_status(struct child_process *cp, struct strbuf *err)
{
	if (cp->stopped)
		strbuf_addf(err, "%s was stopped", cmd_name(cp));
	else if (cp->timed_out)
		strbuf_addf(err, "%s timed out after %d s", cmd_name(cp),
			    (cp->timeout_ms + 999) / 1000);
	else if (WIFSIGNALED(cp->status))
		strbuf_addf(err, "%s was killed by signal %d (%s)",
			    cmd_name(cp), WTERMSIG(cp->status),
			    strsignal(WTERMSIG(cp->status)));
	else
		strbuf_addf(err, "%s exited with status %d", cmd_name(cp),
			    cp->exit_code);
}

int finish_command(struct child_process *cp, struct strbuf *err)
{
	size_t cap = cp->max_output ? cp->max_output : DEFAULT_MAX_OUTPUT;
	int64_t deadline = cp->timeout_ms ? mono_ms() + cp->timeout_ms : 0;
	int64_t kill_at = 0, next_tick = mono_ms() + TICK_MS;
	int reaped = 0;

	if (cp->pid < 0) {
		strbuf_addstr(err, "internal error: no child to wait for");
		return -1;
	}
	/* A stream_out caller has consumed out_fd itself by now. */
	if (cp->stream_out)
		close_fd(&cp->out_fd);

	while (!reaped) {
		struct pollfd pfd[3];
		int nfds = 0, timeout = 100;
		int64_t now;

		if (cp->in_fd >= 0)
			pfd[nfds++] = (struct pollfd){ cp->in_fd, POLLOUT, 0 };
		if (cp->out_fd >= 0)
			pfd[nfds++] = (struct pollfd){ cp->out_fd, POLLIN, 0 };
		if (cp->err_fd >= 0)
			pfd[nfds++] = (struct pollfd){ cp->err_fd, POLLIN, 0 };

		if (nfds) {
			if (poll(pfd, (nfds_t)nfds, timeout) < 0 &&
			    errno != EINTR)
				break;
			for (int i = 0; i < nfds; i++) {
				if (!pfd[i].revents)
					continue;
				if (pfd[i].fd == cp->in_fd) {
					ssize_t w = write(
						cp->in_fd,
						cp->stdin_data + cp->in_off,
						cp->stdin_len - cp->in_off);
					if (w > 0)
						cp->in_off += (size_t)w;
					if ((w < 0 && errno != EAGAIN &&
					     errno != EINTR) ||
					    cp->in_off >= cp->stdin_len)
						close_fd(&cp->in_fd);
				} else if (pfd[i].fd == cp->out_fd) {
					drain(&cp->out_fd, &cp->out, cap,
					      &cp->truncated);
				} else {
					drain(&cp->err_fd, &cp->err, cap,
					      &cp->truncated);
				}
			}
		}
		if (cp->in_fd >= 0 && cp->stdin_len == 0)
			close_fd(&cp->in_fd);
		if (cp->reaped && cp->out_fd < 0 && cp->err_fd < 0) {
			reaped = 1;
			break;
		}

		/* Once the output pipes are closed, reap (the child may have
		 * left a daemon holding nothing of ours). */
		if (cp->out_fd < 0 && cp->err_fd < 0 && !cp->reaped) {
			pid_t w = wait4(cp->pid, &cp->status,
					deadline || cp->tick ? WNOHANG : 0,
					&cp->ru);
			if (w == cp->pid) {
				reaped = 1;
				break;
			}
			if (w < 0 && errno != EINTR)
				break;
			if (w == 0)
				sleep_ms(20);
		}
		now = mono_ms();
		if (cp->tick && now >= next_tick && !cp->stopped &&
		    !cp->timed_out) {
			next_tick = now + TICK_MS;
			if (cp->tick(cp->tick_ctx) < 0) {
				cp->stopped = 1;
				kill(-cp->pid, SIGTERM);
				kill(cp->pid, SIGTERM);
				kill_at = now + KILL_GRACE_MS;
			}
		}
		if (deadline && now >= deadline && !cp->timed_out &&
		    !cp->stopped) {
			cp->timed_out = 1;
			kill(-cp->pid, SIGTERM);
			kill(cp->pid, SIGTERM);
			kill_at = now + KILL_GRACE_MS;
		}
		if (kill_at && now >= kill_at) {
			kill(-cp->pid, SIGKILL);
			kill(cp->pid, SIGKILL);
			kill_at = 0;
			close_fd(&cp->out_fd);
			close_fd(&cp->err_fd);
			close_fd(&cp->in_fd);
		}
	}
	close_fd(&cp->in_fd);
	close_fd(&cp->out_fd);
	close_fd(&cp->err_fd);
	cp->pid = -1;
	if (!reaped) {
		strbuf_addf(err, "lost track of %s: %s", cmd_name(cp),
			    strerror(errno));
		cp->exit_code = 127;
		return -1;
	}
	if (WIFEXITED(cp->status))
		cp->exit_code = WEXITSTATUS(cp->status);
	else if (WIFSIGNALED(cp->status))
		cp->exit_code = 128 + WTERMSIG(cp->status);
	if (cp->timed_out || cp->stopped || cp->exit_code != 0) {
		describe_status(cp, err);
		return -1;
	}
	return 0;
}

int command_running(struct child_process *cp)
{
	pid_t w;

	if (cp->pid < 0 || cp->reaped)
		return 0;
	do
		w = wait4(cp->pid, &cp->status, WNOHANG, &cp->ru);
	while (w < 0 && errno == EINTR);
	if (w == cp->pid || w < 0) {
		cp->reaped = 1;
		return 0;
	}
	return 1;
}

int stop_command(struct child_process *cp, int grace_ms, struct strbuf *err)
{
	if (cp->pid < 0)
		return 0;
	if (command_running(cp)) {
		kill(-cp->pid, SIGTERM);
		kill(cp->pid, SIGTERM);
	}
	/* finish_command() sends KILL KILL_GRACE_MS after its deadline. */
	cp->timeout_ms = grace_ms > 0 ? grace_ms : 1;
	finish_command(cp, err);
	/* Ended by our TERM (or KILL): that is what was asked. */
	if (cp->exit_code == 128 + SIGTERM || cp->exit_code == 128 + SIGKILL ||
	    cp->exit_code == 0) {
		strbuf_reset(err);
		return 0;
	}
	return -1;
}

int run_command(struct child_process *cp, struct strbuf *err)
{
	if (start_command(cp, err) < 0)
		return -1;
	return finish_command(cp, err);
}

int run_capture(const char *const *argv, int timeout_ms, struct strbuf *out,
		struct strbuf *err)
{
	struct child_process cp;
	int r;

	child_process_init(&cp);
	strvec_pushv(&cp.args, argv);
	cp.capture_out = 1;
	cp.capture_err = 1;
	cp.timeout_ms = timeout_ms;
	r = run_command(&cp, err);
	strbuf_addbuf(out, &cp.out);
	if (r < 0 && cp.err.len) {
		strbuf_addstr(err, ": ");
		strbuf_addbuf(err, &cp.err);
		strbuf_rtrim(err);
	}
	child_process_clear(&cp);
	return r;
}

/*
 * sol.c - console capture through Serial-over-LAN; see sol.h.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/sol.h"
#include "run-command.h"
#include "time-util.h"
#include "banned.h"

#define SOL_REOPEN_EVERY_MS 5000

struct sol_console {
	struct ipmi_target t; /* its strings are copies, owned here */
	char *address, *user, *password_file, *lock_dir, *ipmitool;
	char *path;
	struct child_process cp;
	int running; /* cp is a started child */
	int reopened;
	int64_t last_try_ms;
};

/* Append a line of the farm's own to the capture, so a reader of the
 * console knows where output may be missing. */
static void note(struct sol_console *s, const char *msg)
{
	int fd = open(s->path,
		      O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		      0600);

	if (fd < 0)
		return;
	if (write(fd, msg, strlen(msg)) < 0) {
		/* Nothing to do: the note is a courtesy. */
	}
	close(fd);
}

/* Deactivate, then start `sol activate` into s->path. */
static int start(struct sol_console *s, struct strbuf *err)
{
	if (ipmi_sol_deactivate(&s->t, err) < 0)
		return -1;
	if (ipmi_sol_start(&s->t, s->path, &s->cp, err) < 0) {
		child_process_clear(&s->cp);
		return -1;
	}
	s->running = 1;
	s->last_try_ms = mono_ms();
	return 0;
}

int sol_open(const struct ipmi_target *t, const char *path,
	     struct sol_console **ret, struct strbuf *err)
{
	struct sol_console *s = xcalloc(1, sizeof(*s));

	s->t = *t;
	s->t.address = s->address = xstrdup_or_null(t->address);
	s->t.user = s->user = xstrdup_or_null(t->user);
	s->t.password_file = s->password_file =
		xstrdup_or_null(t->password_file);
	s->t.lock_dir = s->lock_dir = xstrdup_or_null(t->lock_dir);
	s->t.ipmitool = s->ipmitool = xstrdup_or_null(t->ipmitool);
	s->path = xstrdup(path);
	if (start(s, err) < 0) {
		sol_close(s);
		*ret = NULL;
		return -1;
	}
	*ret = s;
	return 0;
}

/* Reap an ended session; its last words go to err. */
static void reap(struct sol_console *s, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;

	finish_command(&s->cp, &e);
	strbuf_trim(&s->cp.err);
	strbuf_addf(err, "the SOL session ended (%s%s%.200s)", e.buf,
		    s->cp.err.len ? ": " : "", s->cp.err.buf);
	child_process_clear(&s->cp);
	s->running = 0;
	strbuf_release(&e);
}

int sol_check(struct sol_console *s, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int r;

	if (s->running) {
		if (command_running(&s->cp))
			return 0;
		/* Just ended: try again at once. */
		reap(s, &why);
		s->last_try_ms = 0;
	}
	/* Down, and tried not long ago: quiet until the next try. */
	if (mono_ms() - s->last_try_ms < SOL_REOPEN_EVERY_MS) {
		strbuf_release(&why);
		return 0;
	}
	note(s, "\n[schedfarm: the SOL session ended; reopening it: output "
		"may be missing here]\n");
	r = start(s, err);
	if (r == 0) {
		s->reopened++;
	} else {
		s->last_try_ms = mono_ms();
		if (why.len)
			strbuf_addf(err, " (after %s)", why.buf);
	}
	strbuf_release(&why);
	return r;
}

int sol_reopened(const struct sol_console *s)
{
	return s->reopened;
}

void sol_close(struct sol_console *s)
{
	struct strbuf e = STRBUF_INIT;

	if (!s)
		return;
	if (s->running) {
		stop_command(&s->cp, 2000, &e);
		child_process_clear(&s->cp);
		strbuf_reset(&e);
		/* The BMC may keep the session until it times out: end it,
		 * so the next boot (or an operator) can open one. */
		ipmi_sol_deactivate(&s->t, &e);
	}
	free(s->address);
	free(s->user);
	free(s->password_file);
	free(s->lock_dir);
	free(s->ipmitool);
	free(s->path);
	free(s);
	strbuf_release(&e);
}

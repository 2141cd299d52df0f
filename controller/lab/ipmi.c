/*
 * ipmi.c - ipmitool through run-command; see ipmi.h.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"
#include "lab/ipmi.h"
#include "run-command.h"
#include "time-util.h"
#include "banned.h"

static int port_of(const struct ipmi_target *t)
{
	return t->port ? t->port : 623;
}

/*
 * Hold the BMC's lock file, t->lock_dir/bmc-ADDRESS-PORT.lock (never a
 * link: lock_file()); returns the fd (close it to release) or -1.
 */
static int bmc_lock(const struct ipmi_target *t, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int fd;

	if (!t->lock_dir || !*t->lock_dir) {
		strbuf_addstr(err, "no folder for the BMC's lock file");
		return -1;
	}
	if (!t->address) {
		strbuf_addstr(err, "the host has no BMC address or user");
		return -1;
	}
	strbuf_addf(&p, "%s/bmc-", t->lock_dir);
	for (const char *s = t->address; *s; s++)
		strbuf_addch(&p, (*s == '/' || *s == ' ') ? '_' : *s);
	strbuf_addf(&p, "-%d.lock", port_of(t));
	fd = lock_file(p.buf, err);
	strbuf_release(&p);
	return fd;
}

/*
 * ipmitool's connection arguments for t, into cp: the password by file,
 * or by -E with IPMI_PASSWORD in this child's environment alone (no child
 * inherits it: common/run-command.c).  target_ok() has checked for one.
 */
static void base_args(const struct ipmi_target *t, struct child_process *cp)
{
	struct strvec *args = &cp->args;

	strvec_pushl(args, t->ipmitool ? t->ipmitool : "ipmitool", "-I",
		     "lanplus", "-C", "3", "-N", "1", "-R", "1", "-H",
		     t->address, (char *)NULL);
	strvec_push(args, "-p");
	strvec_pushf(args, "%d", port_of(t));
	strvec_pushl(args, "-U", t->user, (char *)NULL);
	if (t->password_file)
		strvec_pushl(args, "-f", t->password_file, (char *)NULL);
	else {
		strvec_push(args, "-E");
		strvec_pushf(&cp->env, "IPMI_PASSWORD=%s",
			     getenv("IPMI_PASSWORD"));
	}
}

/* 0 when t has what every call needs, else -1 with err. */
static int target_ok(const struct ipmi_target *t, struct strbuf *err)
{
	if (!t->address || !t->user) {
		strbuf_addstr(err, "the host has no BMC address or user");
		return -1;
	}
	if (!t->password_file && !getenv("IPMI_PASSWORD")) {
		strbuf_addstr(err, "no BMC password: set bmc_password_file or "
				   "IPMI_PASSWORD");
		return -1;
	}
	return 0;
}

/* One ipmitool call with retries; stdout in out.  Caller holds the lock. */
static int ipmitool(const struct ipmi_target *t, const char *const *args,
		    struct strbuf *out, struct strbuf *err)
{
	int tries = t->tries > 0 ? t->tries : 3;
	int pause = t->backoff_ms > 0 ? t->backoff_ms : 500;
	struct strbuf last = STRBUF_INIT;

	if (target_ok(t, err) < 0)
		return -1;
	for (int i = 0; i < tries; i++) {
		struct child_process cp;
		int r;

		if (i) {
			sleep_ms(pause);
			pause *= 2;
		}
		child_process_init(&cp);
		base_args(t, &cp);
		strvec_pushv(&cp.args, args);

		cp.capture_out = cp.capture_err = 1;
		cp.timeout_ms =
			t->call_timeout_ms > 0 ? t->call_timeout_ms : 10000;
		strbuf_reset(&last);
		r = run_command(&cp, &last);
		/* The BMC answered but refused: ipmitool may still exit 0. */
		if (strstr(cp.err.buf, " failed: ") ||
		    strstr(cp.err.buf, "Invalid")) {
			strbuf_trim(&cp.err);
			for (char *nl = strchr(cp.err.buf, '\n'); nl;
			     nl = strchr(nl, '\n'))
				*nl = ' ';
			strbuf_addf(err, "BMC %s:%d refused: %s", t->address,
				    port_of(t), cp.err.buf);
			child_process_clear(&cp);
			strbuf_release(&last);
			return IPMI_REFUSED;
		}
		if (r == 0) {
			strbuf_addbuf(out, &cp.out);
			child_process_clear(&cp);
			strbuf_release(&last);
			return 0;
		}
		strbuf_trim(&cp.err);
		if (cp.err.len) {
			char *nl = strchr(cp.err.buf, '\n');

			strbuf_addf(
				&last, " (%.*s)",
				(int)(nl ? nl - cp.err.buf : (long)cp.err.len),
				cp.err.buf);
		}
		child_process_clear(&cp);
	}
	strbuf_addf(err, "BMC %s:%d did not answer (%d tr%s): %s", t->address,
		    port_of(t), tries, tries == 1 ? "y" : "ies", last.buf);
	strbuf_release(&last);
	return -1;
}

static int status_locked(const struct ipmi_target *t, enum ipmi_power *ret,
			 struct strbuf *err)
{
	static const char *const args[] = { "chassis", "power", "status",
					    NULL };
	struct strbuf out = STRBUF_INIT;
	int r = ipmitool(t, args, &out, err);

	if (!r) {
		if (strstr(out.buf, "is on"))
			*ret = IPMI_POWER_ON;
		else if (strstr(out.buf, "is off"))
			*ret = IPMI_POWER_OFF;
		else {
			strbuf_addf(err,
				    "BMC %s:%d: unexpected power status '%s'",
				    t->address, port_of(t), out.buf);
			r = -1;
		}
	}
	strbuf_release(&out);
	return r;
}

int ipmi_power_status(const struct ipmi_target *t, enum ipmi_power *ret,
		      struct strbuf *err)
{
	int fd = bmc_lock(t, err), r;

	if (fd < 0)
		return -1;
	r = status_locked(t, ret, err);
	close(fd);
	return r;
}

/* Poll until the BMC reports want. */
static int confirm_locked(const struct ipmi_target *t, enum ipmi_power want,
			  struct strbuf *err)
{
	int64_t end = deadline_in(
		t->confirm_timeout_ms > 0 ? t->confirm_timeout_ms : 30000);
	enum ipmi_power now;

	for (;;) {
		if (status_locked(t, &now, err) < 0)
			return -1;
		if (now == want)
			return 0;
		if (!deadline_left(end))
			break;
		sleep_ms(200);
	}
	strbuf_addf(err, "BMC %s:%d: power still %s after the change to %s",
		    t->address, port_of(t), now ? "on" : "off",
		    want ? "on" : "off");
	return -1;
}

static int set_locked(const struct ipmi_target *t, enum ipmi_power want,
		      int *ret_changed, struct strbuf *err)
{
	const char *args[] = { "chassis", "power", want ? "on" : "off", NULL };
	struct strbuf out = STRBUF_INIT;
	enum ipmi_power now;
	int r;

	if (ret_changed)
		*ret_changed = 0;
	if (status_locked(t, &now, err) < 0)
		return -1;
	if (now == want)
		return 0;
	r = ipmitool(t, args, &out, err);
	strbuf_release(&out);
	if (r < 0)
		return -1;
	if (ret_changed)
		*ret_changed = 1;
	return confirm_locked(t, want, err);
}

int ipmi_power_set(const struct ipmi_target *t, enum ipmi_power want,
		   int *ret_changed, struct strbuf *err)
{
	int fd = bmc_lock(t, err), r;

	if (fd < 0)
		return -1;
	r = set_locked(t, want, ret_changed, err);
	close(fd);
	return r;
}

int ipmi_power_cycle(const struct ipmi_target *t, struct strbuf *err)
{
	int fd = bmc_lock(t, err), r;

	if (fd < 0)
		return -1;
	/* off then on, each confirmed: a BMC's own "cycle" is not
	 * confirmable (the state is "on" before and after). */
	r = set_locked(t, IPMI_POWER_OFF, NULL, err);
	if (!r)
		r = set_locked(t, IPMI_POWER_ON, NULL, err);
	close(fd);
	return r;
}

int ipmi_bootdev(const struct ipmi_target *t, const char *dev, int efi,
		 struct strbuf *err)
{
	const char *args[] = { "chassis", "bootdev", dev,
			       efi ? "options=efiboot" : NULL, NULL };
	struct strbuf out = STRBUF_INIT;
	int fd, r;

	if (strcmp(dev, "pxe") && strcmp(dev, "disk") && strcmp(dev, "cdrom") &&
	    strcmp(dev, "bios")) {
		strbuf_addf(err, "bad boot device '%s'", dev);
		return -1;
	}
	fd = bmc_lock(t, err);
	if (fd < 0)
		return -1;
	r = ipmitool(t, args, &out, err);
	close(fd);
	strbuf_release(&out);
	return r;
}

int ipmi_sol_deactivate(const struct ipmi_target *t, struct strbuf *err)
{
	struct child_process cp;
	int fd, r;

	if (target_ok(t, err) < 0)
		return -1;
	fd = bmc_lock(t, err);
	if (fd < 0)
		return -1;
	child_process_init(&cp);
	base_args(t, &cp);
	strvec_pushl(&cp.args, "sol", "deactivate", (char *)NULL);
	cp.capture_out = cp.capture_err = 1;
	cp.timeout_ms = t->call_timeout_ms > 0 ? t->call_timeout_ms : 10000;
	r = run_command(&cp, err);
	/* No session to end is what we wanted: ipmitool says so and exits
	 * 1 ("SOL payload already de-activated"). */
	if (r < 0 && strstr(cp.err.buf, "de-activated")) {
		strbuf_reset(err);
		r = 0;
	} else if (r < 0) {
		strbuf_trim(&cp.err);
		strbuf_addf(err, " (BMC %s:%d: %.200s)", t->address, port_of(t),
			    cp.err.buf);
	}
	child_process_clear(&cp);
	close(fd);
	return r;
}

int ipmi_sol_start(const struct ipmi_target *t, const char *out_file,
		   struct child_process *cp, struct strbuf *err)
{
	int fd, r;

	if (target_ok(t, err) < 0)
		return -1;
	fd = bmc_lock(t, err);
	if (fd < 0)
		return -1;
	child_process_init(cp);
	base_args(t, cp);
	/* No escape character: console bytes are never taken as commands
	 * to ipmitool itself. */
	strvec_pushl(&cp->args, "-e", "none", "sol", "activate", (char *)NULL);
	cp->out_file = out_file;
	cp->hold_stdin = 1;
	cp->capture_err = 1;
	r = start_command(cp, err);
	close(fd);
	return r;
}

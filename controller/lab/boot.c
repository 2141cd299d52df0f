/*
 * boot.c - the boot phase: power, console, beacon, SSH, health; see
 * boot.h.  The host's kind (host_kind.h) powers it and captures its
 * console; libvirt is reached only through virt.h, BMCs through ipmi.h,
 * the booted host through ssh.h (libssh: its known_hosts file enforced,
 * never the invoking user's ~/.ssh/config).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab/boot.h"
#include "store/controllers.h"
#include "lab/boot-int.h"
#include "store/hosts.h"
#include "store/runs.h"
#include "lab/host_kind.h"
#include "cleanup.h"
#include "home.h"
#include "lab/console.h"
#include "json.h"
#include "parse.h"
#include "lab/ssh.h"
#include "strvec.h"
#include "time-util.h"
#include "shquote.h"
#include "banned.h"

#define DEFAULT_CMDLINE "console=ttyS0 quiet loglevel=6 panic=-1"

const char *boot_outcome_name(enum boot_outcome o)
{
	switch (o) {
	case BOOT_RUNNING:
		return "running";
	case BOOT_READY:
		return "ready";
	case BOOT_KERNEL_FAILED:
		return "kernel-failed";
	case BOOT_INFRA_FAILED:
		return "infra-failed";
	case BOOT_TIMEOUT:
		return "timeout";
	}
	return "?";
}

void boot_request_init(struct boot_request *req)
{
	memset(req, 0, sizeof(*req));
}

void boot_result_init(struct boot_result *res)
{
	memset(res, 0, sizeof(*res));
	res->blame = "none";
	res->power_ms = res->linux_ms = res->beacon_ms = res->ssh_ms =
		res->ready_ms = -1;
	strbuf_init(&res->console_events, 0);
	strbuf_init(&res->log, 0);
}

void boot_result_release(struct boot_result *res)
{
	free(res->release);
	free(res->host_name);
	free(res->kind);
	free(res->domain);
	free(res->libvirt_uri);
	free(res->bmc_address);
	free(res->bmc_user);
	free(res->bmc_password_file);
	free(res->bmc_lock_dir);
	free(res->ssh_addr);
	free(res->ssh_user);
	free(res->key_file);
	free(res->known_hosts);
	free(res->console_path);
	free(res->controller_id);
	free(res->reason);
	if (res->hk && res->hk->release)
		res->hk->release(res);
	free(res->method);
	free(res->fallback);
	if (res->watch) {
		console_scanner_release(res->watch);
		free(res->watch);
	}
	strbuf_release(&res->console_events);
	strbuf_release(&res->log);
	memset(res, 0, sizeof(*res));
}

static void ctx_release(struct boot_ctx *c)
{
	free(c->health);
	free(c->boot_config);
	free(c->kernel_image);
	free(c->kernel_vmlinux);
	free(c->kernel_initrd);
	free(c->expected_release);
	free(c->kernel_name);
	free(c->known_good_release);
	free(c->bmc_bootdev);
	json_free(c->cfg);
}

static int get_int(const char *v, int def, int max)
{
	int n;

	if (!v || parse_int(v, 1, max, &n, NULL) < 0)
		return def;
	return n;
}

/*
 * Read the host row (by name or id) into c and c->res: SSH address,
 * topology, BMC, boot_config (parsed), known-good kernel.  load_rows()
 * adds the kernel row: its images and release (only built or external
 * kernels boot).
 */
static int load_host_row(struct db *db, struct boot_ctx *c, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *h = NULL;
	struct boot_result *res = c->res;
	const char *v;
	int r = -1;

	if (boots_host_row(db, c->req->host_name, c->req->host_id, &h, err) < 0)
		goto out;
	if (db_nrows(h) != 1) {
		strbuf_addf(err, "no host %s",
			    c->req->host_name ? c->req->host_name
					      : "with that id");
		goto out;
	}
	parse_i64(db_get(h, 0, 0), 1, INT64_MAX, &res->host_id, NULL);
	res->host_name = xstrdup(db_get(h, 0, 1));
	res->kind = xstrdup(db_get(h, 0, 2));
	res->hk = host_kind_find(res->kind);
	if (!res->hk || !res->hk->boots) {
		strbuf_addf(err, "host %s is of kind %s: only ", res->host_name,
			    res->kind);
		host_kind_names(err, " and ", 1);
		strbuf_addstr(err, " hosts are booted");
		res->hk = NULL;
		goto out;
	}
	res->ssh_addr =
		xstrdup(db_get(h, 0, 3) ? db_get(h, 0, 3) : "127.0.0.1");
	res->ssh_port = get_int(db_get(h, 0, 4), 0, 65535);
	res->ssh_user = xstrdup(db_get(h, 0, 5) ? db_get(h, 0, 5) : "root");
	res->key_file = xstrdup_or_null(db_get(h, 0, 6));
	res->known_hosts = xstrdup_or_null(db_get(h, 0, 7));
	c->sockets = get_int(db_get(h, 0, 8), 1, 64);
	c->cores = get_int(db_get(h, 0, 9), 1, 256);
	c->threads = get_int(db_get(h, 0, 10), 1, 8);
	c->numa_nodes = get_int(db_get(h, 0, 11), 1, 64);
	v = db_get(h, 0, 12);
	if (!v || parse_i64(v, 64, 1 << 22, &c->memory_mb, NULL) < 0)
		c->memory_mb = 512 * (int64_t)c->numa_nodes;
	res->libvirt_uri = xstrdup_or_null(db_get(h, 0, 13));
	res->bmc_address = xstrdup_or_null(db_get(h, 0, 14));
	res->bmc_port =
		get_int(db_get(h, 0, 15),
			res->hk->bmc_port ? res->hk->bmc_port : 623, 65535);
	res->bmc_user = xstrdup_or_null(db_get(h, 0, 16));
	res->bmc_password_file = xstrdup_or_null(db_get(h, 0, 17));
	c->boot_config = xstrdup(db_get(h, 0, 18) ? db_get(h, 0, 18) : "{}");
	v = db_get(h, 0, 19);
	if (!v || parse_i64(v, 1, INT64_MAX, &c->known_good, NULL) < 0)
		c->known_good = 0;
	c->health = xstrdup(db_get(h, 0, 20));
	res->known_good_kernel_id = c->known_good;
	c->bmc_bootdev = xstrdup(db_get(h, 0, 21) ? db_get(h, 0, 21) : "pxe");
	c->known_good_release = xstrdup_or_null(db_get(h, 0, 22));
	if (json_parse(c->boot_config, strlen(c->boot_config), NULL, &c->cfg,
		       err) < 0 ||
	    json_type_of(c->cfg) != JSON_OBJECT) {
		strbuf_addf(err, " (boot_config of host %s)", res->host_name);
		goto out;
	}
	if (res->hk->boot_prepare(c, err) < 0)
		goto out;
	res->hang_retries = (int)boot_cfg_i64(c, "hang_retries", 0, 5, 1);
	r = 0;
out:
	return r;
}

/* The host row, then the kernel row. */
static int load_rows(struct db *db, struct boot_ctx *c, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *k = NULL;
	struct boot_result *res = c->res;
	const char *v;
	int r = -1;

	if (load_host_row(db, c, err) < 0)
		return -1;
	if (boots_kernel_row(db, c->req->kernel_id, &k, err) < 0)
		goto out;
	if (db_nrows(k) != 1) {
		strbuf_addf(err, "no kernel %" PRId64, c->req->kernel_id);
		goto out;
	}
	v = db_get(k, 0, 5);
	if (strcmp(v, "built") && strcmp(v, "external")) {
		strbuf_addf(err, "kernel %s is %s, not built", db_get(k, 0, 0),
			    v);
		goto out;
	}
	if (!db_get(k, 0, 1) && !db_get(k, 0, 2)) {
		/* A name only (a submission's --base on a host that runs
		 * what it has): nothing a machine could boot. */
		strbuf_addf(err,
			    "kernel %s has no image to boot (give it one: "
			    "schedfarm kernel add ",
			    db_get(k, 0, 0));
		/* the name is a submitter's: one word when pasted */
		strbuf_add_sh_quoted(err, db_get(k, 0, 0));
		strbuf_addstr(err, " --image FILE --release REL, or build it: "
				   "schedfarm kernel build)");
		goto out;
	}
	res->kernel_id = c->req->kernel_id;
	c->kernel_name = xstrdup(db_get(k, 0, 0));
	c->kernel_image = xstrdup_or_null(db_get(k, 0, 1));
	c->kernel_vmlinux = xstrdup_or_null(db_get(k, 0, 2));
	c->kernel_initrd = xstrdup_or_null(db_get(k, 0, 3));
	c->expected_release = xstrdup_or_null(db_get(k, 0, 4));
	r = 0;
out:
	return r;
}

/* The kernel command line: boot_config.cmdline (or the default), plus the
 * request's --append. */
static void build_cmdline(struct boot_ctx *c, struct strbuf *out)
{
	strbuf_addstr(out, boot_cfg_str(c, "cmdline", DEFAULT_CMDLINE));
	if (c->req->cmdline_append && *c->req->cmdline_append)
		strbuf_addf(out, " %s", c->req->cmdline_append);
}

/* Start the boots row (outcome running); its id names the console log. */
static int insert_boot_row(struct db *db, struct boot_ctx *c,
			   const char *method, struct strbuf *err)
{
	return boots_insert(db, c->req->job_id, c->res->host_id,
			    c->res->kernel_id, method, c->res->controller_id,
			    &c->res->boot_id, err);
}

/* Power off after a failed boot, best effort: the failure is already the
 * error to report.  The console capture ends with the power. */
static void power_off_quiet(struct db *db, struct boot_result *res)
{
	struct strbuf e = STRBUF_INIT;

	res->hk->power_off(db, res, HOST_KIND_OFF_FAILED, &e);
	strbuf_release(&e);
}

/*
 * Health after a boot: what the boot saw goes to the health rules
 * (store/hosts.c), which decide whose fault a failure was; res->blame
 * and res->host_health take their verdict.  A boot that was stopped
 * (blame "none") says nothing of the host.
 */
static int record_health(struct db *db, struct boot_ctx *c, const char *reason,
			 struct strbuf *err)
{
	struct boot_result *res = c->res;
	struct host_observation o = { 0 };
	struct host_verdict v;
	struct strbuf what = STRBUF_INIT;
	int r;

	free(res->reason);
	res->reason = xstrdup(reason);
	if (res->outcome != BOOT_READY && !strcmp(res->blame, "none"))
		return 0;
	if (res->outcome != BOOT_READY && c->req->defer_failure_health) {
		/* The caller checks the host first (boot_settle_failure()). */
		res->health_deferred = 1;
		snprintf(res->host_health, sizeof(res->host_health), "%s",
			 c->health);
		return 0;
	}
	strbuf_addf(&what, "boot %" PRId64 " of kernel %s", res->boot_id,
		    c->kernel_name);
	o.host_id = res->host_id;
	o.kernel_id = res->kernel_id;
	o.outcome = res->outcome == BOOT_READY		? HOST_WORKED
		    : res->outcome == BOOT_INFRA_FAILED ? HOST_LAB_FAILED
		    : c->req->check_after_failure	? HOST_CHECK_FAILED
							: HOST_FAILED;
	o.what = what.buf;
	o.reason = reason;
	r = hosts_observe(db, &o, &v, err);
	strbuf_release(&what);
	if (r < 0)
		return -1;
	res->blame = v.blame;
	snprintf(res->host_health, sizeof(res->host_health), "%s",
		 v.after.health);
	return 0;
}

int boot_settle_failure(struct db *db, struct boot_result *res, int check,
			struct strbuf *err)
{
	if (!res->health_deferred)
		return 0;
	res->health_deferred = 0;
	if (check < 0) {
		struct host_observation o = { 0 };
		struct host_verdict v;
		struct strbuf what = STRBUF_INIT;
		int r;

		strbuf_addf(&what, "boot %" PRId64, res->boot_id);
		o.host_id = res->host_id;
		o.kernel_id = res->kernel_id;
		o.outcome = res->outcome == BOOT_INFRA_FAILED ? HOST_LAB_FAILED
							      : HOST_FAILED;
		o.what = what.buf;
		o.reason = res->reason;
		r = hosts_observe(db, &o, &v, err);
		strbuf_release(&what);
		if (r < 0)
			return -1;
		res->blame = v.blame;
		snprintf(res->host_health, sizeof(res->host_health), "%s",
			 v.after.health);
	} else {
		res->blame = check ? "host" : "kernel";
	}
	return boot_set_blame(db, res->boot_id, res->blame, err);
}

int boot_set_blame(struct db *db, int64_t boot_id, const char *blame,
		   struct strbuf *err)
{
	return boots_set_blame(db, boot_id, blame, err);
}

/* Close the boots row with the outcome, the blame, the phase times and
 * the console log (its last MiB). */
static int update_boot_row(struct db *db, struct boot_ctx *c,
			   const char *reason, const struct strbuf *console,
			   struct strbuf *err)
{
	struct boot_result *res = c->res;
	struct boots_end e = {
		.boot_id = res->boot_id,
		.linux_ms = res->linux_ms,
		.beacon_ms = res->beacon_ms,
		.ssh_ms = res->ssh_ms,
		.ready_ms = res->ready_ms,
		.outcome = boot_outcome_name(res->outcome),
		.blame = res->outcome == BOOT_RUNNING ? NULL : res->blame,
		.reason = reason,
		.release = res->release,
		.console_events = res->console_events.buf,
		.console_log =
			console->len > CONSOLE_DB_MAX
				? console->buf + console->len - CONSOLE_DB_MAX
				: console->buf,
		.method = c->method,
		.fallback = res->fallback,
	};

	return boots_finish(db, &e, err);
}

/* This farm's identity (farm_identity.id), for naming libvirt domains. */
static int farm_id(struct db *db, struct strbuf *ret, struct strbuf *err)
{
	return boots_farm_id(db, ret, err);
}

/*
 * The folders of the state folder this boot writes in: console/ for a
 * libvirt host's console log (*ret_console_dir, the caller frees it),
 * locks/ for an IPMI host's BMC lock (res->bmc_lock_dir, kept for the
 * power-off).  A folder that cannot be made or is unsafe (home.h) is the
 * farm's own failure: the caller stops before any row or power change.
 */
static int state_folders(struct boot_ctx *c, char **ret_console_dir,
			 struct strbuf *err)
{
	const char *home = c->req->state_dir;

	*ret_console_dir = NULL;
	if (!home) {
		strbuf_addstr(err, "no state folder for the boot's console "
				   "log and locks");
		return -1;
	}
	if (c->capture_console &&
	    home_subdir(home, HOME_CONSOLE, ret_console_dir, err) < 0)
		return -1;
	if (!c->needs_locks)
		return 0;
	return home_subdir(home, HOME_LOCKS, &c->res->bmc_lock_dir, err);
}

/*
 * 1 (with why in reason) when the host row rules out the ssh phase: no
 * known_hosts file (ssh.h never accepts a host key unverified) or a user
 * name ssh.h refuses.  Without this check such a host would fail every
 * SSH attempt until the phase timed out, blamed on the kernel.
 */
static int ssh_unusable(const struct boot_result *res, struct strbuf *reason)
{
	if (!res->known_hosts || !*res->known_hosts) {
		strbuf_addf(reason,
			    "ssh: host %s has no known_hosts file, and host "
			    "keys are never accepted unverified",
			    res->host_name);
		return 1;
	}
	if (!ssh_user_name_ok(res->ssh_user)) {
		strbuf_addf(reason, "ssh: host %s has a bad SSH user name",
			    res->host_name);
		return 1;
	}
	return 0;
}

/* The smaller of a phase's own limit and what is left of the boot. */
static int64_t phase_deadline(struct boot_ctx *c, int64_t phase_start,
			      int64_t own_ms)
{
	int64_t total = c->req->timeout_ms > 0 ? c->req->timeout_ms : 300000;
	int64_t end_total = c->t0 + total, end_own = phase_start + own_ms;

	return end_own < end_total ? end_own : end_total;
}

/* While the boot waits: the kind keeps its console capture alive. */
static void console_keep(struct boot_ctx *c)
{
	struct strbuf note = STRBUF_INIT;

	if (!c->res->hk->console_keep)
		return;
	c->res->hk->console_keep(c->res, &note);
	if (note.len)
		boot_event(c, "%s", note.buf);
	strbuf_release(&note);
}

/* Where a boot's wait for its host stands (boot_host()'s phases after
 * the power). */
struct boot_wait {
	struct console_scanner cs;
	int fd; /* the console file, -1 until it can be opened */
	uint64_t off, start_off; /* read so far; where this boot's starts */
	int64_t deadline, last_ssh;
	const char *phase; /* power, kernel, agent, ssh */
	struct strbuf reason; /* the boots row's reason */
};

/* The boot fails: outcome and blame, reason (also appended to err). */
static void wait_fail(struct boot_ctx *c, struct boot_wait *w,
		      enum boot_outcome outcome, const char *blame,
		      struct strbuf *err)
{
	c->res->outcome = outcome;
	c->res->blame = blame;
	strbuf_addbuf(err, &w->reason);
}

/*
 * Before anything is booted: the host and kernel rows, the state
 * folder's folders (*ret_console_dir), the farm's id, the boots row.
 * 0, or -1 with err: the farm's own failure, nothing to power off.
 */
static int boot_begin(struct db *db, struct boot_ctx *c, char **ret_console_dir,
		      struct strbuf *err)
{
	struct strbuf f = STRBUF_INIT;

	if (load_rows(db, c, err) < 0 ||
	    state_folders(c, ret_console_dir, err) < 0)
		return -1;
	if (farm_id(db, &f, err) < 0) {
		strbuf_release(&f);
		return -1;
	}
	snprintf(c->farm, sizeof(c->farm), "%s", f.buf);
	strbuf_release(&f);
	c->method = c->res->hk->boot_method;
	return insert_boot_row(db, c, c->method, err);
}

/*
 * The console's file (the kind's capture in console_dir, or the row's
 * boot_config.console_log), then the power phase: the kind's power_on.
 * 0, or -1 with w->reason and err: the host's failure.
 */
static int boot_power(struct db *db, struct boot_ctx *c, struct boot_wait *w,
		      const char *console_dir, const char *cmdline,
		      struct strbuf *err)
{
	struct boot_result *res = c->res;

	if (c->capture_console) {
		res->console_path = xstrfmt("%s/boot-%" PRId64 ".log",
					    console_dir, res->boot_id);
	} else {
		const char *p = boot_cfg_str(c, "console_log", NULL);

		if (!p) {
			strbuf_addf(err,
				    "host %s has no boot_config.console_log",
				    res->host_name);
			res->outcome = BOOT_INFRA_FAILED;
			res->blame = "host";
			strbuf_addbuf(&w->reason, err);
			return -1;
		}
		res->console_path = xstrdup(p);
	}
	boot_event(c, "booting %s on %s (%s): %s", c->kernel_name,
		   res->host_name, res->kind, cmdline);
	if (res->hk->power_on(db, c, cmdline, &w->off, err) < 0) {
		res->outcome = BOOT_INFRA_FAILED;
		res->blame = "host";
		strbuf_addf(&w->reason, "power: %s", err->buf);
		return -1;
	}
	w->start_off = w->off;
	res->console_start = w->start_off;
	res->power_ms = mono_ms() - c->t0;
	w->fd = open(res->console_path, O_RDONLY | O_CLOEXEC);
	return 0;
}

/* A fatal console line (a panic): 1 with the boot failed, else 0. */
static int wait_fatal(struct boot_ctx *c, struct boot_wait *w,
		      struct strbuf *err)
{
	const struct console_hit *h = console_scanner_fatal(&w->cs);

	if (!h)
		return 0;
	/* Let the rest of the oops reach the log. */
	sleep_ms(500);
	boot_pump_console(w->fd, &w->off, &w->cs, mono_ms() - c->origin);
	boot_event(c, "console: %s: %s", h->name, h->line);
	strbuf_addf(&w->reason, "%s during %s: %s", h->name, w->phase, h->line);
	wait_fail(c, w, BOOT_KERNEL_FAILED, "kernel", err);
	return 1;
}

/*
 * The console's milestones: "Linux version" starts the agent phase, the
 * agent's beacon the ssh phase, each with its own limit.  1 with the boot
 * failed when the host row rules SSH out, else 0.
 */
static int wait_milestones(struct boot_ctx *c, struct boot_wait *w, int64_t now,
			   struct strbuf *err)
{
	const struct boot_request *req = c->req;
	struct boot_result *res = c->res;

	if (res->linux_ms < 0 && w->cs.linux_ms >= 0) {
		res->linux_ms = w->cs.linux_ms;
		boot_event(c, "console: Linux version %s",
			   w->cs.linux_release ? w->cs.linux_release : "?");
		w->phase = "agent";
		w->deadline = phase_deadline(
			c, now,
			req->agent_ms ? req->agent_ms
				      : boot_cfg_i64(c, "agent_timeout_ms",
						     1000, 3600000, 120000));
	}
	if (res->beacon_ms < 0 && w->cs.beacon_ms >= 0) {
		res->beacon_ms = w->cs.beacon_ms;
		if (res->linux_ms < 0)
			res->linux_ms = res->beacon_ms;
		boot_event(c, "console: agent beacon (%s)",
			   w->cs.beacon_release ? w->cs.beacon_release : "?");
		w->phase = "ssh";
		w->deadline = phase_deadline(
			c, now,
			req->ssh_ms ? req->ssh_ms
				    : boot_cfg_i64(c, "ssh_timeout_ms", 1000,
						   3600000, 60000));
		if (ssh_unusable(res, &w->reason)) {
			wait_fail(c, w, BOOT_INFRA_FAILED, "host", err);
			return 1;
		}
	}
	return 0;
}

/*
 * After the beacon, once a second: `uname -r` over SSH.  1 when it
 * answered (ready, or failed when the release is not the kernel's), 0
 * when not yet.
 */
static int wait_ssh(struct boot_ctx *c, struct boot_wait *w, int64_t now,
		    struct strbuf *err)
{
	struct boot_result *res = c->res;
	struct strbuf out = STRBUF_INIT, se = STRBUF_INIT;
	int r = 0;

	if (res->beacon_ms < 0 || now - w->last_ssh < 1000)
		return 0;
	w->last_ssh = now;
	if (boot_ssh_run(res, "uname -r", 15000, &out, &se) == 0) {
		strbuf_trim(&out);
		res->ssh_ms = mono_ms() - c->origin;
		res->release = strbuf_detach(&out, NULL);
		boot_event(c, "ssh: up, uname -r %s", res->release);
		r = 1;
		if (c->expected_release &&
		    strcmp(c->expected_release, res->release)) {
			strbuf_addf(&w->reason,
				    "the host runs %s, not %s: "
				    "provisioning failed",
				    res->release, c->expected_release);
			wait_fail(c, w, BOOT_INFRA_FAILED, "host", err);
		} else {
			res->ready_ms = mono_ms() - c->origin;
			res->outcome = BOOT_READY;
			strbuf_addstr(&w->reason, "ready");
		}
	}
	strbuf_release(&out);
	strbuf_release(&se);
	return r;
}

/* The phase's limit passed, or the caller stopped the boot: 1 with the
 * boot failed, else 0. */
static int wait_limits(struct boot_ctx *c, struct boot_wait *w, int64_t now,
		       struct strbuf *err)
{
	const char *phase = w->phase;

	if (now >= w->deadline) {
		if (!strcmp(phase, "kernel") && w->off == w->start_off) {
			/* Not one byte: the console or the machine. */
			strbuf_addstr(&w->reason,
				      "kernel: the console stayed silent");
			wait_fail(c, w, BOOT_INFRA_FAILED, "host", err);
		} else {
			strbuf_addf(&w->reason, "%s: no %s in time", phase,
				    !strcmp(phase, "kernel")  ? "Linux version"
				    : !strcmp(phase, "agent") ? "agent beacon"
							      : "SSH answer");
			wait_fail(c, w, BOOT_TIMEOUT, "kernel", err);
		}
		return 1;
	}
	if (c->req->tick && c->req->tick(c->req->ctx) < 0) {
		strbuf_addf(&w->reason, "%s: the boot was stopped", phase);
		wait_fail(c, w, BOOT_TIMEOUT, "none", err);
		return 1;
	}
	return 0;
}

/*
 * The machine stopped by itself (the kind can tell: a libvirt guest): 1
 * with the boot failed, -1 when the console shows why (a fatal line, to
 * be reported by wait_fatal() at once), 0 when it runs.
 */
static int wait_machine(struct boot_ctx *c, struct boot_wait *w, int64_t now,
			struct strbuf *err)
{
	struct boot_result *res = c->res;

	if (now - c->t0 <= 2000 || !res->hk->machine_gone ||
	    !res->hk->machine_gone(res))
		return 0;
	boot_pump_console(w->fd, &w->off, &w->cs, mono_ms() - c->origin);
	console_scanner_flush(&w->cs, mono_ms() - c->origin);
	if (console_scanner_fatal(&w->cs))
		return -1;
	strbuf_addf(&w->reason, "%s: the machine stopped", w->phase);
	if (res->linux_ms >= 0)
		wait_fail(c, w, BOOT_KERNEL_FAILED, "kernel", err);
	else
		wait_fail(c, w, BOOT_INFRA_FAILED, "host", err);
	return 1;
}

/* Phases kernel, agent, ssh: one loop, the console read throughout,
 * until the host is ready or the boot failed. */
static void boot_wait(struct boot_ctx *c, struct boot_wait *w,
		      struct strbuf *err)
{
	const struct boot_request *req = c->req;
	int64_t now;
	int m;

	w->phase = "kernel";
	w->deadline = phase_deadline(
		c, mono_ms(),
		req->kernel_ms ? req->kernel_ms
			       : boot_cfg_i64(c, "kernel_timeout_ms", 1000,
					      3600000, 120000));
	for (;;) {
		now = mono_ms();
		if (w->fd < 0)
			w->fd = open(c->res->console_path,
				     O_RDONLY | O_CLOEXEC);
		console_keep(c);
		boot_pump_console(w->fd, &w->off, &w->cs, now - c->origin);
		if (wait_fatal(c, w, err) || wait_milestones(c, w, now, err) ||
		    wait_ssh(c, w, now, err) || wait_limits(c, w, now, err))
			return;
		m = wait_machine(c, w, now, err);
		if (m > 0)
			return;
		if (m < 0)
			continue; /* the fatal line is reported next round */
		sleep_ms(100);
	}
}

/*
 * The end of a boot: health first (whose fault), a failed host powered
 * off, the boots row closed with the console.  0 when the host is ready,
 * else -1 with err.
 */
static int boot_end(struct db *db, struct boot_ctx *c, struct boot_wait *w,
		    struct strbuf *err)
{
	struct boot_result *res = c->res;
	struct strbuf console = STRBUF_INIT, e2 = STRBUF_INIT;
	int r, hr;

	res->method = xstrdup(c->method);
	if (res->outcome == BOOT_READY) {
		/* The run phase watches on from here (watch.c). */
		res->watch_off = w->off;
		res->watch_t0 = c->origin;
	}
	console_scanner_flush(&w->cs, mono_ms() - c->origin);
	console_scanner_summary(&w->cs, 0, &res->console_events);
	/* Whose fault a failure was is the health rules' call: first. */
	hr = record_health(db, c, w->reason.buf, &e2);
	if (res->outcome != BOOT_READY) {
		boot_event(c, "boot failed (%s, blame %s): %s",
			   boot_outcome_name(res->outcome), res->blame,
			   w->reason.buf);
		/* The capture ends with the power: the console is whole. */
		power_off_quiet(db, res);
	} else {
		boot_event(c, "ready in %.1f s",
			   (double)res->ready_ms / 1000.0);
	}
	if (res->console_path)
		boot_read_console(res->console_path, w->start_off, &console);
	if (hr < 0 ||
	    update_boot_row(db, c, w->reason.buf, &console, &e2) < 0) {
		if (res->outcome == BOOT_READY)
			strbuf_addbuf(err, &e2);
		else
			strbuf_addf(err, " (and recording it failed: %s)",
				    e2.buf);
		r = -1;
	} else {
		r = res->outcome == BOOT_READY ? 0 : -1;
	}
	if (strcmp(res->blame, "none"))
		boot_event(c, "host %s is %s", res->host_name,
			   res->host_health);
	strbuf_release(&console);
	strbuf_release(&e2);
	return r;
}

int boot_host(struct db *db, const struct boot_request *req,
	      struct boot_result *res, struct strbuf *err)
{
	struct boot_ctx c;
	struct boot_wait w = { .fd = -1, .phase = "power" };
	struct strbuf cmdline = STRBUF_INIT;
	_cleanup_free_ char *console_dir = NULL;
	int r = -1;

	memset(&c, 0, sizeof(c));
	c.req = req;
	c.res = res;
	c.t0 = c.origin = mono_ms();
	res->job_id = req->job_id;
	res->controller_id = xstrdup_or_null(req->controller_id);
	console_scanner_init(&w.cs);
	strbuf_init(&w.reason, 0);
	if (boot_begin(db, &c, &console_dir, err) < 0) {
		res->outcome = BOOT_RUNNING;
	} else {
		build_cmdline(&c, &cmdline);
		if (boot_power(db, &c, &w, console_dir, cmdline.buf, err) == 0)
			boot_wait(&c, &w, err);
		r = boot_end(db, &c, &w, err);
	}
	if (w.fd >= 0)
		close(w.fd);
	console_scanner_release(&w.cs);
	ctx_release(&c);
	strbuf_release(&cmdline);
	strbuf_release(&w.reason);
	return r;
}

int boot_power_off(struct db *db, struct boot_result *res, struct strbuf *err)
{
	int r = 0;

	if (!res->hk)
		return 0;
	r = res->hk->power_off(db, res, HOST_KIND_OFF_DONE, err);
	if (res->boot_id && db) {
		struct strbuf e2 = STRBUF_INIT, console = STRBUF_INIT;

		/* The console of the whole boot, the run's part included (a
		 * ready boot's row had only the part up to ready). */
		if (res->console_path && res->outcome == BOOT_READY)
			boot_read_console(res->console_path, res->console_start,
					  &console);
		boots_powered_off(db, res->boot_id,
				  !console.len ? NULL
				  : console.len > CONSOLE_DB_MAX
					  ? console.buf + console.len -
						    CONSOLE_DB_MAX
					  : console.buf,
				  &e2);
		strbuf_release(&e2);
		strbuf_release(&console);
	}
	return r;
}

int boot_power_off_host(struct db *db, int64_t host_id,
			const char *controller_id, const char *lock_dir,
			struct strbuf *err)
{
	struct boot_result res;
	struct boot_ctx c;
	struct boot_request req;
	int r = -1;

	/* The host row's BMC, as a boot reads it. */
	boot_request_init(&req);
	req.host_id = host_id;
	boot_result_init(&res);
	memset(&c, 0, sizeof(c));
	c.req = &req;
	c.res = &res;
	if (load_host_row(db, &c, err) < 0)
		goto out;
	res.controller_id = xstrdup(controller_id);
	res.bmc_lock_dir = xstrdup(lock_dir);
	r = res.hk->power_off(db, &res, HOST_KIND_OFF_SWEEP, err);
out:
	ctx_release(&c);
	boot_result_release(&res);
	return r;
}

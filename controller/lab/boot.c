/*
 * boot.c - the boot phase: power, console, beacon, SSH, health; see
 * boot.h.  libvirt is reached only through virt.h, BMCs through ipmi.h,
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
#include "cleanup.h"
#include "home.h"
#include "lab/console.h"
#include "lab/ipmi.h"
#include "lab/sweep_host.h"
#include "json.h"
#include "parse.h"
#include "lab/sol.h"
#include "lab/ssh.h"
#include "strvec.h"
#include "time-util.h"
#include "lab/virt.h"
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
	sol_close(res->sol);
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
 * An IPMI host's console is its BMC's Serial-over-LAN unless the row names
 * a console log file (a lab console server's); it switches kernels by
 * kexec unless boot_config.kexec is false.
 */
static void ipmi_console_and_kexec(struct boot_ctx *c)
{
	struct strbuf e = STRBUF_INIT;
	int v = 1;

	if (strcmp(c->res->kind, "ipmi"))
		return;
	c->use_sol = !boot_cfg_str(c, "console_log", NULL);
	if (json_get_bool(c->cfg, "kexec", &v, &e) < 0)
		v = 1;
	c->kexec = v;
	strbuf_release(&e);
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
	if (strcmp(res->kind, "libvirt") && strcmp(res->kind, "ipmi")) {
		strbuf_addf(
			err,
			"host %s is of kind %s: only libvirt and ipmi hosts "
			"are booted",
			res->host_name, res->kind);
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
	res->bmc_port = get_int(db_get(h, 0, 15), 623, 65535);
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
	ipmi_console_and_kexec(c);
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

void boot_ipmi_target_of(const struct boot_result *res, struct ipmi_target *t)
{
	memset(t, 0, sizeof(*t));
	t->address = res->bmc_address;
	t->port = res->bmc_port;
	t->user = res->bmc_user;
	t->password_file = res->bmc_password_file;
	t->lock_dir = res->bmc_lock_dir;
}

/* Power off after a failed boot, best effort: the failure is already the
 * error to report. */
static void power_off_quiet(struct db *db, struct boot_result *res)
{
	struct strbuf e = STRBUF_INIT;

	if (!strcmp(res->kind, "libvirt") && res->domain) {
		struct virt_conn *vc = NULL;

		if (virt_open(res->libvirt_uri, &vc, &e) == 0) {
			boot_destroy_domain(db, vc, res, "its boot failed", &e);
			virt_close(vc);
		}
	} else if (!strcmp(res->kind, "ipmi")) {
		struct ipmi_target t;
		int64_t op = boot_power_op_begin(db, res, "off");

		boot_ipmi_target_of(res, &t);
		t.tries = 2;
		boot_power_op_end(db, op,
				  ipmi_power_set(&t, IPMI_POWER_OFF, NULL, &e),
				  &e);
	}
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
	if (!strcmp(c->res->kind, "libvirt") || c->use_sol) {
		if (home_subdir(home, HOME_CONSOLE, ret_console_dir, err) < 0)
			return -1;
		if (!c->use_sol)
			return 0;
	}
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

int boot_host(struct db *db, const struct boot_request *req,
	      struct boot_result *res, struct strbuf *err)
{
	struct boot_ctx c;
	struct console_scanner cs;
	struct strbuf cmdline = STRBUF_INIT, reason = STRBUF_INIT,
		      console = STRBUF_INIT, e2 = STRBUF_INIT;
	_cleanup_free_ char *console_dir = NULL;
	_cleanup_close_ int fd = -1;
	uint64_t off = 0, start_off = 0;
	int64_t deadline, now, last_ssh = 0;
	const char *phase = "power";
	int r = -1, hr;

	memset(&c, 0, sizeof(c));
	c.req = req;
	c.res = res;
	c.t0 = c.origin = mono_ms();
	res->job_id = req->job_id;
	res->controller_id = xstrdup_or_null(req->controller_id);
	console_scanner_init(&cs);
	if (load_rows(db, &c, err) < 0 ||
	    state_folders(&c, &console_dir, err) < 0)
		goto out_early;
	{
		struct strbuf f = STRBUF_INIT;

		if (farm_id(db, &f, err) < 0) {
			strbuf_release(&f);
			goto out_early;
		}
		snprintf(c.farm, sizeof(c.farm), "%s", f.buf);
		strbuf_release(&f);
	}
	c.method = !strcmp(res->kind, "libvirt") ? "libvirt" : "ipmi-pxe";
	if (insert_boot_row(db, &c, c.method, err) < 0)
		goto out_early;
	build_cmdline(&c, &cmdline);
	if (!strcmp(res->kind, "libvirt") || c.use_sol) {
		res->console_path = xstrfmt("%s/boot-%" PRId64 ".log",
					    console_dir, res->boot_id);
	} else {
		const char *p = boot_cfg_str(&c, "console_log", NULL);

		if (!p) {
			strbuf_addf(err,
				    "host %s has no boot_config.console_log",
				    res->host_name);
			res->outcome = BOOT_INFRA_FAILED;
			res->blame = "host";
			strbuf_addbuf(&reason, err);
			goto finish;
		}
		res->console_path = xstrdup(p);
	}
	boot_event(&c, "booting %s on %s (%s): %s", c.kernel_name,
		   res->host_name, res->kind, cmdline.buf);

	/* Phase: power. */
	if ((!strcmp(res->kind, "libvirt")
		     ? boot_power_libvirt(db, &c, cmdline.buf, &off, err)
		     : boot_power_ipmi(db, &c, cmdline.buf, &off, err)) < 0) {
		res->outcome = BOOT_INFRA_FAILED;
		res->blame = "host";
		strbuf_addf(&reason, "power: %s", err->buf);
		goto finish;
	}
	start_off = off;
	res->console_start = start_off;
	res->power_ms = mono_ms() - c.t0;
	fd = open(res->console_path, O_RDONLY | O_CLOEXEC);

	/* Phases kernel, agent, ssh: one loop, the console read throughout. */
	phase = "kernel";
	deadline = phase_deadline(
		&c, mono_ms(),
		req->kernel_ms ? req->kernel_ms
			       : boot_cfg_i64(&c, "kernel_timeout_ms", 1000,
					      3600000, 120000));
	for (;;) {
		now = mono_ms();
		if (fd < 0)
			fd = open(res->console_path, O_RDONLY | O_CLOEXEC);
		boot_ipmi_console_check(&c);
		boot_pump_console(fd, &off, &cs, now - c.origin);
		if (console_scanner_fatal(&cs)) {
			const struct console_hit *h =
				console_scanner_fatal(&cs);

			/* Let the rest of the oops reach the log. */
			sleep_ms(500);
			boot_pump_console(fd, &off, &cs, mono_ms() - c.origin);
			boot_event(&c, "console: %s: %s", h->name, h->line);
			res->outcome = BOOT_KERNEL_FAILED;
			res->blame = "kernel";
			strbuf_addf(&reason, "%s during %s: %s", h->name, phase,
				    h->line);
			strbuf_addf(err, "%s", reason.buf);
			goto finish;
		}
		if (res->linux_ms < 0 && cs.linux_ms >= 0) {
			res->linux_ms = cs.linux_ms;
			boot_event(&c, "console: Linux version %s",
				   cs.linux_release ? cs.linux_release : "?");
			phase = "agent";
			deadline = phase_deadline(
				&c, now,
				req->agent_ms
					? req->agent_ms
					: boot_cfg_i64(&c, "agent_timeout_ms",
						       1000, 3600000, 120000));
		}
		if (res->beacon_ms < 0 && cs.beacon_ms >= 0) {
			res->beacon_ms = cs.beacon_ms;
			if (res->linux_ms < 0)
				res->linux_ms = res->beacon_ms;
			boot_event(&c, "console: agent beacon (%s)",
				   cs.beacon_release ? cs.beacon_release : "?");
			phase = "ssh";
			deadline = phase_deadline(
				&c, now,
				req->ssh_ms
					? req->ssh_ms
					: boot_cfg_i64(&c, "ssh_timeout_ms",
						       1000, 3600000, 60000));
			if (ssh_unusable(res, &reason)) {
				res->outcome = BOOT_INFRA_FAILED;
				res->blame = "host";
				strbuf_addbuf(err, &reason);
				goto finish;
			}
		}
		if (res->beacon_ms >= 0 && now - last_ssh >= 1000) {
			struct strbuf out = STRBUF_INIT, se = STRBUF_INIT;

			last_ssh = now;
			if (boot_ssh_run(res, "uname -r", 15000, &out, &se) ==
			    0) {
				strbuf_trim(&out);
				res->ssh_ms = mono_ms() - c.origin;
				res->release = strbuf_detach(&out, NULL);
				boot_event(&c, "ssh: up, uname -r %s",
					   res->release);
				strbuf_release(&se);
				if (c.expected_release &&
				    strcmp(c.expected_release, res->release)) {
					res->outcome = BOOT_INFRA_FAILED;
					res->blame = "host";
					strbuf_addf(&reason,
						    "the host runs %s, not %s: "
						    "provisioning failed",
						    res->release,
						    c.expected_release);
					strbuf_addbuf(err, &reason);
					goto finish;
				}
				res->ready_ms = mono_ms() - c.origin;
				res->outcome = BOOT_READY;
				strbuf_addstr(&reason, "ready");
				break;
			}
			strbuf_release(&out);
			strbuf_release(&se);
		}
		if (now >= deadline) {
			res->outcome = BOOT_TIMEOUT;
			if (!strcmp(phase, "kernel") && off == start_off) {
				/* Not one byte: the console or the machine. */
				res->outcome = BOOT_INFRA_FAILED;
				res->blame = "host";
				strbuf_addstr(
					&reason,
					"kernel: the console stayed silent");
			} else {
				res->blame = "kernel";
				strbuf_addf(&reason, "%s: no %s in time", phase,
					    !strcmp(phase, "kernel")
						    ? "Linux version"
					    : !strcmp(phase, "agent")
						    ? "agent beacon"
						    : "SSH answer");
			}
			strbuf_addbuf(err, &reason);
			goto finish;
		}
		if (req->tick && req->tick(req->ctx) < 0) {
			res->outcome = BOOT_TIMEOUT;
			res->blame = "none";
			strbuf_addf(&reason, "%s: the boot was stopped", phase);
			strbuf_addbuf(err, &reason);
			goto finish;
		}
		if (now - c.t0 > 2000 && boot_domain_gone(&c)) {
			boot_pump_console(fd, &off, &cs, mono_ms() - c.origin);
			console_scanner_flush(&cs, mono_ms() - c.origin);
			if (console_scanner_fatal(&cs))
				continue; /* reported above, next round */
			res->outcome = BOOT_KERNEL_FAILED;
			res->blame = res->linux_ms >= 0 ? "kernel" : "host";
			if (res->linux_ms < 0)
				res->outcome = BOOT_INFRA_FAILED;
			strbuf_addf(&reason, "%s: the machine stopped", phase);
			strbuf_addbuf(err, &reason);
			goto finish;
		}
		sleep_ms(100);
	}
finish:
	res->method = xstrdup(c.method);
	if (res->outcome == BOOT_READY) {
		/* The run phase watches on from here (watch.c). */
		res->watch_off = off;
		res->watch_t0 = c.origin;
	}
	console_scanner_flush(&cs, mono_ms() - c.origin);
	console_scanner_summary(&cs, 0, &res->console_events);
	/* Whose fault a failure was is the health rules' call: first. */
	hr = record_health(db, &c, reason.buf, &e2);
	if (res->outcome != BOOT_READY) {
		boot_event(&c, "boot failed (%s, blame %s): %s",
			   boot_outcome_name(res->outcome), res->blame,
			   reason.buf);
		power_off_quiet(db, res);
		/* The capture ends with the power: the console is whole. */
		sol_close(res->sol);
		res->sol = NULL;
	} else {
		boot_event(&c, "ready in %.1f s",
			   (double)res->ready_ms / 1000.0);
	}
	if (res->console_path)
		boot_read_console(res->console_path, start_off, &console);
	if (hr < 0 || update_boot_row(db, &c, reason.buf, &console, &e2) < 0) {
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
		boot_event(&c, "host %s is %s", res->host_name,
			   res->host_health);
	goto out;
out_early:
	res->outcome = BOOT_RUNNING;
out:
	console_scanner_release(&cs);
	ctx_release(&c);
	strbuf_release(&cmdline);
	strbuf_release(&reason);
	strbuf_release(&console);
	strbuf_release(&e2);
	return r;
}

int boot_power_off(struct db *db, struct boot_result *res, struct strbuf *err)
{
	int r = 0;

	if (!res->kind)
		return 0;
	if (!strcmp(res->kind, "libvirt") && res->domain) {
		struct virt_conn *vc = NULL;

		/* Politely first: the guest's init has nothing to save, but a
		 * clean power-off proves ACPI works. */
		if (res->outcome == BOOT_READY) {
			struct strbuf out = STRBUF_INIT, e = STRBUF_INIT;

			boot_ssh_run(res, "poweroff -f", 5000, &out, &e);
			strbuf_release(&out);
			strbuf_release(&e);
		}
		if (virt_open(res->libvirt_uri, &vc, err) < 0)
			return -1;
		for (int i = 0;
		     i < 50 && virt_is_active(vc, res->domain, err) == 1; i++)
			sleep_ms(100);
		r = boot_destroy_domain(db, vc, res,
					"powered off after its boot", err);
		virt_close(vc);
	} else if (!strcmp(res->kind, "ipmi")) {
		struct ipmi_target t;
		int64_t op = boot_power_op_begin(db, res, "off");

		boot_ipmi_target_of(res, &t);
		r = ipmi_power_set(&t, IPMI_POWER_OFF, NULL, err);
		boot_power_op_end(db, op, r, err);
		/* From power-on to power-off: the capture ends here. */
		sol_close(res->sol);
		res->sol = NULL;
	}
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

int boot_farm_id(struct db *db, struct strbuf *out, struct strbuf *err)
{
	return farm_id(db, out, err);
}

int boot_power_off_host(struct db *db, int64_t host_id,
			const char *controller_id, const char *lock_dir,
			struct strbuf *err)
{
	struct boot_result res;
	struct boot_ctx c;
	struct boot_request req;
	struct ipmi_target t;
	int64_t op;
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
	if (strcmp(res.kind, "ipmi")) {
		strbuf_addf(err, "host %s is not an IPMI host", res.host_name);
		goto out;
	}
	res.controller_id = xstrdup(controller_id);
	res.bmc_lock_dir = xstrdup(lock_dir);
	boot_ipmi_target_of(&res, &t);
	op = boot_power_op_begin(db, &res, "off");
	r = ipmi_power_set(&t, IPMI_POWER_OFF, NULL, err);
	boot_power_op_end(db, op, r, err);
out:
	ctx_release(&c);
	boot_result_release(&res);
	return r;
}

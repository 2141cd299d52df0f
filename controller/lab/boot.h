/*
 * boot.h - boot a host with a kernel and watch until the agent is ready;
 * keep the host's health honest.
 *
 * One boot is a sequence of phases, each with its own limit and all inside
 * the boot's limit (a phase gets the smaller of its own and what is left):
 * power (the host kind's, host_kind.h; libvirt: create the domain paused,
 * open the console, resume; IPMI: write the PXE script, bootdev pxe,
 * power on/cycle, each BMC call confirmed), kernel (the console says
 * "Linux version"), agent (the guest init's beacon), ssh (`uname -r` over SSH
 * answers and equals the kernel's release).  The console is scanned all along
 * (console.h): a panic ends the boot at once, blamed on the kernel.
 *
 * Whose fault: power, libvirt, BMC and console failures are the host's
 * (health -> bad); a kernel that panics, resets, or never gets the agent up
 * is the kernel's and leaves the host's health alone -- unless it is the
 * host's known-good kernel, where it counts as an aborted run and two in a
 * row make the host bad.  A ready boot makes an `unknown` host `good` (and
 * a `bad` one, when the kernel is its known-good one: the health check).
 * Every health change writes a host_events row; every boot a boots row with
 * its timings and console log.
 */
#ifndef SCHEDFARM_BOOT_H
#define SCHEDFARM_BOOT_H

#include <stdint.h>

struct host_kind;
#include "store/db.h"
#include "lab/console.h"
#include "strbuf.h"

enum boot_outcome {
	BOOT_RUNNING,
	BOOT_READY,
	BOOT_KERNEL_FAILED,
	BOOT_INFRA_FAILED,
	BOOT_TIMEOUT,
};
const char *boot_outcome_name(enum boot_outcome o);

struct boot_request {
	int64_t job_id; /* 0: not for a job (kernel boot, host check) */
	int64_t host_id; /* or host_name */
	const char *host_name;
	int64_t kernel_id;
	const char *cmdline_append;
	int64_t timeout_ms; /* whole boot; 0: 5 min */
	int64_t power_ms, kernel_ms, agent_ms, ssh_ms; /* 0: defaults */
	/* The farm's state folder (home.h), required: console logs go to
	 * its console/, BMC locks to its locks/. */
	const char *state_dir;
	void (*on_event)(void *ctx,
			 const char *msg); /* progress; may be NULL */
	/* Called about every 100 ms while waiting; a negative return stops
	 * the boot (the host is powered off, nobody is blamed).  A job passes
	 * its lease heartbeat here.  May be NULL. */
	int (*tick)(void *ctx);
	void *ctx;
	/* The controller this boot is for (controllers.h): the domain it
	 * creates and the power operations it makes are recorded under it,
	 * so that only its owner, or a sweep once its lease has expired,
	 * takes them down.  Required when db is used. */
	const char *controller_id;
	int attempt; /* the job's attempt (job domains are named after it) */
	/* 1: a failed boot is not handed to the health rules yet: the
	 * caller first boots the host's known-good kernel to tell whose
	 * fault it was, then settles it (boot_settle_failure()). */
	int defer_failure_health;
	/* 1: this boot is that check: failing it quarantines the host
	 * (hosts.h's HOST_CHECK_FAILED). */
	int check_after_failure;
};

struct boot_result {
	enum boot_outcome outcome;
	const char *blame; /* "none", "kernel", "host" */
	char host_health[16]; /* after this boot */
	int64_t boot_id, host_id, kernel_id, job_id;
	/* ms after power-on; -1 when not reached */
	int64_t power_ms, linux_ms, beacon_ms, ssh_ms, ready_ms;
	char *release; /* what uname -r said */
	char *host_name, *kind;
	char *domain, *libvirt_uri;
	char *bmc_address, *bmc_user, *bmc_password_file;
	int bmc_port;
	char *bmc_lock_dir; /* the state folder's locks/ */
	char *ssh_addr, *ssh_user, *key_file, *known_hosts;
	int ssh_port;
	char *console_path;
	uint64_t console_start; /* where this boot's output starts in it */
	char *controller_id; /* whose the domain and the power are */
	int64_t known_good_kernel_id; /* the host's; 0: none */
	char *reason; /* why it failed (the boots row's reason) */
	int health_deferred; /* failed, and not judged yet */
	/* The host's boot_config.hang_retries (0-5, default 1): how many
	 * times a boot whose kernel spoke and then went silent is made again
	 * before it is judged (boot_job.c). */
	int hang_retries;
	/* The host's kind (lab/host_kind.h), and what it keeps for this
	 * boot (a console capture), freed by its release hook. */
	const struct host_kind *hk;
	void *kind_data;
	char *method; /* boots.method */
	char *fallback; /* why a kexec gave way to a power cycle, or NULL */
	/* After a ready boot, the console while the host runs (watch.c). */
	struct console_scanner *watch;
	uint64_t watch_off;
	int64_t watch_t0;
	struct strbuf console_events; /* the scanner's summary */
	struct strbuf log; /* what happened, one line per step */
};

void boot_request_init(struct boot_request *req);
void boot_result_init(struct boot_result *res);
void boot_result_release(struct boot_result *res);

/*
 * Boot req->kernel_id on the host and wait until its agent is reachable.
 * 0: res->outcome is BOOT_READY and the host is up (power it off with
 * boot_power_off()).  -1: err says why; res->outcome/blame say whose fault,
 * the host was powered off, the boots row and the host's health are
 * recorded.  -1 with outcome BOOT_RUNNING means the farm's own failure
 * (database, state folder) before anything was booted.
 */
int boot_host(struct db *db, const struct boot_request *req,
	      struct boot_result *res, struct strbuf *err);

/*
 * Run cmd (a remote shell command line) on the booted host over SSH
 * (ssh.h's ssh_run_once(): libssh, the host's known_hosts file enforced,
 * its key file or the ssh-agent, never ~/.ssh/config), at most timeout_ms.
 * Its stdout, then its stderr, are appended to out.  0 when it exited 0;
 * else -1 with err.
 */
int boot_ssh_run(const struct boot_result *res, const char *cmd, int timeout_ms,
		 struct strbuf *out, struct strbuf *err);

/* Power the host off (libvirt destroy / IPMI power off, confirmed) and
 * close its boots row, whose console_log then holds the whole console of
 * the boot (its last MiB), what was printed while the host ran included.
 * Always safe to call. */
int boot_power_off(struct db *db, struct boot_result *res, struct strbuf *err);

/*
 * The console while the booted host runs the plan (watch.c): feed what it
 * printed since the boot was ready (or since the last call) to a scanner
 * of its own, keeping an IPMI host's SOL capture alive.  1 with *ret_hit
 * (owned by res) once a fatal line (a panic, a firmware banner: the
 * machine reset) has been seen; 0 otherwise.  Call it about once a second.
 */
int boot_watch(struct boot_result *res, const struct console_hit **ret_hit);
/* How many lines of event ev the run's console showed so far. */
size_t boot_watch_count(const struct boot_result *res, enum console_event ev);

/*
 * The run phase ended on a fatal console line of this boot (what: "run 12
 * of job 4").  expected: the plan declared it (`expect: panic`), so the
 * boots row says expected-panic, blames nobody and keeps the line in
 * boots.expected; else it is a failure like a panic during the boot: the
 * health rules (store/hosts.c) decide the blame -- the kernel's, when it
 * is new on a good host -- and the boots row says kernel-failed.  The blame
 * is appended to ret_blame.  The host still needs boot_power_off(): it is
 * power-cycled as usual.  0, or -1 with err.
 */
int boot_run_fatal(struct db *db, struct boot_result *res, const char *what,
		   const char *line, int expected, struct strbuf *ret_blame,
		   struct strbuf *err);

/*
 * Settle a failed boot whose health was deferred: check is -1 when no
 * check could be made (the health rules judge the failure as they would
 * have), 0 when the known-good kernel booted right after (the failure was
 * the kernel's: the host stays as the check left it), 1 when it failed
 * too (the check quarantined the host: the failure was the host's).
 * res->blame, res->host_health and the boots row's blame follow.
 */
int boot_settle_failure(struct db *db, struct boot_result *res, int check,
			struct strbuf *err);

/*
 * Set the blame of the boots row boot_id ("kernel", "host" or "none"):
 * a hung boot that was made again takes the verdict its retry got
 * (boot_job.c).  0 or -1 with err.
 */
int boot_set_blame(struct db *db, int64_t boot_id, const char *blame,
		   struct strbuf *err);

/*
 * Power host host_id off through its kind (a BMC: check, act, confirm)
 * for controller_id, recorded as its power operation; lock_dir is the
 * state folder's locks/.  For the sweep of what dead controllers left on
 * (lab/sweep.c).  A host of a kind that does not boot: -1 with err.
 */
int boot_power_off_host(struct db *db, int64_t host_id,
			const char *controller_id, const char *lock_dir,
			struct strbuf *err);

#endif

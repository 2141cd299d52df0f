/*
 * hosts.h - the one owner of `hosts` rows, their health and
 * `host_events`.
 *
 * Health (REFERENCE.md section 3) is one rule set, host_health_decide(),
 * applied to every observation of a host the farm makes -- a boot, a job
 * that could not reach its host, a host check -- through hosts_observe():
 *
 *  - it worked: the aborted-in-a-row count goes back to 0; an unknown
 *    host becomes good, and a bad one too when it worked on its
 *    known-good kernel;
 *  - the lab failed (power, BMC, a console that stays silent, the wrong
 *    kernel provisioned): the host is blamed and is bad at once, since
 *    the lab's tools retried before they gave up;
 *  - the check after a failure failed: a kernel failed to boot, and the
 *    host's known-good kernel, booted at once to tell whose fault that
 *    was, failed as well: the host is blamed and is bad at once
 *    (quarantined), and the job goes to another host;
 *  - anything else failed (a panic, no beacon, no SSH answer): the kernel
 *    is blamed when it is new -- not the host's known-good kernel, and
 *    the host's own kernel for hosts that do not boot is never new -- and
 *    the host passed its last known-good check (it is good); otherwise
 *    the host is blamed, and HOST_ABORTS_TO_BAD such failures in a row
 *    make it bad.
 *
 * Every change of health writes one host_events row, through
 * hosts_event_add(), whoever changed it (these rules, `host set
 * --health`, a passed `host check`, an import).
 */
#ifndef SCHEDFARM_HOSTS_H
#define SCHEDFARM_HOSTS_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"
#include "strvec.h"

/* hosts.name: at most this many bytes (schema 001), printable (006). */
#define HOST_NAME_MAX_LEN 128

/* Failures in a row, blamed on the host, that make it bad. */
#define HOST_ABORTS_TO_BAD 2

/* What an observation of a host saw. */
enum host_outcome {
	HOST_WORKED, /* booted, reached, ran */
	HOST_FAILED, /* did not boot, or could not be reached: host or kernel */
	HOST_LAB_FAILED, /* power, BMC, console, provisioning: never the kernel
			  */
	HOST_CHECK_FAILED, /* the known-good kernel failed too, booted right
			    * after another kernel failed on the host: the
			    * host can no longer boot what it could */
};

struct host_observation {
	int64_t host_id;
	/* The kernel the host was booted on for this; 0 when it runs a
	 * kernel of its own (local and ssh hosts). */
	int64_t kernel_id;
	enum host_outcome outcome;
	/* For the event: what was observed ("boot 12 of kernel v6.1",
	 * "job 4"), what went wrong in a few words ("unreachable"; NULL:
	 * "failed") and why. */
	const char *what;
	const char *failure;
	const char *reason;
};

/* The health a host has now, as the rules read it. */
struct host_health {
	char health[16]; /* good, unknown, bad, maintenance, retired */
	int64_t aborted_in_row;
	int64_t known_good_kernel_id; /* 0: none */
};

/* What the rules made of an observation. */
struct host_verdict {
	const char *blame; /* "none", "kernel" or "host" */
	struct host_health before, after;
	int changed; /* after.health differs from before.health */
	int on_known_good; /* the observation was on the known-good kernel */
};

/*
 * The rules themselves, with no database: from the host's health `h` and
 * observation `o`, fill *ret (ret->before is h).  Pure, for the tests.
 */
void host_health_decide(const struct host_health *h,
			const struct host_observation *o,
			struct host_verdict *ret);

/*
 * Apply the rules to host o->host_id in one transaction (its row locked):
 * update its health and count, and add the host_events row when health
 * changed or a failure on the known-good kernel was counted.  The
 * verdict in *ret.  0, or -1 with err.
 */
int hosts_observe(struct db *db, const struct host_observation *o,
		  struct host_verdict *ret, struct strbuf *err);

/*
 * Set host_id's health by hand (or as a passed check does) with the
 * reason for the event; known_good_kernel_id > 0 also makes that the
 * host's known-good kernel and resets its count.  The event is written
 * only when health changes.  0, or -1 with err.
 */
int hosts_set_health(struct db *db, int64_t host_id, const char *health,
		     int64_t known_good_kernel_id, const char *reason,
		     struct strbuf *err);

/*
 * A passed host check (job/host_check.h): the host good, that kernel its
 * known-good one, the count reset, and a host_events row saying so even
 * when the host was good already (its boot may have made it good a moment
 * before): the check's result is an event.  0, or -1 with err.
 */
int hosts_check_passed(struct db *db, int64_t host_id,
		       int64_t known_good_kernel_id, const char *reason,
		       struct strbuf *err);

/* Add one host_events row (old may be NULL for a new host). */
int hosts_event_add(struct db *db, int64_t host_id, const char *old,
		    const char *new_health, const char *reason,
		    struct strbuf *err);

/* The kind of host `name` ("local", ...; the caller frees it): 0, 1 when
 * there is no such host, -1 with err. */
int hosts_kind(struct db *db, const char *name, char **ret_kind,
	       struct strbuf *err);

/*
 * 1 when host_id must be checked (job/host_check.h) before it gets a job:
 * it boots kernels (libvirt, ipmi, redfish), its health is unknown (a new host,
 * or one set unknown by hand) and it has a known-good kernel to check it with.
 * A host without one cannot be checked: its first boot decides. 0 otherwise, -1
 * with err.
 */
int hosts_check_due(struct db *db, int64_t host_id, struct strbuf *err);

/*
 * 1 when hosts of this kind boot the kernel a job names (libvirt, ipmi,
 * redfish), 0 when they run whatever kernel they have (local, ssh, imported).
 * The kind table (lab/host_kind.h) says which, through common/kind_names.h.
 */
int hosts_kind_boots(const char *kind);

/* The id of host `name`: 0, 1 when there is none, -1 with err. */
int hosts_find(struct db *db, const char *name, int64_t *ret_id,
	       struct strbuf *err);

/* The numbers a host row may be given by hand, in this order. */
enum host_num {
	HOST_SOCKETS,
	HOST_CORES_PER_SOCKET,
	HOST_THREADS_PER_CORE,
	HOST_NUMA_NODES,
	HOST_CPUS,
	HOST_MEMORY_MB,
	HOST_BMC_PORT,
	HOST_NR_NUMS
};

/* The columns of a host a user gives; NULL / -1 / tags_set 0: not given. */
struct host_fields {
	const char *kind, *address, *user, *key_file, *known_hosts;
	const char *libvirt_uri, *bmc_address, *bmc_user, *bmc_password_file;
	const char *boot_config; /* a JSON object */
	const char *bmc_bootdev; /* pxe, pxe-efi, unsupported */
	int64_t port;
	int64_t nums[HOST_NR_NUMS];
	const struct strvec *tags;
	int tags_set;
};

/* All fields not given. */
void host_fields_init(struct host_fields *f);

/*
 * Insert host `name` with f (f->kind required); its id in *ret_id.
 * 0, 1 when a host of that name exists, -1 with err, -2 with err when a
 * field is not one a host may hold (a name with control characters, an
 * SSH user name that could be read as an option, a libvirt address that
 * is not an IPv4 address): the caller's input is wrong.
 */
int hosts_add(struct db *db, const char *name, const struct host_fields *f,
	      int64_t *ret_id, struct strbuf *err);

/*
 * Change the fields f gives of host `name` (the kind never changes);
 * its id in *ret_id.  0, 1 when there is no such host, -1 with err, -2
 * with err for a field the host may not hold (as hosts_add()).
 */
int hosts_update(struct db *db, const char *name, const struct host_fields *f,
		 int64_t *ret_id, struct strbuf *err);

/*
 * Store what the agent's `info` said of host `name`: info_json (the
 * canonical text) and the topology read from it (0 = unknown).
 */
struct host_topology {
	int64_t sockets, cores_per_socket, threads_per_core, numa_nodes, cpus,
		memory_mb;
};
int hosts_record_info(struct db *db, const char *name, const char *info_json,
		      const struct host_topology *t, struct strbuf *err);

/*
 * The id of host `name` for imported numbers, creating it as a retired
 * `imported` host (results only, never scheduled) when missing, with an
 * event naming `file`.  0 or -1 with err.
 */
int hosts_find_or_import(struct db *db, const char *name, const char *file,
			 int64_t *ret_id, struct strbuf *err);

/*
 * Remove host `name` when it is idle and has no runs stored (their
 * numbers would lose their host: retire it instead).  0; 1 when it was
 * not removed, with why in *why (no such host, busy, has runs); -1 with
 * err.
 */
int hosts_remove(struct db *db, const char *name, struct strbuf *why,
		 struct strbuf *err);
/*
 * Every host for `host list --json`: one row, one column, a JSON array of
 * one object per host (the fields `host show` prints), by name.  Into
 * *ret (the caller frees it).  0, or -1 with err.
 */
int hosts_list_json(struct db *db, struct db_result **ret, struct strbuf *err);

/*
 * Every host for `host list`, by name: name, kind, address[:port] ('-'),
 * state, health, sockets, cpus, memory_mb ('-' when unknown), tags
 * (comma-separated).  Into *ret.  0, or -1 with err.
 */
int hosts_list_rows(struct db *db, struct db_result **ret, struct strbuf *err);

/*
 * The host named name for `host show`: no row when there is none, else
 * one JSON object (the list's fields, its runs counted, its health events,
 * its agent_info).  Into *ret.  0, or -1 with err.
 */
int hosts_show_json(struct db *db, const char *name, struct db_result **ret,
		    struct strbuf *err);
/*
 * How to reach the host named name (lab/hostinfo.c): kind, address, port,
 * ssh_user, key_file, known_hosts; no row when there is none.  Into *ret
 * (the caller frees it).  0, or -1 with err.
 */
int hosts_contact_row(struct db *db, const char *name, struct db_result **ret,
		      struct strbuf *err);

/*
 * Every libvirt URI the libvirt hosts name, once each, sorted (what the
 * sweep visits).  Into *ret.  0, or -1 with err.
 */
int hosts_libvirt_uris(struct db *db, struct db_result **ret,
		       struct strbuf *err);

/*
 * The known-good kernel id (0 when none) and the kind of the host named
 * name, or when name is NULL of host id; no row when there is no such
 * host.  Into *ret (columns: known_good_kernel_id, kind).
 * 0, or -1 with err.
 */
int hosts_known_good_row(struct db *db, const char *name, int64_t id,
			 struct db_result **ret, struct strbuf *err);

#endif

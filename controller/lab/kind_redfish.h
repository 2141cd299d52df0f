/*
 * kind_redfish.h - power, boot override and console of a host whose BMC
 * speaks DMTF Redfish (HTTPS and JSON, through lab/curl.h).
 *
 * A `struct redfish` is one BMC's ComputerSystem: redfish_open() reads
 * the password file, finds the system (the one the host row names, or
 * the first member of /redfish/v1/Systems) and its Reset action; the
 * functions below ask it one thing each.  Power changes are idempotent
 * as in ipmi.h: check the state, act only if needed, then poll
 * PowerState until the BMC confirms it, with a deadline.  Every path the
 * BMC hands back is checked before it is used (under /redfish/v1/, on
 * the same BMC), every number from it range-checked, every answer
 * capped.  The password is read from a file only its owner may read,
 * held in memory, given to libcurl only, and wiped by redfish_close();
 * it is never in an error.  Nothing here prints.
 */
#ifndef SCHEDFARM_KIND_REDFISH_H
#define SCHEDFARM_KIND_REDFISH_H

#include "strbuf.h"
#include "strvec.h"

struct redfish_target {
	const char *url; /* the BMC: https://host[:port] */
	const char *system; /* NULL: the first member of /redfish/v1/Systems;
			     * else its path, "/redfish/v1/Systems/1" */
	const char *user;
	const char *password_file; /* its first line is the password */
	const char *ca_file; /* NULL: the system's CA certificates */
	int call_timeout_ms; /* per request; 0: 10 s */
	int confirm_timeout_ms; /* wait for a power change; 0: 60 s */
	int poll_ms; /* between two PowerState reads; 0: 500 ms */
};

struct redfish {
	const struct redfish_target *t; /* the caller's, kept while open */
	struct strbuf base; /* t->url without a trailing '/' */
	struct strbuf password;
	struct strbuf system; /* the ComputerSystem's path */
	struct strbuf reset; /* its Reset action's target path */
	struct strvec reset_types; /* the ResetType values it allows (empty:
				    * it did not say) */
};

/* What the BMC says of the power; CHANGING: PoweringOn or PoweringOff. */
enum redfish_power {
	REDFISH_POWER_OFF = 0,
	REDFISH_POWER_ON = 1,
	REDFISH_POWER_CHANGING = 2,
};

/*
 * Check t, read its password file (refused when others may read or
 * write it: farm_config_read_trusted()), and read the system: its path
 * (t->system, or the first member of the Systems collection) and its
 * Reset action.  0 with rf ready; -1 with err ("BMC https://h:8443: GET
 * /redfish/v1/Systems answered 401 ..."), rf then needing only
 * redfish_close().
 */
int redfish_open(struct redfish *rf, const struct redfish_target *t,
		 struct strbuf *err);
/* Release rf, its password wiped first; a closed or zeroed rf is fine. */
void redfish_close(struct redfish *rf);

/* The system's PowerState.  0, or -1 with err. */
int redfish_power_status(struct redfish *rf, enum redfish_power *ret,
			 struct strbuf *err);
/*
 * Make the power want (REDFISH_POWER_ON or _OFF): check, act (Reset with
 * "On" or "ForceOff") only if needed, then poll until PowerState says
 * so.  *ret_changed (may be NULL) says whether anything had to be done.
 * 0, or -1 with err (the deadline: "... still On after 60 s").
 */
int redfish_power_set(struct redfish *rf, enum redfish_power want,
		      int *ret_changed, struct strbuf *err);
/*
 * Power cycle: on when off; else Reset "ForceRestart" (or ForceOff then
 * On when the BMC does not offer it), confirmed On.  0, or -1 with err.
 */
int redfish_power_cycle(struct redfish *rf, struct strbuf *err);
/*
 * The next boot, once, from the network: PATCH the system's Boot with
 * BootSourceOverrideTarget "Pxe" and BootSourceOverrideEnabled "Once".
 * 0, or -1 with err.
 */
int redfish_pxe_once(struct redfish *rf, struct strbuf *err);

/*
 * The serial console the BMC offers, as its SerialConsole says: a telnet
 * console ("Telnet": {"ServiceEnabled": true, "Port": N}) on the BMC's
 * host.  0 with the host in ret_host and the port in *ret_port; 0 with
 * *ret_port 0 and why_none saying so when the BMC offers none (a boot
 * then watches SSH and the beacon only); -1 with err when the BMC could
 * not be asked.
 */
int redfish_console(struct redfish *rf, struct strbuf *ret_host, int *ret_port,
		    struct strbuf *why_none, struct strbuf *err);

#endif

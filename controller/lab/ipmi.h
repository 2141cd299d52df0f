/*
 * ipmi.h - power and boot device of IPMI hosts, through ipmitool.
 *
 * Every call is `ipmitool -I lanplus -C 3 -H ADDR -p PORT -U USER` plus
 * either `-f PASSWORD_FILE` or `-E` (the password in IPMI_PASSWORD): the
 * password is never on a command line where ps shows it, never stored,
 * never printed.  Each call has a hard timeout and is retried with
 * exponential backoff; one operation at a time per BMC (an flock()ed file
 * per address:port in the state folder's locks/, home.h), because BMCs
 * handle concurrent sessions badly.  Power
 * changes are idempotent: check the state, act only if needed, then poll
 * until the BMC confirms the new state.  Nothing here prints.
 */
#ifndef SCHEDFARM_IPMI_H
#define SCHEDFARM_IPMI_H

#include "strbuf.h"

struct ipmi_target {
	const char *address;
	int port; /* 0: 623 */
	const char *user;
	const char *password_file; /* NULL: IPMI_PASSWORD in the environment */
	int call_timeout_ms; /* per ipmitool call; 0: 10 s */
	int tries; /* per operation; 0: 3 */
	int backoff_ms; /* first pause between tries; 0: 500 ms */
	int confirm_timeout_ms; /* wait for a power change; 0: 30 s */
	const char *lock_dir; /* required: the state folder's locks/ */
	const char *ipmitool; /* NULL: "ipmitool" from PATH */
};

enum ipmi_power { IPMI_POWER_OFF = 0, IPMI_POWER_ON = 1 };

/* Returned when the BMC answered but refused the request (not retried). */
#define IPMI_REFUSED (-2)

/* "on"/"off" of the chassis.  0, or -1 after all tries with err saying
 * "BMC 127.0.0.1:623 did not answer (3 tries): ...". */
int ipmi_power_status(const struct ipmi_target *t, enum ipmi_power *ret,
		      struct strbuf *err);
/* Make the power state want (check, act, confirm).  *ret_changed (may be
 * NULL) says whether anything had to be done. */
int ipmi_power_set(const struct ipmi_target *t, enum ipmi_power want,
		   int *ret_changed, struct strbuf *err);
/* Power cycle: on when off; else off then on (confirmed both times). */
int ipmi_power_cycle(const struct ipmi_target *t, struct strbuf *err);
/* Next boot from dev ("pxe", "disk"), with options=efiboot when efi (UEFI
 * machines).  IPMI_REFUSED when the BMC answered but refused it (OpenIPMI's
 * ipmi_sim without a chassis_control program): whether that may be
 * ignored is the host row's call (hosts.bmc_bootdev), not this file's. */
int ipmi_bootdev(const struct ipmi_target *t, const char *dev, int efi,
		 struct strbuf *err);

/*
 * Serial-over-LAN.  A BMC allows one SOL session: ipmi_sol_deactivate()
 * ends whatever session is open (none open is success).
 * ipmi_sol_start() starts `ipmitool ... -e none sol activate` in cp (the
 * caller owns it: command_running(), stop_command(), child_process_clear())
 * with its stdout appended to out_file and its stdin held open, since
 * ipmitool ends the session at EOF on its input.  Both hold the BMC's lock
 * only while they start; the session itself runs beside power calls, as
 * BMCs allow.
 */
struct child_process;
int ipmi_sol_deactivate(const struct ipmi_target *t, struct strbuf *err);
int ipmi_sol_start(const struct ipmi_target *t, const char *out_file,
		   struct child_process *cp, struct strbuf *err);

#endif

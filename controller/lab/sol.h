/*
 * sol.h - an IPMI host's console through Serial-over-LAN.
 *
 * Real BMCs give the serial console through `ipmitool sol activate`; a
 * boot's console is captured that way from before power-on (or before a
 * kexec) until the host is powered off, into a file of the state folder's
 * console/, which the boot scans with the same patterns as a libvirt
 * serial log (console.h) and keeps with the boot and its runs.
 *
 * A BMC allows one SOL session, so sol_open() first ends whatever session
 * is open (a crashed controller's, an operator's).  A session the BMC drops
 * is reopened by sol_check(), appending to the same file; what the host
 * printed in between is lost, and the capture says so in a line of its
 * own.  OpenIPMI's ipmi_sim attaches the session to the machine's serial
 * port only every ~10 s, so there the capture lags the machine by up to
 * that much (a machine that must not lose its first lines waits for the
 * connection, as qemu's `wait=on` serial does).  ipmitool's argv lives in
 * ipmi.c; nothing here prints.
 */
#ifndef SCHEDFARM_SOL_H
#define SCHEDFARM_SOL_H

#include "lab/ipmi.h"
#include "strbuf.h"

struct sol_console;

/*
 * End any open session on t's BMC, then start capturing its console into
 * path (appended; made 0600).  *ret owns the capture (sol_close()).  0, or
 * -1 with err.
 */
int sol_open(const struct ipmi_target *t, const char *path,
	     struct sol_console **ret, struct strbuf *err);

/*
 * Called while a boot or run watches the console: when the session has
 * ended, reopen it at once, then at most every 5 s, noting each attempt
 * in the file.  0 while capturing or waiting for the next attempt
 * (sol_reopened() counts the sessions reopened); -1 with err when an
 * attempt failed just now (the caller decides whether that is fatal).
 */
int sol_check(struct sol_console *s, struct strbuf *err);

/* How many times the session had to be reopened. */
int sol_reopened(const struct sol_console *s);

/* Stop the capture and end the session on the BMC; frees s (NULL ok). */
void sol_close(struct sol_console *s);

#endif

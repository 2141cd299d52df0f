/*
 * telnet.h - a serial console offered over telnet (a Redfish BMC's
 * SerialConsole.Telnet, a lab console server, qemu's telnet chardev),
 * captured into a file from power-on to power-off.  Nothing here prints.
 */
#ifndef SCHEDFARM_TELNET_H
#define SCHEDFARM_TELNET_H

#include "strbuf.h"

/*
 * The capture of a telnet console (a BMC's, or a lab console server's):
 * a thread of its own reads the console and appends it, telnet commands
 * taken out (every option the console offers refused), to a file from
 * power-on to power-off, as sol.h does for an IPMI BMC's Serial-over-LAN.
 */
struct telnet_capture;

/*
 * Connect to host:port within timeout_ms (0: 10 s) and start appending
 * what it sends to path (made mode 0600 when missing).  0 with *ret (stop
 * it with telnet_capture_stop()); -1 with err ("console 10.0.0.9:2323:
 * Connection refused").
 */
int telnet_capture_start(const char *host, int port, const char *path,
			 int timeout_ms, struct telnet_capture **ret,
			 struct strbuf *err);
/*
 * Keep the capture alive: when the console closed the connection (the
 * BMC dropped it), connect again.  0 when it runs (*ret_reopened, may be
 * NULL: 1 when it had to connect again); -1 with err when it could not.
 */
int telnet_capture_check(struct telnet_capture *cap, int *ret_reopened,
			 struct strbuf *err);
/* End the capture and free it; NULL is fine. */
void telnet_capture_stop(struct telnet_capture *cap);

#endif

/*
 * kind_local.c - the local host kind: the controller's own machine, which
 * runs the kernel it has; the agent runs here without SSH (lab/runner.c),
 * and `host add` asks it for the machine's facts.
 */
#include "lab/host_kind.h"
#include "banned.h"

const struct host_kind kind_local = {
	.name = "local",
	.local = 1,
	.contact_at_add = 1,
};

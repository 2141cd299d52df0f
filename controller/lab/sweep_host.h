/*
 * sweep_host.h - before one host boots: take down what is left on it.
 *
 * The part of the sweep (sweep.h) that lab/boot.c asks for before it
 * boots a libvirt host: apart from sweep.c, which powers IPMI hosts off
 * through boot.c, so that the two files do not include each other.
 * Nothing here prints.
 */
#ifndef SCHEDFARM_SWEEP_HOST_H
#define SCHEDFARM_SWEEP_HOST_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

struct virt_conn;

/*
 * Before host_id boots on libvirt connection vc: destroy the domains
 * recorded on it that no running job uses -- those whose controller's
 * lease expired or whose job went back to the queue, and, when the caller
 * holds the host's lease (host_leased: a job's boot), any job's domain (no
 * other job can hold the host now) -- since they would hold its console
 * and SSH port.  A live controller's domain of no job (a kept `kernel
 * boot`) is left alone.  Returns how many went; their names, with whose
 * they were, are appended to names.
 */
int sweep_host(struct db *db, const char *self, int64_t host_id,
	       int host_leased, struct virt_conn *vc, struct strbuf *names);

#endif

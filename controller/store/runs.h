/*
 * runs.h - the rows of one measurement: `runs` (one agent invocation of
 * one plan run on one host and kernel) and `boots` (one boot of a kernel
 * on a host, with its phases' times, outcome and blame).
 *
 * This file is their one writer outside ingest (store/ingest.c checks an
 * agent's lines and copies its `results`, samples and counters): a job
 * inserts its runs and marks them started here, a boot is recorded and
 * finished here, an import inserts its runs here.  Nothing here prints:
 * each function returns 0, or -1 with the server's message in err.
 */
#ifndef SCHEDFARM_RUNS_H
#define SCHEDFARM_RUNS_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"

/* ---- runs ---------------------------------------------------------- */

/* ---- boots --------------------------------------------------------- */

/* ---- imported runs ------------------------------------------------- */

#endif

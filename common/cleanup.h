/*
 * cleanup.h - scope-bound release of resources.
 *
 * `_cleanup_free_ char *s = NULL;` frees s when it leaves scope; TAKE_PTR()
 * hands ownership out of such a variable.  Every destructor used here accepts
 * NULL.  (After systemd's basic/macro.h.)
 */
#ifndef SCHEDFARM_CLEANUP_H
#define SCHEDFARM_CLEANUP_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Return the pointer and leave NULL behind, so the cleanup does nothing. */
#define TAKE_PTR(p)                                                            \
	({                                                                     \
		__typeof__(p) _tp_ = (p);                                      \
		(p) = NULL;                                                    \
		_tp_;                                                          \
	})

#define TAKE_FD(fd)                                                            \
	({                                                                     \
		int _tfd_ = (fd);                                              \
		(fd) = -1;                                                     \
		_tfd_;                                                         \
	})

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif

/*
 * perf.c - hardware and software counters through perf_event_open(2).
 *
 * Each counter is opened on its own (not as a group) so one the machine
 * lacks does not take the others down; a counter that cannot be opened is
 * recorded as unsupported with the reason, and is never reported as 0
 * (these test VMs have no PMU at all: every hardware event fails with
 * ENOENT while the software ones work).  Counters inherit to the children
 * the measured task creates after they are opened.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "banned.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} events[] = {
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "cache-references", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "context-switches", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
};

static int find_event(const char *name)
{
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (!strcmp(events[i].name, name))
			return (int)i;
	return -1;
}

int perf_known(const char *name)
{
	return find_event(name) >= 0;
}

/* Why an open failed, in words a report can show. */
static void describe_errno(int e, char *why, size_t whylen)
{
	struct strbuf sb = STRBUF_INIT;

	switch (e) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		strbuf_addf(&sb, "not supported by this machine (%s)",
			    strerror(e));
		break;
	case EACCES:
	case EPERM:
		strbuf_addf(&sb, "not permitted (perf_event_paranoid; %s)",
			    strerror(e));
		break;
	case ENOSYS:
		strbuf_addstr(&sb, "kernel without perf events");
		break;
	default:
		strbuf_addf(&sb, "cannot open: %s", strerror(e));
	}
	if (whylen) {
		size_t n = sb.len < whylen - 1 ? sb.len : whylen - 1;

		memcpy(why, sb.buf, n);
		why[n] = '\0';
	}
	strbuf_release(&sb);
}

static int open_event(int idx, pid_t pid, int disabled)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = events[idx].type;
	attr.config = events[idx].config;
	attr.disabled = disabled ? 1 : 0;
	attr.inherit = 1;
	attr.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

int perf_shares_probe(const char *name)
{
	int idx = find_event(name);

	return idx >= 0 && events[idx].type == PERF_TYPE_SOFTWARE &&
	       events[idx].config != PERF_COUNT_SW_TASK_CLOCK &&
	       events[idx].config != PERF_COUNT_SW_CPU_CLOCK;
}

int perf_probe(const char *name, char *why, size_t whylen, int *ret_fd)
{
	int idx = find_event(name), fd;

	*ret_fd = -1;
	if (idx < 0) {
		describe_errno(EINVAL, why, whylen);
		return -1;
	}
	fd = open_event(idx, 0, 1);
	if (fd < 0) {
		describe_errno(errno, why, whylen);
		return -1;
	}
	*ret_fd = fd;
	return 0;
}

int perf_open(struct perf_set *ps, const char *names, pid_t pid,
	      struct strbuf *err)
{
	struct strvec v = STRVEC_INIT;

	memset(ps, 0, sizeof(*ps));
	if (*names)
		strvec_split(&v, names, ',');
	for (size_t i = 0; i < v.nr; i++)
		if (find_event(v.v[i]) < 0) {
			strbuf_addf(err, "unknown counter \"%s\"", v.v[i]);
			strvec_clear(&v);
			return -1;
		}
	ps->c = xcalloc(v.nr ? v.nr : 1, sizeof(*ps->c));
	for (size_t i = 0; i < v.nr; i++) {
		int idx = find_event(v.v[i]);
		struct perf_counter *c = &ps->c[ps->n++];

		c->name = events[idx].name;
		c->fd = open_event(idx, pid, 1);
		c->supported = c->fd >= 0;
		if (!c->supported)
			describe_errno(errno, c->why, sizeof(c->why));
	}
	strvec_clear(&v);
	return 0;
}

void perf_enable(struct perf_set *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->c[i].fd >= 0)
			ioctl(ps->c[i].fd, PERF_EVENT_IOC_ENABLE, 0);
}

void perf_disable(struct perf_set *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->c[i].fd >= 0)
			ioctl(ps->c[i].fd, PERF_EVENT_IOC_DISABLE, 0);
}

void perf_read(struct perf_set *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		struct perf_counter *c = &ps->c[i];
		uint64_t v;

		if (c->fd < 0)
			continue;
		if (read(c->fd, &v, sizeof(v)) == (ssize_t)sizeof(v)) {
			c->value = v;
		} else {
			c->supported = 0;
			describe_errno(errno ? errno : EIO, c->why,
				       sizeof(c->why));
		}
	}
}

void perf_close(struct perf_set *ps)
{
	for (size_t i = 0; i < ps->n; i++)
		if (ps->c[i].fd >= 0)
			close(ps->c[i].fd);
	free(ps->c);
	memset(ps, 0, sizeof(*ps));
}

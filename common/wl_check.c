/*
 * wl_check.c - checks of a workload's parameters taken together, or of a
 * parameter's text beyond its type, shared by the agent (which refuses a
 * run spec) and the controller's plan checker (which refuses the plan
 * before anything runs); see wl_check.h.
 */
#include <string.h>

#include "parse.h"
#include "wl_check.h"
#include "banned.h"

/*
 * The client counts of clients ("auto" or "1,8,64") for ncpus CPUs into
 * counts[TBENCH_MAX_COUNTS].  Return how many, or -1 with err.
 */
int tb_counts(const char *clients, int ncpus, int *counts, struct strbuf *err)
{
	int n = 0;

	if (!strcmp(clients, "auto")) {
		for (int c = 1; n < TBENCH_MAX_COUNTS; c *= 2) {
			counts[n++] = c > 2 * ncpus ? 2 * ncpus : c;
			if (c >= 2 * ncpus)
				break;
		}
		return n;
	}
	for (const char *p = clients; *p;) {
		size_t len = strcspn(p, ",");
		char num[16];

		if (!len || len >= sizeof(num) || n >= TBENCH_MAX_COUNTS)
			goto bad;
		memcpy(num, p, len);
		num[len] = '\0';
		if (parse_int(num, 1, 4096, &counts[n], NULL) < 0)
			goto bad;
		for (int i = 0; i < n; i++)
			if (counts[i] == counts[n])
				goto bad;
		n++;
		p += len;
		if (*p == ',' && !*++p)
			goto bad;
	}
	return n;
bad:
	strbuf_addf(err,
		    "clients is \"auto\" or up to %d different counts in "
		    "1..4096 separated by commas, like \"1,8,64\"",
		    TBENCH_MAX_COUNTS);
	return -1;
}

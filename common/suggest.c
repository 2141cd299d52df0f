/*
 * suggest.c - the closest known name to a mistyped one; see suggest.h.
 */
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "suggest.h"
#include "banned.h"

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/*
 * Optimal string alignment over three rows of the usual table (the one
 * before the previous is needed for swaps); the rows are allocated, not
 * on the stack, so a long argv word costs heap, never a VLA.
 */
size_t suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d;
	size_t *prev2 = xcalloc(lb + 1, sizeof(size_t));
	size_t *prev = xcalloc(lb + 1, sizeof(size_t));
	size_t *cur = xcalloc(lb + 1, sizeof(size_t));

	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1,
				      prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	d = prev[lb];
	free(prev2);
	free(prev);
	free(cur);
	return d;
}

const char *suggest_closest(const char *word, const char *const *cands,
			    size_t n)
{
	size_t len = strlen(word), best_d = (size_t)-1, allowed;
	const char *best = NULL, *prefix = NULL;
	int nbest = 0, nprefix = 0;

	if (!len)
		return NULL;
	allowed = len <= 4 ? 1 : len <= 8 ? 2 : 3;
	for (size_t i = 0; i < n; i++) {
		size_t d, lc;

		if (!cands[i])
			continue;
		if (!strcmp(cands[i], word))
			return NULL;
		lc = strlen(cands[i]);
		if ((lc > len && !strncmp(cands[i], word, len)) ||
		    (len > lc && lc >= 3 && !strncmp(word, cands[i], lc))) {
			prefix = cands[i];
			nprefix++;
		}
		d = suggest_distance(word, cands[i]);
		if (d < best_d) {
			best_d = d;
			best = cands[i];
			nbest = 1;
		} else if (d == best_d && strcmp(best, cands[i])) {
			nbest++;
		}
	}
	if (best && best_d <= allowed && nbest == 1)
		return best;
	if (nprefix == 1)
		return prefix;
	return NULL;
}

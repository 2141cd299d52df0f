/*
 * baserepo.h - a list's base repository (a git repository of the trees
 * series are posted against): whether it has a commit, and whether a
 * series applies to one of its commits or refs.
 *
 * Git runs through run-command (argv, no shell, a timeout); the series is
 * applied to a scratch index, never to the repository's own index or
 * work tree.  Nothing here prints.
 */
#ifndef SCHEDFARM_LAB_BASEREPO_H
#define SCHEDFARM_LAB_BASEREPO_H

#include "strbuf.h"
#include "strvec.h"

/*
 * Whether the repository repo has rev (a commit id or a ref) as a commit:
 * 1 yes, 0 no.  Never fails: a repository that cannot be read has none.
 */
int baserepo_has(const char *repo, const char *rev);

/*
 * Whether the patches (texts, in order) apply one after the other to the
 * tree of rev in repo.  1 yes; 0 no, with git's reason in why; -1 with
 * err when no scratch index could be made.
 */
int baserepo_applies(const char *repo, const char *rev,
		     const struct strvec *patches, struct strbuf *why,
		     struct strbuf *err);

#endif

/*
 * queue_match.c - whether one named host can take a job: it exists, its
 * health lets it be scheduled, it boots kernels when a series is to be
 * built, and it meets the plan's host.kind, minimums and tags.  See
 * queue_match.h.  The claim asks the same of every idle host in SQL
 * (HOST_MATCH in queue.c); this is the check `submit --host` and `rerun
 * --host` make at once, so that a pinned job never sits in the queue for
 * ever, with the unmet requirement in words.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "kind_names.h"
#include "store/hosts.h"
#include "store/jobs.h"
#include "store/queue_match.h"
#include "shquote.h"
#include "banned.h"

/*
 * Whether the host's column col of res (a count the plan's host.KEY asks
 * at least want of; want 0: no requirement, a NULL column: not known) is
 * below want: 1 with err saying so ("host 'h' has 2 socket(s); the plan p
 * asks for host.min_sockets 4"), else 0.
 */
static int host_below(const struct db_result *res, int col, int64_t want,
		      const char *host, const char *plan_name, const char *unit,
		      const char *key, struct strbuf *err)
{
	int64_t have;

	if (!want || !db_get(res, 0, col) ||
	    db_get_i64(res, 0, col, 0, INT64_MAX, &have) || have >= want)
		return 0;
	strbuf_addf(
		err, "host '%s' has %lld %s; the plan %s asks for host.%s %lld",
		host, (long long)have, unit, plan_name, key, (long long)want);
	return 1;
}

/*
 * The host a job is pinned to must be able to take it, or the job would
 * sit in the queue for ever; a series without --kernel on a local or ssh
 * host would run the unpatched kernel under the patch's name.  See
 * queue.h.
 */
int queue_host_can_take(struct db *db, const char *host,
			const struct job_row *req, const char *plan_name,
			unsigned flags, const char *base, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	const char *kind, *health;
	int r;

	r = db_query(db, &res, err,
		     "SELECT kind, health, sockets, cpus, memory_mb, "
		     "array_to_string(tags, ' ') FROM hosts WHERE name = "
		     "$1",
		     db_str(host), db_end());
	if (r < 0)
		return -1;
	if (db_nrows(res) != 1) {
		strbuf_addf(err,
			    "no host named '%s' ('schedfarm host list' shows "
			    "them)",
			    host);
		return -1;
	}
	kind = db_get(res, 0, 0);
	health = db_get(res, 0, 1);
	if ((flags & QUEUE_HOST_NOW) && strcmp(health, "good") &&
	    strcmp(health, "unknown")) {
		strbuf_addf(err,
			    "host '%s' is %s: no job is given to it until "
			    "it is good again (schedfarm host set ",
			    host, health);
		strbuf_add_sh_quoted(err, host);
		strbuf_addstr(err, " --health good)");
		return -1;
	}
	if ((flags & QUEUE_HOST_NEEDS_BOOT) && !hosts_kind_boots(kind)) {
		struct strbuf kinds = STRBUF_INIT;

		kind_names_join(&kinds, kind_names_booting(), " or ");
		strbuf_addf(err,
			    "host '%s' is a %s host: it runs its own kernel "
			    "and cannot build or boot %s with the series, so "
			    "the series would never be applied.  Give "
			    "--kernel NAME, the name of the kernel it runs "
			    "with the series already applied (uname -r "
			    "there), or submit to a %s host",
			    host, kind, base, kinds.buf);
		strbuf_release(&kinds);
		return -1;
	}
	if (req->req_kinds.nr) {
		size_t i;

		for (i = 0; i < req->req_kinds.nr; i++)
			if (!strcmp(req->req_kinds.v[i], kind))
				break;
		if (i == req->req_kinds.nr) {
			strbuf_addf(err,
				    "host '%s' is a %s host; the plan %s "
				    "asks for host.kind ",
				    host, kind, plan_name);
			for (i = 0; i < req->req_kinds.nr; i++)
				strbuf_addf(err, "%s%s", i ? " or " : "",
					    req->req_kinds.v[i]);
			return -1;
		}
	}
	if (host_below(res, 2, req->req_min_sockets, host, plan_name,
		       "socket(s)", "min_sockets", err) ||
	    host_below(res, 3, req->req_min_cpus, host, plan_name, "CPUs",
		       "min_cpus", err) ||
	    host_below(res, 4, req->req_min_memory_mb, host, plan_name,
		       "MiB of memory", "min_memory_mb", err))
		return -1;
	for (size_t i = 0; i < req->req_tags.nr; i++) {
		const char *tags = db_get(res, 0, 5), *t = tags;
		size_t tl = strlen(req->req_tags.v[i]);
		int found = 0;

		while (t && *t && !found) {
			size_t l = strcspn(t, " ");

			found = l == tl && !memcmp(t, req->req_tags.v[i], l);
			t += l + (t[l] == ' ');
		}
		if (!found) {
			strbuf_addf(err,
				    "host '%s' lacks the tag '%s' that the "
				    "plan %s asks for in host.tags (it has: "
				    "%s)",
				    host, req->req_tags.v[i], plan_name,
				    tags && *tags ? tags : "none");
			return -1;
		}
	}
	return 0;
}

int queue_any_host_can_take(struct db *db, const struct job_row *req,
			    const char *plan_name, unsigned flags,
			    const char *base, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf why = STRBUF_INIT, one = STRBUF_INIT, kinds = STRBUF_INIT;
	int n;

	struct strvec all = STRVEC_INIT;
	int booting = 0;

	/* Hosts of the kinds the farm runs jobs on (not imported ones). */
	strvec_pushv(&all, kind_names_all());
	if (db_query(db, &res, err,
		     "SELECT name, kind FROM hosts WHERE kind = ANY($1) "
		     "ORDER BY name",
		     db_text_array(&all), db_end()) < 0) {
		strvec_clear(&all);
		return -1;
	}
	strvec_clear(&all);
	n = db_nrows(res);
	for (int i = 0; i < n; i++)
		booting |= hosts_kind_boots(db_get(res, i, 1));
	for (int i = 0; i < n; i++) {
		strbuf_reset(&one);
		if (queue_host_can_take(db, db_get(res, i, 0), req, plan_name,
					flags, base, &one) == 0)
			goto out;
		if (i < 3)
			strbuf_addf(&why, "%s%s", i ? "; " : "", one.buf);
	}
	if (n > 3)
		strbuf_addf(&why, "; and %d more host%s", n - 3,
			    n - 3 == 1 ? "" : "s");
	if (req->req_kinds.nr)
		for (size_t i = 0; i < req->req_kinds.nr; i++)
			strbuf_addf(&kinds, "%s%s", i ? " or " : "",
				    req->req_kinds.v[i]);
	else
		kind_names_join(&kinds,
				flags & QUEUE_HOST_NEEDS_BOOT
					? kind_names_booting()
					: kind_names_all(),
				" or ");
	if (n && !booting && (flags & QUEUE_HOST_NEEDS_BOOT))
		strbuf_addf(err,
			    "no host that boots kernels is registered (the %d "
			    "here run their own), so the series on %s would "
			    "never be built: add a %s host that meets the plan "
			    "%s (schedfarm host add), or give --kernel NAME, "
			    "the kernel a host runs with the series applied",
			    n, base, kinds.buf, plan_name);
	else if (!n)
		strbuf_addf(err,
			    "no host is registered, so nothing would ever take "
			    "this job: add a %s host that meets the plan %s "
			    "(schedfarm host add NAME --kind KIND ...), then "
			    "submit again",
			    kinds.buf, plan_name);
	else
		strbuf_addf(err,
			    "no host can take this job, so it would wait for "
			    "ever: %s.  Add a %s host that meets the plan %s "
			    "(schedfarm host add), or name one with --host",
			    why.buf, kinds.buf, plan_name);
	strbuf_release(&why);
	strbuf_release(&one);
	strbuf_release(&kinds);
	return -1;
out:
	strbuf_release(&why);
	strbuf_release(&one);
	strbuf_release(&kinds);
	return 0;
}

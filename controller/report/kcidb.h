/*
 * kcidb.h - answers as KernelCI's common database (KCIDB) sees them: one
 * I/O document of schema 5.3 (checkouts, builds, tests), and its
 * submission to a kcidb-ng endpoint (doc/KCIDB.md).
 *
 * The mapping (kcidb.c): a checkout per base and per (base, series), a
 * build per kernel, a test per boot (path "boot") and per boot and metric
 * (path WORKLOAD.PARAM_VALUE....METRIC, status DONE, the boot's mean as
 * its number), the verdict of the patch's planned comparison in the misc
 * of each metric's tests.  Every id is ORIGIN:LOCAL, made of row ids
 * only, so the same farm exports the same ids every time.  No member is
 * ever null and no number is ever NaN or infinite: what is unknown is
 * left out.  The submission (kcidb_submit.c) records each answer's
 * export in `kcidb_exports` (store/kcidb.h).  Nothing here prints.
 */
#ifndef SCHEDFARM_REPORT_KCIDB_H
#define SCHEDFARM_REPORT_KCIDB_H

#include <stdint.h>

#include "store/db.h"
#include "strbuf.h"
#include "strvec.h"

/* kcidb-io 5.3's longest log_excerpt, in characters; the export keeps
 * the last this many bytes of a longer log. */
#define KCIDB_EXCERPT_MAX 16384

struct kcidb_opts {
	const char *origin; /* ^[a-z0-9_]+$ */
	/* Where the report is served (http:// or https://), for log and
	 * patch file URLs; NULL: the document names no URL. */
	const char *base_url;
	/* The report folder, where the series' files are written for
	 * patchset_files when base_url is set; NULL: none written. */
	const char *files_dir;
};

/* A document being put together: its three lists, and the ids in them
 * (an object two answers share, such as a base's build, goes in once). */
struct kcidb_doc {
	struct strbuf checkouts, builds, tests;
	struct strvec ids;
	int answers;
};

void kcidb_doc_init(struct kcidb_doc *d);
void kcidb_doc_release(struct kcidb_doc *d);

/*
 * Add the objects of answered patch patch (its row read with
 * kcidb_answers()) to d.  0, or -1 with err (a read failed, or a patch
 * file could not be written); d then holds what was added before.
 */
int kcidb_doc_add_answer(struct kcidb_doc *d, struct db *db,
			 const struct kcidb_opts *o, int64_t patch,
			 struct strbuf *err);

/* The document d makes, one line of JSON and a newline, appended to out. */
void kcidb_doc_text(const struct kcidb_doc *d, struct strbuf *out);

/*
 * One segment of a KCIDB test path from s: each byte outside
 * [A-Za-z0-9_-] becomes '_' (a name is mapped, never dropped), and an
 * empty s is "_".  Appended to out.
 */
void kcidb_path_segment(struct strbuf *out, const char *s);

/* ---- submission (kcidb_submit.c) ---------------------------------- */

struct kcidb_endpoint {
	const char
		*url; /* https://HOST[/PREFIX]: /submit and /status under it */
	const char *token; /* the bearer token */
	const char *ca_file; /* NULL: the system's CAs */
	int64_t retry_ms; /* the first wait after a failure */
	int64_t wait_ms; /* how long to poll a submission's status; 0: once */
};

/* Which answers a submission takes; every field unset (0, NULL) takes
 * any.  The same selections as a plain export's. */
struct kcidb_select {
	int64_t patch; /* PLM#, or 0 */
	const char *kernel; /* the base or the patched kernel's name */
	const char *since; /* answered at or after: a PostgreSQL timestamptz */
};

/* What kcidb_submit_due() did. */
struct kcidb_submit_stats {
	int sent, processed, failed, waiting;
	int busy; /* another controller held the submitter's lock */
};

/*
 * Submit the answers that are due (never sent, or whose retry is due)
 * among those sel takes (NULL: all), and poll those of sel's
 * submissions that are not yet processed:
 * each answer's document made afresh, POSTed to /submit (a 5xx or no
 * answer tried again twice, soon), recorded as tried, submitted,
 * processed or failed in `kcidb_exports`, a failure with its error and
 * the time of its next try.  Polls GET /status?id= for ep->wait_ms.
 * One controller at a time (a database lock): when another holds it,
 * nothing is done and st->busy says so.
 * Counts into st.  0 when every step was recorded (a submission that
 * failed is recorded, not an error); -1 with err when the database
 * failed.  Per-answer failures are appended to notes, one line each.
 */
int kcidb_submit_due(struct db *db, const struct kcidb_opts *o,
		     const struct kcidb_endpoint *ep,
		     const struct kcidb_select *sel,
		     struct kcidb_submit_stats *st, struct strbuf *notes,
		     struct strbuf *err);

/*
 * What kcidb-ng's answer to POST /submit (HTTP status code, body) says:
 * 0 with the submission's id appended to ret_id when it is 2xx
 * {"status": "ok", "id": ID} with ID 1 to 64 letters and digits, not
 * "0"; -1 with err when another try may do better (5xx, 429); -2 with
 * err when it will not (another code, another body).  err carries
 * kcidb-ng's "message" when the body has one, else the body's start.
 */
int kcidb_submit_reply(long code, const struct strbuf *body,
		       struct strbuf *ret_id, struct strbuf *err);

/*
 * What kcidb-ng's answer to GET /status?id=id (HTTP status code, body)
 * says: 0 with *ret_state 1 (200 "processed"), -1 (it never will be:
 * 200 "failed", 404 "notfound", 400 "error" for an id it refuses; why
 * in err) or 0 (not yet: "inprogress", "ready", or a status unknown
 * here); -1 with err when the answer is none of kcidb-ng's (another
 * code, a body that is not its JSON object, 401).
 */
int kcidb_status_reply(const char *id, long code, const struct strbuf *body,
		       int *ret_state, struct strbuf *err);

struct farm_config;
/*
 * kcidb_submit_due() as the settings say: [kcidb] origin (or origin when
 * not NULL), url, token_file (read now, never kept), ca_file and retry;
 * [report] base_url and dir for the URLs when the report is served over
 * http(s).  0, or -1 with err (no url, the token unreadable, the
 * database).
 */
int kcidb_submit_configured(struct db *db, const struct farm_config *cfg,
			    const char *origin, const struct kcidb_select *sel,
			    int64_t wait_ms, struct kcidb_submit_stats *st,
			    struct strbuf *notes, struct strbuf *err);

/*
 * The mapping's options from the settings: origin (or cfg's), base_url
 * and files_dir when [report] base_url is http:// or https:// (the report
 * folder made when missing).  0, or -1 with err.
 */
int kcidb_opts_from_config(const struct farm_config *cfg, const char *origin,
			   struct kcidb_opts *o, struct strbuf *err);

#endif

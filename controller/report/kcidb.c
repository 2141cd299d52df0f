/*
 * kcidb.c - an answered patch as KCIDB 5.3 objects; see kcidb.h and
 * doc/KCIDB.md for the mapping.
 *
 * The objects are written as JSON text member by member: a member whose
 * value is unknown (SQL NULL, a number that is not finite, an empty
 * string where KCIDB wants something) is left out, never written as
 * null, so that the document passes the schema's "no nulls" rule and
 * never carries NaN.  The ids are ORIGIN:KIND-ROWIDS (kcidb.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "fs.h"
#include "json.h"
#include "parse.h"
#include "report/kcidb.h"
#include "store/kcidb.h"
#include "store/pages.h"
#include "workloads.h"
#include "banned.h"

void kcidb_doc_init(struct kcidb_doc *d)
{
	memset(d, 0, sizeof(*d));
	strbuf_init(&d->checkouts, 0);
	strbuf_init(&d->builds, 0);
	strbuf_init(&d->tests, 0);
	strvec_init(&d->ids);
}

void kcidb_doc_release(struct kcidb_doc *d)
{
	strbuf_release(&d->checkouts);
	strbuf_release(&d->builds);
	strbuf_release(&d->tests);
	strvec_clear(&d->ids);
}

void kcidb_doc_text(const struct kcidb_doc *d, struct strbuf *out)
{
	strbuf_addstr(out, "{\"version\":{\"major\":5,\"minor\":3},"
			   "\"checkouts\":[");
	strbuf_addbuf(out, &d->checkouts);
	strbuf_addstr(out, "],\"builds\":[");
	strbuf_addbuf(out, &d->builds);
	strbuf_addstr(out, "],\"tests\":[");
	strbuf_addbuf(out, &d->tests);
	strbuf_addstr(out, "]}\n");
}

void kcidb_path_segment(struct strbuf *out, const char *s)
{
	if (!s || !*s) {
		strbuf_addch(out, '_');
		return;
	}
	for (; *s; s++)
		strbuf_addch(out, isalnum((unsigned char)*s) || *s == '_' ||
						  *s == '-'
					  ? *s
					  : '_');
}

/* ---- one JSON object, member by member ---------------------------- */

struct obj {
	struct strbuf *o;
	int n; /* members so far */
};

static void obj_open(struct obj *j, struct strbuf *o)
{
	j->o = o;
	j->n = 0;
	strbuf_addch(o, '{');
}

static void obj_key(struct obj *j, const char *k)
{
	if (j->n++)
		strbuf_addch(j->o, ',');
	strbuf_add_json_str(j->o, k);
	strbuf_addch(j->o, ':');
}

/* "k": v, when v is a non-empty string. */
static void obj_str(struct obj *j, const char *k, const char *v)
{
	if (!v || !*v)
		return;
	obj_key(j, k);
	strbuf_add_json_str(j->o, v);
}

/* "k": v, when v is finite. */
static void obj_double(struct obj *j, const char *k, double v)
{
	if (!isfinite(v))
		return;
	obj_key(j, k);
	strbuf_add_json_double(j->o, v);
}

/* "k": the number in text v, when v is one and finite (never NaN,
 * which PostgreSQL writes as "NaN"). */
static void obj_num(struct obj *j, const char *k, const char *v)
{
	double d;

	if (v && parse_double(v, -1e308, 1e308, &d, NULL) == 0)
		obj_double(j, k, d);
}

/*
 * "k": the end of log text v, when v is not empty: kcidb-io 5.3 caps a
 * log_excerpt at 16384 characters, so a longer v keeps its last 16384
 * bytes (the end of a log says what failed), cut where a UTF-8
 * character starts.
 */
static void obj_excerpt(struct obj *j, const char *k, const char *v)
{
	size_t l = v ? strlen(v) : 0;

	if (l > KCIDB_EXCERPT_MAX) {
		v += l - KCIDB_EXCERPT_MAX;
		while ((*v & 0xc0) == 0x80)
			v++;
	}
	obj_str(j, k, v);
}

static void obj_bool(struct obj *j, const char *k, int v)
{
	obj_key(j, k);
	strbuf_addstr(j->o, v ? "true" : "false");
}

/* "k": raw, JSON text the caller vouches for. */
static void obj_raw(struct obj *j, const char *k, const char *raw)
{
	obj_key(j, k);
	strbuf_addstr(j->o, raw);
}

static void obj_close(struct obj *j)
{
	strbuf_addch(j->o, '}');
}

/*
 * Whether id is new in d (then it is remembered): an object two answers
 * share goes into the document once.
 */
static int first_time(struct kcidb_doc *d, const char *id)
{
	for (size_t i = 0; i < d->ids.nr; i++)
		if (!strcmp(d->ids.v[i], id))
			return 0;
	strvec_push(&d->ids, id);
	return 1;
}

/* Start the next object of list (a comma after the one before). */
static void next_item(struct strbuf *list)
{
	if (list->len)
		strbuf_addch(list, ',');
}

static int is_hex40(const char *s)
{
	return s && strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

/* The URL of file (in the report folder) when the report is served. */
static void page_url(const struct kcidb_opts *o, const char *file,
		     struct strbuf *out)
{
	size_t l = strlen(o->base_url);

	strbuf_addf(out, "%s%s%s", o->base_url,
		    l && o->base_url[l - 1] == '/' ? "" : "/", file);
}

/* The columns of kcidb_answers(), kcidb_kernels() and kcidb_boots(). */
enum {
	A_ID,
	A_NAME,
	A_BASE,
	A_CREATED,
	A_ANSWERED,
	A_BK,
	A_BK_NAME,
	A_NK,
	A_NK_NAME,
	A_VERDICT,
	A_HEADLINE,
	A_HOST,
	A_BASE_REF,
	A_SUBMITTER,
	A_HOST_ID,
	A_NPATCHES,
	A_BK_BASE,
	A_PATCHSET_HASH,
	A_NOTE,
	A_STATE
};
enum {
	K_ID,
	K_NAME,
	K_BASE,
	K_BASE_REF,
	K_CONFIG,
	K_STATE,
	K_SECONDS,
	K_START,
	K_ERROR,
	K_MODE,
	K_RELEASE,
	K_SERIES,
	K_COMMAND,
	K_DIR,
	K_HAS_LOG
};
enum {
	B_KERNEL,
	B_JOB,
	B_BOOT,
	B_HOST,
	B_START,
	B_DURATION,
	B_RUNS,
	B_DONE,
	B_IMPORTED,
	B_ERROR_PHASE,
	B_ERROR,
	B_OUTCOME,
	B_BLAME,
	B_KIND,
	B_CONSOLE,
	B_LOG_RUN
};
enum {
	M_KERNEL,
	M_JOB,
	M_BOOT,
	M_WORKLOAD,
	M_PARAMS,
	M_METRIC,
	M_UNIT,
	M_MEAN,
	M_N,
	M_PARAMS_JSON,
	M_HOST,
	M_KEY
};

/* The git members of a checkout: from the base's origin when it is an
 * https:// repository, the commit when base_ref is a 40-hex revision. */
static void git_members(struct obj *j, const struct db_result *a)
{
	const char *src = db_get(a, 0, A_BK_BASE),
		   *ref = db_get(a, 0, A_BASE_REF);

	if (src && starts_with(src, "https://"))
		obj_str(j, "git_repository_url", src);
	if (is_hex40(ref))
		obj_str(j, "git_commit_hash", ref);
	else if (ref)
		obj_str(j, "git_commit_name", ref);
	obj_str(j, "tree_name", db_get(a, 0, A_BASE));
}

/* Whether the n bytes at v are an addr-spec as message_id() wants. */
static int addr_spec(const char *v, size_t n)
{
	const char *at = memchr(v, '@', n);

	if (!at || at == v || at == v + n - 1 ||
	    memchr(at + 1, '@', n - (size_t)(at - v) - 1))
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] <= ' ' || strchr("\"<>()[]\\,;:", v[i]))
			return 0;
	return 1;
}

/*
 * The Message-ID in the header of a mail-formatted patch (data), without
 * its angle brackets, into out; nothing when there is none, or when it
 * is not an addr-spec kcidb-io's "email" format takes (one '@' with
 * something either side, no blank, quote, bracket or control byte).
 */
static void message_id(const char *data, struct strbuf *out)
{
	const char *p = data;

	while (*p && *p != '\n') {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);

		if (l > 11 && !strncasecmp(p, "Message-ID:", 11)) {
			const char *v = p + 11, *e = p + l;

			while (v < e && (*v == ' ' || *v == '\t' || *v == '<'))
				v++;
			while (e > v &&
			       (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '>'))
				e--;
			if (addr_spec(v, (size_t)(e - v)))
				strbuf_add(out, v, (size_t)(e - v));
			return;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
}

/*
 * The series' files as patchset_files (written beside the report as
 * patch-PLM-POS.patch when it is served), its Message-ID and its
 * subject.  0, or -1 with err.
 */
static int series_members(struct obj *j, struct db *db,
			  const struct kcidb_opts *o, int64_t patch,
			  const struct db_result *a, struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *f = NULL;
	struct strbuf list = STRBUF_INIT, mid = STRBUF_INIT;
	int r = 0;

	if (kcidb_patch_files(db, patch, &f, err) < 0)
		return -1;
	for (int i = 0; i < db_nrows(f) && o->base_url && o->files_dir; i++) {
		struct strbuf data = STRBUF_INIT, file = STRBUF_INIT,
			      path = STRBUF_INIT, url = STRBUF_INIT;
		struct obj res;
		const char *name = db_get(f, i, 1), *slash = strrchr(name, '/');

		strbuf_add_unhex(&data, db_get(f, i, 4));
		if (i == 0)
			message_id(data.buf, &mid);
		strbuf_addf(&file, "patch-%lld-%s.patch", (long long)patch,
			    db_get(f, i, 0));
		strbuf_addf(&path, "%s/%s", o->files_dir, file.buf);
		if (write_file_if_changed(path.buf, data.buf, data.len, 0644, 0,
					  err) < 0)
			r = -1;
		page_url(o, file.buf, &url);
		next_item(&list);
		obj_open(&res, &list);
		obj_str(&res, "name", slash && slash[1] ? slash + 1 : name);
		obj_str(&res, "url", url.buf);
		obj_close(&res);
		strbuf_release(&data);
		strbuf_release(&file);
		strbuf_release(&path);
		strbuf_release(&url);
		if (r < 0)
			break;
	}
	if (!mid.len && db_nrows(f) > 0) {
		struct strbuf data = STRBUF_INIT;

		strbuf_add_unhex(&data, db_get(f, 0, 4));
		message_id(data.buf, &mid);
		strbuf_release(&data);
	}
	if (list.len) {
		obj_key(j, "patchset_files");
		strbuf_addf(j->o, "[%s]", list.buf);
	}
	obj_str(j, "message_id", mid.buf);
	obj_str(j, "comment",
		db_nrows(f) == 1 && *db_get(f, 0, 2) ? db_get(f, 0, 2)
						     : db_get(a, 0, A_NAME));
	strbuf_release(&list);
	strbuf_release(&mid);
	return r;
}

/*
 * The two checkouts of answer a: the base alone (patchset_hash "") and
 * the base with the series.  new_kernel: the patched kernel's row of
 * kcidb_kernels(), for whether the series applied.  0, or -1 with err.
 */
static int add_checkouts(struct kcidb_doc *d, struct db *db,
			 const struct kcidb_opts *o, const struct db_result *a,
			 const struct db_result *k, int new_row,
			 struct strbuf *err)
{
	struct strbuf id = STRBUF_INIT;
	const char *berr = new_row >= 0 ? db_get(k, new_row, K_ERROR) : NULL;
	const char *note = db_get(a, 0, A_NOTE);
	int64_t patch = strtoll(db_get(a, 0, A_ID), NULL, 10);
	struct obj j;
	int r = 0;

	strbuf_addf(&id, "%s:base-%s", o->origin, db_get(a, 0, A_BK));
	if (db_get(a, 0, A_BK) && first_time(d, id.buf)) {
		next_item(&d->checkouts);
		obj_open(&j, &d->checkouts);
		obj_str(&j, "id", id.buf);
		obj_str(&j, "origin", o->origin);
		git_members(&j, a);
		obj_raw(&j, "patchset_hash", "\"\"");
		obj_str(&j, "comment", db_get(a, 0, A_BK_NAME));
		obj_bool(&j, "valid", 1);
		obj_close(&j);
	}
	strbuf_reset(&id);
	strbuf_addf(&id, "%s:plm-%lld", o->origin, (long long)patch);
	if (first_time(d, id.buf)) {
		/* lab/build_source.c's words for a series that did not
		 * apply, in the kernel's build error or the answer's note. */
		int in_build = berr && strstr(berr, "does not apply");
		int in_note = !strcmp(db_get(a, 0, A_STATE), "failed") &&
			      note && strstr(note, "does not apply");
		int applied = !in_build && !in_note;

		next_item(&d->checkouts);
		obj_open(&j, &d->checkouts);
		obj_str(&j, "id", id.buf);
		obj_str(&j, "origin", o->origin);
		git_members(&j, a);
		obj_str(&j, "patchset_hash", db_get(a, 0, A_PATCHSET_HASH));
		if (!*db_get(a, 0, A_PATCHSET_HASH))
			obj_raw(&j, "patchset_hash", "\"\"");
		r = series_members(&j, db, o, patch, a, err);
		obj_str(&j, "start_time", db_get(a, 0, A_CREATED));
		obj_bool(&j, "valid", applied);
		if (!applied)
			obj_excerpt(&j, "log_excerpt", in_build ? berr : note);
		obj_key(&j, "misc");
		{
			struct obj m;

			obj_open(&m, j.o);
			obj_raw(&m, "plm", db_get(a, 0, A_ID));
			obj_str(&m, "submitter", db_get(a, 0, A_SUBMITTER));
			obj_str(&m, "verdict", db_get(a, 0, A_VERDICT));
			obj_str(&m, "headline", db_get(a, 0, A_HEADLINE));
			obj_str(&m, "answer_state", db_get(a, 0, A_STATE));
			obj_str(&m, "note", note);
			obj_str(&m, "answered_at", db_get(a, 0, A_ANSWERED));
			obj_close(&m);
		}
		obj_close(&j);
	}
	strbuf_release(&id);
	return r;
}

/* The kernel architecture of this machine, as KCIDB spells it. */
static void architecture(struct strbuf *out)
{
	struct utsname u;

	if (uname(&u) < 0)
		return;
	if (!strcmp(u.machine, "aarch64"))
		strbuf_addstr(out, "arm64");
	else
		for (const char *p = u.machine; *p; p++)
			strbuf_addch(out, isalnum((unsigned char)*p)
						  ? tolower((unsigned char)*p)
						  : '_');
}

/* The compiler a build's .config names (CONFIG_CC_VERSION_TEXT). */
static void compiler(const char *build_dir, struct strbuf *out)
{
	struct strbuf path = STRBUF_INIT, cfg = STRBUF_INIT;
	const char *p, *e;

	if (!build_dir)
		return;
	strbuf_addf(&path, "%s/out/.config", build_dir);
	if (strbuf_read_file(&cfg, path.buf, 4 << 20) >= 0 &&
	    (p = strstr(cfg.buf, "CONFIG_CC_VERSION_TEXT=\""))) {
		p += strlen("CONFIG_CC_VERSION_TEXT=\"");
		e = strchr(p, '"');
		if (e)
			strbuf_add(out, p, (size_t)(e - p));
	}
	strbuf_release(&path);
	strbuf_release(&cfg);
}

/* The build of kernel row i of k, its checkout checkout_id. */
static void add_build(struct kcidb_doc *d, const struct kcidb_opts *o,
		      const struct db_result *k, int i, const char *checkout_id)
{
	struct strbuf id = STRBUF_INIT, v = STRBUF_INIT;
	const char *state = db_get(k, i, K_STATE);
	int built = !strcmp(state, "built") || !strcmp(state, "failed");
	struct obj j, m;

	strbuf_addf(&id, "%s:build-%s", o->origin, db_get(k, i, K_ID));
	if (!first_time(d, id.buf)) {
		strbuf_release(&id);
		return;
	}
	next_item(&d->builds);
	obj_open(&j, &d->builds);
	obj_str(&j, "checkout_id", checkout_id);
	obj_str(&j, "id", id.buf);
	obj_str(&j, "origin", o->origin);
	obj_str(&j, "comment", db_get(k, i, K_NAME));
	if (built) {
		obj_str(&j, "start_time", db_get(k, i, K_START));
		obj_num(&j, "duration", db_get(k, i, K_SECONDS));
		architecture(&v);
		obj_str(&j, "architecture", v.buf);
		strbuf_reset(&v);
		compiler(db_get(k, i, K_DIR), &v);
		obj_str(&j, "compiler", v.buf);
		obj_str(&j, "command", db_get(k, i, K_COMMAND));
		obj_str(&j, "status",
			!strcmp(state, "built") ? "PASS" : "FAIL");
		obj_excerpt(&j, "log_excerpt", db_get(k, i, K_ERROR));
	}
	obj_str(&j, "config_name", db_get(k, i, K_CONFIG));
	if (o->base_url && *db_get(k, i, K_HAS_LOG) == 't') {
		strbuf_reset(&v);
		strbuf_addf(&v, "kernel-%s-build.txt", db_get(k, i, K_ID));
		{
			struct strbuf url = STRBUF_INIT;

			page_url(o, v.buf, &url);
			obj_str(&j, "log_url", url.buf);
			strbuf_release(&url);
		}
	}
	obj_key(&j, "misc");
	obj_open(&m, j.o);
	obj_str(&m, "kernel", db_get(k, i, K_NAME));
	obj_str(&m, "build_state", state);
	obj_str(&m, "build_mode", db_get(k, i, K_MODE));
	obj_str(&m, "release", db_get(k, i, K_RELEASE));
	obj_close(&m);
	obj_close(&j);
	strbuf_release(&id);
	strbuf_release(&v);
}

/* KCIDB's status of boot row i of b. */
static const char *boot_status(const struct db_result *b, int i)
{
	const char *outcome = db_get(b, i, B_OUTCOME);
	const char *blame = db_get(b, i, B_BLAME);
	const char *phase = db_get(b, i, B_ERROR_PHASE);
	int kernel = (outcome && !strcmp(outcome, "kernel-failed")) ||
		     (blame && !strcmp(blame, "kernel"));

	if (!strcmp(db_get(b, i, B_BOOT), "-1")) {
		/* A job that ended before any run: the kernel's fault, or
		 * the lab's (the boot never happened: MISS). */
		if (kernel && phase && !strcmp(phase, "boot"))
			return "FAIL";
		return "MISS";
	}
	if (!strcmp(db_get(b, i, B_RUNS), db_get(b, i, B_DONE)))
		return "PASS";
	return kernel ? "FAIL" : "ERROR";
}

/* The environment of a test on host row i of b: the host by name. */
static void environment(struct obj *j, const struct db_result *b, int i,
			int col_host, const char *kind)
{
	struct obj e, m;

	obj_key(j, "environment");
	obj_open(&e, j->o);
	obj_str(&e, "comment", db_get(b, i, col_host));
	obj_key(&e, "misc");
	obj_open(&m, e.o);
	obj_str(&m, "platform", db_get(b, i, col_host));
	obj_str(&m, "host_kind", kind);
	obj_close(&m);
	obj_close(&e);
}

/* The id of boot row i of b ("boot-KERNEL-JOB-BOOT"), into out. */
static void boot_id(const struct kcidb_opts *o, const char *kernel,
		    const char *job, const char *boot, struct strbuf *out)
{
	strbuf_addf(out, "%s:boot-%s-%s-%s", o->origin, kernel, job,
		    !strcmp(boot, "-1") ? "none" : boot);
}

/* The test of boot row i of b. */
static void add_boot(struct kcidb_doc *d, const struct kcidb_opts *o,
		     const struct db_result *b, int i)
{
	struct strbuf id = STRBUF_INIT, bid = STRBUF_INIT;
	struct obj j, m;

	boot_id(o, db_get(b, i, B_KERNEL), db_get(b, i, B_JOB),
		db_get(b, i, B_BOOT), &id);
	if (!first_time(d, id.buf)) {
		strbuf_release(&id);
		return;
	}
	strbuf_addf(&bid, "%s:build-%s", o->origin, db_get(b, i, B_KERNEL));
	next_item(&d->tests);
	obj_open(&j, &d->tests);
	obj_str(&j, "build_id", bid.buf);
	obj_str(&j, "id", id.buf);
	obj_str(&j, "origin", o->origin);
	environment(&j, b, i, B_HOST, db_get(b, i, B_KIND));
	obj_str(&j, "path", "boot");
	obj_str(&j, "status", boot_status(b, i));
	obj_str(&j, "start_time", db_get(b, i, B_START));
	obj_num(&j, "duration", db_get(b, i, B_DURATION));
	obj_excerpt(&j, "log_excerpt", db_get(b, i, B_ERROR));
	if (o->base_url && db_get(b, i, B_LOG_RUN)) {
		struct strbuf f = STRBUF_INIT, url = STRBUF_INIT;

		strbuf_addf(&f, "run-%s.html#console", db_get(b, i, B_LOG_RUN));
		page_url(o, f.buf, &url);
		obj_str(&j, "log_url", url.buf);
		strbuf_release(&f);
		strbuf_release(&url);
	}
	obj_key(&j, "misc");
	obj_open(&m, j.o);
	if (strcmp(db_get(b, i, B_JOB), "0"))
		obj_raw(&m, "job", db_get(b, i, B_JOB));
	if (strcmp(db_get(b, i, B_BOOT), "-1"))
		obj_raw(&m, "boot", db_get(b, i, B_BOOT));
	obj_raw(&m, "runs", db_get(b, i, B_RUNS));
	obj_raw(&m, "runs_done", db_get(b, i, B_DONE));
	obj_bool(&m, "imported", *db_get(b, i, B_IMPORTED) == 't');
	obj_str(&m, "error_phase", db_get(b, i, B_ERROR_PHASE));
	obj_str(&m, "boot_outcome", db_get(b, i, B_OUTCOME));
	obj_close(&m);
	obj_close(&j);
	strbuf_release(&id);
	strbuf_release(&bid);
}

/* Columns of pages_latest_comparisons() (store/pages.h) used here. */
enum {
	C_HOST = 0,
	C_WORKLOAD = 2,
	C_PARAMS_JSON = 4,
	C_METRIC = 5,
	C_UNIT = 6,
	C_BETTER = 7,
	C_N_BASE = 8,
	C_N_NEW = 9,
	C_MEAN_BASE = 10,
	C_MEAN_NEW = 11,
	C_PCT = 14,
	C_CI_LOW = 15,
	C_CI_HIGH = 16,
	C_P = 17,
	C_TAU = 18,
	C_VERDICT = 19,
	C_BASE_NAME = 23,
	C_NEW_NAME = 24
};

/* The comparison row of c for metric row i of m, or -1. */
static int find_comparison(const struct db_result *c, const struct db_result *m,
			   int i)
{
	for (int r = 0; r < db_nrows(c); r++)
		if (!strcmp(db_get(c, r, C_HOST), db_get(m, i, M_HOST)) &&
		    !strcmp(db_get(c, r, C_WORKLOAD),
			    db_get(m, i, M_WORKLOAD)) &&
		    !strcmp(db_get(c, r, C_PARAMS_JSON),
			    db_get(m, i, M_PARAMS_JSON)) &&
		    !strcmp(db_get(c, r, C_METRIC), db_get(m, i, M_METRIC)))
			return r;
	return -1;
}

/* The verdict of comparison row r of c as an object. */
static void comparison(struct obj *j, const struct db_result *c, int r)
{
	struct obj v;

	obj_key(j, "comparison");
	obj_open(&v, j->o);
	obj_str(&v, "base_kernel", db_get(c, r, C_BASE_NAME));
	obj_str(&v, "new_kernel", db_get(c, r, C_NEW_NAME));
	obj_num(&v, "mean_base", db_get(c, r, C_MEAN_BASE));
	obj_num(&v, "mean_new", db_get(c, r, C_MEAN_NEW));
	obj_num(&v, "pct_change", db_get(c, r, C_PCT));
	obj_num(&v, "ci_low", db_get(c, r, C_CI_LOW));
	obj_num(&v, "ci_high", db_get(c, r, C_CI_HIGH));
	obj_num(&v, "p_value", db_get(c, r, C_P));
	obj_num(&v, "tau", db_get(c, r, C_TAU));
	obj_num(&v, "n_base", db_get(c, r, C_N_BASE));
	obj_num(&v, "n_new", db_get(c, r, C_N_NEW));
	obj_str(&v, "better", db_get(c, r, C_BETTER));
	obj_str(&v, "verdict", db_get(c, r, C_VERDICT));
	obj_close(&v);
}

/*
 * The path of metric row i of m: WORKLOAD.KEY_VALUE....METRIC, the
 * parameters those that differ from the workload's defaults (what tells
 * two runs of a sweep apart: workload_params_label()), each segment
 * mapped by kcidb_path_segment().
 */
static void metric_path(const struct db_result *m, int i, struct strbuf *out)
{
	struct strvec params = STRVEC_INIT;
	struct strbuf label = STRBUF_INIT, why = STRBUF_INIT;
	const char *pj = db_get(m, i, M_PARAMS_JSON);
	struct json_value *v = NULL;

	kcidb_path_segment(out, db_get(m, i, M_WORKLOAD));
	if (json_parse(pj, strlen(pj), NULL, &v, &why) == 0)
		workload_params_label(db_get(m, i, M_WORKLOAD), v, &label);
	if (label.len)
		strvec_split(&params, label.buf, ' ');
	for (size_t p = 0; p < params.nr; p++) {
		char *eq = strchr(params.v[p], '=');

		if (!*params.v[p])
			continue;
		if (eq)
			*eq = '_';
		strbuf_addch(out, '.');
		kcidb_path_segment(out, params.v[p]);
	}
	strbuf_addch(out, '.');
	kcidb_path_segment(out, db_get(m, i, M_METRIC));
	json_free(v);
	strvec_clear(&params);
	strbuf_release(&label);
	strbuf_release(&why);
}

/* The test of metric row i of m (its boot's row in b found by ids). */
static void add_metric(struct kcidb_doc *d, const struct kcidb_opts *o,
		       const struct db_result *m, int i,
		       const struct db_result *c, const char *host,
		       const char *kind)
{
	struct strbuf id = STRBUF_INIT, bid = STRBUF_INIT, path = STRBUF_INIT;
	double mean = NAN;
	struct obj j, n, x;
	int r;

	strbuf_addf(&id, "%s:metric-%s-%s-%s-%s", o->origin,
		    db_get(m, i, M_KERNEL), db_get(m, i, M_JOB),
		    db_get(m, i, M_BOOT), db_get(m, i, M_KEY));
	if (!first_time(d, id.buf)) {
		strbuf_release(&id);
		return;
	}
	strbuf_addf(&bid, "%s:build-%s", o->origin, db_get(m, i, M_KERNEL));
	metric_path(m, i, &path);
	(void)parse_double(db_get(m, i, M_MEAN), -1e308, 1e308, &mean, NULL);
	next_item(&d->tests);
	obj_open(&j, &d->tests);
	obj_str(&j, "build_id", bid.buf);
	obj_str(&j, "id", id.buf);
	obj_str(&j, "origin", o->origin);
	obj_key(&j, "environment");
	{
		struct obj e, em;

		obj_open(&e, j.o);
		obj_str(&e, "comment", host);
		obj_key(&e, "misc");
		obj_open(&em, e.o);
		obj_str(&em, "platform", host);
		obj_str(&em, "host_kind", kind);
		obj_close(&em);
		obj_close(&e);
	}
	obj_str(&j, "path", path.buf);
	obj_str(&j, "status", "DONE");
	if (isfinite(mean)) {
		obj_key(&j, "number");
		obj_open(&n, j.o);
		obj_double(&n, "value", mean);
		obj_str(&n, "unit", db_get(m, i, M_UNIT));
		obj_close(&n);
	}
	obj_key(&j, "misc");
	obj_open(&x, j.o);
	obj_str(&x, "workload", db_get(m, i, M_WORKLOAD));
	obj_raw(&x, "params", db_get(m, i, M_PARAMS_JSON));
	obj_str(&x, "metric", db_get(m, i, M_METRIC));
	obj_raw(&x, "observations", db_get(m, i, M_N));
	obj_raw(&x, "boot", db_get(m, i, M_BOOT));
	if (strcmp(db_get(m, i, M_JOB), "0"))
		obj_raw(&x, "job", db_get(m, i, M_JOB));
	r = find_comparison(c, m, i);
	if (r >= 0)
		comparison(&x, c, r);
	obj_close(&x);
	obj_close(&j);
	strbuf_release(&id);
	strbuf_release(&bid);
	strbuf_release(&path);
}

/* The row of b (kcidb_boots()) for metric row i of m, or -1. */
static int metric_boot(const struct db_result *b, const struct db_result *m,
		       int i, int *hint)
{
	for (int k = 0; k < db_nrows(b); k++) {
		int r = (*hint + k) % db_nrows(b);

		if (!strcmp(db_get(b, r, B_KERNEL), db_get(m, i, M_KERNEL)) &&
		    !strcmp(db_get(b, r, B_JOB), db_get(m, i, M_JOB)) &&
		    !strcmp(db_get(b, r, B_BOOT), db_get(m, i, M_BOOT))) {
			*hint = r;
			return r;
		}
	}
	return -1;
}

int kcidb_doc_add_answer(struct kcidb_doc *d, struct db *db,
			 const struct kcidb_opts *o, int64_t patch,
			 struct strbuf *err)
{
	_cleanup_db_result_ struct db_result *a = NULL, *k = NULL, *b = NULL,
					     *m = NULL, *c = NULL;
	struct strbuf cid = STRBUF_INIT;
	int64_t bk, nk;
	int new_row = -1, hint = 0, r = -1;

	if (kcidb_answers(db, patch, NULL, NULL, KCIDB_PICK_ANY, &a, err) < 0)
		return -1;
	if (db_nrows(a) != 1) {
		strbuf_addf(err, "PLM#%lld has no answer to export",
			    (long long)patch);
		return -1;
	}
	bk = db_get(a, 0, A_BK) ? strtoll(db_get(a, 0, A_BK), NULL, 10) : 0;
	nk = db_get(a, 0, A_NK) ? strtoll(db_get(a, 0, A_NK), NULL, 10) : 0;
	if (kcidb_kernels(db, bk, nk, &k, err) < 0 ||
	    kcidb_boots(db, patch, &b, err) < 0 ||
	    kcidb_metrics(db, patch, &m, err) < 0 ||
	    pages_latest_comparisons(db, bk, nk, patch, &c, err) < 0)
		return -1;
	for (int i = 0; i < db_nrows(k); i++)
		if (db_get(a, 0, A_NK) &&
		    !strcmp(db_get(k, i, K_ID), db_get(a, 0, A_NK)))
			new_row = i;
	if (add_checkouts(d, db, o, a, k, new_row, err) < 0)
		goto out;
	for (int i = 0; i < db_nrows(k); i++) {
		strbuf_reset(&cid);
		if (i == new_row)
			strbuf_addf(&cid, "%s:plm-%lld", o->origin,
				    (long long)patch);
		else
			strbuf_addf(&cid, "%s:base-%lld", o->origin,
				    (long long)bk);
		add_build(d, o, k, i, cid.buf);
	}
	for (int i = 0; i < db_nrows(b); i++)
		add_boot(d, o, b, i);
	for (int i = 0; i < db_nrows(m); i++) {
		int br = metric_boot(b, m, i, &hint);

		add_metric(d, o, m, i, c,
			   br >= 0 ? db_get(b, br, B_HOST) : NULL,
			   br >= 0 ? db_get(b, br, B_KIND) : NULL);
	}
	d->answers++;
	r = 0;
out:
	strbuf_release(&cid);
	return r;
}

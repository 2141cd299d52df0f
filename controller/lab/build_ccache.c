/*
 * build_ccache.c - the compiler cache every kernel build shares (issues 29
 * and 36): ccache (Debian's `ccache`), its folder in the kernel cache,
 * who may write it, its cap, and what it holds.
 *
 * Every make of a build (the config, the build, kernelrelease) is told
 * CC="ccache gcc" when ccache is installed, so that .config's
 * CONFIG_CC_VERSION_TEXT (ccache passes --version to gcc) and Kconfig's
 * record of $(CC) are the same in a fresh build, the incremental tree and
 * a layer over it.  CCACHE_BASEDIR is the kernel cache: the sources and
 * -I paths of builds/KEY/{src,out} and trees/TKEY/{src,out} become the
 * same relative paths (../src/...) before they are hashed, and ccache's
 * preprocessor mode hashes the preprocessed text, where the #defines of
 * a config fragment have vanished, so configs that differ in a fragment
 * share the objects it does not change.  CCACHE_NOHASHDIR=1: the build's
 * folder is not hashed either (a hit may carry another folder's name in
 * its debug information, which a farm kernel does not need).
 *
 * Who writes it: the farm's builds of a base alone (a trusted input, the
 * same predicate as sandbox_allow(): no patches), with the cap
 * (CCACHE_MAXSIZE).  A build of a submitted series reads it: its sandbox
 * binds the folder read-only (CCACHE_READONLY=1 too, and ccache's
 * temporary files in its private /tmp; the environment alone would not
 * do, the build's own recipes could undo it).  Unconfined (no sandbox,
 * --trust-submitters), a series runs with CCACHE_DISABLE=1 and is never
 * told where the cache is; so does one before any base's build made the
 * cache (a series makes nothing of it).  The folder is CACHE/ccache/store, the
 * farm user's; CACHE/ccache above it is root's, 0700, so that user (which the
 * local agent's plan commands run as) reaches it only through a sandbox's
 * bind.  Without ccache a build runs as before, its log says so.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "home.h"
#include "lab/build-int.h"
#include "lab/build.h"
#include "lab/sandbox.h"
#include "cleanup.h"
#include "fs.h"
#include "parse.h"
#include "run-command.h"
#include "banned.h"

/* Where a confined step's ccache keeps its temporary files: the
 * sandbox's private /tmp, never the shared folder. */
#define CCACHE_SANDBOX_TMP "/tmp/ccache-tmp"

static int64_t ccache_max = KERNEL_CCACHE_DEFAULT_MAX;

void kernel_ccache_set_max(int64_t bytes)
{
	ccache_max = bytes > 0 ? bytes : KERNEL_CCACHE_DEFAULT_MAX;
}

/* ccache: $SCHEDFARM_CCACHE names another program (a test names one
 * that is not there, to see the farm build without a cache). */
static const char *ccache_program(void)
{
	const char *e = getenv("SCHEDFARM_CCACHE");

	return e && *e ? e : "ccache";
}

/* 1 when ccache is installed (looked up once per process). */
static int ccache_installed(void)
{
	static int state; /* 0 unknown, 1 yes, -1 no */

	if (!state)
		state = program_exists(ccache_program()) ? 1 : -1;
	return state > 0;
}

void kernel_ccache_dir(const char *cache_dir, struct strbuf *ret)
{
	strbuf_addf(ret, "%s/ccache/store", cache_dir);
}

void build_ccache_make_args(struct strvec *args)
{
	if (ccache_installed())
		strvec_pushf(args, "CC=%s gcc", ccache_program());
}

/*
 * The cache's folders for a build: CACHE/ccache, the controller's and
 * closed to everyone else (0700), and its store below, handed to the
 * farm's user when the build is confined (sandbox_give_dir(): the user's,
 * 0700), the controller's own otherwise.  0, or -1 with err.
 */
static int ccache_folders(const char *cache_dir, int confined,
			  struct strbuf *store, struct strbuf *err)
{
	struct strbuf top = STRBUF_INIT;
	int r = -1;

	strbuf_addf(&top, "%s/ccache", cache_dir);
	if (mkdir_p(top.buf, 0700, err) < 0)
		goto out;
	/* Only a folder the farm's user wrote (build_step.c's
	 * build_cache_owned(), which calls here: not called back). */
	if (home_check_owned(top.buf, 0, 1, err) < 0)
		goto out;
	if (chmod(top.buf, 0700) < 0) {
		strbuf_addf(err, "cannot close %s to others: %s", top.buf,
			    strerror(errno));
		goto out;
	}
	kernel_ccache_dir(cache_dir, store);
	if (confined) {
		r = sandbox_give_dir(store->buf, err);
		/* A controller that is not root reads and writes as itself. */
		if (!r && geteuid() != 0)
			r = mkdir_p(store->buf, 0700, err);
	} else {
		r = mkdir_p(store->buf, 0700, err);
	}
out:
	strbuf_release(&top);
	return r;
}

/* 1 when the store of cache_dir is there (made by a base's build). */
static int store_made(const char *cache_dir)
{
	struct strbuf store = STRBUF_INIT;
	struct stat st;
	int r;

	kernel_ccache_dir(cache_dir, &store);
	r = lstat(store.buf, &st) == 0 && S_ISDIR(st.st_mode);
	strbuf_release(&store);
	return r;
}

/*
 * The environment that says where the cache is and how paths hash.  The
 * base folder is the kernel cache as make's paths name it: confined, the
 * path the sandbox binds the tree at (its folders are made there, never
 * links); unconfined, where it leads (kbuild takes the realpath of the
 * tree), so a kernel cache reached through a link still hashes alike.
 */
static void ccache_env(const struct kernel_build_spec *spec,
		       struct child_process *cp, const char *store,
		       int confined)
{
	_cleanup_free_ char *real = NULL;
	const char *base = spec->cache_dir;

	if (base[0] != '/' || !confined) {
		real = realpath(base, NULL);
		if (real)
			base = real;
	}
	strvec_pushf(&cp->env, "CCACHE_DIR=%s", store);
	strvec_pushf(&cp->env, "CCACHE_BASEDIR=%s", base);
	strvec_push(&cp->env, "CCACHE_NOHASHDIR=1");
}

int build_ccache_confine(const struct kernel_build_spec *spec,
			 struct child_process *cp, struct sandbox_paths *paths,
			 int confined, struct strbuf *err)
{
	struct strbuf store = STRBUF_INIT;
	int trusted = spec->patches.nr == 0, r = -1;

	if (!ccache_installed() || !spec->cache_dir)
		return 0;
	if (!trusted && (!confined || !store_made(spec->cache_dir))) {
		/* Nothing stops an unconfined build: it is not told of the
		 * cache, and its ccache only runs gcc.  Nor is a confined
		 * one when no base's build made the cache yet: it makes
		 * nothing of it (nothing left that is the build user's). */
		strvec_push(&cp->env, "CCACHE_DISABLE=1");
		return 0;
	}
	if (trusted) {
		if (ccache_folders(spec->cache_dir, confined, &store, err) < 0)
			goto out;
		ccache_env(spec, cp, store.buf, confined);
		strvec_pushf(&cp->env, "CCACHE_MAXSIZE=%lldKi",
			     (long long)(ccache_max >> 10));
		if (confined)
			strvec_push(&paths->rw, store.buf);
	} else {
		/* Bound as it is: neither made nor handed over for a
		 * series. */
		kernel_ccache_dir(spec->cache_dir, &store);
		ccache_env(spec, cp, store.buf, confined);
		/* Its temporary files in its own /tmp, not in the store. */
		strvec_push(&cp->env, "CCACHE_TEMPDIR=" CCACHE_SANDBOX_TMP);
		strvec_push(&cp->env, "CCACHE_READONLY=1");
		strvec_push(&paths->ro, store.buf);
	}
	r = 0;
out:
	strbuf_release(&store);
	return r;
}

void build_ccache_describe(const struct kernel_build_spec *spec,
			   struct strbuf *log)
{
	struct strbuf store = STRBUF_INIT, e = STRBUF_INIT;
	int confined;

	if (!ccache_installed()) {
		strbuf_addstr(log, "ccache is not installed: building without "
				   "a compiler cache\n");
		return;
	}
	confined = sandbox_allow(spec->patches.nr > 0, &e) > 0;
	kernel_ccache_dir(spec->cache_dir, &store);
	if (!spec->patches.nr)
		strbuf_addf(log,
			    "compiler cache %s: read and written (a base "
			    "alone), cap %lld MiB\n",
			    store.buf, (long long)(ccache_max >> 20));
	else if (confined && !store_made(spec->cache_dir))
		strbuf_addstr(log, "compiler cache: off (a series, and no "
				   "base's build made the cache yet)\n");
	else if (confined)
		strbuf_addf(log,
			    "compiler cache %s: read-only (a series: bound "
			    "read-only in its sandbox)\n",
			    store.buf);
	else
		strbuf_addstr(log, "compiler cache: off (a series built "
				   "unconfined)\n");
	strbuf_release(&store);
	strbuf_release(&e);
}

/* The counters of ccache --print-stats that kernel_ccache_stats keeps. */
static const struct {
	const char *key;
	size_t off;
} stat_keys[] = {
	{ "direct_cache_hit",
	  offsetof(struct kernel_ccache_stats, direct_hits) },
	{ "preprocessed_cache_hit",
	  offsetof(struct kernel_ccache_stats, preprocessed_hits) },
	{ "cache_miss", offsetof(struct kernel_ccache_stats, misses) },
	{ "files_in_cache", offsetof(struct kernel_ccache_stats, files) },
	{ "cache_size_kibibyte",
	  offsetof(struct kernel_ccache_stats, size_kib) },
};

int kernel_ccache_parse_stats(const char *text, struct kernel_ccache_stats *ret,
			      struct strbuf *err)
{
	struct strvec lines = STRVEC_INIT;
	unsigned seen = 0;
	int r = -1;

	memset(ret, 0, sizeof(*ret));
	strvec_split(&lines, text, '\n');
	for (size_t i = 0; i < lines.nr; i++) {
		char *tab = strchr(lines.v[i], '\t');
		int64_t v;
		const char *why;

		if (!*lines.v[i])
			continue;
		if (!tab) {
			strbuf_addf(err,
				    "ccache --print-stats: line %zu is not "
				    "KEY<tab>VALUE",
				    i + 1);
			goto out;
		}
		*tab = '\0';
		for (size_t k = 0; k < ARRAY_SIZE(stat_keys); k++) {
			if (strcmp(lines.v[i], stat_keys[k].key))
				continue;
			/* A counter: 0 .. 2^53, whatever ccache's type. */
			if (parse_i64(tab + 1, 0, 1ll << 53, &v, &why) < 0) {
				strbuf_addf(err, "ccache --print-stats: %s %s",
					    stat_keys[k].key, why);
				goto out;
			}
			*(int64_t *)((char *)ret + stat_keys[k].off) = v;
			seen |= 1u << k;
		}
	}
	if (seen != (1u << ARRAY_SIZE(stat_keys)) - 1) {
		strbuf_addstr(err, "ccache --print-stats: a counter is missing "
				   "(hits, misses, files or size)");
		goto out;
	}
	r = 0;
out:
	strvec_clear(&lines);
	return r;
}

int kernel_ccache_stats(const char *cache_dir, struct kernel_ccache_stats *ret,
			struct strbuf *err)
{
	struct child_process cp;
	struct strbuf store = STRBUF_INIT;
	struct stat st;
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!ccache_installed())
		return 1;
	kernel_ccache_dir(cache_dir, &store);
	if (stat(store.buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
		strbuf_release(&store);
		return 0; /* nothing built yet: all counters 0 */
	}
	child_process_init(&cp);
	strvec_pushl(&cp.args, ccache_program(), "--print-stats", (char *)NULL);
	strvec_pushf(&cp.env, "CCACHE_DIR=%s", store.buf);
	/* Only read: no temporary file of ours in the store. */
	strvec_pushl(&cp.env, "CCACHE_READONLY=1", "CCACHE_TEMPDIR=/tmp",
		     (char *)NULL);
	cp.capture_out = cp.capture_err = 1;
	cp.timeout_ms = 60000;
	r = run_command(&cp, err);
	if (r < 0) {
		strbuf_trim(&cp.err);
		if (cp.err.len)
			strbuf_addf(err, ": %s", cp.err.buf);
	} else {
		r = kernel_ccache_parse_stats(cp.out.buf, ret, err);
	}
	child_process_clear(&cp);
	strbuf_release(&store);
	return r;
}

/*
 * cmd_kernel.c - `schedfarm kernel list|show|build|add|rm|boot`.
 *
 * Kernels are rows: built ones (base + series + config, cached by the hash
 * of the three; see build.h) and external ones a lab registers with their
 * image (a distribution's kernel).  `boot` boots one on a host the way a
 * job does and reports the phase times: the farm's own smoke test.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab/boot.h"
#include "lab/build.h"
#include "lab/sweep.h"
#include "job/host_check.h"
#include "store/hosts.h"
#include "store/kernels.h"
#include "cmd/builtin.h"
#include "cleanup.h"
#include "cli.h"
#include "config.h"
#include "home.h"
#include "log.h"
#include "parse.h"
#include "banned.h"

const char cmd_kernel_usage[] =
	"usage: schedfarm kernel list [--json] [--cache[=DIR]]\n"
	"       schedfarm kernel show [--log] [--json] NAME|ID\n"
	"       schedfarm kernel build --base SRC [--ref REF] [--config SPEC]\n"
	"                              [--patch FILE]... [--name NAME] [-j N]\n"
	"                              [--cache DIR] [--incremental|--fresh]\n"
	"       schedfarm kernel build --job ID [-j N] [--cache DIR]\n"
	"       schedfarm kernel add NAME --image PATH --release REL\n"
	"                            [--vmlinux PATH] [--initrd PATH]\n"
	"       schedfarm kernel rm NAME|ID\n"
	"       schedfarm kernel boot NAME|ID --host HOST [--append ARGS]\n"
	"                            [--run CMD] [--keep] [--timeout DUR]\n"
	"       schedfarm kernel orphans [--uri URI]\n"
	"\n"
	"  list    kernels with their state (labelled: a name given to the\n"
	"          kernel a local or ssh host runs, nothing built), release,\n"
	"          vmlinux text/data/bss; --json: an array of objects.\n"
	"          --cache: the compiler cache instead (ccache, shared by\n"
	"          every build; written only by builds of a base alone):\n"
	"          its folder in the kernel cache (DIR, else the default),\n"
	"          its use and cap ([kernel] ccache_size, default 5G), its\n"
	"          hits and misses\n"
	"  show    one kernel; --log prints its build log; --json: one object\n"
	"          with every column\n"
	"  build   apply the patches to a fresh tree of SRC (a release "
	"tarball\n"
	"          such as /usr/src/linux-source-6.1.tar.xz, a git repository\n"
	"          at --ref, or a source folder) and build it with SPEC "
	"(default\n"
	"          tinyconfig+farm-base.config+farm-vm.config: a base config,\n"
	"          tinyconfig, defconfig or a file, then fragments from "
	"kernels/\n"
	"          merged by merge_config.sh).  Progress goes to stderr.  The\n"
	"          result is cached by the hash of (base, series, config) "
	"under\n"
	"          --cache (default $SCHEDFARM_KERNEL_CACHE, else "
	"HOME/kernels):\n"
	"          the same kernel is never built twice (\"cache hit\").\n"
	"          A patch that does not apply fails with its rejected hunks.\n"
	"          --incremental builds in the one tree of SRC and SPEC that\n"
	"          bisections share (CACHE/trees/): a later kernel of the "
	"same\n"
	"          base and config (a series, a bisection step) rebuilds only\n"
	"          what its patches change.  As root it is the default, as "
	"for\n"
	"          jobs: the first build of a base makes its tree, patches "
	"build\n"
	"          on a layer over it, and a build that finds the tree (or "
	"the\n"
	"          same kernel) being built by another waits, saying for "
	"whom.\n"
	"          --fresh builds in a tree of its own, from scratch.\n"
	"          With --job, build the kernel of queued job ID (its base, "
	"its\n"
	"          patch series, its config spec) as the job's build phase "
	"does.\n"
	"  add     register a kernel built elsewhere (e.g. Debian's), with an\n"
	"          uncompressed --vmlinux for fast direct boot under TCG\n"
	"  rm      forget a kernel (its cached build stays on disk)\n"
	"  boot    boot the kernel on HOST (a booting kind), wait for Linux,\n"
	"          the agent's beacon, SSH and uname -r; print the times;\n"
	"          run CMD over SSH if given; power off unless --keep.  An\n"
	"          ipmi host's console comes through Serial-over-LAN; one "
	"that\n"
	"          is up on its known-good kernel switches by kexec over SSH,\n"
	"          else (or when kexec fails) PXE, bootdev pxe, power cycle\n"
	"  orphans take down what controllers that died left running: this\n"
	"          farm's libvirt domains (farm-FARMID-*) recorded by a\n"
	"          controller whose lease expired (or by none), and IPMI "
	"hosts\n"
	"          such a controller left powered on (--uri: only domains at\n"
	"          URI); never what a live controller is using\n"
	"\n"
	"Examples:\n"
	"  schedfarm kernel build --base /usr/src/linux-source-6.1.tar.xz \\\n"
	"      --patch kernels/patches/0001-sched-cap-cgroup-weight.patch\n"
	"  schedfarm kernel boot debian-6.1 --host vm1 --run 'nproc'\n";

static int64_t kernel_id_of(struct db *db, const char *name_or_id)
{
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf err = STRBUF_INIT;
	int64_t id = 0;

	if (kernels_lookup(db, name_or_id, &res, &err) < 0)
		cli_db_fatal("looking up the kernel", &err);
	if (db_nrows(res) != 1)
		fatal("no kernel '%s' ('schedfarm kernel list' shows them)",
		      name_or_id);
	if (parse_i64(db_get(res, 0, 0), 1, INT64_MAX, &id, NULL) < 0)
		fatal("bad kernel id");
	strbuf_release(&err);
	return id;
}

/* `kernel list --cache [DIR]`: the compiler cache of the kernel cache. */
static int kernel_list_ccache(const char *cache_opt, int json)
{
	_cleanup_free_ char *cache = NULL;
	struct kernel_ccache_stats st;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, dir = STRBUF_INIT;
	int64_t cap = cli_config()->kernel_ccache_size;
	int r;

	if (home_kernel_cache(cli_home(), cache_opt, &cache, &err) < 0)
		fatal("%s", err.buf);
	kernel_ccache_dir(cache, &dir);
	r = kernel_ccache_stats(cache, &st, &err);
	if (r < 0)
		fatal("reading the compiler cache %s: %s", dir.buf, err.buf);
	if (json) {
		strbuf_addstr(&out, "{\"dir\":");
		strbuf_add_json_str(&out, dir.buf);
		strbuf_addf(&out,
			    ",\"installed\":%s,\"size_bytes\":%lld,"
			    "\"max_bytes\":%lld,\"files\":%lld,\"hits\":%lld,"
			    "\"direct_hits\":%lld,\"preprocessed_hits\":%lld,"
			    "\"misses\":%lld}\n",
			    r ? "false" : "true", (long long)st.size_kib * 1024,
			    (long long)cap, (long long)st.files,
			    (long long)(st.direct_hits + st.preprocessed_hits),
			    (long long)st.direct_hits,
			    (long long)st.preprocessed_hits,
			    (long long)st.misses);
	} else {
		int64_t hits = st.direct_hits + st.preprocessed_hits;

		strbuf_addf(&out, "compiler cache %s\n", dir.buf);
		if (r)
			strbuf_addstr(&out,
				      "  ccache is not installed: kernels "
				      "build without a compiler cache\n");
		strbuf_addf(
			&out,
			"  use     %.1f MiB of %.1f MiB (%lld files)\n"
			"  hits    %lld (direct %lld, preprocessed %lld)\n"
			"  misses  %lld",
			(double)st.size_kib / 1024.0,
			(double)cap / (1024.0 * 1024.0), (long long)st.files,
			(long long)hits, (long long)st.direct_hits,
			(long long)st.preprocessed_hits, (long long)st.misses);
		if (hits + st.misses)
			strbuf_addf(&out, " (hit rate %.1f%%)",
				    100.0 * (double)hits /
					    (double)(hits + st.misses));
		strbuf_addch(&out, '\n');
	}
	cli_emit(&out);
	strbuf_release(&err);
	strbuf_release(&dir);
	return 0;
}

static int kernel_list(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "cache", optional_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 }
	};
	/* The long labels (name, release) last: they move under a row
	 * that would pass 80 columns (cli_table_print()). */
	static const char *const head[] = { "ID",   "STATE",  "BUILD_S",
					    "TEXT", "DATA",   "BSS",
					    "NAME", "RELEASE" };
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct cli_table t;
	struct db *db;
	const char *cache_opt = NULL;
	int json = cli.json, opt, ccache = 0;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'j') {
			json = 1;
		} else if (opt == 'C') {
			ccache = 1;
			cache_opt = optarg;
		} else {
			die_usage("kernel list [--json] [--cache[=DIR]]");
		}
	}
	if (optind != argc)
		die_usage("kernel list [--json] [--cache[=DIR]]");
	if (ccache)
		return kernel_list_ccache(cache_opt, json);
	db = cli_open_db();
	if (kernels_list(db, &res, &err) < 0)
		cli_db_fatal("listing kernels", &err);
	if (json)
		strbuf_addstr(&out, "[");
	else
		cli_table_init(&t, head, "rlrrrr", 8, 6);
	for (int i = 0; i < db_nrows(res); i++) {
		const char *v[11];

		for (int c = 0; c < 11; c++)
			v[c] = db_get(res, i, c);
		if (json) {
			strbuf_addf(&out,
				    "%s{\"id\":%s,\"name\":", i ? "," : "",
				    v[0]);
			strbuf_add_json_str(&out, v[1]);
			strbuf_addstr(&out, ",\"state\":");
			strbuf_add_json_str(&out, v[10]);
			strbuf_addstr(&out, ",\"release\":");
			strbuf_add_json_str(&out, v[3]);
			strbuf_addf(&out,
				    ",\"text\":%s,\"data\":%s,\"bss\":%s,"
				    "\"build_seconds\":%s,\"cache_key\":",
				    v[4] ? v[4] : "null", v[5] ? v[5] : "null",
				    v[6] ? v[6] : "null", v[7] ? v[7] : "null");
			strbuf_add_json_str(&out, *v[8] ? v[8] : NULL);
			strbuf_addf(&out, ",\"labelled\":%s}",
				    !strcmp(v[9], "t") ? "true" : "false");
		} else {
			const char *cells[8] = { v[0], v[2],
						 v[7], v[4],
						 v[5], v[6],
						 v[1], *v[3] ? v[3] : NULL };

			cli_table_row(&t, cells);
		}
	}
	if (!json) {
		cli_table_print(&t, CLI_TEXT_WIDTH, &out);
		cli_table_release(&t);
	}
	if (json)
		strbuf_addstr(&out, "]\n");
	cli_emit(&out);
	db_close(db);
	strbuf_release(&err);
	return 0;
}

static int kernel_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const fields[] = {
		"name",		 "base",	  "base_ref",
		"config_spec",	 "cache_key",	  "series_sha256",
		"config_sha256", "build_state",	  "release",
		"image_path",	 "vmlinux_path",  "initrd_path",
		"build_dir",	 "vmlinux_text",  "vmlinux_data",
		"vmlinux_bss",	 "build_seconds", "build_error",
		"built_at"
	};
	_cleanup_db_result_ struct db_result *res = NULL;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, idtxt = STRBUF_INIT;
	const char *p[1];
	struct db *db;
	int opt, with_log = 0, json = cli.json;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'j')
			json = 1;
		else if (opt == 'l')
			with_log = 1;
		else
			die_usage("kernel show [--log] [--json] NAME|ID");
	}
	if (optind + 1 != argc)
		die_usage("kernel show takes one kernel");
	db = cli_open_db();
	strbuf_addf(&idtxt, "%" PRId64, kernel_id_of(db, argv[optind]));
	p[0] = idtxt.buf;
	if (kernels_show(db, p[0], with_log, &res, &err) < 0)
		cli_db_fatal("reading the kernel", &err);
	if (json) {
		strbuf_addf(&out, "%s\n", db_get(res, 0, 21));
		goto emit;
	}
	strbuf_addf(&out, "%-14s %s\n", "id", idtxt.buf);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		const char *v = db_get(res, 0, (int)i);

		if (v)
			strbuf_addf(&out, "%-14s %s\n", fields[i], v);
	}
	if (!strcmp(db_get(res, 0, 20), "t"))
		strbuf_addf(&out, "%-14s %s\n", "labelled",
			    "yes: the name of the kernel a local or ssh host "
			    "ran; nothing was built or booted under it");
	if (with_log)
		strbuf_addf(&out, "--- build log\n%s", db_get(res, 0, 19));
emit:
	cli_emit(&out);
	db_close(db);
	strbuf_release(&err);
	strbuf_release(&idtxt);
	return 0;
}

struct progress_state {
	int last_pct;
	int last_steps;
	int tty;
};

/* Progress of make: a line per 5% (or per 200 steps with no estimate),
 * every line that says error or warning, and every line of the build's
 * own (steps -1: it waits for another build). */
static int print_progress(void *ctx, const char *line, int steps, int expected)
{
	struct progress_state *ps = ctx;

	if (!line) /* a second of a silent step: nothing to show */
		return 0;
	if (steps < 0) { /* the build's own news: waiting for a lock */
		fputs("build: ", stderr);
		cli_put_text(stderr, line);
		fputc('\n', stderr);
		return 0;
	}
	if (strstr(line, "error") || strstr(line, "Error") ||
	    strstr(line, "warning:")) {
		fputs("  ", stderr);
		cli_put_text(stderr, line);
		fputc('\n', stderr);
		return 0;
	}
	if (expected > 0) {
		int pct = steps * 100 / expected;

		if (pct > 99)
			pct = 99;
		if (pct >= ps->last_pct + 5) {
			ps->last_pct = pct;
			fprintf(stderr, "build: %3d%% (%d/%d steps) ", pct,
				steps, expected);
			cli_put_text(stderr, line);
			fputc('\n', stderr);
		}
	} else if (steps >= ps->last_steps + 200) {
		ps->last_steps = steps;
		fprintf(stderr, "build: %d steps ", steps);
		cli_put_text(stderr, line);
		fputc('\n', stderr);
	}
	return 0;
}

/* The job path's build phase, for one job: see build_kernel_for_job(). */
static int kernel_build_job(int64_t job, int jobs, const char *cache_opt)
{
	_cleanup_free_ char *cache = NULL;
	struct strbuf err = STRBUF_INIT, log = STRBUF_INIT;
	struct progress_state ps = { 0, 0, 0 };
	struct db_config cfg;
	struct db *db = cli_open_db_cfg(&cfg);
	int64_t kid = 0;
	int r;

	if (home_kernel_cache(cli_home(), cache_opt, &cache, &err) < 0)
		fatal("%s", err.buf);
	r = build_kernel_for_job(db, job, cache, jobs, print_progress, &ps,
				 &kid, &log, &err);
	if (r < 0) {
		cli_put_text(stderr, log.buf);
		fatal("build of job %" PRId64 " failed: %s", job, err.buf);
	}
	/* The first lines say whether it was built or found. */
	cli_put_text(stdout, log.buf);
	printf("job %" PRId64 ": kernel %" PRId64 " ready\n", job, kid);
	db_close(db);
	db_config_release(&cfg);
	strbuf_release(&err);
	strbuf_release(&log);
	return 0;
}

/*
 * --config SPEC ("BASE+FRAGMENT+..."): the base config (tinyconfig,
 * defconfig or a file) into spec->config, the fragments into
 * spec->fragments; a name that is no file here is one of kernels/.  The
 * strings point into parts (the split spec) and keep (the paths made):
 * the caller keeps both as long as spec and clears them.  An empty part
 * ends the verb.
 */
static void config_parts(const char *config_spec,
			 struct kernel_build_spec *spec, struct strvec *parts,
			 struct strvec *keep)
{
	strvec_split(parts, config_spec, '+');
	for (size_t i = 0; i < parts->nr; i++) {
		const char *w = parts->v[i], *path;

		if (!*w)
			die_usage("empty part in --config %s", config_spec);
		if (i == 0 &&
		    (!strcmp(w, "tinyconfig") || !strcmp(w, "defconfig"))) {
			spec->config = w;
			continue;
		}
		if (w[0] == '/' || !access(w, R_OK))
			path = w;
		else
			path = strvec_pushf(keep, "%s/%s",
					    kernel_fragments_dir(), w);
		if (i == 0)
			spec->config = path;
		else
			strvec_push(&spec->fragments, path);
	}
}

/* What kernel build prints of the kernel name it built (or found built). */
static void print_built(const char *name, const struct kernel_build_result *res)
{
	if (res->cached)
		printf("cache hit: %s (%s) already built in %s; not "
		       "rebuilding\n",
		       name, res->release, res->dir);
	else
		printf("built %s (%s) in %.1f s\n", name, res->release,
		       res->seconds);
	printf("   text\t   data\t    bss\tfilename\n%7lld\t%7lld\t%7lld\t%s\n",
	       (long long)res->text, (long long)res->data, (long long)res->bss,
	       res->vmlinux);
}

static int kernel_build_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "ref", required_argument, NULL, 'r' },
		{ "config", required_argument, NULL, 'c' },
		{ "patch", required_argument, NULL, 'p' },
		{ "name", required_argument, NULL, 'n' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "cache", required_argument, NULL, 'C' },
		{ "job", required_argument, NULL, 'J' },
		{ "incremental", no_argument, NULL, 'I' },
		{ "fresh", no_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 }
	};
	struct kernel_build_spec spec;
	struct kernel_build_result res;
	struct progress_state ps = { 0, 0, 0 };
	struct strbuf err = STRBUF_INIT, name = STRBUF_INIT, who = STRBUF_INIT;
	struct strvec keep = STRVEC_INIT, parts = STRVEC_INIT;
	_cleanup_db_result_ struct db_result *row = NULL;
	struct db_config cfg;
	_cleanup_free_ char *cache = NULL;
	const char *cache_opt = NULL;
	const char *config_spec = "tinyconfig+farm-base.config+farm-vm.config",
		   *e, *n = NULL;
	struct kernel_fields kf = { 0 };
	struct db *db;
	int64_t kid, job = 0;
	int opt, r, incremental = 0;

	(void)cli_config(); /* the compiler cache's cap, at least */
	kernel_build_spec_init(&spec);
	kernel_build_result_init(&res);
	while ((opt = cli_getopt(argc, argv, "j:", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			spec.base = optarg;
			break;
		case 'r':
			spec.ref = optarg;
			break;
		case 'c':
			config_spec = optarg;
			break;
		case 'p':
			strvec_push(&spec.patches, optarg);
			break;
		case 'n':
			n = cli_name("--name", optarg, KERNEL_NAME_MAX_LEN);
			break;
		case 'j':
			if (parse_int(optarg, 1, 1024, &spec.jobs, &e) < 0)
				die_usage("-j %s %s", optarg, e);
			break;
		case 'C':
			cache_opt = optarg;
			break;
		case 'J':
			if (parse_i64(optarg, 1, INT64_MAX, &job, &e) < 0)
				die_usage("--job %s %s", optarg, e);
			break;
		case 'I':
			incremental = 1;
			break;
		case 'F':
			incremental = -1;
			break;
		default:
			die_usage("see 'schedfarm kernel --help'");
		}
	}
	if (job) {
		if (optind != argc || spec.base || spec.patches.nr || n)
			die_usage("kernel build --job ID takes no base, patch "
				  "or name");
		return kernel_build_job(job, spec.jobs, cache_opt);
	}
	if (optind != argc || !spec.base)
		die_usage(
			"kernel build needs --base SRC and no other arguments");
	/* The config spec: a base config, then fragments (kernels/ names). */
	config_parts(config_spec, &spec, &parts, &keep);
	db = cli_open_db_cfg(&cfg);
	if (home_kernel_cache(cli_home(), cache_opt, &cache, &err) < 0)
		fatal("%s", err.buf);
	spec.cache_dir = cache;
	spec.progress = print_progress;
	spec.progress_ctx = &ps;
	if (kernel_build_key(&spec, &res, &err) < 0)
		fatal("%s", err.buf);
	if (n)
		strbuf_addstr(&name, n);
	else
		strbuf_addf(&name, "%.12s", res.cache_key);
	strbuf_addf(&who, "kernel %s", name.buf);
	spec.who = who.buf;
	fprintf(stderr, "kernel %s: key %.16s, base %s%s%s, %zu patch%s\n",
		name.buf, res.cache_key, spec.base, spec.ref ? "@" : "",
		spec.ref ? spec.ref : "", spec.patches.nr,
		spec.patches.nr == 1 ? "" : "es");
	/* The row first, so a failed build leaves a row that says so. */
	kf.name = name.buf;
	kf.base = spec.base;
	kf.base_ref = spec.ref;
	kf.config_spec = config_spec;
	kf.build_state = "building";
	if (kernels_upsert(db, &kf, KERNEL_SET_SOURCE, &kid, &err) < 0)
		cli_db_fatal("recording the kernel", &err);
	if (incremental > 0 && kernels_set_series(db, kid, 0, 0, 1, &err) < 0)
		cli_db_fatal("recording the kernel", &err);
	/* A root controller builds as jobs do (build_kernel_for_job()):
	 * the first build of a base makes its tree, a patch builds on a
	 * layer over it. */
	if (!incremental && geteuid() == 0)
		incremental = 1;
	r = incremental > 0 ? kernel_build_incremental(&spec, &res, &err)
			    : kernel_build(&spec, &res, &err);
	if (r < 0) {
		struct strbuf e2 = STRBUF_INIT;

		if (kernels_build_failed(db, kid, err.buf, res.log.buf,
					 res.log.len, &e2) < 0)
			log_warn("cannot record the failure: %s", e2.buf);
		strbuf_release(&e2);
		cli_put_text(stderr, res.log.buf);
		fatal("build of %s failed: %s", name.buf, err.buf);
	}
	if (kernels_build_done(db, kid, &res, &err) < 0)
		cli_db_fatal("recording the build", &err);
	print_built(name.buf, &res);
	db_close(db);
	db_config_release(&cfg);
	kernel_build_result_release(&res);
	kernel_build_spec_release(&spec);
	strvec_clear(&keep);
	strvec_clear(&parts);
	strbuf_release(&err);
	strbuf_release(&name);
	strbuf_release(&who);
	return 0;
}

static int kernel_add(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "image", required_argument, NULL, 'i' },
		{ "vmlinux", required_argument, NULL, 'v' },
		{ "initrd", required_argument, NULL, 'r' },
		{ "release", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	const char *image = NULL, *vmlinux = NULL, *initrd = NULL, *rel = NULL;
	struct strbuf err = STRBUF_INIT;
	struct kernel_fields kf = { 0 };
	int64_t kid;
	_cleanup_free_ char *img_abs = NULL, *vm_abs = NULL, *rd_abs = NULL;
	struct db *db;
	int opt;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			image = optarg;
			break;
		case 'v':
			vmlinux = optarg;
			break;
		case 'r':
			initrd = optarg;
			break;
		case 'R':
			rel = optarg;
			break;
		default:
			die_usage("see 'schedfarm kernel --help'");
		}
	}
	if (optind + 1 != argc || !image || !rel)
		die_usage("kernel add NAME --image PATH --release REL");
	cli_name("a kernel name", argv[optind], KERNEL_NAME_MAX_LEN);
	cli_name("--release", rel, KERNEL_NAME_MAX_LEN);
	img_abs = realpath(image, NULL);
	if (!img_abs)
		fatal("no image %s", image);
	if (vmlinux && !(vm_abs = realpath(vmlinux, NULL)))
		fatal("no vmlinux %s", vmlinux);
	if (initrd && !(rd_abs = realpath(initrd, NULL)))
		fatal("no initrd %s", initrd);
	db = cli_open_db();
	kf.name = argv[optind];
	kf.base = img_abs;
	kf.image_path = img_abs;
	kf.vmlinux_path = vm_abs;
	kf.initrd_path = rd_abs;
	kf.release = rel;
	if (kernels_upsert(db, &kf, KERNEL_SET_IMAGE, &kid, &err) < 0)
		cli_db_fatal("adding the kernel", &err);
	printf("kernel %s (%s) added\n", argv[optind], rel);

	db_close(db);
	return 0;
}

static int kernel_rm(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT, gone = STRBUF_INIT,
		      users = STRBUF_INIT;
	struct db *db;
	int64_t kid;
	int r;

	if (argc != 2)
		die_usage("kernel rm NAME|ID");
	db = cli_open_db();
	kid = kernel_id_of(db, argv[1]);
	r = kernels_remove(db, kid, &gone, &err);
	if (r < 0)
		cli_db_fatal("removing the kernel", &err);
	if (r > 0) {
		if (kernels_users(db, kid, &users, &err) < 0)
			cli_db_fatal("reading what uses the kernel", &err);
		fatal("kernel %s is still used: %s", argv[1],
		      users.len ? users.buf : "by rows of the database");
	}
	if (gone.len)
		printf("kernel %s removed, with what only its cancelled "
		       "jobs held: %s\n",
		       argv[1], gone.buf);
	else
		printf("kernel %s removed\n", argv[1]);
	strbuf_release(&gone);
	strbuf_release(&users);
	db_close(db);
	strbuf_release(&err);
	return 0;
}

static void print_boot_event(void *ctx, const char *msg)
{
	(void)ctx;
	fputs("boot: ", stderr);
	cli_put_text(stderr, msg);
	fputc('\n', stderr);
}

/* The end of a failed boot in words: what happened, whose fault it was
 * (the health rules' blame) and the host's health after it. */
static void print_boot_verdict(const char *kernel, const char *host,
			       const struct boot_result *br)
{
	const char *blame = !strcmp(br->blame, "kernel") ? "the kernel"
			    : !strcmp(br->blame, "host") ? "the host"
							 : "nobody";

	printf("boot of %s on %s failed (%s); blamed on %s; host %s is now "
	       "%s\n",
	       kernel, host, boot_outcome_name(br->outcome), blame, host,
	       br->host_health);
}

static int kernel_boot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "append", required_argument, NULL, 'a' },
		{ "run", required_argument, NULL, 'r' },
		{ "keep", no_argument, NULL, 'k' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	const char *host = NULL, *append = NULL, *run = NULL, *e;
	struct boot_request req;
	struct boot_result br;
	struct strbuf err = STRBUF_INIT;
	struct db_config cfg;
	struct db *db;
	char *self = NULL;
	int64_t timeout_ms = 300000;
	int opt, keep = 0, r, rc = 0;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			host = optarg;
			break;
		case 'a':
			append = optarg;
			break;
		case 'r':
			run = optarg;
			break;
		case 'k':
			keep = 1;
			break;
		case 't':
			if (parse_duration_ms(optarg, 1000, 24 * 3600 * 1000,
					      &timeout_ms, &e) < 0)
				die_usage("--timeout %s %s", optarg, e);
			break;
		default:
			die_usage("see 'schedfarm kernel --help'");
		}
	}
	if (optind + 1 != argc || !host)
		die_usage("kernel boot NAME|ID --host HOST");
	db = cli_open_db_cfg(&cfg);
	self = cli_controller_begin(db);
	boot_request_init(&req);
	req.state_dir = cli_home();
	req.controller_id = self;
	req.kernel_id = kernel_id_of(db, argv[optind]);
	req.host_name = host;
	req.cmdline_append = append;
	req.timeout_ms = timeout_ms;
	req.on_event = print_boot_event;
	boot_result_init(&br);
	r = boot_host(db, &req, &br, &err);
	if (r < 0) {
		if (br.console_events.len) {
			fputs("console:\n", stderr);
			cli_put_text(stderr, br.console_events.buf);
		}
		if (!br.host_health[0]) {
			/* Refused before anything was powered: no outcome, no
			 * blame, no health to report. */
			log_error("%s", err.buf);
			rc = 1;
			goto out;
		}
		log_error("boot failed: %s", err.buf);
		print_boot_verdict(argv[optind], host, &br);
		rc = 1;
		goto out;
	}
	printf("ready: %s on %s; linux %.1f s, beacon %.1f s, ssh %.1f s, "
	       "ready %.1f s after power-on\n",
	       br.release, host, (double)br.linux_ms / 1000.0,
	       (double)br.beacon_ms / 1000.0, (double)br.ssh_ms / 1000.0,
	       (double)br.ready_ms / 1000.0);
	fflush(stdout);
	if (run) {
		struct strbuf out = STRBUF_INIT;

		if (boot_ssh_run(&br, run, 600000, &out, &err) < 0) {
			log_error("%s", err.buf);
			rc = 1;
		}
		cli_put_text(stdout, out.buf);
		strbuf_release(&out);
	}
	if (!keep && boot_power_off(db, &br, &err) < 0) {
		log_error("power off: %s", err.buf);
		rc = 1;
	}
out:
	/* A kept guest stays this controller's until its lease runs out
	 * (CLI_LEASE_S): no sweep takes it down before then. */
	if (keep)
		free(self);
	else
		cli_controller_end(db, self);
	boot_result_release(&br);
	db_close(db);
	db_config_release(&cfg);
	strbuf_release(&err);
	return rc;
}

static int kernel_orphans(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "uri", required_argument, NULL, 'u' }, { NULL, 0, NULL, 0 }
	};
	struct strbuf err = STRBUF_INIT, names = STRBUF_INIT;
	_cleanup_free_ char *locks = NULL;
	const char *uri = NULL;
	struct db *db;
	char *self;
	int opt, n = 0, r;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		if (opt != 'u')
			die_usage("kernel orphans [--uri URI]");
		uri = optarg;
	}
	if (optind != argc)
		die_usage("kernel orphans takes no arguments");
	db = cli_open_db();
	self = cli_controller_begin(db);
	if (uri) {
		r = sweep_domains(db, self, NULL, 0, uri, &n, &names, &err);
	} else {
		if (home_subdir(cli_home(), HOME_LOCKS, &locks, &err) < 0)
			fatal("%s", err.buf);
		r = sweep_all(db, self, NULL, 0, locks, &n, &names, &err);
	}
	fputs(names.buf, stdout);
	printf("%d orphan%s taken down\n", n, n == 1 ? "" : "s");
	cli_controller_end(db, self);
	if (r < 0)
		log_error("%s", err.buf);
	db_close(db);
	strbuf_release(&names);
	strbuf_release(&err);
	return r < 0 ? 1 : 0;
}

int cmd_kernel(int argc, char **argv)
{
	const char *sub;

	if (argc < 2)
		die_usage("kernel needs a subcommand: list, show, build, add, "
			  "rm, boot");
	sub = argv[1];
	argc--;
	argv++;
	if (!strcmp(sub, "list"))
		return kernel_list(argc, argv);
	if (!strcmp(sub, "show"))
		return kernel_show(argc, argv);
	if (!strcmp(sub, "build"))
		return kernel_build_cmd(argc, argv);
	if (!strcmp(sub, "add"))
		return kernel_add(argc, argv);
	if (!strcmp(sub, "rm"))
		return kernel_rm(argc, argv);
	if (!strcmp(sub, "boot"))
		return kernel_boot(argc, argv);
	if (!strcmp(sub, "orphans"))
		return kernel_orphans(argc, argv);
	die_usage("no kernel subcommand '%s'; try list, show, build, add, rm, "
		  "boot, orphans",
		  sub);
}

/*
 * `schedfarm host check NAME`: job/host_check.c boots the host's known-good
 * kernel (or --kernel, which becomes the known-good one when the check
 * passes), runs the agent's info and powers the host off (not with
 * --keep); the result is a host event.
 */
int cmd_host_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "timeout", required_argument, NULL, 't' },
		{ "keep", no_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 }
	};
	struct strbuf err = STRBUF_INIT;
	struct host_check_request rq = { 0 };
	struct host_check_result res;
	const char *kernel = NULL, *e;
	struct db_config cfg;
	struct db *db;
	char *self = NULL;
	int opt, rc = 1;

	rq.timeout_ms = 300000;
	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'k':
			kernel = optarg;
			break;
		case 't':
			if (parse_duration_ms(optarg, 1000, 24 * 3600 * 1000,
					      &rq.timeout_ms, &e) < 0)
				die_usage("--timeout %s %s", optarg, e);
			break;
		case 'K':
			rq.keep = 1;
			break;
		default:
			die_usage(
				"host check NAME [--kernel K] [--timeout DUR] "
				"[--keep]");
		}
	}
	if (optind + 1 != argc)
		die_usage("host check takes one host");
	db = cli_open_db_cfg(&cfg);
	rq.host_name = argv[optind];
	rq.state_dir = cli_home();
	rq.on_event = print_boot_event;
	if (kernel)
		rq.kernel_id = kernel_id_of(db, kernel);
	self = cli_controller_begin(db);
	rq.controller_id = self;
	host_check_result_init(&res);
	if (host_check(db, &rq, &res, &err) < 0) {
		cli_controller_end(db, self);
		fatal("%s", err.buf);
	}
	if (!res.passed) {
		log_error("check failed: %s", res.why.buf);
		printf("check %s: failed (blame %s); health %s\n", argv[optind],
		       res.blame, res.health);
	} else {
		if (res.why.len)
			log_warn("%s", res.why.buf);
		printf("check %s: passed on %s in %.1f s; health good%s\n",
		       argv[optind], res.release ? res.release : "?",
		       res.ready_s, rq.keep ? "; left up" : "");
		rc = 0;
	}
	/* A host left up stays this controller's until its lease runs out
	 * (CLI_LEASE_S), as after kernel boot --keep. */
	if (rq.keep)
		free(self);
	else
		cli_controller_end(db, self);
	host_check_result_release(&res);
	db_close(db);
	db_config_release(&cfg);
	strbuf_release(&err);
	return rc;
}

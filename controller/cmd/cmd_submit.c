/*
 * cmd_submit.c - `schedfarm submit`: put a patch series and a plan in the
 * queue.
 *
 * The series is stored whole (bytes and sha256, computed by the server)
 * as a PLM#, the plan by its sha256, and one job (an STP id) is created
 * for the plan on the given host or on any host matching the plan's
 * requirements.  A file that is not a unified diff is refused, and so is
 * a plan that does not check.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "cli.h"
#include "log.h"
#include "parse.h"
#include "lab/mail.h"
#include "plan/plan.h"
#include "store/answers.h"
#include "store/kernels.h"
#include "store/queue.h"
#include "banned.h"

#define PATCH_MAX_BYTES (64u << 20)

const char cmd_submit_usage[] =
	"usage: schedfarm submit PATCH... --base KERNEL --plan FILE [--host "
	"NAME]\n"
	"                        [--kernel NAME] [--priority N] [--name TEXT] "
	"[--json]\n"
	"                        [--mail ADDR] [--no-bisect] [--fresh-base]\n"
	"                        [--set KEY=VALUE]...\n"
	"\n"
	"Queue a patch series (one or more files in unified diff format, in\n"
	"order) to be measured with a plan.  The series is stored with its\n"
	"sha256 as a PLM#; the job gets an STP id.  Both are printed.\n"
	"\n"
	"  --base KERNEL   the kernel the series applies to (required)\n"
	"  --plan FILE     the plan (checked first; see 'schedfarm plan "
	"check')\n"
	"  --host NAME     run on this host only (else any matching host)\n"
	"  --kernel NAME   for hosts that do not boot kernels (local, ssh): "
	"the\n"
	"                  name of the running kernel, recorded as the kernel\n"
	"                  under test (else BASE+PLM#, for the build phase)\n"
	"  --priority N    -1000..1000, higher first (default 0)\n"
	"  --name TEXT     a label for the series (default: the first file "
	"name)\n"
	"  --set KEY=VALUE change one setting of the plan "
	"(params.duration=20s,\n"
	"                  boots=1, workloads[1].params.threads=[1,2]), "
	"checked\n"
	"                  like the file and kept with the job: a rerun "
	"repeats\n"
	"                  it.  Repeatable; see 'schedfarm plan'.\n"
	"  --mail ADDR     mail the answer here (default: the From: of the "
	"first\n"
	"                  patch; '' for nobody but the configured list); "
	"one\n"
	"                  address, 'Name <a@b>' or 'a@b', checked now\n"
	"  --no-bisect     a regression of the series does not start a "
	"bisection\n"
	"  --fresh-base    boot the base the plan's full boots in ABBA order "
	"and\n"
	"                  compare with those runs only, reusing none stored "
	"on\n"
	"                  the host (the plan's 'base: fresh' asks the "
	"same);\n"
	"                  refused for local and ssh hosts, which cannot boot "
	"it\n"
	"  --json          print "
	"{\"patch\":N,\"plan\":N,\"kernel\":N,\"job\":N,\n"
	"                  \"fresh_base\":BOOL}\n"
	"\n"
	"The answer comes by itself: with a fixed plan on a host that boots\n"
	"kernels (libvirt, ipmi), the base kernel's boots the host lacks run "
	"in\n"
	"ABBA order with the patch's (P B B P P B ...), each queued as the "
	"one\n"
	"before it ends; on local and ssh hosts the base results stored "
	"there\n"
	"are used.  Stored base runs the answer uses are named in it (\"base\n"
	"runs reused from STP#3, kernel v6.1\").  When the last job ends, the\n"
	"controller compares, stores "
	"the\n"
	"verdicts, rewrites the report pages and mails the answer; a "
	"regression\n"
	"of a series of two or more patches starts 'schedfarm bisect'.  See\n"
	"'schedfarm patch show PLM#'.\n"
	"\n"
	"Example:\n"
	"  schedfarm submit 0001-sched-fair.patch --base v6.1 \\\n"
	"      --plan plans/fairness-loop.yaml --host box1 --kernel v6.1-fix\n";

/*
 * Read the npatch patch files named in paths, each checked to be a
 * patch (queue_check_patch()); a file that cannot be read, or is none,
 * ends the verb.  Warns when the first one's From: is no address the
 * answer can go to and mail_to (--mail) names none.  Returns the patches
 * (their data in *ret_bufs, one strbuf per file); the caller frees both.
 */
static struct queue_patch *read_patches(char *const *paths, int npatch,
					const char *mail_to,
					struct strbuf **ret_bufs)
{
	struct queue_patch *patches;
	struct strbuf *bufs, err = STRBUF_INIT;
	const char *why;

	patches = xcalloc((size_t)npatch, sizeof(*patches));
	*ret_bufs = bufs = xcalloc((size_t)npatch, sizeof(*bufs));
	for (int i = 0; i < npatch; i++) {
		const char *path = paths[i];
		int r;

		strbuf_init(&bufs[i], 0);
		r = strbuf_read_file(&bufs[i], path, PATCH_MAX_BYTES);
		if (r < 0)
			fatal("cannot read %s: %s", path,
			      r == -EFBIG ? "larger than 64 MiB"
					  : strerror(-r));
		if (queue_check_patch(path, bufs[i].buf, bufs[i].len, &err) < 0)
			fatal("%s", err.buf);
		patches[i].name = path;
		patches[i].data = bufs[i].buf;
		patches[i].len = bufs[i].len;
	}
	/* The answer goes to the first patch's From: unless --mail says
	 * otherwise; one the farm cannot mail is said now, not found out
	 * when the answer is sent (it is left out then, the list still
	 * gets the mail). */
	if (!mail_to) {
		struct strbuf author = STRBUF_INIT;

		if (answers_patch_author(bufs[0].buf, bufs[0].len, &author) ==
			    0 &&
		    mail_parse_mailbox(author.buf, NULL, NULL, &why) < 0)
			log_warn("the From: of %s is not one mail address (it "
				 "%s): the answer mail goes to the configured "
				 "list only; --mail ADDR names the submitter",
				 paths[0], why);
		strbuf_release(&author);
	}
	strbuf_release(&err);
	return patches;
}

/*
 * What submit says without --json, into out: the series and its first
 * job (s as submitted, done as queue_submit() filled it, plan the
 * checked plan, npatch patches), and what follows it: the base's boots
 * of a fixed plan's answer, or an until-decided plan's blocks.
 */
static void describe(struct strbuf *out, const struct queue_submit *s,
		     const struct queue_submitted *done,
		     const struct plan *plan, int npatch)
{
	strbuf_addf(out,
		    "PLM#%lld: %d patch%s on %s\n"
		    "STP#%lld: queued, plan %s (%zu runs), host %s\n",
		    (long long)done->patch_id, npatch, npatch == 1 ? "" : "es",
		    s->base, (long long)done->job_id, plan->name,
		    plan->nr_runs * (size_t)done->boots,
		    s->host ? s->host : "any matching");
	if (plan->until == PLAN_UNTIL_FIXED) {
		if (done->fresh_base && done->base_boots > 0)
			strbuf_addf(
				out,
				"  then the base %s: %d boot%s, fresh (none "
				"stored counted), in ABBA order with the "
				"patch's %d\n",
				s->base, done->base_boots,
				done->base_boots == 1 ? "" : "s", plan->boots);
		else if (done->base_boots > 0)
			strbuf_addf(out,
				    "  then the base %s: %d boot%s (%d stored "
				    "on %s), in ABBA order with the patch's "
				    "%d\n",
				    s->base, done->base_boots,
				    done->base_boots == 1 ? "" : "s",
				    done->base_stored, s->host, plan->boots);
		else if (done->host_boots == 1)
			strbuf_addf(out,
				    "  the base %s has %d boots stored on %s: "
				    "they are reused\n",
				    s->base, done->base_stored, s->host);
		else if (done->host_boots < 0)
			strbuf_addf(out,
				    "  then the base %s's %s boots on the "
				    "host the first job gets, in ABBA order\n",
				    s->base,
				    done->fresh_base ? "fresh" : "missing");
		strbuf_addf(out,
			    "  the answer: 'schedfarm patch show %lld' once "
			    "the jobs have run\n",
			    (long long)done->patch_id);
	}
	if (plan->until == PLAN_UNTIL_DECIDED)
		strbuf_addf(out,
			    "  until decided: then %s, and blocks of 4 boots "
			    "per kernel on the same host while the comparison "
			    "is open (at most %d per kernel)\n",
			    s->base, plan->max_boots);
}

int cmd_submit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "plan", required_argument, NULL, 'p' },
		{ "host", required_argument, NULL, 'H' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "priority", required_argument, NULL, 'P' },
		{ "name", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "set", required_argument, NULL, 's' },
		{ "mail", required_argument, NULL, 'm' },
		{ "no-bisect", no_argument, NULL, 'B' },
		{ "fresh-base", no_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	struct queue_submit s = { 0 };
	struct strvec sets = STRVEC_INIT;
	struct queue_submitted done;
	struct queue_patch *patches = NULL;
	struct strbuf *bufs = NULL, err = STRBUF_INIT, text = STRBUF_INIT,
		      out = STRBUF_INIT;
	const char *plan_path = NULL, *why;
	struct plan *plan = NULL;
	int json = cli.json, opt, npatch;
	struct db *db;

	while ((opt = cli_getopt(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			s.base = optarg;
			break;
		case 'p':
			plan_path = optarg;
			break;
		case 'H':
			s.host = optarg;
			break;
		case 'k':
			s.kernel = cli_name("--kernel", optarg,
					    KERNEL_NAME_MAX_LEN);
			break;
		case 'P':
			if (parse_int(optarg, -1000, 1000, &s.priority, &why) <
			    0)
				die_usage("--priority '%s' %s", optarg, why);
			break;
		case 'n':
			s.name = cli_name("--name", optarg, PATCH_NAME_MAX_LEN);
			break;
		case 'j':
			json = 1;
			break;
		case 's':
			cli_add_set(&sets, optarg);
			break;
		case 'm':
			if (strlen(optarg) > 1000)
				die_usage("--mail is longer than 1000 bytes");
			if (*optarg &&
			    mail_parse_mailbox(optarg, NULL, NULL, &why) < 0)
				die_usage("--mail is not one mail address "
					  "(Name <a@b>, or a@b): it %s",
					  why);
			s.mail_to = optarg;
			break;
		case 'B':
			s.no_bisect = 1;
			break;
		case 'F':
			s.fresh_base = 1;
			break;
		default:
			die_usage("see 'schedfarm submit --help'");
		}
	}
	npatch = argc - optind;
	if (npatch < 1)
		die_usage("submit needs at least one PATCH file");
	if (!s.base || !plan_path)
		die_usage("submit needs --base KERNEL and --plan FILE");
	cli_name("--base", s.base, KERNEL_NAME_MAX_LEN);
	/* Without --name the first file's name names the series. */
	if (!s.name)
		cli_name("a patch file name", argv[optind], PATCH_NAME_MAX_LEN);

	patches = read_patches(argv + optind, npatch, s.mail_to, &bufs);
	if (queue_load_plan(plan_path, &sets, &text, &plan, &err) < 0) {
		cli_put_text(stderr, err.buf);
		fputc('\n', stderr);
		fatal("the plan %s does not check", plan_path);
	}
	s.patches = patches;
	s.nr_patches = (size_t)npatch;
	s.plan_name = plan->name;
	s.plan_text = text.buf;
	s.plan_len = text.len;
	s.plan = plan;
	s.plan_set = &sets;

	db = cli_open_db();
	if (queue_submit(db, &s, &done, &err) < 0)
		fatal("submit failed: %s", err.buf);
	if (json)
		strbuf_addf(&out,
			    "{\"patch\":%lld,\"plan\":%lld,\"kernel\":%lld,"
			    "\"job\":%lld,\"fresh_base\":%s}\n",
			    (long long)done.patch_id, (long long)done.plan_id,
			    (long long)done.kernel_id, (long long)done.job_id,
			    done.fresh_base ? "true" : "false");
	else
		describe(&out, &s, &done, plan, npatch);
	cli_emit(&out);
	for (int i = 0; i < npatch; i++)
		strbuf_release(&bufs[i]);
	free(bufs);
	free(patches);
	plan_free(plan);
	strbuf_release(&text);
	strvec_clear(&sets);
	db_close(db);
	return 0;
}

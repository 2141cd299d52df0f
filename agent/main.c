/*
 * main.c - schedfarm-agent: the small static program that runs workloads on
 * the machine under test and reports them as JSON lines (doc/PROTOCOL.md).
 *
 *   schedfarm-agent list            workloads, parameters, runnable here?
 *   schedfarm-agent info            this machine as one JSON object
 *   schedfarm-agent run SPEC|-      run a spec, JSON lines on stdout
 *   schedfarm-agent cat FILE        print a results file back
 *   schedfarm-agent version
 *
 * Only the command line lives here; everything else is in libagent.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "banned.h"

static int usage(void)
{
	fputs("usage: schedfarm-agent list | info | run SPEC|- | cat FILE | "
	      "version\n",
	      stderr);
	return 2;
}

/*
 * Become uid:gid (from "--user=UID:GID") for good: no supplementary
 * groups, gid first, then uid, checked; the folder changes to / when the
 * agent's own (root's run folder) is closed to that user.  0, or -1 with
 * the reason on stderr.
 */
static int drop_to(const char *spec)
{
	unsigned long u, g;
	char *end;

	errno = 0;
	u = strtoul(spec, &end, 10);
	if (errno || end == spec || *end != ':' || u == 0 || u > 0x7fffffff)
		goto bad;
	spec = end + 1;
	g = strtoul(spec, &end, 10);
	if (errno || end == spec || *end || g == 0 || g > 0x7fffffff)
		goto bad;
	if (setgroups(0, NULL) < 0 || setgid((gid_t)g) < 0 ||
	    setuid((uid_t)u) < 0 || getuid() != (uid_t)u ||
	    geteuid() != (uid_t)u || setuid(0) == 0) {
		fprintf(stderr,
			"schedfarm-agent: cannot become uid %lu gid %lu: "
			"%s\n",
			u, g, strerror(errno));
		return -1;
	}
	if (access(".", X_OK) < 0 && chdir("/") < 0) {
		fprintf(stderr, "schedfarm-agent: cannot chdir /: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "schedfarm-agent: bad --user %s (UID:GID, not 0)\n",
		spec);
	return -1;
}

/*
 * `__exec-in [--user=UID:GID] FILE... -- PROGRAM ARGS`: join cgroups,
 * drop to the user, then become PROGRAM.
 */
static int exec_in(int argc, char **argv)
{
	const char *user = NULL;
	int i;

	for (i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		int fd;

		if (starts_with(argv[i], "--user=")) {
			user = argv[i] + strlen("--user=");
			continue;
		}
		fd = open(argv[i], O_WRONLY | O_CLOEXEC);

		if (fd < 0 || write(fd, "0", 1) != 1) {
			fprintf(stderr,
				"schedfarm-agent: cannot join cgroup %s: %s\n",
				argv[i], strerror(errno));
			return 127;
		}
		close(fd);
	}
	if (i + 1 >= argc)
		return usage();
	if (user && drop_to(user) < 0)
		return 127;
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "schedfarm-agent: cannot run %s: %s\n", argv[i + 1],
		strerror(errno));
	return 127;
}

static int cmd_cat(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[65536];
	ssize_t n;

	if (fd < 0) {
		fprintf(stderr, "schedfarm-agent: cannot open %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0 ||
	       (n < 0 && errno == EINTR))
		if (n > 0 && write(1, buf, (size_t)n) != n) {
			close(fd);
			return 1;
		}
	close(fd);
	return n < 0 ? 1 : 0;
}

static int cmd_run(const char *spec)
{
	struct strbuf text = STRBUF_INIT;
	int r, rc;

	if (!strcmp(spec, "-"))
		r = strbuf_read_fd(&text, 0, 1 << 20);
	else
		r = strbuf_read_file(&text, spec, 1 << 20);
	if (r < 0) {
		/* Still a protocol answer: the controller reads lines. */
		struct emitter em;
		struct strbuf msg = STRBUF_INIT, line = STRBUF_INIT;

		emitter_init(&em, 0, 1);
		em.iteration = -1;
		strbuf_addf(&msg, "cannot read spec %s: %s", spec,
			    strerror(-r));
		emit_error(&em, msg.buf, NULL);
		line_begin(&line, "done", 0);
		line_str(&line, "status", "bad-spec");
		line_num(&line, "elapsed_s", 0);
		line_num(&line, "agent_cpu_s", 0);
		line_end(&line);
		emit_line(&em, &line);
		emitter_release(&em);
		strbuf_release(&msg);
		strbuf_release(&line);
		strbuf_release(&text);
		return 2;
	}
	rc = agent_run(text.buf, text.len, 1);
	strbuf_release(&text);
	return rc;
}

int main(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "version") && argc == 2) {
		printf("schedfarm-agent %s\n", AGENT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "list") && argc == 2) {
		agent_list(&out);
		fputs(out.buf, stdout);
		strbuf_release(&out);
		return 0;
	}
	if (!strcmp(argv[1], "info") && argc == 2) {
		agent_info_json(&out, NULL);
		puts(out.buf);
		strbuf_release(&out);
		return 0;
	}
	if (!strcmp(argv[1], "run") && argc == 3)
		return cmd_run(argv[2]);
	if (!strcmp(argv[1], "cat") && argc == 3)
		return cmd_cat(argv[2]);
	if (!strcmp(argv[1], "__exec-in"))
		return exec_in(argc, argv);
	if (!strcmp(argv[1], "__spin"))
		return agent_spin_main(argc, argv);
	return usage();
}

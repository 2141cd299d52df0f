/*
 * main.c - schedfarm-agent: the small static program that runs workloads on
 * the machine under test and reports them as JSON lines.
 *
 * Foundation only: `version`.  The workloads, `list`, `info`, `run` and
 * `cat` come with the agent issue.
 */
#include <stdio.h>
#include <string.h>

#include "banned.h"

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "version")) {
		puts("schedfarm-agent 0.1");
		return 0;
	}
	fputs("usage: schedfarm-agent version\n", stderr);
	return 2;
}

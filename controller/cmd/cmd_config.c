/*
 * cmd_config.c - `schedfarm config`: the farm's effective settings.
 *
 * Prints every key of the settings file (config.h) with its value and
 * whether it came from the file or is the default; passwords never (only
 * whether password_file gives one).  Opens no database: a file can be checked
 * before the farm runs.
 */
#include <stdio.h>

#include "cli.h"
#include "cmd/builtin.h"
#include "config.h"
#include "log.h"
#include "banned.h"

const char cmd_config_usage[] =
	"usage: schedfarm config [--json]\n"
	"\n"
	"Print the farm's effective settings: the report folder and its URL,\n"
	"the SMTP server, sender and recipients of mail, retries, and the\n"
	"bisection switch, each with '# default' when the file does not set "
	"it.\n"
	"The file is --config FILE, else $SCHEDFARM_CONFIG, else "
	"schedfarm.conf\n"
	"in the state folder; its format is in doc/ANSWERS.md and 'man\n"
	"schedfarm' (FILES).  A bad file is an error naming its line.\n"
	"Passwords are never printed: mail.password says only whether one "
	"comes\n"
	"from mail.password_file, its one source (not the smtp URL, which "
	"may\n"
	"not hold one, and not $SCHEDFARM_SMTP_PASSWORD, which is not read: "
	"an\n"
	"environment is inherited by every program the farm starts).  The "
	"file\n"
	"and the password file are refused when others may write them or "
	"another\n"
	"user owns them.\n"
	"\n"
	"  --json   one object: file, file_read, source, and every "
	"section.key\n";

int cmd_config(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT;
	int json = cli_json_only(argc, argv, 0,
				 "usage: schedfarm config "
				 "[--json]");

	farm_config_show(cli_config(), json, &out);
	cli_emit(&out);
	return 0;
}

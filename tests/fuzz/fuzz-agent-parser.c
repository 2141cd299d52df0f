/*
 * fuzz-agent-parser.c - libFuzzer target for one of the agent's output and
 * counter parsers, chosen at build time with -DFUZZ_PARSER=NAME (run-fuzz.sh
 * builds one binary per parser).  Inputs must be parsed or refused; parsed
 * schedstat and /proc/stat snapshots are also diffed against themselves.
 * "command" feeds the four parsers of plan-defined command workloads
 * (common/command.c), the first input byte choosing the format; a value
 * they accept must be finite.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STR2(x) #x
#define STR(x) STR2(x)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *which = STR(FUZZ_PARSER);
	struct strbuf err = STRBUF_INIT;
	struct emitter em;

	emitter_init(&em, 1, -1);
	if (!strcmp(which, "schedstat")) {
		struct schedstat a;

		if (schedstat_parse(text, size, &a, &err) == 0) {
			schedstat_emit_delta(&em, &a, &a);
			schedstat_release(&a);
		}
	} else if (!strcmp(which, "procstat")) {
		struct procstat a;
		struct task_schedstat ts;
		uint64_t v, iv;

		if (procstat_parse(text, size, &a, &err) == 0)
			procstat_emit_delta(&em, &a, &a);
		task_schedstat_parse(text, size, &ts);
		task_status_switches(text, size, &v, &iv);
	} else {
		static const struct {
			const char *name;
			output_parser fn;
		} parsers[] = {
			{ "sysbench", parse_sysbench },
			{ "hackbench", parse_hackbench },
			{ "perf_csv", parse_perf_stat_csv },
			{ "perf_table", parse_perf_stat_table },
			{ "kernbench", parse_kernbench },
			{ "time", parse_time_output },
			{ "reaim", parse_reaim },
			{ "volanomark", parse_volanomark },
			{ "numabench", parse_numabench },
			{ "cyclictest", parse_cyclictest },
			{ "perf_bench", parse_perf_bench },
		};

		for (size_t i = 0; i < sizeof(parsers) / sizeof(parsers[0]);
		     i++)
			if (!strcmp(which, parsers[i].name)) {
				struct metrics ms;

				metrics_init(&ms);
				if (parsers[i].fn(text, size, &ms, &err) < 0 &&
				    !err.len)
					__builtin_trap();
				for (size_t k = 0; k < ms.n; k++)
					if (!ms.m[k].unit || !ms.m[k].direction)
						__builtin_trap();
				metrics_release(&ms);
			}
		if (!strcmp(which, "command") && size > 0) {
			static const char *const pats[] = {
				"rate[=:]\\s*(?<rate>\\S+)", "(?<lat>[0-9.]+) ?us",
				NULL
			};
			struct cmd_def d;
			double v[2];

			cmd_def_init(&d);
			d.name = xstrdup("fuzz");
			strvec_push(&d.argv, "fuzz");
			d.format = (enum cmd_format)(data[0] % 4);
			d.separator = d.format == CMD_CSV ? ',' : ':';
			if (d.format == CMD_REGEX)
				strvec_pushv(&d.patterns, pats);
			d.metrics = xcalloc(2, sizeof(*d.metrics));
			d.metrics[0].name = xstrdup("rate");
			d.metrics[0].key = xstrdup("rate");
			d.metrics[0].unit = xstrdup("");
			d.metrics[0].direction = "higher";
			d.metrics[1].name = xstrdup("lat");
			d.metrics[1].key = xstrdup("lat");
			d.metrics[1].unit = xstrdup("us");
			d.metrics[1].direction = "lower";
			d.nmetrics = 2;
			if (cmd_parse_output(&d, text + 1, size - 1, v, &err) ==
			    0) {
				if (!isfinite(v[0]) || !isfinite(v[1]))
					__builtin_trap();
			} else if (!err.len) {
				__builtin_trap();
			}
			cmd_def_release(&d);
		}
		if (!strcmp(which, "grouped") && size < 256) {
			char buf[256];
			double d;

			memcpy(buf, data, size);
			buf[size] = '\0';
			parse_grouped_number(buf, &d);
		}
	}
	emitter_release(&em);
	strbuf_release(&err);
	return 0;
}

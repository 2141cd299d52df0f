/*
 * test-command.c - plan-defined command workloads (common/command.c):
 * named-group regular expressions, the four output parsers on good and
 * hostile output, the definition's checks and its JSON form both ways.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "command.h"

/* A definition of format f with metrics "name[=key]" (direction higher). */
static void def(struct cmd_def *d, enum cmd_format f, const char *const *m)
{
	cmd_def_init(d);
	d->name = strdup("t");
	strvec_push(&d->argv, "prog");
	d->format = f;
	d->separator = f == CMD_CSV ? ',' : ':';
	for (d->nmetrics = 0; m[d->nmetrics]; d->nmetrics++)
		;
	d->metrics = calloc(d->nmetrics, sizeof(*d->metrics));
	for (size_t i = 0; i < d->nmetrics; i++) {
		const char *eq = strchr(m[i], '=');

		d->metrics[i].name =
			eq ? strndup(m[i], (size_t)(eq - m[i])) : strdup(m[i]);
		d->metrics[i].key = strdup(eq ? eq + 1 : m[i]);
		d->metrics[i].unit = strdup("");
		d->metrics[i].direction = "higher";
	}
}

/* Parse text with d: 0 and values, or -1 and the message in err. */
static int parse(const struct cmd_def *d, const char *text, double *v,
		 struct strbuf *err)
{
	strbuf_reset(err);
	return cmd_parse_output(d, text, strlen(text), v, err);
}

static void test_regex_named_groups(void **state)
{
	struct cmd_regex re;
	struct strbuf err = STRBUF_INIT;
	regmatch_t m[4];

	(void)state;
	assert_int_equal(
		cmd_regex_compile("(?:a|b)(?<x>\\d+)-(?P<y>[[:alpha:]]+)", &re,
				  &err),
		0);
	assert_int_equal(re.ngroups, 3);
	assert_null(re.names[1]);
	assert_string_equal(re.names[2], "x");
	assert_string_equal(re.names[3], "y");
	assert_int_equal(regexec(&re.re, "zb42-ok", 4, m, 0), 0);
	assert_int_equal(m[2].rm_so, 2);
	assert_int_equal(m[2].rm_eo, 4);
	cmd_regex_free(&re);
	/* brackets are copied as they are: ( and \d inside are literal */
	assert_int_equal(cmd_regex_compile("[(\\d](?<n>[0-9])", &re, &err), 0);
	assert_int_equal(re.ngroups, 1);
	assert_string_equal(re.names[1], "n");
	cmd_regex_free(&re);

	static const char *const bad[] = {
		"(?=x)", "(?<1x>y)", "(?<a>x)(?<a>y)", "(?<a x)", "x(",
		"ab\\",	 ""
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		assert_int_equal(cmd_regex_compile(bad[i], &re, &err), -1);
		assert_true(err.len > 0);
		cmd_regex_free(&re);
	}

	/* Repeats of repeats that regcomp() would expand past memory (the
	 * fuzzers' "x" and a hundred "+" took it past 2 GB), and
	 * back-references, are refused before it runs; ordinary repeats,
	 * nested or not, pass. */
	static const char *const big[] = { "r=(:+++++++++++++++)",
					   "(a{100}){100}", "((a+){80}){80}",
					   "(x{,200}){60}",
					   "a{70}b{2}(c{150}){70}" };
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		strbuf_reset(&err);
		assert_int_equal(cmd_regex_compile(big[i], &re, &err), -1);
		assert_non_null(strstr(err.buf, "repeats multiply it more than "
						"10000 times"));
		cmd_regex_free(&re);
	}
	/* Repeats stacked three deep, or more than 100 of them: glibc's
	 * epsilon closures took seconds to minutes (the plan fuzzer's "1"
	 * and 31 "?", then "+": 0.9 s without ASan; ".??+" 33 times: over
	 * a minute). */
	static const char *const deep[] = { "a??+", "((a?)+)*",
					    "1???????????????????????????????;",
					    "x[ab]*?+" };
	for (size_t i = 0; i < sizeof(deep) / sizeof(deep[0]); i++) {
		strbuf_reset(&err);
		assert_int_equal(cmd_regex_compile(deep[i], &re, &err), -1);
		assert_non_null(
			strstr(err.buf, "more than 2 repeats on one atom"));
		cmd_regex_free(&re);
	}
	{
		struct strbuf many = STRBUF_INIT;

		for (int i = 0; i < 101; i++)
			strbuf_addstr(&many, "a?");
		strbuf_reset(&err);
		assert_int_equal(cmd_regex_compile(many.buf, &re, &err), -1);
		assert_non_null(
			strstr(err.buf, "more than 100 repeat operators"));
		cmd_regex_free(&re);
		strbuf_setlen(&many, many.len - 2);
		strbuf_reset(&err);
		if (cmd_regex_compile(many.buf, &re, &err) < 0)
			fail_msg("100 repeats: %s", err.buf);
		cmd_regex_free(&re);
		strbuf_release(&many);
	}
	strbuf_reset(&err);
	assert_int_equal(cmd_regex_compile("(a+)\\1", &re, &err), -1);
	assert_non_null(strstr(err.buf, "a back-reference"));
	cmd_regex_free(&re);
	static const char *const fine[] = { "rate[=:]\\s*(?<rate>\\S+)",
					    "(?<lat>[0-9.]+) ?us",
					    "(a+)+",
					    "x{2,5}(y{3}|z{1,50}){10}",
					    "[+{]++",
					    "(a?)+",
					    "(.?)+(.?)+" };
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		strbuf_reset(&err);
		if (cmd_regex_compile(fine[i], &re, &err) < 0)
			fail_msg("%s: %s", fine[i], err.buf);
		cmd_regex_free(&re);
	}
	strbuf_release(&err);
}

static void test_keyvalue(void **state)
{
	static const char *const m[] = { "rate", "lat_ms=latency", NULL };
	struct cmd_def d;
	struct strbuf err = STRBUF_INIT;
	double v[2];

	(void)state;
	def(&d, CMD_KEYVALUE, m);
	assert_int_equal(parse(&d,
			       "header line\nrate: 1\r\n  latency :  2.5 ms\n"
			       "rate: 7\nother: x\n",
			       v, &err),
			 0);
	assert_true(v[0] == 7 && v[1] == 2.5); /* the last one wins */
	assert_int_equal(parse(&d, "rate: nan\nlatency: 1\n", v, &err), -1);
	assert_string_equal(err.buf, "line 1: \"rate: nan\": the value of "
				     "'rate' is not a finite number");
	assert_int_equal(parse(&d, "rate: 1e999\nlatency: 1\n", v, &err), -1);
	assert_int_equal(parse(&d, "rate: 3\n", v, &err), -1);
	assert_string_equal(err.buf, "the output gives no value for metric "
				     "'lat_ms' (key 'latency')");
	assert_int_equal(parse(&d, "", v, &err), -1);
	cmd_def_release(&d);
	strbuf_release(&err);
}

static void test_regex_output(void **state)
{
	static const char *const m[] = { "events_per_s", "p95=p95", NULL };
	struct cmd_def d;
	struct strbuf err = STRBUF_INIT;
	double v[2];

	(void)state;
	def(&d, CMD_REGEX, m);
	strvec_push(&d.patterns,
		    "events per second:\\s*(?<events_per_s>[0-9.]+)");
	strvec_push(&d.patterns, "95th percentile:\\s+(?<p95>\\S+)");
	assert_int_equal(cmd_def_check(&d, &err, &err), 0);
	assert_int_equal(parse(&d,
			       "    events per second:  5404.00\n"
			       "         95th percentile:     0.28\n",
			       v, &err),
			 0);
	assert_true(v[0] == 5404 && v[1] == 0.28);
	/* a group that matches something that is not a number */
	assert_int_equal(parse(&d,
			       "events per second: 1\n95th percentile: inf\n",
			       v, &err),
			 -1);
	assert_string_equal(err.buf, "line 2: \"95th percentile: inf\": the "
				     "value of 'p95' is not a finite number");
	cmd_def_release(&d);
	strbuf_release(&err);
}

static void test_csv(void **state)
{
	static const char *const m[] = { "ops", "lat", NULL };
	struct cmd_def d;
	struct strbuf err = STRBUF_INIT;
	double v[2];

	(void)state;
	def(&d, CMD_CSV, m);
	assert_int_equal(
		parse(&d, "\"ops\", lat ,name\n1,2,a\n 3 ,\"4\",b\n", v, &err),
		0);
	assert_true(v[0] == 3 && v[1] == 4);
	assert_int_equal(parse(&d, "ops,lat\n1\n", v, &err), -1);
	assert_string_equal(err.buf,
			    "line 2: \"1\": 1 fields where the header has 2");
	assert_int_equal(parse(&d, "ops,latency\n1,2\n", v, &err), -1);
	assert_string_equal(err.buf, "line 1: \"ops,latency\": the header has "
				     "no column 'lat'");
	assert_int_equal(parse(&d, "ops,lat\n", v, &err), -1);
	assert_string_equal(err.buf, "the CSV output has a header but no row");
	assert_int_equal(parse(&d, "ops,lat\nx,1\n", v, &err), -1);
	cmd_def_release(&d);
	strbuf_release(&err);
}

static void test_jsonl(void **state)
{
	static const char *const m[] = { "ops", "p99", NULL };
	struct cmd_def d;
	struct strbuf err = STRBUF_INIT;
	double v[2];

	(void)state;
	def(&d, CMD_JSONL, m);
	assert_int_equal(parse(&d,
			       "{\"ops\": 1, \"p99\": 2, \"x\": {\"y\": []}}\n"
			       "\n{\"ops\": 3.5}\n",
			       v, &err),
			 0);
	assert_true(v[0] == 3.5 && v[1] == 2);
	assert_int_equal(parse(&d, "{\"ops\": NaN, \"p99\": 1}\n", v, &err),
			 -1);
	assert_true(strstr(err.buf, "line 1: \"{\"ops\": NaN, \"p99\": 1}\": "
				    "not a JSON object") == err.buf);
	assert_int_equal(parse(&d, "{\"ops\": null, \"p99\": 1}\n", v, &err),
			 -1);
	assert_string_equal(err.buf, "line 1: \"{\"ops\": null, \"p99\": 1}\": "
				     "field 'ops' is null, not a number");
	assert_int_equal(parse(&d, "[1, 2]\n", v, &err), -1);
	assert_int_equal(parse(&d, "{\"ops\": 1e400, \"p99\": 1}\n", v, &err),
			 -1);
	cmd_def_release(&d);
	strbuf_release(&err);
}

static void test_hostile_sizes(void **state)
{
	static const char *const m[] = { "x", NULL };
	struct cmd_def d;
	struct strbuf err = STRBUF_INIT, big = STRBUF_INIT;
	double v[1];

	(void)state;
	def(&d, CMD_KEYVALUE, m);
	for (int i = 0; i < 70000; i++)
		strbuf_addch(&big, 'y');
	strbuf_addstr(&big, "\nx: 1\n");
	assert_int_equal(parse(&d, big.buf, v, &err), -1);
	assert_true(strstr(err.buf, "line 1: \"yyyy") == err.buf);
	assert_non_null(
		strstr(err.buf, "a line of 70000 bytes, more than 65536"));
	/* a NUL in the output, and control bytes quoted as '?' */
	strbuf_reset(&err);
	assert_int_equal(cmd_parse_output(&d, "x: 1\0\n", 6, v, &err), -1);
	assert_non_null(strstr(err.buf, "a NUL byte"));
	assert_int_equal(parse(&d, "x:\x01\x02 q\n", v, &err), -1);
	assert_string_equal(err.buf, "line 1: \"x:?? q\": the value of 'x' is "
				     "not a finite number");
	strbuf_reset(&err);
	/* trailing blanks after an empty value: the line quoted is what is
	 * left of it (the fuzzer found the quote reading past it) */
	assert_int_equal(parse(&d, " x:  \t\n", v, &err), -1);
	assert_string_equal(err.buf, "line 1: \" x:\": the value of 'x' is "
				     "not a finite number");
	strbuf_reset(&err);
	assert_int_equal(
		cmd_parse_output(&d, big.buf, CMD_MAX_OUTPUT + 1, v, &err), -1);
	cmd_def_release(&d);
	strbuf_release(&err);
	strbuf_release(&big);
}

static void test_def_checks(void **state)
{
	static const char *const m[] = { "a", "b", NULL };
	struct cmd_def d;
	struct strbuf field = STRBUF_INIT, err = STRBUF_INIT;

	(void)state;
	def(&d, CMD_REGEX, m);
	strvec_push(&d.patterns, "a=(?<a>\\d+)");
	assert_int_equal(cmd_def_check(&d, &field, &err), -1);
	assert_string_equal(field.buf, "metrics[1]");
	assert_string_equal(err.buf,
			    "metric 'b': no pattern has a group (?<b>...)");
	strvec_push(&d.patterns, "b=(?<b>\\d+) c=(?<c>\\d+)");
	strbuf_reset(&field);
	strbuf_reset(&err);
	assert_int_equal(cmd_def_check(&d, &field, &err), -1);
	assert_string_equal(field.buf, "patterns[1]");
	assert_string_equal(err.buf, "group 'c' is not a declared metric");
	cmd_def_release(&d);

	def(&d, CMD_JSONL, m);
	free(d.metrics[1].name);
	d.metrics[1].name = strdup("a");
	strbuf_reset(&field);
	strbuf_reset(&err);
	assert_int_equal(cmd_def_check(&d, &field, &err), -1);
	assert_string_equal(field.buf, "metrics[1]");
	strvec_clear(&d.argv);
	strbuf_reset(&field);
	assert_int_equal(cmd_def_check(&d, &field, &err), -1);
	assert_string_equal(field.buf, "argv");
	cmd_def_release(&d);
	strbuf_release(&field);
	strbuf_release(&err);
}

static void test_json_round_trip(void **state)
{
	static const char *const m[] = { "rate=r", "lat", NULL };
	struct cmd_def d, back;
	struct strbuf js = STRBUF_INIT, js2 = STRBUF_INIT, field = STRBUF_INIT,
		      err = STRBUF_INIT;
	struct json_value *doc = NULL;

	(void)state;
	def(&d, CMD_REGEX, m);
	strvec_push(&d.argv, "--x=\"quoted\" \\ back");
	strvec_push(&d.patterns, "r=(?<r>\\d+) lat=(?<lat>\\d+)");
	d.timeout_ms = 90000;
	d.stream = CMD_BOTH;
	cmd_def_to_json(&d, &js);
	assert_int_equal(json_parse(js.buf, js.len, NULL, &doc, &err), 0);
	cmd_def_init(&back);
	assert_int_equal(cmd_def_from_json(doc, &back, &field, &err), 0);
	cmd_def_to_json(&back, &js2);
	assert_string_equal(js.buf, js2.buf);
	assert_string_equal(back.argv.v[1], "--x=\"quoted\" \\ back");
	assert_int_equal(back.timeout_ms, 90000);
	json_free(doc);
	cmd_def_release(&back);

	/* refused: an unknown field, a bad direction, a bad format */
	static const char *const bad[] = {
		"{\"name\":\"t\",\"argv\":[\"p\"],\"format\":\"jsonl\","
		"\"metrics\":[],\"bogus\":1}",
		"{\"name\":\"t\",\"argv\":[\"p\"],\"format\":\"jsonl\","
		"\"metrics\":[{\"name\":\"a\",\"key\":\"a\",\"unit\":\"\","
		"\"direction\":\"up\"}]}",
		"{\"name\":\"t\",\"argv\":[\"p\"],\"format\":\"xml\","
		"\"metrics\":[{\"name\":\"a\",\"key\":\"a\",\"unit\":\"\","
		"\"direction\":\"up\"}]}",
		"{\"name\":\"t\",\"argv\":[],\"format\":\"jsonl\","
		"\"metrics\":[{\"name\":\"a\",\"key\":\"a\",\"unit\":\"\","
		"\"direction\":\"none\"}]}",
	};
	static const char *const fields[] = { ".bogus", ".metrics[0]",
					      ".format", ".argv" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		doc = NULL;
		strbuf_reset(&field);
		strbuf_reset(&err);
		assert_int_equal(
			json_parse(bad[i], strlen(bad[i]), NULL, &doc, &err),
			0);
		cmd_def_init(&back);
		assert_int_equal(cmd_def_from_json(doc, &back, &field, &err),
				 -1);
		assert_string_equal(field.buf, fields[i]);
		cmd_def_release(&back);
		json_free(doc);
	}
	cmd_def_release(&d);
	strbuf_release(&js);
	strbuf_release(&js2);
	strbuf_release(&field);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regex_named_groups),
		cmocka_unit_test(test_keyvalue),
		cmocka_unit_test(test_regex_output),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_jsonl),
		cmocka_unit_test(test_hostile_sizes),
		cmocka_unit_test(test_def_checks),
		cmocka_unit_test(test_json_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#!/bin/sh
# t0003: the CLI surface - help, VERB --help, usage errors exit 2, the man
# page renders, the agent is static.
. "$(dirname "$0")/../lib/test-lib.sh"

test_expect_success 'schedfarm --help lists the verbs' '
	schedfarm --help >out &&
	grep_or_fail "usage: schedfarm" out &&
	grep_or_fail "  db " out &&
	grep_or_fail "Exit status: 0 success, 1 failure, 2 usage error." out
'

test_expect_success 'help db and db --help print the same text' '
	schedfarm help db >a &&
	schedfarm db --help >b &&
	cmp a b &&
	grep_or_fail "usage: schedfarm db status" a
'

test_expect_success 'an unknown verb is a usage error (exit 2)' '
	schedfarm no-such-verb 2>err; test $? = 2 &&
	grep_or_fail "no verb" err
'

test_expect_success 'a bad db subcommand is a usage error (exit 2)' '
	schedfarm db frobnicate 2>err; test $? = 2
'

test_expect_success 'the man page renders and names every verb' '
	command -v man >/dev/null || { echo "man not installed"; return 1; }
	MANWIDTH=80 man -l "$TOP/doc/schedfarm.1" >page 2>manerr &&
	grep_or_fail "SCHEDFARM" page &&
	for v in $(schedfarm --help | sed -n "/^Verbs:/,/^$/p" | awk "NF>1 {print \$1}"); do
		grep -q "$v" page || { echo "man page misses $v"; return 1; }
	done
'

test_expect_success 'the man pages pass mandoc -T lint with no message, words never run together' '
	command -v mandoc >/dev/null || { echo "mandoc not installed (make deps)"; return 1; }
	mandoc -T lint "$TOP"/doc/*.1 >lint 2>&1
	test ! -s lint || { cat lint; return 1; } &&
	for f in "$TOP"/doc/*.1; do
		mandoc -T utf8 "$f" | col -b
	done >pages &&
	# .BR ARG ).  Text: the text after the request runs into one word.
	! grep -nE "\)[.,;:][A-Z][a-z]+[a-z]{2,}[a-z]*[a-z]{3,}" pages &&
	! grep -nE "[a-z]{3,}\.[A-Z][a-z]{2,}[a-z]{3,}[a-z]{3,}" pages | grep -v SerialConsole
'

test_expect_success 'the agent is statically linked' '
	file "$AGENT_BIN" >f &&
	grep_or_fail "statically linked" f
'

test_done

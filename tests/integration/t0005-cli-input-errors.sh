#!/bin/sh
# t0005: what a user types, refused with a clear message and the right
# exit status (2 for usage, 1 for failure) instead of a raw database
# error or a silent "(no results)": names with control characters (ESC,
# BEL, newline) at input and in the schema, a 10 000-byte kernel name,
# --since garbage, results for a job, run or kernel that does not exist,
# an imported file's bad byte named by its own line, negative times.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME="$SCRATCH/home"
ESC=$(printf '\033')
printf 'diff --git a/kernel/sched/fair.c b/kernel/sched/fair.c\n--- a/kernel/sched/fair.c\n+++ b/kernel/sched/fair.c\n@@ -1 +1 @@\n-a\n+b\n' >"$SCRATCH/p.patch"

# expect_usage CMD...: exit status 2, no raw database error.
expect_status() {
	_want=$1
	shift
	"$@" >out 2>err
	_rc=$?
	[ $_rc = "$_want" ] || { echo "exit $_rc, not $_want:"; cat out err; return 1; }
	if grep -n "violates\|ERROR:\|invalid input syntax\|DETAIL" err; then
		echo "a raw database error reached the user"
		return 1
	fi
}

test_expect_success 'host add refuses ESC in a name, without echoing it' '
	expect_status 2 schedfarm host add "evil${ESC}[2Jhost" --kind local --no-contact &&
	grep_or_fail "a host name holds a control character (0x1b at byte 5)" err &&
	! grep -q "$ESC" err &&
	schedfarm host list --json | jq -e "length == 0"
'

test_expect_success 'and a newline (a fake row in host list)' '
	expect_status 2 schedfarm host add "box
fake   local  -  idle  good" --kind local --no-contact &&
	grep_or_fail "holds a control character (0x0a at byte 4)" err
'

test_expect_success 'a libvirt host address with qemu options in it is refused' '
	expect_status 2 schedfarm host add vm1 --kind libvirt \
		--address "127.0.0.1,guestfwd=tcp:10.0.2.100:80-cmd:touch $SCRATCH/pwned" --port 2222 &&
	grep_or_fail "a libvirt host'\''s --address is the IPv4 address" err &&
	expect_status 2 schedfarm host add vm1 --kind libvirt --address "127.0.0.1:2223-:22,hostfwd=tcp:0.0.0.0" &&
	expect_status 2 schedfarm host add vm1 --kind libvirt --address localhost &&
	schedfarm host add vm1 --kind libvirt --address 127.0.0.1 --port 2222 >/dev/null &&
	expect_status 2 schedfarm host set vm1 --address "127.0.0.1,hostfwd=tcp::2224-:22" &&
	schedfarm host show vm1 --json | jq -e ".address == \"127.0.0.1\"" &&
	schedfarm host add box --kind ssh --address box.example --no-contact \
		--known-hosts /dev/null >/dev/null
'

test_expect_success 'a libvirt host address that is no one unicast address is refused' '
	expect_status 2 schedfarm host add vm2 --kind libvirt --address 0.0.0.0 --port 2223 &&
	grep_or_fail "nothing else: this one is in 0.0.0.0/8" err &&
	expect_status 2 schedfarm host add vm2 --kind libvirt --address 255.255.255.255 &&
	grep_or_fail "a broadcast or reserved address" err &&
	expect_status 2 schedfarm host add vm2 --kind libvirt --address 224.0.0.1 &&
	grep_or_fail "a multicast address" err &&
	expect_status 2 schedfarm host add vm2 --kind libvirt --address :: &&
	expect_status 2 schedfarm host add vm2 --kind libvirt --address ff02::1 &&
	expect_status 2 schedfarm host set vm1 --address 0.0.0.0 &&
	schedfarm host show vm1 --json | jq -e ".address == \"127.0.0.1\"" &&
	! schedfarm host show vm2 >/dev/null 2>&1
'

test_expect_success 'an SSH user name that reads as an option is refused' '
	expect_status 2 schedfarm host add evil --kind ssh --address 127.0.0.1 \
		--user "-oProxyCommand=touch $SCRATCH/pwned" --known-hosts /dev/null --no-contact &&
	grep_or_fail "SSH user name is 1..32 characters" err &&
	expect_status 2 schedfarm host set box --user "-F/etc/passwd" &&
	! test -e "$SCRATCH/pwned"
'

test_expect_success 'kernel add with a 10 000-byte name is a usage error' '
	printf "%010000d" 0 | tr 0 k >long &&
	echo image >img &&
	expect_status 2 schedfarm kernel add "$(cat long)" --image img --release 6.1 &&
	grep_or_fail "a kernel name is at most 200 bytes (this one has 10000)" err
'

test_expect_success 'kernel add with BEL in the name too' '
	expect_status 2 schedfarm kernel add "$(printf "k\007")" --image img --release 6.1 &&
	grep_or_fail "a kernel name holds a control character (0x07 at byte 2)" err
'

test_expect_success 'submit refuses such a --name, --base, or patch file name' '
	expect_status 2 schedfarm submit p.patch --base "v6.1$ESC" --plan "$TOP/plans/smoke.yaml" &&
	grep_or_fail "--base holds a control character" err &&
	expect_status 2 schedfarm submit p.patch --base v6.1 --name "$(printf "a\nb")" --plan "$TOP/plans/smoke.yaml" &&
	grep_or_fail "--name holds a control character" err &&
	cp p.patch "$(printf "x\033.patch")" &&
	expect_status 2 schedfarm submit "$(printf "x\033.patch")" --base v6.1 --plan "$TOP/plans/smoke.yaml" &&
	grep_or_fail "a patch file name holds a control character" err &&
	schedfarm queue --state all --json | jq -e "length == 0"
'

test_expect_success 'the schema refuses control characters in names too' '
	! schedfarm db psql -- -X -v ON_ERROR_STOP=1 -c "INSERT INTO hosts (name, kind) VALUES (E'\''a\\x1bb'\'', '\''local'\'')" 2>perr &&
	grep_or_fail "hosts_name_printable" perr &&
	! schedfarm db psql -- -X -v ON_ERROR_STOP=1 -c "INSERT INTO kernels (name, base) VALUES (E'\''k\\nfake'\'', '\''x'\'')" 2>perr &&
	grep_or_fail "kernels_name_printable" perr &&
	! schedfarm db psql -- -X -v ON_ERROR_STOP=1 -c "INSERT INTO kernels (name, base) VALUES (E'\''k\\u009b'\'', '\''x'\'')" 2>perr &&
	grep_or_fail "kernels_name_printable" perr
'

test_expect_success 'regressions --since garbage: one clear line, exit 2' '
	expect_status 2 schedfarm regressions --since garbage &&
	grep_or_fail "--since '\''garbage'\'' is not a date or time (like 2026-11-01" err &&
	test "$(wc -l <err)" = 1 &&
	expect_status 0 schedfarm regressions --since 2026-01-01
'

test_expect_success 'report --since garbage too' '
	expect_status 2 schedfarm report --since "not a date" --out "$SCRATCH/rep" &&
	grep_or_fail "--since '\''not a date'\'' is not a date or time" err
'

test_expect_success 'changes --since bogus too, before any update; a good one works' '
	expect_status 2 schedfarm changes --since bogus &&
	grep_or_fail "--since '\''bogus'\'' is not a date or time (like 2026-11-01" err &&
	test "$(wc -l <err)" = 1 &&
	expect_status 2 schedfarm changes --since bogus --no-update --json &&
	expect_status 0 schedfarm changes --since 2026-01-01 &&
	grep_or_fail "no change points" out
'

test_expect_success 'an ESC in --since is shown escaped, never raw' '
	expect_status 2 schedfarm changes --since "x${ESC}[2J" &&
	grep_or_fail "--since '\''x\\x1b[2J'\'' is not a date" err &&
	! grep -q "$ESC" err
'

test_expect_success 'results for a job, run or kernel that does not exist: exit 1, named' '
	expect_status 1 schedfarm results 999 &&
	grep_or_fail "no job STP#999" err &&
	expect_status 1 schedfarm results STP#998 --json &&
	grep_or_fail "no job STP#998" err &&
	expect_status 1 schedfarm results --run 4242 &&
	grep_or_fail "no run 4242" err &&
	expect_status 1 schedfarm results --kernel nosuch &&
	grep_or_fail "no kernel named '\''nosuch'\''" err
'

test_expect_success 'a kernel that exists but has no results is "(no results)", exit 0' '
	schedfarm kernel add empty --image img --release 6.1 >/dev/null &&
	expect_status 0 schedfarm results --kernel empty &&
	grep_or_fail "(no results)" out
'

test_expect_success 'import names the line of a bad byte, not line 1' '
	printf "kernel,host,workload,params,metric,unit,better,value\nk,h,w,,m,ops,higher,1\nk,h\377w,w,,m,ops,higher,2\n" >bad.csv &&
	expect_status 1 schedfarm import bad.csv &&
	grep_or_fail "bad.csv:3: not UTF-8 text: byte 0xff at column 4 is not part of a UTF-8 character" err
'

test_expect_success 'import refuses a host name with a control character, by line' '
	printf "kernel,host,workload,params,metric,unit,better,value\nk,\"h\tx\",w,,m,ops,higher,1\n" >tab.csv &&
	expect_status 1 schedfarm import tab.csv &&
	grep_or_fail "tab.csv:2: host holds a control character (0x09 at byte 2)" err
'

test_expect_success 'a negative time is refused, a negative change is not' '
	printf "kernel,host,workload,params,metric,unit,better,value\nk,h,w,,elapsed,ms,lower,-3\nk,h,w,,elapsed,s,lower,2\n" >neg.csv &&
	expect_status 1 schedfarm import neg.csv &&
	grep_or_fail "neg.csv:2: value -3 is a negative time (unit ms)" err &&
	printf "kernel,host,workload,params,metric,unit,better,n,mean,stddev\nk,h,w,,wall,s,lower,5,-1.5,0.1\n" >negs.csv &&
	expect_status 1 schedfarm import negs.csv &&
	grep_or_fail "negs.csv:2: mean -1.5 is a negative time (unit s)" err &&
	printf "kernel,host,workload,params,metric,unit,better,value\nk,h,w,,delta,%%,higher,-3\n" >pct.csv &&
	expect_status 0 schedfarm import pct.csv
'

test_done

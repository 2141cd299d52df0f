#!/bin/sh
# t2014: cgroups wherever the target is.  A fairness run (t2002's seed 001
# figures: 5 loops in /a, 2 in /b, about 20% and 50% per task) on a target
# whose cgroup mounts are hidden -- a private mount namespace with
# /sys/fs/cgroup over-mounted by an empty tmpfs, or unmounted -- gives the
# same shares as with them: the agent mounts a hierarchy of its own there
# and removes it at the end (and what a dead agent left, at its next
# start).  Where it cannot (not root; a kernel without the cpu controller,
# shown by a /proc/cgroups without it), the run fails at once saying why,
# blamed on the host, and the controller fails the job in `run` as the
# host's fault, not in ingest.
. "$(dirname "$0")/../lib/test-lib.sh"

[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make first)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
[ "$(id -u)" = 0 ] || skip_all "hiding the cgroup mounts (a mount namespace) needs root"
command -v unshare >/dev/null || skip_all "unshare not installed (util-linux)"
unshare -m --propagation private true 2>/dev/null ||
	skip_all "no private mount namespace here (unshare -m refused)"
need_cgroups
[ "$(nproc)" = 2 ] || skip_all "the seed's figures are for 2 CPUs; this machine has $(nproc)"

STATE=$SCRATCH/state
export SCHEDFARM_AGENT_STATE=$STATE

metric() {
	jq -r -s "[.[] | select(.type == \"result\" and .metric == \"$1\")][0].value" "$2"
}
# within VALUE WANT TOL (t2002's tolerance: 10 points)
within() {
	awk -v v="$1" -v w="$2" -v t="$3" 'BEGIN { d = v - w; if (d < 0) d = -d; exit !(d <= t) }' ||
		{ echo "$1 is not within $3 of $2"; return 1; }
}
# hidden HOW CMD...: CMD in a private mount namespace where the cgroup
# mounts are gone: HOW tmpfs (an empty tmpfs over /sys/fs/cgroup) or
# umount (everything under /sys/fs/cgroup unmounted); cgroup mounts
# elsewhere are unmounted in both.  A machine without /sys/fs/cgroup
# hides nothing there: it has nothing to hide.
cat >hide.sh <<'EOF'
awk '($3 == "cgroup" || $3 == "cgroup2") && $2 !~ "^/sys/fs/cgroup" { print $2 }' \
	/proc/self/mounts | while read -r m; do umount -l "$m"; done
if [ -d /sys/fs/cgroup ]; then
	if [ "$1" = tmpfs ]; then
		mount -t tmpfs -o size=64k none /sys/fs/cgroup || exit 99
	else
		umount -R -l /sys/fs/cgroup 2>/dev/null || true
	fi
fi
[ "$1" = tmpfs ] || ! grep -q " cgroup2\\? " /proc/self/mounts ||
	{ echo "cgroup mounts still there"; exit 99; }
shift
exec "$@"
EOF
hidden() {
	unshare -m --propagation private sh "$SCRATCH/hide.sh" "$@"
}

cat >spec.json <<EOF
{"run_id": 2014001, "workload": "fairness-loop",
 "params": {"groups": "/a:5,/b:2", "duration": "6s", "sample_interval": "200ms"},
 "cgroups": [{"path": "/a", "weight": 100}, {"path": "/b", "weight": 100}],
 "parent_weight": 10000}
EOF
chmod 644 spec.json

test_expect_success 'with the mounts: the shares of seed 001 (as t2002)' '
	"$AGENT_BIN" run spec.json >plain 2>err &&
	tail -n 1 plain | jq -e ".status == \"ok\"" &&
	a=$(metric share_per_task./a plain) && b=$(metric share_per_task./b plain) &&
	say "mounted: per task /a $a%, /b $b%" &&
	within "$a" 20 10 && within "$b" 50 10
'

test_expect_success 'hidden under an empty tmpfs: info says the agent would mount its own' '
	hidden tmpfs "$AGENT_BIN" info >info.json &&
	jq -e ".cgroup.used == null and (.cgroup.private | type == \"string\") and .cgroup.unusable == null" info.json &&
	say "it would mount: $(jq -r .cgroup.private info.json)"
'

for how in tmpfs umount; do
test_expect_success "hidden ($how): the same shares, through a hierarchy of the agent's own" '
	hidden '$how' "$AGENT_BIN" run "$SCRATCH/spec.json" >hid-'$how' 2>err &&
	tail -n 1 hid-'$how' | jq -e ".status == \"ok\"" &&
	jq -s -e "map(select(.type == \"hello\"))[0].info.cgroup | .used != null and (.private | type == \"string\")" hid-'$how' &&
	a=$(metric share_per_task./a hid-'$how') && b=$(metric share_per_task./b hid-'$how') &&
	pa=$(metric share_per_task./a plain) && pb=$(metric share_per_task./b plain) &&
	say "hidden ('$how'): per task /a $a%, /b $b% (mounted: $pa%, $pb%)" &&
	within "$a" 20 10 && within "$b" 50 10 &&
	within "$a" "$pa" 10 && within "$b" "$pb" 10 &&
	for t in 0 1 2 3 4; do within "$(metric share./a/task$t hid-'$how')" 20 10 || return 1; done &&
	jq -s -e "[.[] | select(.type == \"counter\" and .source == \"cgroup\" and .scope == \"/a\")][0].value > 0" hid-'$how'
'
done

test_expect_success 'the private mount is gone after the run: no folder, no mount' '
	test -d "$STATE" &&
	test -z "$(ls -A "$STATE")" &&
	! grep -F " $STATE" /proc/self/mounts
'

test_expect_success 'what a dead agent left is removed at the next start' '
	# A dead agent without a namespace of its own: its mount is still
	# there, in the folder named by its (no longer running) pid.
	sleep 30 & dead=$! && kill $dead && wait $dead;
	mkdir -p "$STATE/cgroup-$dead/v1-0" &&
	mount -t tmpfs -o size=64k none "$STATE/cgroup-$dead/v1-0" &&
	test_atexit "umount -l $STATE/cgroup-$dead/v1-0" &&
	cat >short.json <<-EOF &&
	{"run_id": 2014002, "workload": "fairness-loop",
	 "params": {"groups": "/a:1", "duration": "1s"},
	 "cgroups": [{"path": "/a", "weight": 100}]}
	EOF
	"$AGENT_BIN" run short.json >swept &&
	tail -n 1 swept | jq -e ".status == \"ok\"" &&
	! grep -F " $STATE/cgroup-$dead" /proc/self/mounts &&
	test ! -e "$STATE/cgroup-$dead"
'

test_expect_success 'not root: the run fails at once, the host blamed, saying why' '
	# a copy nobody may run wherever the checkout is (/root is 0700)
	cp short.json nobody.json && chmod 644 nobody.json &&
	cp "$AGENT_BIN" agent-copy && chmod 755 agent-copy &&
	start=$(date +%s) &&
	! hidden tmpfs setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SCRATCH/agent-copy" run "$SCRATCH/nobody.json" >nr &&
	test $(( $(date +%s) - start )) -le 5 &&
	tail -n 1 nr | jq -e ".status == \"failed\"" &&
	jq -s -e "map(select(.type == \"error\"))[0] | .blame == \"host\" and .field == \"cgroups\" and (.message | test(\"needs root\"))" nr &&
	jq -s -e "map(select(.type == \"hello\"))[0].info.cgroup | .used == null and (.unusable | test(\"needs root\"))" nr &&
	hidden tmpfs setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$SCRATCH/agent-copy" info >nr-info.json &&
	jq -e ".cgroup.private == null and (.cgroup.unusable | test(\"needs root\"))" nr-info.json
'

# A kernel without the cpu controller, as the agent sees it: a
# /proc/cgroups without cpu and a /proc/filesystems without cgroup2 (where
# cpu could be without being listed) bound over the real ones.
printf '#subsys_name\thierarchy\tnum_cgroups\tenabled\nmemory\t0\t1\t1\n' >nocpu
printf 'nodev\tsysfs\nnodev\tproc\nnodev\tcgroup\n\text4\n' >nocpu-fs
cat >nocpu-agent <<EOF
#!/bin/sh
exec unshare -m --propagation private sh -c '
	mount --bind "$SCRATCH/nocpu" /proc/cgroups || exit 99
	mount --bind "$SCRATCH/nocpu-fs" /proc/filesystems || exit 99
	exec sh "$SCRATCH/hide.sh" tmpfs "\$@"' sh "$AGENT_BIN" "\$@"
EOF
chmod 755 nocpu-agent

test_expect_success 'no cpu controller in the kernel: the run fails at once, the host blamed' '
	! ./nocpu-agent run "$SCRATCH/short.json" >nc &&
	jq -s -e "map(select(.type == \"error\"))[0] | .blame == \"host\" and (.message | test(\"no cpu cgroup controller\"))" nc &&
	./nocpu-agent info | jq -e ".cgroup.unusable | test(\"no cpu cgroup controller\")"
'

if command -v "$(pg_bindir)/initdb" >/dev/null 2>&1; then
test_expect_success 'the controller fails such a job in run, as the host'"'"'s fault, not in ingest' '
	pg_test_start pg >pg.out 2>&1 || { cat pg.out; return 1; }
	export SCHEDFARM_DB="$PG_CONNINFO" &&
	SCHEDFARM_AGENT=$SCRATCH/nocpu-agent schedfarm host add here --kind local >out 2>&1 &&
	cat >fair.yaml <<-EOF &&
	name: t2014
	workloads:
	  - workload: fairness-loop
	    params:
	      groups: /a:1
	      duration: 1s
	iterations: 1
	warmup: 0
	EOF
	SCHEDFARM_AGENT=$SCRATCH/nocpu-agent schedfarm run fair.yaml --host here --kernel k-t2014 >out 2>err;
	test $? = 1 &&
	schedfarm queue --state failed --json >f.json &&
	jq -e "length == 1 and .[0].error_phase == \"run\" and (.[0].error | test(\"the host.s fault\") and test(\"no cpu cgroup controller\"))" f.json ||
		{ cat f.json out err; return 1; }
	# Twice in a row, the host is bad: the host was blamed, not the run.
	SCHEDFARM_AGENT=$SCRATCH/nocpu-agent schedfarm run fair.yaml --host here --kernel k-t2014 >out2 2>err2;
	test $? = 1 &&
	schedfarm host show here --json >h.json &&
	jq -e ".health == \"bad\" and (.events[0].reason | test(\"lacks what a run needs twice in a row\"))" h.json ||
		{ cat h.json err2; return 1; }
'
else
	test_skip 'the controller fails such a job in run, as the host'"'"'s fault' \
		"PostgreSQL server programs not installed (make deps)"
fi

test_expect_success 'run-tests.sh lists every skip with its reason, prove'"'"'s summary still last' '
	mkdir -p skipdemo &&
	printf "%s\n" "#!/bin/sh" ". \"$TOP/tests/lib/test-lib.sh\"" \
		"test_skip \"a widget check\" \"no widget here\"" \
		"test_expect_success \"true\" true" test_done >skipdemo/t1.sh &&
	printf "%s\n" "#!/bin/sh" ". \"$TOP/tests/lib/test-lib.sh\"" \
		"skip_all \"no gadget here\"" >skipdemo/t2.sh &&
	chmod 755 skipdemo/t1.sh skipdemo/t2.sh &&
	sh "$TOP/tests/run-tests.sh" "$SCRATCH/skipdemo/t1.sh" "$SCRATCH/skipdemo/t2.sh" >rt.out 2>&1 ||
		{ cat rt.out; return 1; }
	grep_or_fail "Skipped: 2 (file, test, reason)" rt.out &&
	grep_or_fail "  t1.sh  a widget check: no widget here" rt.out &&
	grep_or_fail "  t2.sh  (all): no gadget here" rt.out &&
	tail -n 1 rt.out | grep -q "^Result: PASS" &&
	tail -n 2 rt.out | head -n 1 | grep -q "^Files=2," &&
	test "$(grep -c "^Files=2," rt.out)" = 2
'

test_done

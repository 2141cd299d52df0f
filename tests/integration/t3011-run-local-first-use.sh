#!/bin/sh
# t3011: `schedfarm run PLAN --host local` on the embedded defaults, on a
# farm that has never seen a host: the first use adds this machine as the
# local host, with its topology from the agent, says so, labels the job
# with the running kernel, and runs it; the next use finds the host.  A
# host name that does not exist (other than local) is refused by name.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

H=$SCRATCH/home
export SCHEDFARM_HOME=$H
embedded_stop_at_exit "$H"
REL=$(uname -r)

cat >"$SCRATCH/tiny.yaml" <<'EOF2'
name: tiny
workloads:
  - workload: pipe-pingpong
    params:
      round_trips: 2000
iterations: 1
warmup: 0
EOF2

test_expect_success 'the farm has no host yet' '
	schedfarm host list --json >l.json &&
	jq -e "length == 0" l.json
'

test_expect_success 'run PLAN --host local adds this machine and says so' '
	schedfarm run "$SCRATCH/tiny.yaml" --host local >out 2>err ||
		{ cat out err; false; }
	grep -q "^host local added: this machine, [1-9][0-9]* CPUs ([1-9][0-9]* socket(s), [1-9][0-9]* NUMA node(s)), [1-9][0-9]* MiB; first use of --host local$" out ||
		{ cat out; false; }
	grep_or_fail "kernel: $REL, the running kernel (no --kernel given)" out &&
	schedfarm host show local --json >h.json &&
	jq -e ".kind == \"local\" and .cpus >= 1 and .sockets >= 1 and .memory_mb > 0 and .agent_info.cpus.online >= 1" h.json
'

test_expect_success 'the job ran on it, under the running kernel' '
	schedfarm queue --state all --json >q.json &&
	jq -e "length == 1 and .[0].state == \"done\" and .[0].host == \"local\" and .[0].kernel == \"$REL\"" q.json ||
		{ cat q.json; false; }
'

test_expect_success 'the second run finds the host and adds nothing' '
	schedfarm run "$SCRATCH/tiny.yaml" --host local --kernel k2 >out2 2>err2 ||
		{ cat out2 err2; false; }
	! grep -n "added" out2 &&
	schedfarm host list --json | jq -e "length == 1"
'

test_expect_success 'a job that outlives timeouts.job fails, naming the limit' '
	cat >limit.yaml <<-EOF &&
	name: job-limit
	workloads:
	  - workload: fairness-loop
	    params:
	      duration: 20s
	iterations: 1
	warmup: 0
	timeouts:
	  job: 3s
	EOF
	start=$(date +%s) &&
	! schedfarm run limit.yaml --host local --kernel k3 >out3 2>err3 &&
	test $(( $(date +%s) - start )) -lt 60 &&
	J=$(sed -n "s/^STP#\([0-9]*\): queued.*/\1/p" out3) &&
	schedfarm job show "$J" --json >j.json &&
	jq -e ".state == \"failed\"" j.json &&
	jq -r ".error" j.json >e &&
	grep_or_fail "the job'\''s budget (timeouts.job, 3s) ran out" e
'

test_expect_success 'a host that does not exist is named, nothing queued' '
	schedfarm run "$SCRATCH/tiny.yaml" --host nosuch --kernel k 2>err;
	test $? = 1 &&
	grep_or_fail "no host named '\''nosuch'\''" err &&
	schedfarm queue --state all --json | jq -e "length == 3"
'

test_done

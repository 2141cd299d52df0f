#!/bin/sh
# t5007: calibration on imported A/A data (issue 13) - 300 comparisons
# where both kernels draw from the same distribution, through `schedfarm
# import` and `schedfarm compare` on a real PostgreSQL, and the false calls
# (regression, improvement or changed) counted.
#
# Six cells: 5, 10 and 20 boots per side, each at normal CV 1% and 5%;
# per cell a kernel pair (aa-nN-cvC-base, aa-nN-cvC-new) measured on 50
# hosts.  Each host has one metric in a cell, so every row is a Holm
# family of one, tested at alpha 0.01 alone.  The metric rotates over the
# host number: a time (s, lower is better), a rate (ops/s, higher), a tail
# latency (latency_p99, us, lower: tau 5%) and a share without a direction
# (%cpu, none: a false call there is `changed`); the level rotates too.
#
# The bound.  A false call needs p < 0.01, and every p here is the exact
# Mann-Whitney p (5 to 20 per side), which under A/A is at most 0.01 with
# probability at most 0.01; the 300 comparisons are independent.  So the
# false calls are at most Binomial(300, 0.01) (mean 3), and a correct
# method exceeds 12 with probability 1.4e-05 (12 is 4%).  Verdicts called
# at random fail it: even at a 20% call rate, 12 or fewer has probability
# 5e-16.  (Tau 2% and 5% make a correct method call far fewer than 3.)
#
# The numbers come from a Park-Miller generator and Box-Muller in awk, so
# the same file is written on every machine.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null 2>&1 || skip_all "jq not installed (make deps)"

H=$SCRATCH/home
mkdir "$H"
export SCHEDFARM_HOME=$H
embedded_stop_at_exit "$H"

HOSTS=50
CELLS="5:1 5:5 10:1 10:5 20:1 20:5"
BOUND=12

# aa SEED HOSTS CELLS: the CSV rows of every cell, base and new alike.
aa() {
	awk -v seed="$1" -v hosts="$2" -v cells="$3" '
	function rnd() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
	function gauss() { return sqrt(-2 * log(rnd())) * cos(6.283185307179586 * rnd()) }
	BEGIN {
		split("runtime,throughput,latency_p99,share", metric, ",")
		split("s,ops/s,us,%cpu", unit, ",")
		split("lower,higher,lower,none", better, ",")
		split("base,new", side, ",")
		nc = split(cells, cell, " ")
		for (c = 1; c <= nc; c++) {
			split(cell[c], nv, ":")
			n = nv[1]
			cv = nv[2] / 100
			for (h = 1; h <= hosts; h++) {
				k = h % 4 + 1
				m = 100 * (1 + h % 7)
				for (s = 1; s <= 2; s++)
					for (i = 0; i < n; i++)
						printf "aa-n%d-cv%d-%s,aa-h%02d,aa,,%s,%s,%s,%.5f\n",
							n, nv[2], side[s], h, metric[k],
							unit[k], better[k],
							m * (1 + cv * gauss())
			}
		}
	}'
}

test_expect_success 'import 300 seeded A/A pairs (5, 10, 20 per side; CV 1% and 5%)' '
	{
		echo "kernel,host,workload,params,metric,unit,better,value"
		aa 20261207 $HOSTS "$CELLS"
	} >aa.csv &&
	test "$(wc -l <aa.csv)" = 7001 &&
	schedfarm import aa.csv >out &&
	grep_or_fail "imported 7000 observation rows" out
'

test_expect_success 'compare each pair: 50 rows of n per side, none short of data' '
	for c in $CELLS; do
		n=${c%:*} cv=${c#*:} &&
		schedfarm compare --base aa-n$n-cv$cv-base --new aa-n$n-cv$cv-new \
			--no-store --json >cmp-$n-$cv.json &&
		jq -e --argjson n $n "length == $HOSTS and all(.[];
			.n_base == \$n and .n_new == \$n and .p_method == \"mann-whitney-exact\" and
			.verdict != \"insufficient-data\" and (.p_adjusted == .p_value))" cmp-$n-$cv.json ||
			return 1
	done
'

test_expect_success "false calls at most $BOUND of 300 (alpha 0.01: at most Binomial(300, 0.01))" '
	total=0 nochange=0 cells= &&
	for c in $CELLS; do
		n=${c%:*} cv=${c#*:} &&
		f=$(jq "[.[] | select(.verdict == \"regression\" or .verdict == \"improvement\" or .verdict == \"changed\")] | length" cmp-$n-$cv.json) &&
		nc=$(jq "[.[] | select(.verdict == \"no-change\")] | length" cmp-$n-$cv.json) &&
		cells="$cells n=$n CV $cv%: $f;" &&
		total=$((total + f)) && nochange=$((nochange + nc)) || return 1
	done &&
	echo "A/A false calls: $total of 300 (bound $BOUND);$cells no-change $nochange of 300" >false-calls &&
	test "$total" -le $BOUND
'
# The count on every run, not only when the test above fails.
[ -s "$SCRATCH/false-calls" ] && say "$(cat "$SCRATCH/false-calls")"

test_done

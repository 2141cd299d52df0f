#!/bin/sh
# t2040: imports with a time column (issue 28).  The same seeded 300-point
# history (CV 1%, +3% from point 100 and again from 200) goes to two hosts:
# to box1 in one file, in order; to box2 back-filled, the newer half
# (points 150..299) in a first file and the older half (0..149) in a second,
# each row with the time its run started (ISO 8601 with a zone, ISO
# without one, unix seconds), the history searched between the two.  `schedfarm changes --json` then gives the
# same change points on both hosts (index, kernels, means, p); the runs
# carry the given times as started_at; a run without a time keeps its
# import's; a bad time is refused with its line.  Without the column
# (main before issue 28) box2's history is in import order and the
# back-fill makes a false change point where the halves meet.
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

q() {
	schedfarm db psql -- -X -v ON_ERROR_STOP=1 -At -c "$1"
}

# history HOST FROM TO FORM: points FROM..TO-1 of the seeded series on
# HOST, point i run at 2026-01-01 00:00 UTC plus i hours, its time written
# as FORM: z (ISO, Z), off (ISO, +02:00), local (ISO without a zone: UTC),
# unix (seconds).  The generator runs from point 0 whatever FROM is, so
# every host gets the same values.
history() {
	awk -v host="$1" -v from="$2" -v to="$3" -v form="$4" '
	function rnd() { seed = (seed * 16807) % 2147483647; return seed / 2147483647 }
	function gauss() { return sqrt(-2 * log(rnd())) * cos(6.283185307179586 * rnd()) }
	function iso(h, zone) {
		return sprintf("2026-01-%02dT%02d:00:00%s", 1 + int(h / 24), h % 24, zone)
	}
	BEGIN {
		seed = 20261228
		for (i = 0; i < to; i++) {
			m = 1000
			if (i >= 100) m *= 1.03
			if (i >= 200) m *= 1.03
			v = m * (1 + 0.01 * gauss())
			if (i < from) continue
			if (form == "z") t = iso(i, "Z")
			else if (form == "off") t = iso(i + 2, "+02:00")
			else if (form == "local") t = iso(i, "")
			else t = 1767225600 + 3600 * i
			printf "v6.%d,%s,hackbench,groups=10,time,s,lower,%.4f,%s\n",
				int(i / 10), host, v, t
		}
	}'
}

HDR="kernel,host,workload,params,metric,unit,better,value,time"

test_expect_success 'box1 in order, box2 back-filled (newer half first, searched, then the older), with times' '
	{ echo "$HDR"; history box1 0 300 z; } >inorder.csv &&
	{ echo "$HDR"; history box2 150 300 off; } >newer.csv &&
	{ echo "$HDR"; history box2 0 75 unix; history box2 75 150 local; } >older.csv &&
	schedfarm import inorder.csv >o1 &&
	grep_or_fail "imported 300 observation rows" o1 &&
	schedfarm import newer.csv >o2 &&
	schedfarm changes >/dev/null &&
	schedfarm import older.csv >o3 &&
	grep_or_fail "imported 150 observation rows" o3
'

test_expect_success 'the runs started when their rows say' '
	test "$(q "SELECT count(*) FROM runs WHERE started_at IS NULL")" = 0 &&
	q "SELECT h.name, min(r.started_at AT TIME ZONE '\''UTC'\''),
	          max(r.started_at AT TIME ZONE '\''UTC'\'')
	     FROM runs r JOIN hosts h ON h.id = r.host_id
	    GROUP BY h.name ORDER BY h.name" >times &&
	cat >want <<-\EOT &&
	box1|2026-01-01 00:00:00|2026-01-13 11:00:00
	box2|2026-01-01 00:00:00|2026-01-13 11:00:00
	EOT
	cmp want times
'

test_expect_success 'the back-filled history gives the in-order change points' '
	schedfarm changes --json >c.json &&
	jq -e ".series == 2 and .analysed == 1 and .points == 300" c.json &&
	jq -c "[.changes[] | select(.host == \"box1\") | [.index, .kernel_before, .kernel_after, .n_before, .n_after, .mean_before, .mean_after, .p_value]] | sort" c.json >one &&
	jq -c "[.changes[] | select(.host == \"box2\") | [.index, .kernel_before, .kernel_after, .n_before, .n_after, .mean_before, .mean_after, .p_value]] | sort" c.json >two &&
	jq -e "length == 2 and (.[0][0] - 100 | fabs) <= 3 and (.[1][0] - 200 | fabs) <= 3" one &&
	cmp one two
'

test_expect_success 'a row without a time keeps the import time; summaries take a time too' '
	{
		echo "$HDR"
		echo "v7.0,box3,hackbench,groups=10,time,s,lower,1000,"
		echo "v7.0,box3,hackbench,groups=10,time,s,lower,1001,2026-02-01 12:00"
	} >some.csv &&
	schedfarm import some.csv &&
	test "$(q "SELECT count(*) FROM runs r JOIN hosts h ON h.id = r.host_id
	            WHERE h.name = '\''box3'\'' AND r.started_at IS NULL")" = 1 &&
	test "$(q "SELECT r.started_at AT TIME ZONE '\''UTC'\'' FROM runs r
	            JOIN hosts h ON h.id = r.host_id
	            WHERE h.name = '\''box3'\'' AND r.started_at IS NOT NULL")" = "2026-02-01 12:00:00" &&
	{
		echo "kernel,host,workload,params,metric,unit,better,n,mean,stddev,time"
		echo "v7.0,box5,hackbench,groups=10,time,s,lower,5,1000,3,2026-03-01T08:30:15.25-05:30"
	} >sum.csv &&
	schedfarm import sum.csv &&
	test "$(q "SELECT r.started_at AT TIME ZONE '\''UTC'\'' FROM runs r
	            JOIN hosts h ON h.id = r.host_id
	            WHERE h.name = '\''box5'\''")" = "2026-03-01 14:00:15"
'

test_expect_success 'a bad time is refused with its line, the file whole' '
	{
		echo "$HDR"
		echo "v7.1,box4,hackbench,groups=10,time,s,lower,1000,2026-02-30T00:00Z"
		echo "v7.1,box4,hackbench,groups=10,time,s,lower,1000,2026-01-01T24:00:00"
		echo "v7.1,box4,hackbench,groups=10,time,s,lower,1000,yesterday"
		echo "v7.1,box4,hackbench,groups=10,time,s,lower,1000,99999999999999"
		echo "v7.1,box4,hackbench,groups=10,time,s,lower,1000,2026-01-01T10:00+15:00"
		echo "v7.1,box4,hackbench,groups=10,time,s,lower,1000,1969-12-31"
	} >bad.csv &&
	! schedfarm import bad.csv 2>err &&
	grep_or_fail "bad.csv:2: time '\''2026-02-30T00:00Z'\'' is out of range" err &&
	grep_or_fail "bad.csv:3: time '\''2026-01-01T24:00:00'\'' is out of range" err &&
	grep_or_fail "bad.csv:4: time '\''yesterday'\'' is not ISO 8601" err &&
	grep_or_fail "bad.csv:5: time '\''99999999999999'\'' is out of range" err &&
	grep_or_fail "bad.csv:6: time '\''2026-01-01T10:00+15:00'\'' is out of range" err &&
	grep_or_fail "bad.csv:7: time '\''1969-12-31'\'' is out of range" err &&
	grep_or_fail "refused, nothing stored (6 bad rows)" err &&
	test "$(q "SELECT count(*) FROM hosts WHERE name = '\''box4'\''")" = 0
'

test_done

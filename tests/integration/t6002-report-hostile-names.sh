#!/bin/sh
# t6002: every page kind of `schedfarm report` (index, run, patch, bisect,
# kernel pair, host, plan, metric) rendered with a hostile name in every
# name field (kernel, host, plan, metric, workload, params, unit, patch
# name, bisect label) and hostile text in what programs said (a run's
# error and console, a kernel's build log): no written page holds a raw
# marker ("><svg onload, <b>, ESC, a C1 control, a bidi control or the
# BOM) and no written file (CSV, JSON, .txt beside the pages) a raw
# control or bidi character.  CSV and JSON keep < and " as data (CSV doubles ", JSON
# writes \"): they are no HTML, and no browser renders them as such.
#
# What input refuses is checked first: names holding ESC, a C1 control,
# a bidi control or the BOM are refused by import, host add and plan
# check (plan names are words).  The names imported are then the most
# hostile accepted ("><svg ...>); the worse ones (with ESC and bidi
# controls) are put into the rows by SQL, as a database older than these
# checks, or text from outside (git subjects, program output) holds them.
# The terminal: `bisect show`, `changes` and `compare` print those rows
# with nothing a terminal would act on.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null 2>&1 || skip_all "jq not installed (make deps)"

H=$SCRATCH/home
OUT=$SCRATCH/report
mkdir "$H"
export SCHEDFARM_HOME=$H
embedded_stop_at_exit "$H"

q() {
	schedfarm db psql -- -X -v ON_ERROR_STOP=1 -qAt -c "$1"
}

ESC=$(printf '\033')
CSI=$(printf '\302\233')  # U+009B, CSI to a terminal that takes C1
RLO=$(printf '\342\200\256') # U+202E RIGHT-TO-LEFT OVERRIDE
LRI=$(printf '\342\201\246') # U+2066 LEFT-TO-RIGHT ISOLATE
RLM=$(printf '\342\200\217') # U+200F RIGHT-TO-LEFT MARK
BOM=$(printf '\357\273\277') # U+FEFF
export ESC CSI RLO LRI RLM BOM

# The most hostile names input accepts: out of an attribute, into markup.
KA='kA"><svg onload=alert(1)>'
KB='kB"><svg onload=alert(2)>'
HOST='h"><svg onload=alert(3)>'
WL='w"><svg onload=alert(4)>'
MET='m"><svg onload=alert(5)>'
UNIT='u"><b>'
PARV='p"><svg onload=alert(6)>'

# csv_q S: S as a quoted CSV field.
csv_q() {
	printf '"%s"' "$(printf '%s' "$1" | sed 's/"/""/g')"
}

# no_raw FILE...: none of the files holds a raw control or bidi marker.
no_raw_controls() {
	for f in "$@"; do
		for m in "$ESC" "$CSI" "$RLO" "$LRI" "$RLM" "$BOM"; do
			if LC_ALL=C grep -qF "$m" "$f"; then
				echo "raw control/bidi character in $f:"
				LC_ALL=C grep -nF "$m" "$f" | cat -v | head -n 3
				return 1
			fi
		done
	done
}

# no_raw_markup FILE...: none holds markup that came from a name.
no_raw_markup() {
	for f in "$@"; do
		# (our own markup holds "><svg class=, never onload)
		for m in '"><svg onload' '<svg onload' '<b>'; do
			if grep -qF "$m" "$f"; then
				echo "raw '$m' in $f:"
				grep -noF "$m" "$f" | head -n 3
				return 1
			fi
		done
	done
}

test_expect_success 'input refuses names with ESC, C1, bidi controls or the BOM' '
	schedfarm db migrate >/dev/null &&
	hdr=kernel,host,workload,params,metric,unit,better,value &&
	for bad in "k${ESC}[2J,h,w,,m,s,lower,1" "k${RLO}x,h,w,,m,s,lower,1" \
		"k,h${BOM},w,,m,s,lower,1" "k,h,w${ESC}]0;t,,m,s,lower,1" \
		"k,h,w,,m${LRI},s,lower,1" "k,h,w,x=a${CSI}1m,m,s,lower,1" \
		"k,h,w,,m,s${RLM},lower,1"; do
		printf "%s\n%s\n" "$hdr" "$bad" >bad.csv &&
		! schedfarm import bad.csv >out 2>err || return 1
		grep -q "control character" err || { cat -v err; return 1; }
		no_raw_controls err || return 1
	done &&
	test "$(q "SELECT count(*) FROM runs")" = 0 &&
	! schedfarm host add "x${RLO}y" --kind local 2>err &&
	grep_or_fail "invisible control character (U+202E at byte 2)" err &&
	no_raw_controls err &&
	printf "name: \"p><svg\"\nworkload: pipe-pingpong\n" >p.yaml &&
	! schedfarm plan check p.yaml >out 2>err
'

# 60 points of kernel KA, then 60 of KB 10% slower: one change point,
# between the two hostile kernels.  A second series on the same host has
# plain names, so the host page has a series whose first kernel is KA
# beside it.
test_expect_success 'import the most hostile names accepted, compare the kernels' '
	{
		echo kernel,host,workload,params,metric,unit,better,value
		i=0
		while [ $i -lt 120 ]; do
			if [ $i -lt 60 ]; then k=$KA; v=100; else k=$KB; v=110; fi
			v=$((v + i % 3))
			printf "%s,%s,%s,%s,%s,%s,lower,%s\n" "$(csv_q "$k")" \
				"$(csv_q "$HOST")" "$(csv_q "$WL")" \
				"$(csv_q "x=$PARV")" "$(csv_q "$MET")" \
				"$(csv_q "$UNIT")" "$v"
			printf "%s,%s,hackbench,groups=4,time,s,lower,%s\n" \
				"$(csv_q "$k")" "$(csv_q "$HOST")" "$v"
			i=$((i + 1))
		done
	} >h.csv &&
	schedfarm import h.csv >out &&
	grep_or_fail "imported 240 observation rows" out &&
	schedfarm compare --base "$KA" --new "$KB" >cmp.out &&
	no_raw_controls cmp.out &&
	schedfarm changes >ch.out &&
	grep -q "between kA" ch.out
'

# What input refuses, as old rows or text from outside hold it.
test_expect_success 'worse names and program output, by SQL' '
	X="\"><svg onload=alert(9)>${ESC}[2J${ESC}]0;pwned${ESC}\\ ${CSI}31m${RLO}gpj.exe${LRI}${RLM}${BOM}" &&
	export X &&
	# Names (hosts, kernels, patches, jobs, plans) refuse C0 and C1 in the
	# schema too (006_names_secrets.sql): theirs only reorder.
	N="\"><svg onload=alert(8)>${RLO}gpj.exe${LRI}${RLM}${BOM}" &&
	q "INSERT INTO plans (name, sha256, body) VALUES (\$\$plan$N\$\$, repeat(\$\$b\$\$, 64), \$\$workload: fairness-loop\$\$)" &&
	q "INSERT INTO kernels (name, base, build_state, build_seconds, build_log) VALUES (\$\$kC$N\$\$, \$\$base$X\$\$, \$\$built\$\$, 60, \$\$make: error $X\$\$)" &&
	q "INSERT INTO patches (name, submitter, base, series, series_sha256, n_patches, base_kernel_id, kernel_id, answer_state, answer_verdict, answer_headline)
	   VALUES (\$\$patch$N\$\$, \$\$dev$X\$\$, \$\$base$X\$\$, \$\$x\$\$, repeat(\$\$a\$\$, 64), 2,
		   (SELECT id FROM kernels WHERE name LIKE \$\$kC%\$\$), (SELECT id FROM kernels WHERE name LIKE \$\$kA%\$\$),
		   \$\$answered\$\$, \$\$regression\$\$, \$\$headline$X\$\$)" &&
	q "INSERT INTO jobs (kernel_id, plan_id, host_constraint, boots, patch_id) VALUES ((SELECT id FROM kernels WHERE name LIKE \$\$kB%\$\$), (SELECT id FROM plans), \$\$h\$\$, 1, (SELECT id FROM patches))" &&
	q "UPDATE runs SET plan_id = (SELECT id FROM plans), error = \$\$failed: $X\$\$, console_log = \$\$console $X\$\$ WHERE id = (SELECT min(id) FROM runs)" &&
	q "UPDATE runs SET kernel_id = (SELECT id FROM kernels WHERE name LIKE \$\$kC%\$\$), plan_id = (SELECT id FROM plans) WHERE id = (SELECT max(id) FROM runs)" &&
	q "INSERT INTO bisections (patch_id, host_id, plan_id, workload, params, metric, direction, n_points, max_boots, auto, state, culprit, pct_change, ci_low, ci_high, p_value, result, finished_at)
	   VALUES ((SELECT id FROM patches), (SELECT id FROM hosts), (SELECT id FROM plans), \$\$wl$X\$\$, \$\${\"k\": \"v\"}\$\$, \$\$met$X\$\$, \$\$regression\$\$, 2, 11, true, \$\$done\$\$, 1, -9.8, -11.0, -8.6, 0.0004,
		   \$\$result$X\$\$, now())" &&
	pos=0 &&
	for k in kA kB kC; do
		q "INSERT INTO bisection_points (bisection_id, position, kernel_id, label, mark) VALUES ((SELECT id FROM bisections), $pos, (SELECT id FROM kernels WHERE name LIKE \$\$$k%\$\$), \$\$label $pos$X\$\$, \$\$untested\$\$)" || return 1
		pos=$((pos + 1))
	done &&
	q "INSERT INTO bisection_steps (bisection_id, step, position, kernel_id, state, looks, boots, n, mean, note)
	   VALUES ((SELECT id FROM bisections), 1, 1, (SELECT id FROM kernels WHERE name LIKE \$\$kB%\$\$), \$\$bad\$\$, 1, 3, 3, 0.8, \$\$note$X\$\$)"
'

test_expect_success 'the report writes every page kind' '
	schedfarm report --out "$OUT" >rep.out 2>rep.err || { cat rep.err; return 1; }
	no_raw_controls rep.out rep.err &&
	ls "$OUT" >pages &&
	for kind in index run patch bisect compare host plan metric; do
		grep -q "^$kind.*\.html$" pages || { echo "no $kind page"; return 1; }
	done &&
	ls "$OUT"/*.txt >/dev/null
'

test_expect_success 'no page holds raw markup or a raw control or bidi character from a name' '
	no_raw_markup "$OUT"/*.html &&
	no_raw_controls "$OUT"/*.html &&
	grep -qF "kA&quot;&gt;&lt;svg onload=alert(1)&gt;" "$OUT"/host-*.html &&
	grep -qF "\\x1b[2J" "$OUT"/bisect-*.html &&
	grep -qF "\\u202egpj.exe\\u2066\\u200f\\ufeff" "$OUT"/bisect-*.html
'

test_expect_success 'no data file beside the pages holds a raw control or bidi character' '
	no_raw_controls "$OUT"/*.csv "$OUT"/*.json "$OUT"/*.txt &&
	for f in "$OUT"/*.json; do jq -e . "$f" >/dev/null || { echo "bad JSON $f"; return 1; }; done &&
	grep -qF "\\x1b[2J" "$OUT"/kernel-*-build.txt
'

test_expect_success 'the terminal: bisect show, changes and patch show print nothing a terminal acts on' '
	B=$(q "SELECT id FROM bisections") &&
	schedfarm bisect show "$B" >show.out 2>&1 && cat -v show.out &&
	no_raw_controls show.out &&
	grep -qF "label 0\"><svg onload=alert(9)>\\x1b[2J" show.out &&
	schedfarm bisect show "$B" --json >show.json && jq -e . show.json >/dev/null &&
	no_raw_controls show.json &&
	test "$(jq -r ".points[0].label" show.json | LC_ALL=C grep -cF "$ESC")" = 1 &&
	schedfarm changes --no-update >ch2.out && no_raw_controls ch2.out &&
	schedfarm patch show "$(q "SELECT id FROM patches")" >ps.out 2>&1 &&
	no_raw_controls ps.out
'

test_done

#!/bin/sh
# t5008: answers exported to KernelCI's common database (issue 35;
# doc/KCIDB.md).  A patch answered on the local host (two kernels, three
# boots each, two metrics) is exported as one KCIDB 5.3 document and
# checked by a JSON schema this test writes (ajv, from tests/browser/'s
# node_modules) and by content: ids unique and prefixed by the origin,
# parents present, patchset_hash equal to sha256sum's, paths legal, times
# RFC 3339 with a zone, the same ids on a second export.  Then the
# negative cases (a metric name KCIDB's paths refuse is mapped, not
# dropped; a NaN is never exported) and `--submit` against a small HTTPS
# server on loopback that answers as kcidb-ng does (the token checked,
# the status polled, one 5xx retried, the export recorded once and never
# sent again), and `serve` submitting a new answer by itself when the
# settings name the endpoint, and a series that did not apply exported
# as a checkout that is not valid, with the end of its long log; then
# `--submit` with the plain export's selections, and a submission
# kcidb-ng says failed, or does not know, recorded and sent again.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v "$(pg_bindir)/initdb" >/dev/null 2>&1 ||
	skip_all "PostgreSQL server programs not installed (make deps)"
command -v jq >/dev/null || skip_all "jq not installed (make deps)"
command -v python3 >/dev/null || skip_all "python3 not installed (make deps)"
command -v openssl >/dev/null || skip_all "openssl not installed (make deps)"
command -v node >/dev/null || skip_all "node not installed (make deps)"
NODE_PATH=$TOP/tests/browser/node_modules
export NODE_PATH
[ -d "$NODE_PATH/ajv" ] ||
	skip_all "ajv not in tests/browser/node_modules (tools/install-deps.sh)"
[ -x "$AGENT_BIN" ] || skip_all "no agent binary at $AGENT_BIN (make)"

pg_test_start pg >pg.out 2>&1 || { cat pg.out; exit 1; }
export SCHEDFARM_DB="$PG_CONNINFO"
export SCHEDFARM_HOME=$SCRATCH/home
mkdir -p "$SCHEDFARM_HOME" && chmod 700 "$SCHEDFARM_HOME"

cat >fix.patch <<'EOF'
From: Dev Eloper <dev@example.org>
Subject: [PATCH] sched/fair: a harmless change
Message-ID: <20261205.fix.1@example.org>

---
--- a/kernel/sched/fair.c
+++ b/kernel/sched/fair.c
@@ -1 +1 @@
-a
+b
EOF
cat >pp.yaml <<'EOF'
name: pp
workload: pipe-pingpong
params:
  round_trips: 2000
iterations: 2
warmup: 0
boots: 3
metrics:
  round_trip_us: {decides: true}
  round_trips_per_s: {decides: true}
EOF
write_conf() {
	umask 022
	cat >"$SCHEDFARM_HOME/schedfarm.conf" <<EOF
[report]
dir = $SCRATCH/report
base_url = https://farm.example.org/sched/
[kcidb]
origin = schedtest
$1
EOF
}
write_conf ""

q() {
	schedfarm db psql -- -v ON_ERROR_STOP=1 -qAt -c "$1"
}

# The fields this test relies on, as a JSON schema: each one as kcidb-io's
# schema 5.3 defines it (kcidb_io/schema/v05_03.py; doc/KCIDB.md names
# the commit): the same types, patterns, formats, enums, required members
# and no other members, plus this test's own demands on top (the origin
# schedtest, the members the export always writes, a path never empty).
# The formats (date-time, uri, email) are checked by the test's own
# patterns: ajv-formats is not installed.
cat >schema.json <<'EOF'
{
  "type": "object",
  "required": ["version", "checkouts", "builds", "tests"],
  "additionalProperties": false,
  "$defs": {
    "id": {"type": "string", "pattern": "^[a-z0-9_]+:[^\u0000]*$",
      "allOf": [{"pattern": "^schedtest:."}]},
    "origin": {"type": "string", "pattern": "^[a-z0-9_]+$", "const": "schedtest"},
    "text": {"type": "string", "pattern": "^[^\u0000]*$"},
    "excerpt": {"type": "string", "maxLength": 16384, "pattern": "^[^\u0000]*$"},
    "time": {"type": "string", "format": "date-time"},
    "uri": {"type": "string", "format": "uri"},
    "resource": {"type": "object", "required": ["name", "url"],
      "additionalProperties": false,
      "properties": {"name": {"type": "string", "pattern": "^[^/\u0000]+$"},
                     "url": {"type": "string", "format": "uri"}}},
    "resource_list": {"type": "array", "items": {"$ref": "#/$defs/resource"}},
    "status": {"type": "string",
      "enum": ["FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"]},
    "path": {"type": "string",
      "pattern": "^([a-zA-Z0-9_-]+(\\.[a-zA-Z0-9_-]+)*)?$",
      "minLength": 1}
  },
  "properties": {
    "version": {"type": "object", "required": ["major", "minor"],
      "additionalProperties": false,
      "properties": {"major": {"type": "integer", "const": 5},
                     "minor": {"type": "integer", "minimum": 0, "maximum": 3,
                               "const": 3}}},
    "checkouts": {"type": "array", "minItems": 2, "items": {
      "type": "object", "required": ["id", "origin", "patchset_hash", "valid"],
      "additionalProperties": false,
      "properties": {
        "id": {"$ref": "#/$defs/id"}, "origin": {"$ref": "#/$defs/origin"},
        "tree_name": {"$ref": "#/$defs/text"},
        "git_repository_url": {"type": "string", "format": "uri",
          "pattern": "^https://[^\u0000]*$"},
        "git_commit_hash": {"type": "string", "pattern": "^[0-9a-f]{40}$"},
        "git_commit_name": {"$ref": "#/$defs/text"},
        "git_repository_branch": {"$ref": "#/$defs/text"},
        "patchset_files": {"$ref": "#/$defs/resource_list"},
        "patchset_hash": {"type": "string", "pattern": "^$|^[0-9a-f]{64}$"},
        "message_id": {"type": "string", "format": "email"},
        "comment": {"$ref": "#/$defs/text"},
        "start_time": {"$ref": "#/$defs/time"},
        "log_url": {"$ref": "#/$defs/uri"},
        "log_excerpt": {"$ref": "#/$defs/excerpt"},
        "valid": {"type": "boolean"},
        "misc": {"type": "object"}}}},
    "builds": {"type": "array", "minItems": 2, "items": {
      "type": "object", "required": ["checkout_id", "id", "origin"],
      "additionalProperties": false,
      "properties": {
        "checkout_id": {"$ref": "#/$defs/id"}, "id": {"$ref": "#/$defs/id"},
        "origin": {"$ref": "#/$defs/origin"}, "comment": {"$ref": "#/$defs/text"},
        "start_time": {"$ref": "#/$defs/time"}, "duration": {"type": "number"},
        "architecture": {"type": "string", "pattern": "^[a-z0-9_]*$"},
        "command": {"$ref": "#/$defs/text"}, "compiler": {"$ref": "#/$defs/text"},
        "config_name": {"$ref": "#/$defs/text"},
        "config_url": {"$ref": "#/$defs/uri"},
        "log_url": {"$ref": "#/$defs/uri"},
        "log_excerpt": {"$ref": "#/$defs/excerpt"},
        "status": {"$ref": "#/$defs/status"}, "misc": {"type": "object"}}}},
    "tests": {"type": "array", "minItems": 6, "items": {
      "type": "object",
      "required": ["build_id", "id", "origin", "path", "status", "environment"],
      "additionalProperties": false,
      "properties": {
        "build_id": {"$ref": "#/$defs/id"}, "id": {"$ref": "#/$defs/id"},
        "origin": {"$ref": "#/$defs/origin"},
        "environment": {"type": "object", "required": ["comment", "misc"],
          "additionalProperties": false,
          "properties": {
            "compatible": {"type": "array", "items": {"type": "string",
              "pattern": "^[^ \u0000]+(,[^ \u0000]+)*$"}},
            "comment": {"$ref": "#/$defs/text"},
            "misc": {"type": "object", "required": ["platform"]}}},
        "path": {"$ref": "#/$defs/path"},
        "comment": {"$ref": "#/$defs/text"},
        "status": {"$ref": "#/$defs/status"},
        "number": {"type": "object", "required": ["value"],
          "additionalProperties": false,
          "properties": {"value": {"type": "number"},
            "unit": {"$ref": "#/$defs/text"},
            "prefix": {"type": "string", "enum": ["metric", "binary"]}}},
        "start_time": {"$ref": "#/$defs/time"}, "duration": {"type": "number"},
        "log_url": {"$ref": "#/$defs/uri"},
        "log_excerpt": {"$ref": "#/$defs/excerpt"},
        "misc": {"type": "object"}}}}
  }
}
EOF
cat >check.js <<'EOF'
const Ajv = require("ajv");
const fs = require("fs");
const ajv = new Ajv({allErrors: true, strict: false});
// JSON Schema's formats as kcidb-io uses them: RFC 3339 date-time with
// its zone, an absolute URI (a scheme, no blank), an addr-spec.
ajv.addFormat("date-time",
	/^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$/);
ajv.addFormat("uri", /^[A-Za-z][A-Za-z0-9+.-]*:[^\s"<>\\^`{|}]+$/);
ajv.addFormat("email", /^[^\s@<>()\[\]\\,;:"]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/);
const validate = ajv.compile(JSON.parse(fs.readFileSync(process.argv[2])));
const doc = JSON.parse(fs.readFileSync(process.argv[3]));
if (!validate(doc)) {
	console.log(JSON.stringify(validate.errors, null, 1));
	process.exit(1);
}
EOF

# A document's structural rules (jq): no null anywhere, ids unique and
# origin-prefixed, every parent present.
doc_ok() {
	node check.js schema.json "$1" &&
	jq -e '[.. | select(. == null)] | length == 0' "$1" >/dev/null &&
	jq -e '[.checkouts[].id, .builds[].id, .tests[].id] as $i |
		($i | length) == ($i | unique | length) and
		all($i[]; startswith("schedtest:"))' "$1" >/dev/null &&
	jq -e '[.checkouts[].id] as $c | [.builds[].id] as $b |
		all(.builds[]; .checkout_id as $x | $c | index([$x])) and
		all(.tests[]; .build_id as $x | $b | index([$x]))' "$1" >/dev/null
}

test_expect_success 'a patch is answered on the local host (two kernels, three boots each)' '
	schedfarm host add here --kind local >/dev/null 2>&1 &&
	schedfarm run pp.yaml --host here --kernel v-base >run0 2>&1 ||
		{ cat run0; false; } &&
	schedfarm submit fix.patch --base v-base --kernel v-fix --host here \
		--plan pp.yaml --json >sub && cat sub &&
	schedfarm run >run1 2>&1 || { cat run1; false; } &&
	schedfarm patch show 1 --json | jq -e ".answer.state == \"answered\""
'

test_expect_success 'export kcidb writes one KCIDB 5.3 document the schema accepts' '
	schedfarm export kcidb -o doc1.json 2>export1.err &&
	doc_ok doc1.json &&
	jq -e ".checkouts | length == 2" doc1.json &&
	jq -e ".builds | length == 2" doc1.json
'

test_expect_success 'a checkout per base and series: patchset_hash is sha256sum'"'"'s' '
	want=$(sha256sum fix.patch | cut -c-64 | sha256sum | cut -c-64) &&
	test "$(jq -r ".checkouts[] | select(.id == \"schedtest:plm-1\") | .patchset_hash" doc1.json)" = "$want" &&
	jq -e ".checkouts[] | select(.id == \"schedtest:plm-1\") |
		.message_id == \"20261205.fix.1@example.org\" and
		.comment == \"sched/fair: a harmless change\" and
		.valid == true and (.patchset_files | length == 1)" doc1.json &&
	jq -e "[.checkouts[] | select(.patchset_hash == \"\")] | length == 1" doc1.json &&
	url=$(jq -r ".checkouts[] | select(.id == \"schedtest:plm-1\") | .patchset_files[0].url" doc1.json) &&
	test "$url" = "https://farm.example.org/sched/patch-1-1.patch" &&
	cmp fix.patch "$SCRATCH/report/patch-1-1.patch"
'

test_expect_success 'a test per boot (three per kernel) and per boot and metric' '
	jq -e "[.tests[] | select(.path == \"boot\")] | group_by(.build_id) |
		map(length) == [3, 3]" doc1.json &&
	jq -e "all(.tests[] | select(.path == \"boot\");
		.status == \"PASS\" and .environment.comment == \"here\" and
		.environment.misc.platform == \"here\")" doc1.json &&
	nm=$(q "SELECT count(DISTINCT metric) FROM results") &&
	test "$nm" -ge 2 &&
	jq -e "[.tests[] | select(.path != \"boot\")] | length == 6 * $nm" doc1.json &&
	jq -e "all(.tests[] | select(.path != \"boot\");
		.status == \"DONE\" and (.number.value | type) == \"number\")" doc1.json &&
	jq -e "[.tests[].path] | unique | length == 1 + $nm" doc1.json &&
	jq -e "all(.tests[] | select(.path != \"boot\");
		.path | startswith(\"pipe-pingpong.round_trips_2000.\"))" doc1.json &&
	jq -e "[.tests[] | select(.path == \"pipe-pingpong.round_trips_2000.round_trip_us\")] | length == 6" doc1.json &&
	jq -e "[.tests[] | select(.path | endswith(\"round_trip_us\"))][0].number.unit == \"us\"" doc1.json
'

test_expect_success 'the planned comparison is in each metric test'"'"'s misc' '
	jq -e "all(.tests[] | select(.path != \"boot\");
		.misc.comparison.verdict as \$v | \$v != null and
		(.misc.comparison.mean_base | type) == \"number\" and
		.misc.comparison.base_kernel == \"v-base\")" doc1.json &&
	q "SELECT metric, verdict FROM latest_comparisons c JOIN kernels k ON k.id = c.new_kernel_id WHERE k.name = '"'"'v-fix'"'"' ORDER BY 1" >verdicts &&
	jq -r "[.tests[] | select(.path != \"boot\") | [.misc.metric, .misc.comparison.verdict] | join(\"|\")] | unique | .[]" doc1.json >exported &&
	diff verdicts exported
'

test_expect_success 'build and test times are RFC 3339 with a zone; builds and boots have their members' '
	jq -e "all(.tests[] | select(.path == \"boot\"); .start_time | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z\$\"))" doc1.json &&
	jq -e "all(.builds[]; .comment == \"v-base\" or .comment == \"v-fix\")" doc1.json
'

test_expect_success 'an export is recorded; the next one has nothing new; the ids are stable' '
	test "$(q "SELECT status FROM kcidb_exports WHERE patch_id = 1")" = written &&
	schedfarm export kcidb -o doc2.json 2>export2.err &&
	jq -e ".checkouts == [] and .builds == [] and .tests == []" doc2.json &&
	schedfarm export kcidb 1 -o doc3.json &&
	jq -S "[.checkouts[].id, .builds[].id, .tests[].id] | sort" doc1.json >ids1 &&
	jq -S "[.checkouts[].id, .builds[].id, .tests[].id] | sort" doc3.json >ids3 &&
	cmp ids1 ids3 &&
	schedfarm export kcidb --kernel v-fix --all -o doc4.json &&
	jq -e ".tests | length == 6 + 6 * $(q "SELECT count(DISTINCT metric) FROM results")" doc4.json &&
	schedfarm export kcidb --kernel no-such --all -o doc5.json &&
	jq -e ".tests == []" doc5.json
'

test_expect_success 'a metric name KCIDB refuses is mapped, not dropped' '
	q "UPDATE results SET metric = '"'"'lat p99/us.max'"'"' WHERE metric = '"'"'round_trip_us'"'"'" &&
	schedfarm export kcidb 1 -o doc6.json &&
	doc_ok doc6.json &&
	jq -e "[.tests[] | select(.path == \"pipe-pingpong.round_trips_2000.lat_p99_us_max\")] | length == 6" doc6.json &&
	jq -e "[.tests[] | select(.misc.metric == \"lat p99/us.max\")] | length == 6" doc6.json &&
	q "UPDATE results SET metric = '"'"'round_trip_us'"'"' WHERE metric = '"'"'lat p99/us.max'"'"'"
'

test_expect_success 'a NaN is never exported' '
	q "UPDATE comparisons SET pct_change = '"'"'NaN'"'"', ci_low = '"'"'-Infinity'"'"', mean_new = '"'"'NaN'"'"' WHERE is_latest" &&
	schedfarm export kcidb 1 -o doc7.json &&
	doc_ok doc7.json &&
	! grep -i -q "nan\|infinity" doc7.json &&
	jq -e "all(.tests[] | select(.path != \"boot\");
		(.misc.comparison | has(\"pct_change\") or has(\"ci_low\") or has(\"mean_new\")) | not)" doc7.json &&
	jq -e "all(.tests[] | select(.path != \"boot\"); .misc.comparison | has(\"mean_base\"))" doc7.json
'

test_expect_success 'export kcidb refuses a bad origin and a PLM# with no answer' '
	! schedfarm export kcidb --origin Bad-Origin >o1 2>&1 &&
	grep_or_fail "is not a KCIDB origin" o1 &&
	! schedfarm export kcidb 99 >o2 2>&1 &&
	grep_or_fail "PLM#99 has no answer to export" o2
'

# The kcidb-ng endpoint, answering as kcidb-ng's kcidb-restd-rs does
# (doc/KCIDB.md names the file and commit): every answer a JSON object
# {"id", "status", "message"}.  POST /submit: the bearer token checked
# (401 "error"), a body that is not JSON refused (400 "error"), the first
# POST answered 500 "error" "Internal server error", then 200 "ok" with
# a 32-alphanumeric id.  GET /status?id=: 400 "error" for an empty or
# non-alphanumeric id, 404 "notfound" for one it never gave, else
# "ready" on the first poll and then "processed" -- or "failed" for the
# ids listed in the file fail-ids (one id a line).  Every request is
# logged to kcidb.log.
cat >kcidb-server.py <<'EOF'
import http.server, json, ssl, sys, urllib.parse
port_file, token, log = sys.argv[1], sys.argv[2], open(sys.argv[3], "a")
posts = []
polls = {}
class H(http.server.BaseHTTPRequestHandler):
    def answer(self, code, status, id="0", message=None):
        body = json.dumps({"id": id, "status": status,
                           "message": message}).encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def bare(self, code):
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def authorized(self):
        a = self.headers.get("Authorization")
        ok = a == "Bearer " + token
        log.write("%s %s auth=%s\n" % (self.command, self.path, "ok" if ok else "bad"))
        log.flush()
        if a is None:
            self.answer(401, "error", message="JWT is required")
        elif not ok:
            self.answer(401, "error", message="InvalidSignature")
        return ok
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        data = self.rfile.read(n)
        if self.path != "/submit":
            return self.bare(404)
        if not self.authorized():
            return
        try:
            json.loads(data)
        except ValueError as e:
            return self.answer(400, "error", message=str(e))
        posts.append(data)
        if len(posts) == 1:
            return self.answer(500, "error", message="Internal server error")
        id = "S%031d" % len(posts)
        with open("submitted-%d.json" % len(posts), "wb") as f:
            f.write(data)
        self.answer(200, "ok", id, "Received submission %s with size %d bytes"
                    % (id, len(data)))
    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        if u.path != "/status":
            return self.bare(404)
        if not self.authorized():
            return
        i = urllib.parse.parse_qs(u.query, keep_blank_values=True).get("id", [""])[0]
        if not i:
            return self.answer(400, "error", message="Empty id")
        if not i.isalnum():
            return self.answer(400, "error", message="Invalid id")
        if not i.startswith("S") or not 2 <= int(i[1:]) <= len(posts):
            return self.answer(404, "notfound", i, "File not found")
        polls[i] = polls.get(i, 0) + 1
        if polls[i] == 1:
            return self.answer(200, "ready", i, "File waiting for processing")
        try:
            failing = open("fail-ids").read().split()
        except OSError:
            failing = []
        if i in failing:
            return self.answer(200, "failed", i, "File failed to pass validation")
        self.answer(200, "processed", i, "File archived")
    def log_message(self, *a):
        pass
srv = http.server.HTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain("kcidb-cert.pem", "kcidb-key.pem")
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(port_file + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(port_file + ".tmp", port_file)
srv.serve_forever()
EOF

openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
	-keyout kcidb-key.pem -out kcidb-cert.pem >/dev/null 2>&1 ||
	skip_all "openssl cannot make a certificate"
(umask 077 && echo "tok-$$-secret" >token)
python3 kcidb-server.py kcidb.port "tok-$$-secret" kcidb.log 2>kcidb.err &
echo $! >kcidb.pid
test_atexit "kill $(cat kcidb.pid)"

test_expect_success 'an HTTPS kcidb-ng endpoint on loopback' '
	wait_for "test -s kcidb.port" 20
'

test_expect_success 'a wrong token is refused by the endpoint and recorded, never dropped' '
	(umask 077 && echo wrong >token.bad) &&
	write_conf "url = https://127.0.0.1:$(cat kcidb.port)/
token_file = $SCRATCH/token.bad
ca_file = $SCRATCH/kcidb-cert.pem" &&
	! schedfarm export kcidb --submit --wait 2s >s0 2>&1 &&
	grep_or_fail "HTTP 401: InvalidSignature" s0 &&
	! grep -q wrong s0 &&
	test "$(q "SELECT status FROM kcidb_exports WHERE patch_id = 1")" = pending &&
	q "SELECT last_error FROM kcidb_exports WHERE patch_id = 1" | grep -q "HTTP 401" &&
	test "$(grep -c "auth=bad" kcidb.log)" = 1 &&
	q "UPDATE kcidb_exports SET next_try_at = now() WHERE patch_id = 1" &&
	write_conf "url = https://127.0.0.1:$(cat kcidb.port)/
token_file = $SCRATCH/token
ca_file = $SCRATCH/kcidb-cert.pem
retry = 1s"
'

test_expect_success '--submit: token sent, one 5xx retried, status polled, recorded once' '
	schedfarm export kcidb --submit --wait 20s >s1 2>&1 || { cat s1; false; } &&
	cat s1 &&
	grep_or_fail "1 sent, 1 processed, 0 failed" s1 &&
	test "$(grep -c "^POST /submit auth=ok" kcidb.log)" = 2 &&
	test "$(grep -c "^GET /status?id=S0000000000000000000000000000002 auth=ok" kcidb.log)" = 2 &&
	test "$(q "SELECT count(*) FROM kcidb_exports")" = 1 &&
	test "$(q "SELECT status || '"'"' '"'"' || submission_id || '"'"' '"'"' || tries FROM kcidb_exports WHERE patch_id = 1")" = "processed S0000000000000000000000000000002 3" &&
	doc_ok submitted-2.json &&
	jq -e ".checkouts[] | select(.id == \"schedtest:plm-1\")" submitted-2.json
'

test_expect_success 'an answer processed is never sent again' '
	schedfarm export kcidb --submit --wait 2s >s2 2>&1 || { cat s2; false; } &&
	grep_or_fail "0 sent, 0 processed, 0 failed" s2 &&
	test "$(grep -c "^POST /submit" kcidb.log)" = 3
'

test_expect_success 'one controller submits at a time: another one that holds the lock is waited out' '
	{ schedfarm db psql -- -qAt -c "SELECT pg_advisory_lock(hashtext('"'"'schedfarm_kcidb_submit'"'"')); SELECT pg_sleep(4)" >lock.out 2>&1 & } &&
	wait_for "test \"\$(q \"SELECT count(*) FROM pg_locks WHERE locktype = '"'"'advisory'"'"' AND granted\")\" = 1" 10 &&
	schedfarm export kcidb --submit --wait 0s >s3 2>&1 &&
	grep_or_fail "another controller is submitting to KCIDB now" s3 &&
	wait
'

# Its Message-ID is no address (a blank, two '@'): kcidb-io's message_id
# is format "email", so the export leaves it out.
cat >fix2.patch <<'EOF'
From: Dev Eloper <dev@example.org>
Subject: [PATCH] sched/fair: another harmless change
Message-ID: <not one@id@example.org>

---
--- a/kernel/sched/fair.c
+++ b/kernel/sched/fair.c
@@ -1 +1 @@
-b
+c
EOF

test_expect_success 'serve submits a new answer by itself when [kcidb] url is set' '
	serve_start serve.log --jobs 1 --wake 2 &&
	{ wait_for "grep -q \"serve ready\" serve.log" 30 || { cat serve.log; false; }; } &&
	schedfarm submit fix2.patch --base v-base --kernel v-fix2 --host here \
		--plan pp.yaml >sub2 &&
	{ wait_for "test \"\$(q \"SELECT status FROM kcidb_exports WHERE patch_id = 2\")\" = processed" 120 1 ||
		{ cat serve.log; q "SELECT * FROM kcidb_exports WHERE patch_id = 2"; false; }; } &&
	test "$(q "SELECT count(*) FROM kcidb_exports")" = 2 &&
	grep_or_fail "kcidb: 1 sent" serve.log &&
	test "$(grep -c "^POST /submit auth=ok" kcidb.log)" = 3 &&
	kill $SERVE && wait_for "grep -q \"serve stopped\" serve.log" 30
'

test_expect_success 'a series that did not apply is a checkout with valid false and its log' '
	schedfarm submit fix2.patch --base v-base --kernel v-fix3 --host here \
		--plan pp.yaml >sub3 &&
	q "UPDATE jobs SET state = '"'"'cancelled'"'"' WHERE patch_id = 3" &&
	q "UPDATE patches SET answer_state = '"'"'failed'"'"', answered_at = now(), answer_headline = '"'"'build failed on here'"'"', answer_note = repeat(chr(233), 20000) || '"'"'build: patch 1 of 1 does not apply (fix2.patch): Hunk #1 FAILED'"'"' WHERE id = 3" &&
	schedfarm export kcidb 3 -o doc8.json &&
	jq -e "[.checkouts[] | select(.id == \"schedtest:plm-3\")][0] |
		.valid == false and (.log_excerpt | endswith(\"does not apply (fix2.patch): Hunk #1 FAILED\")) and
		(.log_excerpt | length) <= 16384 and (.log_excerpt | length) > 8000 and
		(.log_excerpt | contains(\"\\ufffd\") | not)" doc8.json &&
	jq -e "[.checkouts[] | select(.id == \"schedtest:base-1\")][0].valid == true" doc8.json &&
	jq -e "[.checkouts[] | select(.id == \"schedtest:plm-3\")][0] | has(\"message_id\") | not" doc8.json &&
	jq -e "[.. | select(. == null)] | length == 0" doc8.json
'

test_expect_success '--submit takes the PLM#, --kernel and --since of a plain export' '
	schedfarm export kcidb --submit --kernel v-fix2 --wait 2s >s4 2>&1 ||
		{ cat s4; false; } &&
	grep_or_fail "0 sent, 0 processed, 0 failed" s4 &&
	schedfarm export kcidb --submit --since "2100-01-01 00:00:00+00" \
		--wait 2s >s5 2>&1 || { cat s5; false; } &&
	grep_or_fail "0 sent, 0 processed, 0 failed" s5 &&
	schedfarm export kcidb --submit 1 --wait 2s >s6 2>&1 ||
		{ cat s6; false; } &&
	grep_or_fail "0 sent, 0 processed, 0 failed" s6 &&
	test "$(grep -c "^POST /submit auth=ok" kcidb.log)" = 3 &&
	test "$(q "SELECT status FROM kcidb_exports WHERE patch_id = 3")" = written
'

test_expect_success 'a submission kcidb-ng says failed is recorded, then sent again' '
	echo S0000000000000000000000000000004 >fail-ids &&
	! schedfarm export kcidb --submit --kernel v-fix3 --wait 20s >s7 2>&1 &&
	cat s7 &&
	grep_or_fail "1 sent, 0 processed, 1 failed" s7 &&
	grep_or_fail "S0000000000000000000000000000004: failed: File failed to pass validation" s7 &&
	test "$(q "SELECT status FROM kcidb_exports WHERE patch_id = 3")" = failed &&
	rm fail-ids &&
	q "UPDATE kcidb_exports SET next_try_at = now() WHERE patch_id = 3" &&
	schedfarm export kcidb --submit 3 --wait 20s >s8 2>&1 || { cat s8; false; } &&
	grep_or_fail "1 sent, 1 processed, 0 failed" s8 &&
	test "$(q "SELECT status || '"'"' '"'"' || submission_id FROM kcidb_exports WHERE patch_id = 3")" = "processed S0000000000000000000000000000005" &&
	test "$(grep -c "^POST /submit auth=ok" kcidb.log)" = 5
'

test_expect_success 'a submission kcidb-ng does not know (404 notfound) is recorded as failed' '
	q "UPDATE kcidb_exports SET status = '"'"'submitted'"'"', submission_id = '"'"'S0000000000000000000000000000099'"'"' WHERE patch_id = 3" &&
	! schedfarm export kcidb --submit 3 --wait 2s >s9 2>&1 &&
	cat s9 &&
	grep_or_fail "notfound: File not found" s9 &&
	test "$(q "SELECT status FROM kcidb_exports WHERE patch_id = 3")" = failed &&
	q "SELECT last_error FROM kcidb_exports WHERE patch_id = 3" | grep -q notfound &&
	test "$(grep -c "^POST /submit auth=ok" kcidb.log)" = 5
'

test_done

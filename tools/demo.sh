#!/bin/sh
# demo.sh - the README's main job, on the embedded defaults: this machine
# as the `local` host, the private PostgreSQL cluster under
# $SCHEDFARM_HOME (created on first use).  It runs plans/demo-aa.yaml
# twice on the running kernel under two names (an A/A comparison: nothing
# should change), compares them, writes the static report and prints the
# path of its index.
set -eu
cd "$(dirname "$0")/.."
SF=./controller/schedfarm
K=$(uname -r)

$SF db start
# The first --host local adds this machine as the local host.
$SF run plans/demo-aa.yaml --host local --kernel "$K"
$SF run plans/demo-aa.yaml --host local --kernel "$K-again" --base "$K"
$SF compare --base "$K" --new "$K-again" --host local
$SF report

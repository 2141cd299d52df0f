#!/bin/sh
# demo.sh - the README's main job on the embedded defaults: start the private
# PostgreSQL cluster (creating it on first use), bring its schema up to date
# and print where everything is.
set -eu
cd "$(dirname "$0")/.."
SF=./controller/schedfarm
$SF db start
$SF db status

#!/usr/bin/env bash
# The table of docs/fleet.md, remade: a throw-away PostgreSQL server (Debian's packages,
# run as the `postgres` user when this runs as root), every given store pushed into it,
# then `machines` and `report --machines EXPERIMENT --format md` read back from it.
#
#   scripts/fleet-table.sh EXPERIMENT STORE.db [STORE.db ...]
#
# Prints the commands it runs and what they print; the server is removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
experiment=$1
shift
bin=./target/release/cryptobench
[ -x "$bin" ] || cargo build --release --locked >&2
. scripts/scratch-postgres.sh 55432 fleet
url=$(scratch_url fleet)
from=()
for s in "$@"; do
  from+=(--from "$s")
done
echo "\$ cryptobench push --to $url ${from[*]}"
"$bin" push --to "$url" "${from[@]}"
echo
echo "\$ cryptobench machines --db $url --format md"
"$bin" machines --db "$url" --format md
echo
echo "\$ cryptobench report --machines $experiment --db $url --format md"
"$bin" report --machines "$experiment" --db "$url" --format md

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
pg=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
dir=$(mktemp -d)
chmod 777 "$dir"
as_owner=()
if [ "$(id -u)" -eq 0 ]; then as_owner=(runuser -u postgres --); fi
mkdir "$dir/data"
[ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir/data"
"${as_owner[@]}" "$pg/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
port=55432
"${as_owner[@]}" "$pg/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
  -o "-c listen_addresses='' -c unix_socket_directories=$dir -c port=$port" start >/dev/null
trap '"${as_owner[@]}" "$pg/pg_ctl" -D "$dir/data" -m fast stop >/dev/null; rm -rf "$dir"' EXIT
"${as_owner[@]}" "$pg/psql" -h "$dir" -p $port -U postgres -qc "CREATE DATABASE fleet"
url="postgres://postgres@${dir//\//%2F}:$port/fleet"
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

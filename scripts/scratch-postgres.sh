# Sourced by the fleet scripts: a throw-away PostgreSQL server from Debian's packages, on
# a Unix socket in a new temporary directory, run as the `postgres` user when this runs
# as root (the server refuses root), removed when the script exits.
#
#   . scripts/scratch-postgres.sh PORT DB...    # then: scratch_url DB
scratch_port=$1
shift
scratch_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
scratch_dir=$(mktemp -d)
chmod 777 "$scratch_dir"
scratch_owner=()
if [ "$(id -u)" -eq 0 ]; then scratch_owner=(runuser -u postgres --); fi
mkdir "$scratch_dir/data"
if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$scratch_dir/data"; fi
"${scratch_owner[@]}" "$scratch_bin/initdb" -D "$scratch_dir/data" -U postgres --auth=trust \
  -E UTF8 --no-sync >/dev/null
"${scratch_owner[@]}" "$scratch_bin/pg_ctl" -D "$scratch_dir/data" -l "$scratch_dir/log" -w \
  -o "-c listen_addresses='' -c unix_socket_directories=$scratch_dir -c port=$scratch_port" \
  start >/dev/null
trap '"${scratch_owner[@]}" "$scratch_bin/pg_ctl" -D "$scratch_dir/data" -m fast stop >/dev/null; rm -rf "$scratch_dir"' EXIT
for scratch_db in "$@"; do
  "${scratch_owner[@]}" "$scratch_bin/psql" -h "$scratch_dir" -p "$scratch_port" -U postgres \
    -qc "CREATE DATABASE $scratch_db"
done

# The URL of database $1 on the scratch server (its socket's directory percent-encoded).
scratch_url() { echo "postgres://postgres@${scratch_dir//\//%2F}:$scratch_port/$1"; }

#!/usr/bin/env bash
# The shared store's benchmark (docs/fleet.md): RUNS copies of a real run (new UUIDs,
# the same rows) pushed into a throw-away local PostgreSQL server, then pushed again
# (all already there); then `report --machines` over TESTBEDS testbeds of PER runs each.
#
#   scripts/fleet-bench.sh STORE.db [RUNS=1000] [TESTBEDS=100] [PER=100]
#
# STORE.db holds one complete run of the shape to copy (e.g. the default experiment's).
set -euo pipefail
cd "$(dirname "$0")/.."
store=$1 runs=${2:-1000} testbeds=${3:-100} per=${4:-100}
bin=$PWD/target/release/cryptobench
[ -x "$bin" ] || cargo build --release --locked >&2
. scripts/scratch-postgres.sh 55433 push fleet
work=$scratch_dir
url() { scratch_url "$1"; }

# Copies of the store's first complete run, under new UUIDs (and testbeds, for the
# second part): what N runners measuring the same experiment would push.
copies() { # OUT COUNT TESTBEDS
  python3 - "$store" "$1" "$2" "$3" <<'PY'
import sqlite3, sys, uuid, shutil
src, out, count, testbeds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
shutil.copy(src, out)
c = sqlite3.connect(out)
run = c.execute("SELECT id, machine_id FROM runs WHERE status = 'complete' ORDER BY id LIMIT 1").fetchone()
for t in range(testbeds):
    c.execute("INSERT OR IGNORE INTO machines (testbed, fingerprint, cpu_model, first_seen) "
              "SELECT ?, fingerprint || ?, cpu_model, first_seen FROM machines WHERE id = ?",
              (f"bench-{t:03}", f"-{t}", run[1]))
machines = [r[0] for r in c.execute("SELECT id FROM machines WHERE testbed LIKE 'bench-%' ORDER BY testbed")]
cols = [r[1] for r in c.execute("PRAGMA table_info(runs)") if r[1] not in ("id", "uuid", "machine_id")]
for i in range(count - 1):
    c.execute(f"INSERT INTO runs ({','.join(cols)}, uuid, machine_id) SELECT {','.join(cols)}, ?, ? FROM runs WHERE id = ?",
              (str(uuid.uuid4()), machines[i % testbeds] if testbeds else run[1], run[0]))
    new = c.execute("SELECT last_insert_rowid()").fetchone()[0]
    for (case,) in c.execute("SELECT id FROM cases WHERE run_id = ?", (run[0],)).fetchall():
        c.execute("INSERT INTO cases (run_id, seq, case_key, implementation, operation, params_json, bytes, lanes, status, message, calls_per_sample, overhead) "
                  "SELECT ?, seq, case_key, implementation, operation, params_json, bytes, lanes, status, message, calls_per_sample, overhead FROM cases WHERE id = ?", (new, case))
        nc = c.execute("SELECT last_insert_rowid()").fetchone()[0]
        c.execute("INSERT INTO clusters SELECT ?, process, layout, samples, core_clock FROM clusters WHERE case_id = ?", (nc, case))
        c.execute("INSERT INTO canaries SELECT ?, process, kind, readings FROM canaries WHERE case_id = ?", (nc, case))
    c.execute("INSERT INTO figures SELECT ?, version, json FROM figures WHERE run_id = ?", (new, run[0]))
c.commit()
PY
}

copies "$work/runs.db" "$runs" 0
echo "store: $runs runs of $(sqlite3 "$store" 'SELECT count(*) FROM cases' 2>/dev/null || echo '?') cases each, $(du -h "$work/runs.db" | cut -f1)"
t0=$(date +%s.%N)
"$bin" push --to "$(url push)" --from "$work/runs.db"
t1=$(date +%s.%N)
"$bin" push --to "$(url push)" --from "$work/runs.db"
t2=$(date +%s.%N)
python3 -c "import sys; a,b,c=map(float,sys.argv[1:]); n=$runs; print(f'push: {n} runs in {b-a:.1f} s ({n/(b-a):.0f} runs/s); again (all there): {c-b:.1f} s')" "$t0" "$t1" "$t2"

copies "$work/fleet.db" $((testbeds * per)) "$testbeds"
"$bin" push --to "$(url fleet)" --from "$work/fleet.db" >/dev/null
for pass in first again; do
  /usr/bin/time -o "$work/time" -f "%e s, %M KiB peak" \
    "$bin" report --machines --db "$(url fleet)" --format csv > "$work/report.csv"
  echo "report --machines over $testbeds testbeds x $per runs ($pass): $(cat "$work/time"), $(cut -d, -f1 "$work/report.csv" | sort -u | grep -c bench-) columns"
done

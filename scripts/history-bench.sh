#!/usr/bin/env bash
# `cryptobench history` on a large store (README, "history"): RUNS copies of a real run
# (new UUIDs, the same rows, the figures stored beside it), then `history` timed over
# every case and over the cases matching CASE: first as a run finished by this version
# leaves them (figures stored), then without the stored figures (runs stored by a version
# before history read them), when every point is bootstrapped. Both must print the same.
#
#   scripts/history-bench.sh STORE.db [RUNS=1000] [CASE='len=1024']
#
# STORE.db holds one complete run of the shape to copy, finished by this version (e.g.
# `cryptobench run --db STORE.db`, the default experiment); it is only read.
# KEEP=DIR keeps the copies and what history printed there.
set -euo pipefail
cd "$(dirname "$0")/.."
store=$1 runs=${2:-1000} case=${3:-len=1024}
bin=${CRYPTOBENCH_BIN:-$PWD/target/release/cryptobench}
[ -x "$bin" ] || cargo build --release --locked >&2
if [ -n "${KEEP:-}" ]; then
  work=$KEEP
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

python3 - "$store" "$work/history.db" "$runs" <<'PY'
import sqlite3, sys, uuid, shutil
src, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
shutil.copy(src, out)
c = sqlite3.connect(out)
(run,) = c.execute("SELECT id FROM runs WHERE status = 'complete' ORDER BY id LIMIT 1").fetchone()
cols = [r[1] for r in c.execute("PRAGMA table_info(runs)") if r[1] not in ("id", "uuid")]
cases = c.execute("SELECT id FROM cases WHERE run_id = ?", (run,)).fetchall()
for i in range(1, count):
    c.execute(f"INSERT INTO runs ({','.join(cols)}, uuid) SELECT {','.join(cols)}, ? FROM runs WHERE id = ?",
              (str(uuid.uuid4()), run))
    new = c.execute("SELECT last_insert_rowid()").fetchone()[0]
    for (case,) in cases:
        c.execute("INSERT INTO cases (run_id, seq, case_key, implementation, operation, params_json, bytes, lanes, status, message, calls_per_sample, overhead) "
                  "SELECT ?, seq, case_key, implementation, operation, params_json, bytes, lanes, status, message, calls_per_sample, overhead FROM cases WHERE id = ?", (new, case))
        nc = c.execute("SELECT last_insert_rowid()").fetchone()[0]
        c.execute("INSERT INTO clusters SELECT ?, process, layout, samples, core_clock FROM clusters WHERE case_id = ?", (nc, case))
        c.execute("INSERT INTO canaries SELECT ?, process, kind, readings FROM canaries WHERE case_id = ?", (nc, case))
    c.execute("INSERT INTO figures SELECT ?, version, json FROM figures WHERE run_id = ?", (new, run))
c.commit()
PY

cases=$(sqlite3 "$work/history.db" 'SELECT count(*) FROM cases')
echo "store: $runs runs, $cases cases in all, $(du -h "$work/history.db" | cut -f1)"
for figures in stored none; do
  [ "$figures" = none ] && sqlite3 "$work/history.db" 'DELETE FROM figures'
  for args in "" "$case"; do
    out="$work/$figures${args:+-one}.out"
    /usr/bin/time -o "$work/time" -f "%e s (%U s CPU), %M KiB peak" \
      "$bin" history --db "$work/history.db" ${args:+"$args"} >"$out"
    echo "history ${args:-(every case)}, figures $figures: $(cat "$work/time"), $(wc -l <"$out") lines"
  done
done
cmp "$work/stored.out" "$work/none.out" && cmp "$work/stored-one.out" "$work/none-one.out" &&
  echo "the same history with the figures stored as without"

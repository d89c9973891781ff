#!/usr/bin/env bash
# docs/cargo-bench.md's record: the seed's 15 cases measured by `cargo bench` of
# examples/cargo-bench and by `cryptobench run chacha20-rng`, alternately, ROUNDS times
# each on this machine (wall time and interval widths side by side); then an A/A through
# the harness (a baseline, AA more runs with --fail-on-regression, their verdicts).
#
#   scripts/cargo-bench-parity.sh [ROUNDS=2] [AA=6]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-2} aa=${2:-6}
bin=$PWD/target/release/cryptobench
[ -x "$bin" ] || cargo build --release --locked >&2
target=$PWD/target/example-cargo-bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bench() { (cd examples/cargo-bench && cargo bench -q --locked --target-dir "$target" -- "$@"); }
bench --help >/dev/null # builds it, outside the timing
# Run CMD with its report into OUT, its wall time in seconds into SECS.
timed() {
  local out=$1 secs=$2 t0 t1
  shift 2
  t0=$(date +%s.%N)
  "$@" >"$out" 2>/dev/null || true
  t1=$(date +%s.%N)
  python3 -c "print(f'{$t1 - $t0:.2f}')" >"$secs"
}
for i in $(seq "$rounds"); do
  timed "$work/bench-$i.json" "$work/bench-$i.s" bench rustcrypto/ rand_chacha/ --format json --db "$work/b.db"
  timed "$work/run-$i.json" "$work/run-$i.s" "$bin" run chacha20-rng --format json --db "$work/r.db"
done
python3 - "$work" "$rounds" <<'PY'
import json, sys
work, rounds = sys.argv[1], int(sys.argv[2])
print("| | round | wall time | median interval half-width | widest |")
print("|---|---|---|---|---|")
for kind, name in [("bench", "`cargo bench` of examples/cargo-bench"), ("run", "`cryptobench run chacha20-rng`")]:
    for i in range(1, rounds + 1):
        d = json.load(open(f"{work}/{kind}-{i}.json"))
        w = sorted(max(r["cpb"] - r["cpb_ci95"][0], r["cpb_ci95"][1] - r["cpb"]) / r["cpb"] * 100
                   for r in d["results"] if r.get("cpb_ci95"))
        t = open(f"{work}/{kind}-{i}.s").read().strip()
        print(f"| {name} ({len(d['results'])} cases) | {i} | {t} s | ±{w[len(w)//2]:.3f} % | ±{w[-1]:.3f} % |")
PY
for t in 1 2 3; do
  bench rustcrypto/ rand_chacha/ --db "$work/aa.db" --save-baseline aa --format json >/dev/null 2>&1 && break
done
codes=()
for i in $(seq "$aa"); do
  set +e
  bench rustcrypto/ rand_chacha/ --db "$work/aa.db" --baseline aa --fail-on-regression --format json \
    >"$work/aa-$i.json" 2>/dev/null
  codes+=($?)
  set -e
done
python3 - "$work" "$aa" "${codes[*]}" <<'PY'
import json, sys, collections
work, n, codes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
total = collections.Counter()
print(f"\nA/A through the harness: a baseline, then {n} runs with --fail-on-regression:\n")
print("| run | exit | verdicts | the host (canary) |")
print("|---|---|---|---|")
for i in range(1, n + 1):
    d = json.load(open(f"{work}/aa-{i}.json"))
    c = collections.Counter(x["verdict"] for x in d["against_baseline"]["comparisons"])
    total += c
    host = d.get("host") or {}
    moved = f"moved in {host.get('moved', 0)} of {host.get('processes', '?')} processes" if host else ""
    print(f"| {i} | {codes[i-1]} | " + ", ".join(f"{v} {k}" for k, v in sorted(c.items())) + f" | {moved} |")
print("\nIn all: " + ", ".join(f"{v} {k}" for k, v in sorted(total.items())))
PY

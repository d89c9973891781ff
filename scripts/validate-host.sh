#!/usr/bin/env bash
# Validation on a shifting host: does the gate stay quiet when nothing changed, and does
# the canary see the host move? Anyone can run it; it prints one summary line per part
# and leaves every run in its store for `cryptobench report`.
#
#   scripts/validate-host.sh [RUNS] [STORE]      (default: 10 runs, a fresh store in /tmp)
#   PARTS="4 5" scripts/validate-host.sh          (only some of the parts below)
#
# Parts:
#   1. A/A across runs: chacha20-rng saved as a baseline, then RUNS fresh runs of the same
#      code against it with --fail-on-regression. Counts exit statuses (0 pass, 3 regressed,
#      4 could not decide), verdicts, intervals wider than ±0.5 %, and what the canary said.
#   2. A planted host shift the code does not see: RUNS runs with the canary made to do
#      three times its work (CRYPTOBENCH_TEST_CANARY_REPEAT=3): the gate must say it could
#      not decide, every time, and never call the unchanged code regressed.
#   3. Planted slowdowns within a run: `test-planted/chacha20` is ChaCha20 followed by a
#      dependent-add chain calibrated to P % of its time (CRYPTOBENCH_TEST_PLANT_PCT), at
#      4096 bytes, against `rustcrypto/chacha20` in the same run, P = 0, 2, 5, RUNS runs
#      each. The truth for P is one long run (40 processes); counts "slower" (detection),
#      "faster" (a false alarm) and how many intervals cover the truth.
#   4. Planted slowdowns across runs: `test-planted` saved as a baseline at P = 0 (through
#      the baseline's quality check, retried while refused, as a CI job would), then
#      2 x RUNS runs against it at P = 0 (false alarms: exit 3) and at P = 5 (detection:
#      exit 3), with --fail-on-regression; exit 4 is "could not decide".
#   5. The instruction counter: plants of a fixed number of instructions, across runs and
#      within a run (test-planted against test-unplanted, the same code never planted).
#
# Steadiness is also judged apart from the tool: a fixed loop timed here before and after
# each run (`steady` column), independent of the canary.
set -euo pipefail

runs=${1:-10}
store=${2:-$(mktemp -d /tmp/validate-host.XXXXXX)/store.db}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CRYPTOBENCH:-$here/target/release/cryptobench}
[ -x "$bin" ] || { echo "build first: cargo build --release ($bin not found)" >&2; exit 2; }
out=$(dirname "$store")
mkdir -p "$out"
echo "store: $store; binary: $bin; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs"

parts=${PARTS:-1 2 3 4 5}
want() { [[ " $parts " == *" $1 "* ]]; }

# A baseline through the quality check, as CI would save one: tried again while refused.
save_baseline() { # $1: name, $2: JSON file, then the run's arguments
    local name=$1 file=$2 attempt code
    shift 2
    for attempt in 1 2 3 4 5; do
        code=0
        "$bin" run "$@" --db "$store" --save-baseline "$name" --format json \
            >"$file" 2>"$file.err" || code=$?
        [ "$code" = 0 ] && { echo "baseline $name saved at attempt $attempt"; return 0; }
        echo "baseline $name attempt $attempt refused (exit $code):"
        grep -A3 'not saved' "$file.err" || cat "$file.err"
    done
    echo "no steady baseline $name in 5 attempts"
    return 1
}

# An independent clock of the host: a fixed integer loop in Python, best of three, in ms.
steady_probe() {
    python3 - <<'EOF'
import time
def loop():
    x = 1
    for i in range(300000):
        x = (x * 1103515245 + 12345) & 0xffffffff
    return x
best = min((lambda t0: (loop(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(3))
print(f"{best * 1e3:.1f}")
EOF
}

summarise() { # $1: label, then JSON files
    local label=$1; shift
    python3 - "$label" "$@" <<'EOF'
import json, sys
label, files = sys.argv[1], sys.argv[2:]
verdicts, wide, moved, set_aside, unsteady, differs = {}, 0, 0, 0, 0, 0
cases = 0
for f in files:
    try:
        run = json.load(open(f))
    except ValueError:
        continue  # the run stopped before printing (its exit status says why)
    for r in run["results"]:
        lo, hi = r.get("median_ci95") or (None, None)
        m = r.get("median_cycles") or r.get("median_ns")
        if lo is not None and m:
            cases += 1
            if max(m - lo, hi - m) / m > 0.005:
                wide += 1
        set_aside += r.get("processes_set_aside", 0)
        unsteady += bool(r.get("host_unsteady"))
    host = run.get("host") or {}
    moved += host.get("moved", 0)
    against = run.get("against_baseline") or {}
    for c in against.get("comparisons", []):
        verdicts[c["verdict"]] = verdicts.get(c["verdict"], 0) + 1
    differs += bool((against.get("host") or {}).get("differs"))
print(f"{label}: verdicts {verdicts}; intervals wider than ±0.5 %: {wide} of {cases}; "
      f"processes whose canary moved: {moved}; set aside: {set_aside}; unsteady cases: {unsteady}; "
      f"runs whose host differed from the baseline's: {differs} of {len(files)}")
EOF
}

gate_runs() { # $1: label, $2: extra environment (VAR=VALUE or empty)
    local label=$1 env=$2 codes=() loops=()
    local files=()
    for i in $(seq 1 "$runs"); do
        local before after code=0 f="$out/$label-$i.json"
        before=$(steady_probe)
        env $env "$bin" run chacha20-rng --db "$store" --baseline aa --fail-on-regression \
            --format json >"$f" 2>"$out/$label-$i.err" || code=$?
        after=$(steady_probe)
        codes+=("$code")
        loops+=("$code:$before:$after")
        files+=("$f")
        echo "  $label run $i: exit $code; independent loop ${before} ms before, ${after} ms after"
    done
    echo "$label: exit statuses ${codes[*]}"
    # Steady by the independent loop: both timings within 10 % of the fastest seen.
    python3 - "$label" "${loops[@]}" <<'EOF'
import sys
label, rows = sys.argv[1], [r.split(":") for r in sys.argv[2:]]
fastest = min(min(float(b), float(a)) for _, b, a in rows)
steady = {"steady": [], "moving": []}
for code, b, a in rows:
    ok = max(float(b), float(a)) <= 1.10 * fastest
    steady["steady" if ok else "moving"].append(code)
print(f"{label}: by the independent loop, exit statuses on a steady host {steady['steady']}, "
      f"on a moving host {steady['moving']}")
EOF
    summarise "$label" "${files[@]}"
}

if want 1 || want 2; then
    save_baseline aa "$out/baseline.json" chacha20-rng || exit 1
    summarise "baseline" "$out/baseline.json"
fi
want 1 && gate_runs aa ""
want 2 && gate_runs planted-host-shift "CRYPTOBENCH_TEST_CANARY_REPEAT=3"

# Parts 3 and 4 measure test implementations, which a user never sees.
export CRYPTOBENCH_TEST_IMPLEMENTATIONS=1
pair=(rustcrypto/chacha20/ test-planted --against rustcrypto/chacha20 --sizes 4096)

change_of() { # JSON file -> "estimate lo hi verdict" of test-planted against rustcrypto
    python3 - "$1" <<'EOF'
import json, sys
try:
    run = json.load(open(sys.argv[1]))
except ValueError:
    print("nan nan nan none"); sys.exit()
for c in run["comparisons"]:
    if c["candidate"] == "test-planted/chacha20":
        lo, hi = c["change_ci"]
        print(c["change_pct"], lo, hi, c["verdict"].replace(" ", "-"))
        break
else:
    print("nan nan nan none")
EOF
}

for pct in 0 2 5; do
    want 3 || break
    CRYPTOBENCH_TEST_PLANT_PCT=$pct "$bin" run "${pair[@]}" --processes 40 --db "$store" \
        --format json >"$out/truth-$pct.json" 2>/dev/null || true
    read -r truth _ _ _ <<<"$(change_of "$out/truth-$pct.json")"
    slower=0 faster=0 covered=0 measured=0
    for i in $(seq 1 "$runs"); do
        CRYPTOBENCH_TEST_PLANT_PCT=$pct "$bin" run "${pair[@]}" --db "$store" --format json \
            >"$out/within-$pct-$i.json" 2>/dev/null || true
        read -r est lo hi verdict <<<"$(change_of "$out/within-$pct-$i.json")"
        [ "$verdict" = none ] && continue
        measured=$((measured + 1))
        [ "$verdict" = slower ] && slower=$((slower + 1))
        [ "$verdict" = faster ] && faster=$((faster + 1))
        python3 -c "import sys; sys.exit(0 if $lo <= $truth <= $hi else 1)" && covered=$((covered + 1))
        echo "  within P=$pct run $i: $est % [$lo, $hi] $verdict"
    done
    echo "within a run, plant $pct %: truth (40 processes) $truth %; of $measured runs: slower $slower, faster $faster, interval covers the truth $covered"
done

# A CI store has history: three runs first, so that the baseline's check knows how fast
# this host's canary can be.
if want 4; then
    for i in 1 2 3; do
        "$bin" run test-planted --sizes 4096 --db "$store" >/dev/null 2>&1 || true
    done
fi
want 4 && { CRYPTOBENCH_TEST_PLANT_PCT=0 save_baseline planted "$out/planted.json" \
    test-planted --sizes 4096 || exit 1; }
for pct in 0 5; do
    want 4 || break
    codes=()
    for i in $(seq 1 $((2 * runs))); do
        code=0
        CRYPTOBENCH_TEST_PLANT_PCT=$pct "$bin" run test-planted --sizes 4096 --db "$store" \
            --baseline planted --fail-on-regression --format json \
            >"$out/across-$pct-$i.json" 2>/dev/null || code=$?
        codes+=("$code")
    done
    echo "across runs, plant $pct %: exit statuses ${codes[*]} (3 regressed, 4 could not decide)"
done


# 5. The instruction counter: the same code counted in every run, and a plant of four
#    more add-chain links (test-planted at 1024 bytes: 3750 -> 3772 instructions, +0.6 %)
#    against a baseline, 2 x RUNS runs each.
inst=(test-planted --sizes 1024 --counter instructions --processes 4 --layouts 2)
want 5 && { CRYPTOBENCH_TEST_PLANT_ADDS=0 save_baseline counted "$out/inst-base.json" \
    "${inst[@]}" || exit 1; }
for adds in 0 4; do
    want 5 || break
    codes=() counts=()
    for i in $(seq 1 $((2 * runs))); do
        code=0
        CRYPTOBENCH_TEST_PLANT_ADDS=$adds "$bin" run "${inst[@]}" --db "$store" \
            --baseline counted --fail-on-regression --format json \
            >"$out/inst-$adds-$i.json" 2>/dev/null || code=$?
        codes+=("$code")
        counts+=("$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][0]['median_instructions'])" "$out/inst-$adds-$i.json" 2>/dev/null || echo none)")
    done
    echo "instructions, plant of $adds links: exit statuses ${codes[*]}; counts $(printf '%s\n' "${counts[@]}" | sort | uniq -c | tr -s ' \n' ' ')"
done
# ... and within a run: the planted build against the same code never planted.
for adds in 0 4; do
    want 5 || break
    verdicts=()
    for i in $(seq 1 "$runs"); do
        verdicts+=("$(CRYPTOBENCH_TEST_PLANT_ADDS=$adds "$bin" run test-unplanted test-planted \
            --against test-unplanted/chacha20 --sizes 1024 --counter instructions \
            --processes 4 --layouts 2 --db "$store" --format json 2>/dev/null |
            python3 -c "import json,sys; print(json.load(sys.stdin)['comparisons'][0]['verdict'].replace(' ', '-'))" 2>/dev/null || echo none)")
    done
    echo "instructions within a run, plant of $adds links: $(printf '%s\n' "${verdicts[@]}" | sort | uniq -c | tr -s ' \n' ' ')"
done

#!/usr/bin/env bash
# llvm-mca's throughput bound for one N-lane Keccak-f[1600] of crates/keccak-lanes, per
# permutation, for a CPU model: the f1600 function's round loop, as rustc compiled it,
# in llvm-mca's steady state, times the loop's trip count (docs/results/keccak-x2-bound.md).
#
#   scripts/keccak-mca-bound.sh MCPU [MODULE...]
#
# MCPU: an llvm-mca -mcpu (sapphirerapids, znver4, ...). MODULE: the f1600's module path
# inside the crate as its symbol spells it (default: the x2 ones: x2::sse2, x2::avx,
# avx512vl::x2; also x4, avx512vl::x4_xor, ...), or a function of its own
# (scalar::f1600_bmi, the scalar x1). The assembly backends (x1_asm, x4_asm) are not
# compiled loops: score them with their scripts (asm/x*_schedule.py score). Needs
# llvm-mca-19 (scripts/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/keccak-mca-bound.sh MCPU [MODULE...]" >&2; exit 2; }
mcpu=$1
shift
modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(x2::sse2 x2::avx avx512vl::x2)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CARGO_TARGET_DIR="$out/target" cargo rustc --quiet --release -p cryptobench-keccak-lanes --lib \
    -- --emit asm >/dev/null
asm=("$out"/target/release/deps/cryptobench_keccak_lanes-*.s)
for m in "${modules[@]}"; do
    # The mangled name: each path segment as <length><name>.
    # MODULE names its f1600, or a function of its own (scalar::f1600_bmi).
    fn=$m
    [[ $m == *f1600* ]] || fn=$m::f1600
    mangled=$(echo "$fn" | awk -F'::' '{for (i = 1; i <= NF; i++) printf "%d%s", length($i), $i}')
    body="$out/$m.s"
    # From the function's first loop label to the loop's backward jump; assembler
    # directives and local labels left out (llvm-mca reads instructions).
    awk -v sym="_ZN24cryptobench_keccak_lanes${mangled}17h" '
        index($0, sym) == 1 && /:$/ { infn = 1; next }
        infn && !inloop && /^\.LBB[0-9_]+:/ { inloop = 1; label = substr($0, 1, length($0) - 1); next }
        inloop && $1 ~ /^j/ && $2 == label { print; exit }
        inloop && $0 !~ /^[[:space:]]*\./ && $0 !~ /^\./ && $0 !~ /^[[:space:]]*#/ { print }
    ' "${asm[@]}" > "$body"
    [ -s "$body" ] || { echo "keccak-mca-bound: MODULE $m: no f1600 round loop of that name in crates/keccak-lanes" >&2; exit 2; }
    # The loop counts a register up to a limit: by 16 to 192 (two rounds an iteration, the
    # constants' offset), by 8, or by one to 24 (x4 AVX2's round index); or it counts the
    # rounds left down by N a trip (the scalar loop: addq $-6), so 24 / N trips.
    down=$(grep -oE 'addq[[:space:]]+\$-[0-9]+, %r' "$body" | tail -1 | grep -oE '[0-9]+' || true)
    step=$(grep -oE 'addq[[:space:]]+\$[0-9]+, %r' "$body" | tail -1 | grep -oE '[0-9]+' || true)
    grep -qE 'incq[[:space:]]+%r' "$body" && step=${step:-1}
    limit=$(grep -oE 'cmpq[[:space:]]+\$[0-9]+, %r' "$body" | tail -1 | grep -oE '[0-9]+' || true)
    if [ -n "$down" ] && [ $((24 % down)) -eq 0 ]; then
        trips=$((24 / down))
    elif [ -n "$step" ] && [ -n "$limit" ]; then
        trips=$((limit / step))
    else
        echo "keccak-mca-bound: $m: its f1600 loop has no counter this script reads (addq \$N or incq, then cmpq \$N; or addq \$-N)" >&2
        exit 1
    fi
    cycles=$(llvm-mca-19 -mcpu="$mcpu" -iterations=1000 "$body" | awk '/^Total Cycles:/ { print $3 }')
    awk -v m="$m" -v c="$cycles" -v t="$trips" -v cpu="$mcpu" -v n="$(grep -c . "$body")" 'BEGIN {
        printf "%-18s %-16s %4d instructions a trip, %6.1f cycles a trip, %2d trips: %6.0f cycles a permutation\n",
            m, cpu, n, c / 1000, t, c / 1000 * t }'
done

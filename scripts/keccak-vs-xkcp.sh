#!/usr/bin/env bash
# Issue 26's Keccak runs on this host, in one go: Keccak-f[1600] per permutation, ours
# against every XKCP build (docs/results/keccak-xkcp-permutation.md), then the N-way SHAKE
# speed-ups (keccak-xn). Made for a host a session seldom has, such as the lent Intel
# device, which has no Rust toolchain: build and strip here, carry the binary and the
# XKCP folder, run this there.
#
#   scripts/keccak-vs-xkcp.sh XKCP_FOLDER OUT [SEED]
#   PARTS=perm scripts/keccak-vs-xkcp.sh ...     (only some parts: perm, xn)
#   RUN_ARGS="--cpu 5 --remeasure-budget 120" scripts/keccak-vs-xkcp.sh ...
#
# XKCP_FOLDER: what `scripts/yardsticks.py xkcp SOURCE XKCP_FOLDER` wrote. OUT: a folder
# for the store and what each part printed: info.txt, permutation.json and .md,
# permutation-table.md (scripts/permutation-table.py), keccak-xn.md. Every run stays in
# OUT/store.db for `cryptobench report`. CRYPTOBENCH: the binary (default: the release
# build).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: scripts/keccak-vs-xkcp.sh XKCP_FOLDER OUT [SEED]"
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
xkcp=$1
out=$2
seed=${3:-1}
bin=${CRYPTOBENCH:-$here/target/release/cryptobench}
[ -x "$bin" ] || { echo "keccak-vs-xkcp: $bin: no binary (cargo build --release, or set CRYPTOBENCH)" >&2; exit 2; }
[ -f "$xkcp/manifest.toml" ] || { echo "keccak-vs-xkcp: $xkcp/manifest.toml: not found (write it with scripts/yardsticks.py xkcp)" >&2; exit 2; }
parts=${PARTS:-perm xn}
# Options added to both runs: several copies can then measure side by side on a host of
# many cores, each pinned to its own (--cpu) and each bounded in time.
read -r -a run_args <<<"${RUN_ARGS:-}"
mkdir -p "$out"
store=$out/store.db

"$bin" info >"$out/info.txt" 2>&1
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs; binary: $bin; seed $seed"

if [[ " $parts " == *" perm "* ]]; then
    # Every XKCP build (plain 64-bit configurations, times2/4/8 at x86-64, haswell and
    # native), so "the fastest public code" is this host's fastest, not Zen 4's; and the
    # yardsticks again at every code placement modulo 64 (XKCP's speed moves with it).
    start=$SECONDS
    "$bin" run cryptobench/keccak-f1600-x rustcrypto/keccak-f1600 "$xkcp/manifest.toml" \
        "$xkcp/alignments-haswell.toml" "$xkcp/alignments-native.toml" \
        --processes 20 --seed "$seed" --db "$store" "${run_args[@]}" --format json >"$out/permutation.json"
    "$bin" report latest --db "$store" --format md >"$out/permutation.md"
    if command -v python3 >/dev/null; then
        python3 "$here/scripts/permutation-table.py" "$out/permutation.json" >"$out/permutation-table.md"
        echo "perm: $((SECONDS - start)) s; $out/permutation-table.md"
    else
        echo "perm: $((SECONDS - start)) s; no python3 here: run scripts/permutation-table.py on $out/permutation.json elsewhere"
    fi
fi

if [[ " $parts " == *" xn "* ]]; then
    start=$SECONDS
    "$bin" run keccak-xn --processes 20 --seed "$seed" --db "$store" "${run_args[@]}" --format md >"$out/keccak-xn.md"
    echo "xn: $((SECONDS - start)) s; $out/keccak-xn.md"
fi

#!/usr/bin/env bash
# Issue 26's comparisons on a host of many cores that a session is seldom lent (the Intel
# device: no Rust toolchain, a C compiler, 10 minutes a call): in one call, the Keccak
# permutation against XKCP and the N-way SHAKE speed-ups (scripts/keccak-vs-xkcp.sh) at two
# seeds each, and Spook against its designers' code (docs/results/spook-vs-designers.md),
# five runs side by side, each pinned to a core of its own (one after another on a host of
# fewer cores, such as a 2-CPU guest on an Intel host, where the device is not needed).
#
#   scripts/device-keccak-spook.sh prepare [DIR]   here: build, strip, write the yardsticks
#   scripts/device-keccak-spook.sh run OUT [DIR]    there, with DIR carried (default devbin)
#
# prepare needs the public code where `fetch` leaves it (XKCP, SPOOK_HE: git directories or
# checkouts) and the Spook KAT files in ../shared/kat/spook; DIR then holds cryptobench,
# xkcp-perm/, spookhe/ and kat/spook/, about 15 MB. run writes to OUT what comes back from
# the device (at most 8 files): device.log (the host, the CPUs chosen, every part's time,
# the permutation and Spook tables), one .tgz per run (its store, JSON and Markdown), and extra.tgz:
# the two `check` verdict lists and, where the host has seven cores or more, x1's and x4's
# assembly orders climbed on two more cores for TUNE_SECONDS (300) from the committed ones
# (asm/*_schedule.py tune). QUICK=1 runs everything with 64 samples a case, to test the
# plumbing on any host; BUDGET sets each run's --remeasure-budget in seconds (default 110);
# DEADLINE (540) is when, in seconds from the start, the side-by-side runs are stopped as
# by Ctrl-C, keeping what they measured, so that the archives are written inside a
# 570-second call (one after another, each run gets as long, and only if DEADLINE is set);
# CPUS ("3 5 7 ...") names the cores to use instead of one per physical core, CPU 0 aside.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: scripts/device-keccak-spook.sh prepare [DIR] | run OUT [DIR]"

prepare() {
    local dir=${1:-devbin}
    local xkcp=${XKCP:-/work/.mirror/XKCP+XKCP/repo}
    local spook_he=${SPOOK_HE:-/work/.mirror/uclcrypto+spook-he/repo}
    local kat=$here/../shared/kat/spook
    [ -d "$kat" ] || { echo "device-keccak-spook: $kat: no Spook KAT files" >&2; exit 2; }
    set -e
    (cd "$here" && cargo build --release --locked)
    mkdir -p "$dir"
    strip -o "$dir/cryptobench" "$here/target/release/cryptobench"
    rm -rf "$dir/xkcp-perm" "$dir/spookhe" "$dir/kat"
    python3 "$here/scripts/yardsticks.py" xkcp "$xkcp" "$dir/xkcp-perm"
    python3 "$here/scripts/yardsticks.py" spook-he "$spook_he" "$dir/spookhe"
    mkdir -p "$dir/kat" && cp -r "$kat" "$dir/kat/"
    du -sh "$dir"
}

# One CPU per physical core, highest first, CPU 0 (interrupts) left out (CPU 0 alone
# where there is no other).
pick_cpus() {
    local -A taken=()
    local c s t
    cpus=()
    for c in $(ls -d /sys/devices/system/cpu/cpu[0-9]* | sed 's/.*cpu//' | sort -rn); do
        [ "$c" = 0 ] || [ -n "${taken[$c]:-}" ] && continue
        cpus+=("$c")
        for s in $(tr ',' ' ' </sys/devices/system/cpu/cpu"$c"/topology/thread_siblings_list); do
            case $s in
                *-*) for t in $(seq "${s%-*}" "${s#*-}"); do taken[$t]=1; done ;;
                *) taken[$s]=1 ;;
            esac
        done
    done
    [ ${#cpus[@]} -gt 0 ] || cpus=(0)
}

run() {
    local out=$1 dir=${2:-devbin}
    local bin=$PWD/$dir/cryptobench
    local need
    for need in cryptobench xkcp-perm/manifest.toml spookhe/manifest.toml kat/spook; do
        [ -e "$dir/$need" ] || { echo "device-keccak-spook: $dir/$need: not found (run prepare first)" >&2; exit 2; }
    done
    mkdir -p "$out"
    exec > >(tee "$out/device.log") 2>&1
    date -u; nproc; lscpu | sed -n 1,25p; cc --version | head -1; python3 --version
    # The Spook manifests name their KAT folder relative to themselves: the checkout's
    # ../shared/kat.
    mkdir -p "$here/../shared/kat" && cp -r "$dir/kat/spook" "$here/../shared/kat/"
    "$bin" info
    if [ -n "${CPUS:-}" ]; then
        read -r -a cpus <<<"$CPUS"
    else
        pick_cpus
    fi
    local cores=${#cpus[@]}
    echo "CPUs, one per core: ${cpus[*]}"

    local budget=${BUDGET:-110} quick=() pids=() start
    [ -n "${QUICK:-}" ] && quick=(--samples 64) && budget=5
    local spook=("$here/implementations/c/spook/manifest.toml:algorithm=spook-128-512-su-v1"
        "$dir/spookhe/manifest.toml")

    # Build and check every C implementation first, on every core, so that no compiler
    # runs beside a measurement. Not a bare `wait`: that also waits for tee above.
    start=$SECONDS
    "$bin" check "$dir/xkcp-perm/manifest.toml" "$dir/xkcp-perm/alignments-haswell.toml" \
        "$dir/xkcp-perm/alignments-native.toml" >"$out/check-xkcp.txt" 2>&1 &
    pids+=($!)
    "$bin" check "${spook[@]}" >"$out/check-spook.txt" 2>&1 &
    pids+=($!)
    wait "${pids[@]}"
    echo "checks: $((SECONDS - start)) s; lines without 'verified':"
    grep -v -c verified "$out/check-xkcp.txt" "$out/check-spook.txt"

    # With a core for each, the five runs measure side by side, and every one stops (as
    # at Ctrl-C: what it measured is printed and kept) in time for the archives to be
    # written inside the call's limit: DEADLINE seconds from the start. With fewer cores
    # (a 2-CPU guest), they run one after another on one core, unbounded unless DEADLINE
    # is set, and then each for as long as the side-by-side runs would have had.
    local side_by_side= stop=() left=$((${DEADLINE:-540} - SECONDS - 40))
    [ "$left" -ge 60 ] || left=60
    [ "$cores" -ge 5 ] && side_by_side=1
    if [ -n "$side_by_side" ] || [ -n "${DEADLINE:-}" ]; then
        stop=(timeout -s INT -k 20 "$left")
        echo "runs stop within $left s"
    fi
    if [ -z "$side_by_side" ]; then
        local one=${cpus[0]}
        cpus=("$one" "$one" "$one" "$one" "$one")
        echo "one run at a time, on CPU $one"
    fi
    job() {
        if [ -n "$side_by_side" ]; then
            "$@" &
            pids+=($!)
        else
            "$@"
        fi
    }
    start=$SECONDS
    pids=()
    local part seed i=0 runs=/tmp/device-keccak-spook
    rm -rf "$runs" && mkdir -p "$runs"
    for part in perm xn; do
        for seed in 1 2; do
            RUN_ARGS="--cpu ${cpus[$i]} --remeasure-budget $budget ${quick[*]}" PARTS=$part \
                CRYPTOBENCH=$bin job "${stop[@]}" "$here/scripts/keccak-vs-xkcp.sh" \
                "$dir/xkcp-perm" "$runs/$part$seed" "$seed"
            i=$((i + 1))
        done
    done
    spook_run() {
        mkdir -p "$runs/spook"
        "${stop[@]}" "$bin" run "${spook[@]}" --sizes 2048,8192,32768 --slope 8192,32768 --processes 6 \
            --cpu "${cpus[4]}" --remeasure-budget "$budget" "${quick[@]}" \
            --db "$runs/spook/store.db" --format json >"$runs/spook/spook.json" \
            2>"$runs/spook/spook.err"
        echo "spook: exit $?, $((SECONDS - start)) s"
        "$bin" report latest --db "$runs/spook/store.db" --format md >"$runs/spook/spook.md" 2>&1
        python3 "$here/scripts/spook-best.py" "$runs/spook/spook.json" >"$runs/spook/best.md"
    }
    job spook_run
    # Where the host has two more cores: climb x1's and x4's instruction orders against
    # this core (asm/*_schedule.py tune), from the ones tuned on Zen 4, each confined
    # with its compiler to its own core; an improvement is written as soon as it is
    # confirmed, so the time limit loses nothing.
    mkdir -p "$runs/extra"
    cp "$out"/check-*.txt "$runs/extra/"
    local tunes=()
    if [ "$cores" -ge 7 ]; then
        local width cpu asm=$here/crates/keccak-lanes/asm seconds=${TUNE_SECONDS:-300}
        [ "$seconds" -le "$left" ] || seconds=$left
        for width in x1 x4; do
            cpu=${cpus[5]}
            [ $width = x4 ] && cpu=${cpus[6]}
            cp "$asm/${width}_order.txt" "$runs/extra/${width}-order-tuned-here.txt"
            TUNE_CPU=$cpu timeout "$seconds" taskset -c "$cpu" python3 \
                "$asm/${width}_schedule.py" tune "$asm/${width}_order.txt" 100000 1 \
                "$runs/extra/${width}-order-tuned-here.txt" >"$runs/extra/${width}-tune.log" 2>&1 &
            tunes+=($!)
        done
    else
        echo "fewer than seven cores: no tuning" | tee "$runs/extra/no-tune.txt"
    fi
    [ ${#pids[@]} -eq 0 ] || wait "${pids[@]}"
    echo "runs: $((SECONDS - start)) s"
    [ ${#tunes[@]} -eq 0 ] || wait "${tunes[@]}"
    tail -n 3 "$runs"/extra/*-tune.log 2>/dev/null
    for part in perm1 perm2 xn1 xn2 spook extra; do
        tar czf "$out/$part.tgz" -C "$runs" "$part"
    done
    rm "$out"/check-*.txt
    ls -la "$out"
    cat "$runs/perm1/permutation-table.md" "$runs/spook/best.md" 2>/dev/null
    date -u
}

case ${1:-} in
    prepare) shift; prepare "$@" ;;
    run) [ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }; shift; run "$@" ;;
    *) echo "$usage" >&2; exit 2 ;;
esac

#!/usr/bin/env bash
# The fuzzing campaign of docs/fuzzing.md: every fuzz target (or those named) for RUNS
# inputs from its corpus, one after the other, then its corpus minimised.
#
#   scripts/fuzz.sh [TARGET...]
#
# Settings, from the environment:
#   RUNS=1000000      inputs per target (libFuzzer's -runs)
#   RSS_MB=2048       memory a run may reach before libFuzzer calls it a crash (-rss_limit_mb;
#                     one allocation of more than this is one too, -malloc_limit_mb)
#   TIMEOUT=10        seconds one input may take before it is a hang (-timeout)
#   MAX_LEN=          the longest input libFuzzer makes (default: its own, from the corpus)
#   SANITIZER=address cargo fuzz's sanitizer (none is faster: the parsers are safe Rust)
#   MINIMISE=1        0 keeps the corpus as the campaign left it
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`). A
# crash stops the campaign with libFuzzer's report; the input is in
# fuzz/artifacts/TARGET/. Fix the parser, copy the input to fuzz/regressions/TARGET/
# (tests/fuzz_corpus.rs replays it) and run again. Each target's figures are appended
# to fuzz/campaign.log (not kept in git), its libFuzzer output to fuzz/logs/TARGET.log.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
runs=${RUNS:-1000000}
rss=${RSS_MB:-2048}
timeout=${TIMEOUT:-10}
sanitizer=${SANITIZER:-address}
fuzz=(cargo +nightly fuzz)
if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <("${fuzz[@]}" list)
fi
# Built once and then run directly: `cargo fuzz run` would rebuild whenever the work tree
# changed (build.rs records the git revision), in the middle of a campaign.
# -a: with debug assertions and overflow checks, so that an overflow is a crash, not a
# wrapped number (-O alone builds without them).
"${fuzz[@]}" build -O -a -s "$sanitizer"
bin=target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release
mkdir -p logs
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    args=(-runs="$runs" -rss_limit_mb="$rss" -malloc_limit_mb="$rss" -timeout="$timeout"
        -print_final_stats=1)
    if [ -n "${MAX_LEN:-}" ]; then
        args+=(-max_len="$MAX_LEN")
    fi
    echo "== $t: $runs inputs" >&2
    start=$(date +%s)
    # -jobs=1: one fuzzing process, supervised; it writes its output to fuzz-0.log.
    rm -f fuzz-0.log
    status=0
    "$bin/$t" -artifact_prefix="artifacts/$t/" -jobs=1 -workers=1 "${args[@]}" "corpus/$t" \
        >/dev/null 2>&1 || status=$?
    end=$(date +%s)
    mv fuzz-0.log "logs/$t.log"
    if [ $status -ne 0 ] || grep -q '^==[0-9]*== ERROR\|^SUMMARY: libFuzzer' "logs/$t.log"; then
        tail -n 40 "logs/$t.log" >&2
        echo "$t: libFuzzer stopped (exit $status); see fuzz/logs/$t.log and fuzz/artifacts/$t/" >&2
        exit 1
    fi
    done_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "logs/$t.log" | tail -n1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "logs/$t.log" | tail -n1)
    peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "logs/$t.log" | tail -n1)
    before=$(find "corpus/$t" -type f | wc -l)
    if [ "${MINIMISE:-1}" = 1 ]; then
        # As `cargo fuzz cmin`, merged into an empty folder that then replaces the corpus,
        # but as the smallest set of inputs that covers the same edges: cmin's -merge=1
        # keeps every input with a new hit count too, 700 to 1400 files a target here.
        rm -rf "corpus/$t.cmin"
        mkdir "corpus/$t.cmin"
        "$bin/$t" -set_cover_merge=1 -use_counters=0 -rss_limit_mb="$rss" -timeout="$timeout" \
            "corpus/$t.cmin" "corpus/$t" \
            >"logs/$t.cmin.log" 2>&1
        rm -rf "corpus/$t"
        mv "corpus/$t.cmin" "corpus/$t"
    fi
    after=$(find "corpus/$t" -type f | wc -l)
    line="$(date -u +%FT%TZ) $t runs=$done_runs seconds=$((end - start)) exec_per_s=$rate peak_rss_mb=$peak corpus=$before->$after sanitizer=$sanitizer overflow_checks=yes"
    echo "$line" | tee -a campaign.log
done

#!/usr/bin/env bash
# Regenerate docs/results/EXPERIMENT.md for each EXPERIMENT given: the machine
# (`cryptobench info`), the exact command, and what it printed. Figures are never
# edited by hand: rerun this on a quiet machine instead.
#
#   scripts/results.sh chacha20-rng keccak-xn spook c-variants
#
# RESULTS_HOST=zen4 writes docs/results/EXPERIMENT-zen4.md instead, for a figure that
# belongs to one CPU family (hosts change between sessions); EXTRA_ARGS are added to
# every run (e.g. EXTRA_ARGS="--processes 20").
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${CRYPTOBENCH:-target/release/cryptobench}
db=$(mktemp -d)/results.db
for exp in "$@"; do
    args=()
    case $exp in
        chacha20-rng) title="chacha20-rng: the seed experiment as measured" ;;
        keccak-xn) title="keccak-xn: N-way SHAKE against N single calls" ;;
        spook) title="spook: every variant x target, v1 and v2"; args=(--processes 6 --estimate) ;;
        c-variants) title="c-variants: the shipped C examples, baseline vs variant"; args=(--estimate) ;;
        *) title="$exp" ;;
    esac
    # shellcheck disable=SC2206
    args+=(${EXTRA_ARGS:-})
    out=docs/results/$exp${RESULTS_HOST:+-$RESULTS_HOST}.md
    {
        echo "# $title"
        echo
        echo "Machine (\`cryptobench info\`, $(date -u '+%Y-%m-%d %H:%M UTC')):"
        echo
        echo '```'
        "$bin" info
        echo '```'
        echo
        echo "Command: \`cryptobench run $exp ${args[*]+${args[*]} }--format md\`"
        echo
        "$bin" run "$exp" "${args[@]}" --format md --db "$db"
    } > "$out.tmp"
    mv "$out.tmp" "$out"
    echo "wrote $out" >&2
done

#!/usr/bin/env python3
"""Spook: our best variant against the designers' best, per target, from one run.

    scripts/spook-best.py RUN.json

RUN.json: what `cryptobench run --format json` printed for our Spook manifest beside
the designers' (docs/results/spook-vs-designers.md has the command; spook-he's manifest
is written by `scripts/yardsticks.py spook-he`). For every target, operation and
measure (the long-message slope, and cycles per byte at 2048 bytes) it picks the
fastest verified variant of each side by its median and prints one Markdown row: both
figures with their 95 % intervals, ours against theirs, and whether the intervals are
apart. A side with no verified variant at a target says so; a variant that gave wrong
output or failed is listed under the table, never ranked.
"""
import json
import sys

from run_json import heading

OURS, THEIRS = "spook", "spook-he"
TARGETS = ["x86-64", "haswell", "skylake-avx512", "native"]


def split(implementation):
    """`provider/algorithm/variant@target` as (provider, variant, target)."""
    name, _, target = implementation.rpartition("@")
    parts = name.split("/")
    return parts[0], parts[-1], target


def fig(x):
    return f"{x:#.4g}"


def interval(figure):
    _, lo, hi, _ = figure
    return "[no interval]" if lo is None else f"[{fig(lo)} {fig(hi)}]"


def main(argv):
    if len(argv) != 2:
        print("usage: scripts/spook-best.py RUN.json", file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            run = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        print(f"spook-best: {argv[1]}: {e}", file=sys.stderr)
        return 2
    if not isinstance(run, dict) or "results" not in run:
        print(f"spook-best: {argv[1]}: not a `cryptobench run --format json` output", file=sys.stderr)
        return 2

    try:
        figures, unranked = collect(run)
    except (KeyError, TypeError, ValueError) as e:
        print(f"spook-best: {argv[1]}: not a `cryptobench run --format json` output ({e!r})",
              file=sys.stderr)
        return 2
    print(heading(run, "cycles per byte, medians [95 % intervals]") + "\n")
    table(figures, unranked)
    return 0


def collect(run):
    """(provider, target, operation, measure) -> [(estimate, lo, hi, variant)], and
    the cases that cannot be ranked."""
    figures = {}
    unranked = []
    verified = set()
    for r in run["results"]:
        provider, variant, target = split(r["implementation"])
        if provider not in (OURS, THEIRS):
            continue
        if r.get("status") != "ok" or r.get("verified") is not True:
            unranked.append(f"{r['implementation']} {r['operation']}: {r.get('status')}")
            continue
        verified.add((r["implementation"], r["operation"]))
        if r.get("params", {}).get("len") == 2048 and "cpb" in r:
            # A case with too few processes for an interval (a run stopped early) has none.
            lo, hi = r["cpb_ci95"] or (None, None)
            figures.setdefault((provider, target, r["operation"], "2048 B"), []).append(
                (r["cpb"], lo, hi, variant))
    for s in run.get("slopes", []):
        provider, variant, target = split(s["implementation"])
        if provider not in (OURS, THEIRS) or (s["implementation"], s["operation"]) not in verified:
            continue
        p = s["per_byte"]
        figures.setdefault((provider, target, s["operation"], "slope"), []).append(
            (p["estimate"], p["lo"], p["hi"], variant))
    return figures, unranked


def table(figures, unranked):

    print("| target | operation | measure | ours, best variant | designers' best "
          "| ours against theirs | intervals |")
    print("|---|---|---|---|---|---|---|")
    for measure in ("slope", "2048 B"):
        for operation in ("encrypt", "decrypt"):
            for target in TARGETS:
                best = {}
                for provider in (OURS, THEIRS):
                    rows = figures.get((provider, target, operation, measure))
                    best[provider] = min(rows) if rows else None
                if best[OURS] is None and best[THEIRS] is None:
                    continue
                cells = []
                for provider in (OURS, THEIRS):
                    b = best[provider]
                    cells.append("none verified" if b is None else
                                 f"{fig(b[0])} {interval(b)} {b[3]}")
                if best[OURS] and best[THEIRS]:
                    o, t = best[OURS], best[THEIRS]
                    change = f"{(o[0] / t[0] - 1) * 100:+.1f} %"
                    if None in (o[1], t[1]):
                        apart = "no interval"
                    else:
                        apart = "apart" if o[2] < t[1] or t[2] < o[1] else "overlap"
                else:
                    change = apart = ""
                print(f"| {target} | {operation} | {measure} | {cells[0]} | {cells[1]} "
                      f"| {change} | {apart} |")
    if unranked:
        print("\nNot ranked (wrong output or failed):")
        for u in unranked:
            print(f"- {u}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))

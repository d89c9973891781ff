#!/usr/bin/env python3
"""Keccak-f[1600] per permutation, ours against XKCP, from one run's JSON.

    scripts/permutation-table.py RUN.json

RUN.json: `cryptobench run cryptobench/keccak-f1600-x rustcrypto/keccak-f1600 XKCP.toml
--format json` (or `cryptobench report RUN --format json`), with XKCP's builds from
scripts/yardsticks.py xkcp. Both sides are read off the calls that permute 1, 2, 4 and
8 times, differenced, so neither side's load and store around the permutation (XKCP's
byte interfaces, our harness's call) is counted: (T4 - T2) / 2 is the third and fourth
permutation of a call, (T8 - T4) / 4 the fifth to eighth. Ours are the `-interleaved`
entries, which permute the states where they lie, as XKCP's `PermuteAll` does.

Prints markdown: every build's T1, T2 - T1, (T4 - T2) / 2 and (T8 - T4) / 4, then the
fastest steady build of each side per number of states by (T8 - T4) / 4 (by
(T4 - T2) / 2 where a run has no 8-times calls). Beside each difference, bounds from the calls' own 95 %
intervals: [(Ta low - Tb high) / k, (Ta high - Tb low) / k]. They hold where both
intervals do, so they are wide, and they know nothing of a host that moved between the
two cases: a difference of calls of thousands of cycles turns a drift of 1 % into 5 % of
a permutation. A build whose two per-permutation bounds do not overlap is marked "not
steady": its cost depends on how many permutations a call makes, or the host moved. So
is one whose calls imply a negative fixed cost around the permutations, or one above a
permutation's (2 T4 - T8, 2 T2 - T4): the check that remains for builds measured only 4
and 8 times a call. A build without intervals (a run stopped early) is shown, never
ranked. The verdict on the fastest of each side says "apart" only where their bounds do
not overlap.
"""
import json
import re
import sys

from run_json import heading

OURS = re.compile(r"cryptobench/keccak-f1600-x(\d)-(.+)-interleaved(-twice|-4times|-8times)?$")
XKCP = re.compile(r"xkcp/keccak-f1600(?:-x(\d))?(-twice|-4times|-8times)?/(.+)$")
TIMES = {None: 1, "-twice": 2, "-4times": 4, "-8times": 8}


def fail(message):
    print(f"permutation-table: {message}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            run = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    if not isinstance(run, dict) or not isinstance(run.get("results"), list):
        fail(f"{path}: not a cryptobench run's JSON (no \"results\" list)")
    return run


def gather(run):
    """{(side, states, build): {times: (median, low, high)}} for every ok result; low and
    high are None where the run gave no interval (too few processes: a run stopped early)."""
    rows = {}
    for r in run["results"]:
        if r.get("status") != "ok" or r.get("median_cycles") is None:
            continue
        name = r["implementation"]
        if m := OURS.match(name):
            key, times = ("ours", int(m.group(1)), f"x{m.group(1)}-{m.group(2)}"), m.group(3)
        elif m := XKCP.match(name):
            key, times = ("xkcp", int(m.group(1) or 1), m.group(3)), m.group(2)
        else:
            continue
        median = r["median_cycles"]
        low, high = r.get("median_ci95") or (None, None)
        rows.setdefault(key, {})[TIMES[times]] = (median, low, high)
    return {k: v for k, v in rows.items() if {2, 4} <= set(v) or {4, 8} <= set(v)}


def difference(calls, more, fewer):
    """(T_more - T_fewer) / (more - fewer), with bounds; None where a call is missing."""
    if more not in calls or fewer not in calls:
        return None
    k = more - fewer
    (m1, lo1, hi1), (m0, lo0, hi0) = calls[more], calls[fewer]
    if not bounded(calls):
        return ((m1 - m0) / k, None, None)
    return ((m1 - m0) / k, (lo1 - hi0) / k, (hi1 - lo0) / k)


def bounded(calls):
    return all(low is not None for _, low, _ in calls.values())


def overlap(a, b):
    return a[1] <= b[2] and b[1] <= a[2]


def steady(calls):
    """Whether the build's two per-permutation readings agree (bounds overlap), where it
    has both, and whether what a call costs besides its permutations is plausible. A build
    without intervals cannot be shown steady."""
    if not bounded(calls):
        return False
    mid, last = difference(calls, 4, 2), difference(calls, 8, 4)
    if mid and last and not overlap(mid, last):
        return False
    return all(plausible_fixed_cost(calls, k) for k in (2, 4) if k in calls and 2 * k in calls)


def plausible_fixed_cost(calls, k):
    """T(k) = F + k P for a call of k permutations, so F = 2 T(k) - T(2k): the load and
    store around them. It cannot be negative, nor cost more than a permutation; where
    its bounds say otherwise one of the two calls ran in another state (a layout or a
    host that differed between the cases), and their difference is not a permutation.
    Seen once: an XKCP build's 4-times call at 4544 cycles and its 8-times at 7213, so
    "(T8 - T4) / 4" read 667 for a permutation of about 900."""
    (_, lo2, hi2), (_, lo1, hi1) = calls[2 * k], calls[k]
    fixed_low, fixed_high = 2 * lo1 - hi2, 2 * hi1 - lo2
    permutation_high = (hi2 - lo1) / k
    return fixed_high >= 0 and fixed_low <= permutation_high


def shown(d):
    if d[1] is None:
        return f"{d[0]:.1f} [no interval]"
    return f"{d[0]:.1f} [{d[1]:.0f}, {d[2]:.0f}]"


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    run = load(sys.argv[1])
    rows = gather(run)
    if not rows:
        fail(f"{sys.argv[1]}: no build measured 1, 2 and 4 times a call "
             "(ours: cryptobench/keccak-f1600-x*-interleaved*; XKCP: scripts/yardsticks.py)")
    late = all(8 in c for c in rows.values())
    if not late and not all(2 in c for c in rows.values()):
        fail(f"{sys.argv[1]}: some builds were called 2, 4 times and others only 4, 8 times")
    print(heading(run, "core cycles per call, medians, [bounds]") + "\n")
    print("| side | states | build | T1 (one call) | T2 - T1 | (T4 - T2) / 2 | (T8 - T4) / 4 |")
    print("|---|---|---|---|---|---|---|")
    order = sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0], kv[0][2]))
    for (side, states, build), calls in order:
        first, mid, last = difference(calls, 2, 1), difference(calls, 4, 2), difference(calls, 8, 4)
        last_cell = "" if last is None else shown(last)
        if not bounded(calls):
            last_cell += " (no interval: not ranked)"
        elif not steady(calls):
            last_cell += " (not steady)"
        one = f"{calls[1][0]:.1f}" if 1 in calls else ""
        second = f"{first[0]:.1f}" if first else ""
        print(f"| {side} | {states} | `{build}` | {one} | {second} | "
              f"{shown(mid) if mid else ''} | {last_cell} |")
    by = (8, 4) if late else (4, 2)
    print(f"\nFastest per permutation, (T{by[0]} - T{by[1]}) / {by[0] - by[1]} on both sides, "
          "among the steady builds:\n")
    fastest(rows, by, lambda side, build: True)
    print("\nThe same without AVX-512 instructions (ours: no `avx512` in the name; XKCP: "
          "built for x86-64 or haswell), as on a CPU with AVX2 alone:\n")
    fastest(rows, by, without_avx512)


def without_avx512(side, build):
    if side == "ours":
        return "avx512" not in build
    return build.endswith(("@x86-64", "@haswell"))


def fastest(rows, by, admitted):
    """The fastest steady build of each side per number of states, among the `admitted`."""
    print("| states | ours | XKCP | ours against XKCP | bounds |")
    print("|---|---|---|---|---|")
    for states in sorted({k[1] for k in rows}):
        best = {}
        for side in ("ours", "xkcp"):
            candidates = [(difference(c, *by), k[2]) for k, c in rows.items()
                          if k[0] == side and k[1] == states and steady(c) and admitted(side, k[2])]
            best[side] = min(candidates, key=lambda c: c[0][0]) if candidates else None
        ours, theirs = best["ours"], best["xkcp"]
        if not (ours or theirs):
            continue
        against = verdict = ""
        if ours and theirs:
            against = f"{100 * (ours[0][0] / theirs[0][0] - 1):+.1f} %"
            verdict = "overlap" if overlap(ours[0], theirs[0]) else "apart"
        print(f"| {states} | {cell(ours)} | {cell(theirs)} | {against} | {verdict} |")


def cell(best):
    return f"{shown(best[0])} `{best[1]}`" if best else "not measured"


if __name__ == "__main__":
    main()

"""What the searched-order backends share (`x1_schedule.py`, `x4_schedule.py`):
FIPS 202's constants and rounds for checking a generated loop, operations on
values, order files, and the two climbs that move one operation at a time,
one against llvm-mca's model and one against the core running the script.

A backend script supplies the operations of its loop (`Op`s in a first
order), a function from an order to its loop body, and, for the measured
climb, the whole function as assembly with the calling convention of
`TUNE_HARNESS`."""

import os
import random
import subprocess
import sys
import tempfile

# rho's rotation of lane x + 5y.
RHO = [0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14]
# Output row y of pi takes lane (x + 3y mod 5) + 5x for x = 0..4.
ROWS = [[((x + 3 * y) % 5) + 5 * x for x in range(5)] for y in range(5)]
ROUND_CONSTANTS = [
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
    0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
    0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
]
MASK = (1 << 64) - 1


class Op:
    """One instruction-level operation on SSA values."""

    def __init__(self, kind, dst, srcs, imm=None):
        self.kind, self.dst, self.srcs, self.imm = kind, dst, srcs, imm


def rotl(x, n):
    return ((x << n) | (x >> (64 - n))) & MASK if n % 64 else x


def reference_rounds(a, rounds):
    """FIPS 202's rounds, written plainly, for checking a generated loop."""
    for r in range(rounds):
        c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]
        d = [c[(x + 4) % 5] ^ rotl(c[(x + 1) % 5], 1) for x in range(5)]
        b = [0] * 25
        for x in range(5):
            for y in range(5):
                b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y] ^ d[x], RHO[x + 5 * y])
        a = [b[i] ^ (~b[(i + 1) % 5 + 5 * (i // 5)] & b[(i + 2) % 5 + 5 * (i // 5)]) for i in range(25)]
        a[0] ^= ROUND_CONSTANTS[r]
    return a


def read_order(ops, path):
    if path is None:
        return list(ops)
    indices = [int(w) for w in open(path).read().split()]
    if sorted(indices) != list(range(len(ops))):
        raise SystemExit(f"{path}: not a permutation of the {len(ops)} operations")
    order = [ops[i] for i in indices]
    check_dependencies(order)
    return order


def check_dependencies(order):
    seen = {f"in{i}" for i in range(25)}
    for o in order:
        missing = [s for s in o.srcs if s not in seen]
        if missing:
            raise SystemExit(f"{o.dst} comes before its input {missing[0]}")
        seen.add(o.dst)


def consumers(ops):
    """The operations reading each operation's result."""
    users = {o.dst: [] for o in ops}
    for o in ops:
        for s in o.srcs:
            if s in users:
                users[s].append(o)
    return users


def neighbour(order, rnd, users):
    """`order` with one operation moved a few places, or None where the move
    would put it before an input or after a reader."""
    i = rnd.randrange(len(order))
    reach = rnd.choice([1, 2, 3, 5, 8, 13, 30])
    j = max(0, min(len(order) - 1, i + rnd.randint(-reach, reach)))
    if i == j:
        return None
    candidate = list(order)
    o = candidate.pop(i)
    candidate.insert(j, o)
    at = {c.dst: k for k, c in enumerate(candidate)}
    if any(at.get(s, -1) >= j for s in o.srcs) or any(at[u.dst] <= j for u in users[o.dst]):
        return None
    return candidate


def write_order(ops, order, path):
    index = {op.dst: k for k, op in enumerate(ops)}
    with open(path, "w") as f:
        f.write(" ".join(str(index[c.dst]) for c in order) + "\n")


def mca_cycles(lines):
    src = ".intel_syntax noprefix\n" + "\n".join(lines) + "\n"
    run = subprocess.run(["llvm-mca-19", "-mcpu=znver4", "-iterations=100"],
                         input=src, capture_output=True, text=True, check=True)
    for line in run.stdout.splitlines():
        if line.startswith("Total Cycles"):
            return int(line.split()[-1]) / 100
    raise SystemExit(f"llvm-mca gave no cycle count: {run.stderr[:500]}")


def search(ops, body, order, steps, seed, out_path):
    """Climbs against llvm-mca's Zen 4 model; `body(order)` is the loop's lines."""
    rnd = random.Random(seed)
    users = consumers(ops)
    best = mca_cycles(body(order))
    print(f"start {best}", file=sys.stderr)
    for step in range(steps):
        candidate = neighbour(order, rnd, users)
        if candidate is None:
            continue
        cycles = mca_cycles(body(candidate))
        if cycles <= best:
            if cycles < best:
                print(f"step {step}: {cycles}", file=sys.stderr, flush=True)
                write_order(ops, candidate, out_path)
            best, order = cycles, candidate
    return best


# A timing harness for `tune`: both functions permute one state, at the
# alignment of the widest vector, `N` times a block, alternating; the minimum
# over blocks is what a busy host leaves alone. Both take the state and the
# constants the backend passes (`K_VALUES`, 64-bit words).
TUNE_HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>
void kf_cand(uint64_t *s, const uint64_t *k);
void kf_best(uint64_t *s, const uint64_t *k);
static const uint64_t K[] __attribute__((aligned(64))) = {K_VALUES};
enum { WORDS = STATE_WORDS };
int main(int argc, char **argv) {
    int blocks = atoi(argv[1]), n = 1000;
    static uint64_t a[WORDS] __attribute__((aligned(64))), b[WORDS] __attribute__((aligned(64)));
    for (int i = 0; i < WORDS; i++) a[i] = b[i] = 0x0123456789abcdefULL * (i + 1) ^ ((uint64_t)i << 7);
    kf_best(a, K);
    kf_cand(b, K);
    if (memcmp(a, b, sizeof a)) { puts("MISMATCH"); return 1; }
    static uint64_t st[WORDS] __attribute__((aligned(64)));
    uint64_t best[2] = {~0ULL, ~0ULL};
    for (int r = 0; r < blocks; r++)
        for (int w = 0; w < 2; w++) {
            uint64_t t0 = __rdtsc();
            for (int k = 0; k < n; k++) (w ? kf_best : kf_cand)(st, K);
            uint64_t t = __rdtsc() - t0;
            if (t < best[w]) best[w] = t;
        }
    printf("%.2f %.2f\n", (double)best[0] / n, (double)best[1] / n);
    return 0;
}
"""


def tune(ops, source, order, steps, seed, out_path, constants, state_words, cpu="1"):
    """Climbs against this core: `source(order, name)` is the whole function
    as assembly, named `name`, taking the state and `constants`."""
    work = tempfile.mkdtemp(prefix="keccak-tune-")
    harness = os.path.join(work, "harness.c")
    with open(harness, "w") as f:
        f.write(TUNE_HARNESS.replace("K_VALUES", ", ".join(f"{c:#x}ULL" for c in constants))
                .replace("STATE_WORDS", str(state_words)))

    def timed(candidate, current, blocks):
        for o, name in ((candidate, "kf_cand"), (current, "kf_best")):
            with open(os.path.join(work, name + ".S"), "w") as f:
                f.write(source(o, name))
        exe = os.path.join(work, "h")
        subprocess.run(["cc", "-O2", "-o", exe, harness, os.path.join(work, "kf_cand.S"),
                        os.path.join(work, "kf_best.S")], check=True, capture_output=True)
        out = subprocess.run(["taskset", "-c", cpu, exe, str(blocks)],
                             capture_output=True, text=True).stdout.split()
        if out[0] == "MISMATCH":
            raise SystemExit("a candidate permutes wrongly: the allocator has a bug")
        return float(out[0]), float(out[1])

    rnd = random.Random(seed)
    users = consumers(ops)
    floor = min(timed(order, order, 60))
    for step in range(steps):
        candidate = neighbour(order, rnd, users)
        if candidate is None:
            continue
        new, old = timed(candidate, order, 60)
        floor = min(floor, new, old)
        # A timing taken while the host was busy says nothing either way.
        if old > floor * 1.01 or new >= old - 0.3:
            continue
        confirmed = True
        for _ in range(2):
            new, old = timed(candidate, order, 150)
            floor = min(floor, new, old)
            if not (new < old - 0.3 and old < floor * 1.01 + 1):
                confirmed = False
                break
        if confirmed:
            order = candidate
            print(f"step {step}: {new} against {old} ticks", file=sys.stderr, flush=True)
            write_order(ops, order, out_path)
    return floor


def source_file(lines, name):
    """A function's lines as an assembly file for the harness."""
    head = [".intel_syntax noprefix", ".text", ".p2align 6", f".globl {name}", f"{name}:"]
    return "\n".join(head + lines) + "\n"

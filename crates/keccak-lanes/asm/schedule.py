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
import signal
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


def keccak_ops(rounds, rotate):
    """The operations of `rounds` rounds in row-by-row order, and the names of
    the lanes they leave. Theta's column parities are a tree of depth 3; the
    backend says how a lane is rotated: `rotate(emit, value, n)` emits what
    rotates `value` left by `n` (`n` may be 0) and returns the result, where
    `emit(kind, name, srcs, imm=None)` appends an operation and returns its
    value."""
    ops = []
    count = [0]

    def emit(kind, name, srcs, imm=None):
        count[0] += 1
        dst = f"{name}_{count[0]}"
        ops.append(Op(kind, dst, srcs, imm))
        return dst

    a = [f"in{i}" for i in range(25)]
    for r in range(rounds):
        c = []
        for x in range(5):
            col = [a[x + 5 * y] for y in range(5)]
            left = emit("xor", "c", [col[0], col[1]])
            right = emit("xor", "c", [col[2], col[3]])
            both = emit("xor", "c", [left, right])
            c.append(emit("xor", "c", [both, col[4]]))
        d = [emit("xor", "d", [rotate(emit, c[(x + 1) % 5], 1), c[(x - 1) % 5]]) for x in range(5)]
        e = [None] * 25
        for y in range(5):
            b = [rotate(emit, emit("xor", "t", [a[i], d[i % 5]]), RHO[i]) for i in ROWS[y]]
            for x in range(5):
                n = emit("andn", "n", [b[(x + 1) % 5], b[(x + 2) % 5]])
                out = emit("xor", "e", [n, b[x]])
                if y == 0 and x == 0:
                    out = emit("iota", "e", [out], r)
                e[5 * y + x] = out
        a = e
    return ops, a


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


class Allocator:
    """Registers and spill slots for a straight-line loop body, in the order
    given: a value is evicted when its register is wanted, the one used
    furthest ahead first (Belady), and spilled once; a final lane spills to
    its home slot, where its input lived, when that is free. The backend
    emits its own instructions through `in_reg`, `operand`, `free_reg` and
    `define`, and the allocator appends the loads and stores it needs to
    `lines` as it goes.

    `entry` says where each lane is at the top of the loop (lane -> ('r',
    register) or ('m', home slot)), `slot(n)` is slot n as an operand (homes
    are 0..24, spills 25 and up), `move` the mnemonic of a whole-register
    load or store."""

    def __init__(self, order, outs, entry, regs, slot, move, slot_limit=None):
        self.uses = {}
        for p, o in enumerate(order):
            for s in o.srcs:
                self.uses.setdefault(s, []).append(p)
        for val in outs:
            self.uses.setdefault(val, []).append(len(order))
        self.cursor = {k: 0 for k in self.uses}
        self.home = {val: i for i, val in enumerate(outs)}
        self.regs, self.slot, self.move, self.slot_limit = regs, slot, move, slot_limit
        self.lines = []
        self.reg = {r: None for r in regs}
        self.vreg, self.vslot = {}, {}
        self.used_slots, self.free_slots = set(), []
        self.next_slot = 25
        for i in range(25):
            kind, loc = entry[i]
            if kind == "r":
                self.define(f"in{i}", loc)
            else:
                self.vslot[f"in{i}"] = loc
                self.used_slots.add(loc)

    def next_use(self, val, p):
        us = self.uses.get(val, [])
        while self.cursor[val] < len(us) and us[self.cursor[val]] < p:
            self.cursor[val] += 1
        return us[self.cursor[val]] if self.cursor[val] < len(us) else 10**9

    def last_use(self, val):
        us = self.uses.get(val, [])
        return us[-1] if us else -1

    def dying(self, o, p):
        """The operands operation `o`, at `p`, reads for the last time."""
        return [s for s in o.srcs if self.last_use(s) == p]

    def new_slot(self, val):
        if val in self.home and self.home[val] not in self.used_slots:
            s = self.home[val]
        elif self.free_slots:
            s = self.free_slots.pop()
        else:
            s = self.next_slot
            self.next_slot += 1
            assert self.slot_limit is None or s < self.slot_limit, "out of spill slots"
        self.used_slots.add(s)
        return s

    def drop_slot(self, val):
        s = self.vslot.pop(val, None)
        if s is not None:
            self.used_slots.discard(s)
            if s >= 25:
                self.free_slots.append(s)

    def free_register(self, val):
        """Frees `val`'s register, where the instruction reading it may write
        its result, but not its slot: a spill made to find the result a
        register must not land on an operand the instruction has yet to read."""
        r = self.vreg.pop(val, None)
        if r:
            self.reg[r] = None
        return r

    def free(self, val):
        self.free_register(val)
        self.drop_slot(val)

    def free_reg(self, p, avoid=()):
        for r in self.regs:
            if self.reg[r] is None and r not in avoid:
                return r
        victim, furthest = None, -1
        for r in self.regs:
            if r in avoid:
                continue
            val = self.reg[r]
            # Ties go to a value already in memory: evicting it stores nothing.
            score = self.next_use(val, p) + (0.5 if val in self.vslot else 0)
            if score > furthest:
                victim, furthest = r, score
        val = self.reg[victim]
        if val not in self.vslot:
            self.vslot[val] = self.new_slot(val)
            self.lines.append(f"{self.move} {self.slot(self.vslot[val])}, {victim}")
        self.reg[victim] = None
        del self.vreg[val]
        return victim

    def in_reg(self, val, p, avoid=()):
        if val in self.vreg:
            return self.vreg[val]
        r = self.free_reg(p, avoid)
        self.lines.append(f"{self.move} {r}, {self.slot(self.vslot[val])}")
        self.define(val, r)
        return r

    def operand(self, val):
        return self.vreg[val] if val in self.vreg else self.slot(self.vslot[val])

    def define(self, val, r):
        self.reg[r], self.vreg[val] = val, r

    def exit_locations(self, outs):
        return {i: ("r", self.vreg[v]) if v in self.vreg else ("m", self.vslot[v])
                for i, v in enumerate(outs)}


def close_loop(alloc, outs, entry, break_cycle):
    """Appends the moves that put the final lanes where the loop expects them
    at its top: lanes homed in memory stored there, then register lanes moved
    into place; `break_cycle(alloc, moves)` undoes a cycle of register moves
    (`moves`: destination -> value, changed in place)."""
    reg, vreg, vslot, lines = alloc.reg, alloc.vreg, alloc.vslot, alloc.lines
    for i, val in enumerate(outs):
        if entry[i][0] == "m" and vslot.get(val) != i and val in vreg:
            lines.append(f"{alloc.move} {alloc.slot(i)}, {vreg[val]}")
            vslot[val] = i
            reg[vreg.pop(val)] = None
    for i, val in enumerate(outs):
        if entry[i][0] == "m" and vslot.get(val) != i:
            free = next((r for r in alloc.regs if reg[r] is None), None)
            if free is None:
                raise SystemExit("no register free to move a lane home: a bug in this script")
            lines.append(f"{alloc.move} {free}, {alloc.slot(vslot[val])}")
            lines.append(f"{alloc.move} {alloc.slot(i)}, {free}")
            vslot[val] = i
    moves = {loc: outs[i] for i, (kind, loc) in entry.items()
             if kind == "r" and vreg.get(outs[i]) != loc}
    while moves:
        progress = False
        for dst, val in list(moves.items()):
            occupant = reg[dst]
            if occupant is None or occupant not in moves.values():
                if val in vreg:
                    src = vreg[val]
                    lines.append(f"{alloc.move} {dst}, {src}")
                    reg[src] = None
                else:
                    lines.append(f"{alloc.move} {dst}, {alloc.slot(vslot[val])}")
                if occupant is not None and vreg.get(occupant) == dst:
                    del vreg[occupant]
                reg[dst], vreg[val] = val, dst
                del moves[dst]
                progress = True
        if not progress:
            break_cycle(alloc, moves)
    return lines


def closed_loop(order, outs, allocate, break_cycle):
    """The loop body for `order` as `allocate(order, outs, entry)` allocates it,
    closed by `close_loop`: the allocator, the lines, and where the loop keeps
    the lanes at its top. That entry assignment is iterated to where the body
    leaves the lanes, so that few moves close the loop."""
    entry = {i: ("m", i) for i in range(25)}
    for _ in range(4):
        exit_loc = allocate(order, outs, entry).exit_locations(outs)
        settled = {i: exit_loc[i] if exit_loc[i][0] == "r" else ("m", i) for i in range(25)}
        if settled == entry:
            break
        entry = settled
    alloc = allocate(order, outs, entry)
    return alloc, close_loop(alloc, outs, entry, break_cycle), entry


def mca_cycles(lines):
    """llvm-mca's cycles per trip of `lines`, on the model `MCA_CPU` names (an
    llvm-mca -mcpu; default znver4, the core the orders were searched on)."""
    src = ".intel_syntax noprefix\n" + "\n".join(lines) + "\n"
    mcpu = os.environ.get("MCA_CPU", "znver4")
    run = subprocess.run(["llvm-mca-19", f"-mcpu={mcpu}", "-iterations=100"],
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


def tune(ops, source, order, steps, seed, out_path, constants, state_words):
    """Climbs against this core: `source(order, name)` is the whole function
    as assembly, named `name`, taking the state and `constants`. The harness
    runs on CPU `TUNE_CPU` (default 1)."""
    cpu = os.environ.get("TUNE_CPU", "1")
    # A time limit's SIGTERM still removes the work folder, as an exit does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory(prefix="keccak-tune-") as work:
        return climb(ops, source, order, steps, seed, out_path, constants, state_words,
                     cpu, work)


def climb(ops, source, order, steps, seed, out_path, constants, state_words, cpu, work):
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
    print(f"start {floor} ticks on CPU {cpu}", file=sys.stderr, flush=True)
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


def main(argv, usage, ops, body, whole, header, constants, state_words):
    """The command line both scripts take (their docstrings say it): `body(order)`
    is an order's loop body, `whole(order)` the whole function's lines, `header`
    the comment lines that open the written file, and `constants` and
    `state_words` what the function takes, for `tune`'s harness."""
    if len(argv) < 2 or argv[1] not in ("emit", "score", "search", "tune"):
        raise SystemExit(usage)
    if argv[1] in ("search", "tune"):
        if len(argv) != 6:
            raise SystemExit(usage)
        order = read_order(ops, argv[2])
        steps, seed, out = int(argv[3]), int(argv[4]), argv[5]
        if argv[1] == "search":
            print(search(ops, body, order, steps, seed, out))
        else:
            def source(o, name):
                return source_file(whole(o), name)
            print(tune(ops, source, order, steps, seed, out, constants, state_words))
        return
    order = read_order(ops, argv[2] if len(argv) > 2 else None)
    if argv[1] == "score":
        print(mca_cycles(body(order)))
        return
    print("\n".join(header + whole(order)))


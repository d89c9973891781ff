#!/usr/bin/env python3
"""Writes `src/x4_asm.s`, the `x4-avx2-asm` backend: Keccak-f[1600] on four
interleaved states in the 16 AVX2 registers, with an instruction order
searched on the machine and a register allocation of our own.

Why: LLVM's loop for `x4-avx2` issues 238 instructions a round, 72 of them
loads and stores of spilled lanes, and llvm-mca's Zen 4 model schedules them
in 56 cycles where the four vector pipes need 47: the time goes to the order
and the spills, as it did for one state (`x1_schedule.py`). The allocator is
the same straight-line one (evict the value used furthest ahead), with AVX's
three-operand forms: the destination is any free register, and a spilled
operand is folded into the instructions that take memory as their last
source (`vpxor`, `vpor`, `vpandn`). Lanes live in the state itself between
loop iterations, so the function loads and stores only the lanes the loop
keeps in registers. Rotations are two shifts and an OR, except by 8 and 56
bits (one `vpshufb`) and theta's by one (`vpaddq` for the left shift).

    x4_schedule.py emit   [ORDER]                   # the assembly, to stdout
    x4_schedule.py score  [ORDER]                   # llvm-mca cycles per loop
    x4_schedule.py search ORDER STEPS SEED OUT      # climb against llvm-mca
    x4_schedule.py tune   ORDER STEPS SEED OUT      # climb against this core

ORDER is a file of operation indices (`x4_order.txt`, committed beside this
script; without one, the plain row-by-row order). `search` needs
llvm-mca-19; `tune` needs cc and taskset, and should run on an otherwise idle
core of the CPU it tunes for. Building the crate needs none of this.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedule  # noqa: E402
from schedule import MASK, Op, RHO, ROUND_CONSTANTS, ROWS, rotl  # noqa: E402

ROUNDS_PER_LOOP = 2
REGS = [f"ymm{i}" for i in range(16)]
# Byte shuffles rotating each 64-bit element left by 8 and by 56 bits: the
# first 64 bytes of the constants the function is passed, then the round
# constants, each broadcast to four words.
SHUFFLE_ROTATIONS = {8: 0, 56: 1}
SHUFFLE_MASKS = [
    [7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14] * 2,
    [1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8] * 2,
]
COMMUTATIVE = {"xor": "vpxor", "or": "vpor"}


def build(rounds):
    """The operations of `rounds` rounds in row-by-row order, and the names
    of the lanes they leave."""
    ops = []
    count = [0]

    def emit(kind, name, srcs, imm=None):
        count[0] += 1
        dst = f"{name}_{count[0]}"
        ops.append(Op(kind, dst, srcs, imm))
        return dst

    def rotate(t, n):
        if n == 0:
            return t
        if n in SHUFFLE_ROTATIONS:
            return emit("shuf", "b", [t], SHUFFLE_ROTATIONS[n])
        left = emit("add", "l", [t]) if n == 1 else emit("shl", "l", [t], n)
        right = emit("shr", "r", [t], 64 - n)
        return emit("or", "b", [left, right])

    a = [f"in{i}" for i in range(25)]
    for r in range(rounds):
        c = []
        for x in range(5):
            col = [a[x + 5 * y] for y in range(5)]
            left = emit("xor", "c", [col[0], col[1]])
            right = emit("xor", "c", [col[2], col[3]])
            both = emit("xor", "c", [left, right])
            c.append(emit("xor", "c", [both, col[4]]))
        d = [emit("xor", "d", [rotate(c[(x + 1) % 5], 1), c[(x - 1) % 5]]) for x in range(5)]
        e = [None] * 25
        for y in range(5):
            b = [rotate(emit("xor", "t", [a[i], d[i % 5]]), RHO[i]) for i in ROWS[y]]
            for x in range(5):
                n = emit("andn", "n", [b[(x + 1) % 5], b[(x + 2) % 5]])
                out = emit("xor", "e", [n, b[x]])
                if y == 0 and x == 0:
                    out = emit("iota", "e", [out], r)
                e[5 * y + x] = out
        a = e
    return ops, a


def slot(n):
    """Lane n's home in the state (n < 25), or a spill slot in the frame."""
    if n < 25:
        return f"ymmword ptr [rdi + {32 * n}]"
    return f"ymmword ptr [rsp + {32 * (n - 25)}]"


def one_source(o, r, first):
    """The instruction of an operation on one lane into register `r`."""
    if o.kind == "add":
        return f"vpaddq {r}, {first}, {first}"
    if o.kind == "shuf":
        return f"vpshufb {r}, {first}, ymmword ptr [rdx + {32 * o.imm}]"
    if o.kind == "iota":
        return f"vpxor {r}, {first}, ymmword ptr [rsi + {32 * o.imm}]"
    return f"{ {'shl': 'vpsllq', 'shr': 'vpsrlq'}[o.kind] } {r}, {first}, {o.imm}"


def allocate(order, outs, entry):
    """Registers and spill slots for `order`, starting from the lanes at
    `entry` (lane -> ('r', reg) or ('m', home slot)). Returns the lines, where
    each final lane ended, the allocator's state for the closing moves, and
    how many spill slots it used."""
    uses = {}
    for p, o in enumerate(order):
        for s in o.srcs:
            uses.setdefault(s, []).append(p)
    end = len(order)
    for val in outs:
        uses.setdefault(val, []).append(end)
    cursor = {k: 0 for k in uses}

    def next_use(val, p):
        us = uses.get(val, [])
        while cursor[val] < len(us) and us[cursor[val]] < p:
            cursor[val] += 1
        return us[cursor[val]] if cursor[val] < len(us) else 10**9

    def last_use(val):
        us = uses.get(val, [])
        return us[-1] if us else -1

    home = {val: i for i, val in enumerate(outs)}
    lines = []
    reg = {r: None for r in REGS}
    vreg, vslot = {}, {}
    used_slots, free_slots = set(), []
    next_slot = [25]
    for i in range(25):
        kind, loc = entry[i]
        if kind == "r":
            reg[loc] = f"in{i}"
            vreg[f"in{i}"] = loc
        else:
            vslot[f"in{i}"] = loc
            used_slots.add(loc)

    def new_slot(val):
        if val in home and home[val] not in used_slots:
            s = home[val]
        elif free_slots:
            s = free_slots.pop()
        else:
            s = next_slot[0]
            next_slot[0] += 1
        used_slots.add(s)
        return s

    def drop_slot(val):
        s = vslot.pop(val, None)
        if s is not None:
            used_slots.discard(s)
            if s >= 25:
                free_slots.append(s)

    def free_register(val):
        """Frees `val`'s register, where the instruction reading it may write
        its result, but not its slot: a spill made to find the result a
        register must not land on an operand the instruction has yet to read."""
        r = vreg.pop(val, None)
        if r:
            reg[r] = None
        return r

    def free_reg(p, avoid=()):
        for r in REGS:
            if reg[r] is None and r not in avoid:
                return r
        victim, furthest = None, -1
        for r in REGS:
            if r in avoid:
                continue
            val = reg[r]
            # Ties go to a value already in memory: evicting it stores nothing.
            score = next_use(val, p) + (0.5 if val in vslot else 0)
            if score > furthest:
                victim, furthest = r, score
        val = reg[victim]
        if val not in vslot:
            vslot[val] = new_slot(val)
            lines.append(f"vmovdqa {slot(vslot[val])}, {victim}")
        reg[victim] = None
        del vreg[val]
        return victim

    def in_reg(val, p, avoid=()):
        if val in vreg:
            return vreg[val]
        r = free_reg(p, avoid)
        lines.append(f"vmovdqa {r}, {slot(vslot[val])}")
        reg[r], vreg[val] = val, r
        return r

    def operand(val):
        return vreg[val] if val in vreg else slot(vslot[val])

    for p, o in enumerate(order):
        dying = [s for s in set(o.srcs) if last_use(s) == p]
        if len(o.srcs) == 2:
            a, b = o.srcs
            if o.kind in COMMUTATIVE and a not in vreg and (b in vreg or b not in dying):
                # The operand kept in a register: one already there, else the
                # one still needed afterwards; the other may stay in memory.
                a, b = b, a
            first = in_reg(a, p, avoid=[vreg.get(b)])
            second = operand(b)
            mnemonic = COMMUTATIVE.get(o.kind, "vpandn")
            for x in dying:
                free_register(x)
            r = free_reg(p)
            lines.append(f"{mnemonic} {r}, {first}, {second}")
        else:
            (a,) = o.srcs
            first = in_reg(a, p)
            for x in dying:
                free_register(x)
            r = free_reg(p)
            lines.append(one_source(o, r, first))
        for x in dying:
            drop_slot(x)
        reg[r], vreg[o.dst] = o.dst, r
    exit_loc = {i: ("r", vreg[v]) if v in vreg else ("m", vslot[v]) for i, v in enumerate(outs)}
    return lines, exit_loc, (reg, vreg, vslot), next_slot[0] - 25


def move_home(state, outs, entry, lines, spills):
    """Moves the final lanes to where the loop expects them at its top.
    Returns the lines and how many spill slots the loop uses."""
    reg, vreg, vslot = state
    for i, val in enumerate(outs):
        if entry[i][0] == "m" and vslot.get(val) != i and val in vreg:
            lines.append(f"vmovdqa {slot(i)}, {vreg[val]}")
            vslot[val] = i
            reg[vreg.pop(val)] = None
    for i, val in enumerate(outs):
        if entry[i][0] == "m" and vslot.get(val) != i:
            free = next((r for r in REGS if reg[r] is None), None)
            if free is None:
                raise SystemExit("no register free to move a lane home: a bug in this script")
            lines.append(f"vmovdqa {free}, {slot(vslot[val])}")
            lines.append(f"vmovdqa {slot(i)}, {free}")
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
                    lines.append(f"vmovdqa {dst}, {src}")
                    reg[src] = None
                else:
                    lines.append(f"vmovdqa {dst}, {slot(vslot[val])}")
                if occupant is not None and vreg.get(occupant) == dst:
                    del vreg[occupant]
                reg[dst], vreg[val] = val, dst
                del moves[dst]
                progress = True
        if not progress:
            # A cycle of register moves: one lane steps aside.
            dst = next(iter(moves))
            occupant = reg[dst]
            aside = next((r for r in REGS if reg[r] is None), None)
            if aside is not None:
                lines.append(f"vmovdqa {aside}, {dst}")
                reg[aside], vreg[occupant] = occupant, aside
            else:
                vslot[occupant] = 25 + spills
                spills += 1
                lines.append(f"vmovdqa {slot(vslot[occupant])}, {dst}")
                del vreg[occupant]
            reg[dst] = None
    return lines, spills


def loop_body(order, outs):
    """The loop body, where it keeps the lanes at its top, and its spill
    slots. The entry assignment is iterated to where the body leaves the
    lanes, so that few moves close the loop."""
    entry = {i: ("m", i) for i in range(25)}
    for _ in range(4):
        _, exit_loc, _, _ = allocate(order, outs, entry)
        settled = {i: exit_loc[i] if exit_loc[i][0] == "r" else ("m", i) for i in range(25)}
        if settled == entry:
            break
        entry = settled
    lines, _, state, spills = allocate(order, outs, entry)
    lines, spills = move_home(state, outs, entry, lines, spills)
    if not verify(lines, entry):
        raise SystemExit("the allocator produced a wrong loop for this order: a bug in this script")
    return lines, entry, spills


def function(lines, entry, spills):
    """The whole naked function: the 25 four-lane words of the state in rdi
    (32-byte aligned), the constants in rsi (the two shuffle masks, then the
    24 round constants broadcast to four words)."""
    out = ["push rbp", "mov rbp, rsp", "and rsp, -32"]
    if spills:
        out.append(f"sub rsp, {32 * spills}")
    out.append("mov rdx, rsi")
    out.append("add rsi, 64")
    out.append(f"mov ecx, {24 // ROUNDS_PER_LOOP}")
    in_regs = sorted((i, loc) for i, (kind, loc) in entry.items() if kind == "r")
    out += [f"vmovdqa {loc}, {slot(i)}" for i, loc in in_regs]
    out.append(".p2align 5")
    out.append("2:")
    out += lines
    out.append(f"add rsi, {32 * ROUNDS_PER_LOOP}")
    out.append("sub ecx, 1")
    out.append("jnz 2b")
    out += [f"vmovdqa {slot(i)}, {loc}" for i, loc in in_regs]
    out += ["mov rsp, rbp", "pop rbp", "vzeroupper", "ret"]
    return out


def constants():
    """The constants the function takes, as 64-bit words."""
    words = [int.from_bytes(bytes(m[k:k + 8]), "little") for m in SHUFFLE_MASKS for k in range(0, 32, 8)]
    return words + [c for c in ROUND_CONSTANTS for _ in range(4)]


def verify(lines, entry, seed=1):
    """Runs the loop body on four random states in a model of the
    instructions it uses, against FIPS 202's rounds: a wrong allocation never
    reaches a timing or the file."""
    rnd = random.Random(seed)
    states = [[rnd.getrandbits(64) for _ in range(25)] for _ in range(4)]
    regs, mem = {}, {}
    for i, (kind, loc) in entry.items():
        value = tuple(s[i] for s in states)
        if kind == "r":
            regs[loc] = value
        else:
            mem[("rdi", 32 * loc)] = value

    def address(text):
        base, offset = text[len("ymmword ptr ["):-1].split(" + ")
        return base, int(offset)

    def read(text):
        if not text.startswith("ymmword"):
            return regs[text]
        base, offset = address(text)
        if base == "rsi":
            return (ROUND_CONSTANTS[offset // 32],) * 4
        return mem[(base, offset)]

    def write(text, v):
        if text.startswith("ymmword"):
            mem[address(text)] = v
        else:
            regs[text] = v

    def lanewise(f, *vs):
        return tuple(f(*xs) & MASK for xs in zip(*vs))

    for line in lines:
        op, rest = line.split(" ", 1)
        args = [x.strip() for x in rest.split(", ")]
        if op == "vmovdqa":
            write(args[0], read(args[1]))
        elif op in ("vpxor", "vpor", "vpandn"):
            f = {"vpxor": lambda x, y: x ^ y, "vpor": lambda x, y: x | y,
                 "vpandn": lambda x, y: ~x & y}[op]
            write(args[0], lanewise(f, read(args[1]), read(args[2])))
        elif op in ("vpsllq", "vpsrlq"):
            n = int(args[2])
            f = (lambda x: x << n) if op == "vpsllq" else (lambda x: x >> n)
            write(args[0], lanewise(f, read(args[1])))
        elif op == "vpaddq":
            write(args[0], lanewise(lambda x, y: x + y, read(args[1]), read(args[2])))
        elif op == "vpshufb":
            base, offset = address(args[2])
            assert base == "rdx", line
            n = {32 * v: k for k, v in SHUFFLE_ROTATIONS.items()}[offset]
            write(args[0], lanewise(lambda x: rotl(x, n), read(args[1])))
        else:
            raise SystemExit(f"verify: no model of {line!r}")
    got = [regs[loc] if kind == "r" else mem[("rdi", 32 * loc)]
           for _, (kind, loc) in sorted(entry.items())]
    want = [schedule.reference_rounds(s, ROUNDS_PER_LOOP) for s in states]
    return got == [tuple(w[i] for w in want) for i in range(25)]


def main(argv):
    ops, outs = build(ROUNDS_PER_LOOP)
    if len(argv) < 2 or argv[1] not in ("emit", "score", "search", "tune"):
        raise SystemExit(__doc__)

    def body(order):
        return loop_body(order, outs)[0]

    def source(order, name):
        return schedule.source_file(function(*loop_body(order, outs)), name)

    if argv[1] in ("search", "tune"):
        if len(argv) != 6:
            raise SystemExit(__doc__)
        order = schedule.read_order(ops, argv[2])
        steps, seed, out = int(argv[3]), int(argv[4]), argv[5]
        if argv[1] == "search":
            print(schedule.search(ops, body, order, steps, seed, out))
        else:
            print(schedule.tune(ops, source, order, steps, seed, out, constants(), 100))
        return
    order = schedule.read_order(ops, argv[2] if len(argv) > 2 else None)
    if argv[1] == "score":
        print(schedule.mca_cycles(body(order)))
        return
    header = [
        "// Generated by asm/x4_schedule.py emit asm/x4_order.txt: do not edit.",
        f"// {ROUNDS_PER_LOOP} rounds a loop; see the script for how the order was found.",
    ]
    print("\n".join(header + function(*loop_body(order, outs))))


if __name__ == "__main__":
    main(sys.argv)

#!/usr/bin/env python3
"""Writes `src/x4_asm.s`, the `x4-avx2-asm` backend: Keccak-f[1600] on four
interleaved states in the 16 AVX2 registers, with an instruction order
searched on the machine and a register allocation of our own.

Why: LLVM's loop for `x4-avx2` issues 238 instructions a round, 72 of them
loads and stores of spilled lanes, and llvm-mca's Zen 4 model schedules them
in 56 cycles where the four vector pipes need 47: the time goes to the order
and the spills, as it did for one state (`x1_schedule.py`). The allocator is
the same straight-line one (`schedule.Allocator`: evict the value used
furthest ahead), with AVX's three-operand forms: the destination is any free
register, and a spilled operand is folded into the instructions that take
memory as their last source (`vpxor`, `vpor`, `vpandn`). Lanes live in the state itself between
loop iterations, so the function loads and stores only the lanes the loop
keeps in registers. Rotations are two shifts and an OR, except by 8 and 56
bits (one `vpshufb`) and theta's by one (`vpaddq` for the left shift).

    x4_schedule.py emit   [ORDER]                   # the assembly, to stdout
    x4_schedule.py score  [ORDER]                   # llvm-mca cycles per loop
    x4_schedule.py search ORDER STEPS SEED OUT      # climb against llvm-mca
    x4_schedule.py tune   ORDER STEPS SEED OUT      # climb against this core

ORDER is a file of operation indices (`x4_order.txt`, committed beside this
script; without one, the plain row-by-row order). `score` and `search` use
llvm-mca-19's model of `MCA_CPU` (default znver4); `tune` needs cc and taskset, and should run on an otherwise idle
core of the CPU it tunes for. Building the crate needs none of this.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedule  # noqa: E402
from schedule import MASK, ROUND_CONSTANTS, rotl  # noqa: E402

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


def rotate(emit, value, n):
    """Two shifts and an OR; one `vpshufb` by whole bytes, and the left shift
    by one as an add, which more pipes take than shifts."""
    if n == 0:
        return value
    if n in SHUFFLE_ROTATIONS:
        return emit("shuf", "b", [value], SHUFFLE_ROTATIONS[n])
    left = emit("add", "l", [value]) if n == 1 else emit("shl", "l", [value], n)
    right = emit("shr", "r", [value], 64 - n)
    return emit("or", "b", [left, right])


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
    `entry` (lane -> ('r', reg) or ('m', home slot)): the allocator, its
    lines appended."""
    a = schedule.Allocator(order, outs, entry, REGS, slot, "vmovdqa")
    for p, o in enumerate(order):
        dying = a.dying(o, p)
        if len(o.srcs) == 2:
            x, y = o.srcs
            if o.kind in COMMUTATIVE and x not in a.vreg and (y in a.vreg or y not in dying):
                # The operand kept in a register: one already there, else the
                # one still needed afterwards; the other may stay in memory.
                x, y = y, x
            first = a.in_reg(x, p, avoid=[a.vreg.get(y)])
            second = a.operand(y)
            mnemonic = COMMUTATIVE.get(o.kind, "vpandn")
            for v in dying:
                a.free_register(v)
            r = a.free_reg(p)
            a.lines.append(f"{mnemonic} {r}, {first}, {second}")
        else:
            (x,) = o.srcs
            first = a.in_reg(x, p)
            for v in dying:
                a.free_register(v)
            r = a.free_reg(p)
            a.lines.append(one_source(o, r, first))
        for v in dying:
            a.drop_slot(v)
        a.define(o.dst, r)
    return a


def step_aside(alloc, moves):
    """Breaks a cycle of register moves: one lane goes to a free register, or
    to a spill slot of its own where none is free."""
    dst = next(iter(moves))
    occupant = alloc.reg[dst]
    aside = next((r for r in REGS if alloc.reg[r] is None), None)
    if aside is None:
        alloc.vslot[occupant] = alloc.next_slot
        alloc.next_slot += 1
        alloc.lines.append(f"vmovdqa {slot(alloc.vslot[occupant])}, {dst}")
        del alloc.vreg[occupant]
    else:
        alloc.lines.append(f"vmovdqa {aside}, {dst}")
        alloc.define(occupant, aside)
    alloc.reg[dst] = None


def loop_body(order, outs):
    """The loop body, where it keeps the lanes at its top, and its spill
    slots."""
    alloc, lines, entry = schedule.closed_loop(order, outs, allocate, step_aside)
    if not verify(lines, entry):
        raise SystemExit("the allocator produced a wrong loop for this order: a bug in this script")
    return lines, entry, alloc.next_slot - 25


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
    ops, outs = schedule.keccak_ops(ROUNDS_PER_LOOP, rotate)
    schedule.main(
        argv, __doc__, ops,
        body=lambda order: loop_body(order, outs)[0],
        whole=lambda order: function(*loop_body(order, outs)),
        header=[
            "// Generated by asm/x4_schedule.py emit asm/x4_order.txt: do not edit.",
            f"// {ROUNDS_PER_LOOP} rounds a loop; see the script for how the order was found.",
        ],
        constants=constants(), state_words=100)


if __name__ == "__main__":
    main(sys.argv)

#!/usr/bin/env python3
"""Writes `src/x1_asm.s`, the `x1-asm` backend: Keccak-f[1600] on one state
in general-purpose registers, six rounds a loop, with an instruction order
searched on the machine and a register allocation of our own.

Why: LLVM and gcc both spill about ten of the 25 lanes and do the same 130
integer-ALU operations a round; what differs is the order and the spills, and
on a Zen 4 core LLVM's loop (`x1-scalar`) took 0.8 % more cycles per
permutation than gcc's build of XKCP's opt64. The allocator is a
straight-line one (Belady: evict the value used furthest ahead,
`schedule.Allocator`, shared with `x4_schedule.py`), and this script folds
spilled operands into the instructions taking memory operands (xor's source,
rorx, andn's second). The order was found in two hill-climbs that move one
operation at a time: first against llvm-mca's Zen 4 model (`search`, from
the plain row-by-row order: 205 -> 202 cycles per loop in llvm-mca, 649 ->
624 TSC ticks a permutation on a Zen 4 core), then against that core itself
(`tune`: each move timed against the current order in one process,
alternating, minimum over blocks, kept only if faster in three timings;
two runs of 2500 steps: 624 -> 614 -> 610 ticks). llvm-mca scores the
measured orders worse (211 after the first run, 205 after the second) than
the one they started from (202): past some point its model and the core
disagree, and the core decides.

    x1_schedule.py emit   [ORDER]                   # the assembly, to stdout
    x1_schedule.py score  [ORDER]                   # llvm-mca cycles per loop
    x1_schedule.py search ORDER STEPS SEED OUT      # climb against llvm-mca
    x1_schedule.py tune   ORDER STEPS SEED OUT      # climb against this core

ORDER is a file of operation indices (`x1_order.txt`, committed beside this
script; without one, the plain row-by-row order), so `emit` reproduces the
committed assembly without llvm-mca or the searches. Building the crate needs
none of this: only the .s is used. `score` and `search` use llvm-mca-19's
model of `MCA_CPU` (default znver4); `tune` needs cc and taskset, and should
run on an otherwise idle core of the CPU it tunes for.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedule  # noqa: E402
from schedule import MASK, ROUND_CONSTANTS, rotl  # noqa: E402

ROUNDS_PER_LOOP = 6
REGS = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp",
        "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"]
CALLEE_SAVED = ["rbx", "rbp", "r12", "r13", "r14", "r15"]
# Frame slots (8 bytes each): 0..24 are the lanes' homes between loop
# iterations, spills take 25 and up, the last three hold the loop's own state.
FRAME_SLOTS = 64
RC_SLOT, COUNT_SLOT, STATE_SLOT = 61, 62, 63


def rotate(emit, value, n):
    """`rorx` rotates right: left by n is right by 64 - n."""
    return emit("rorx", "b", [value], 64 - n) if n else value


def slot(n):
    return f"qword ptr [rsp + {8 * n}]"


def allocate(order, outs, entry):
    """Registers and spill slots for `order`, starting from the lanes at
    `entry` (lane -> ('r', reg) or ('m', home slot)): the allocator, its
    lines appended. xor's source, rorx's and andn's second operand may be
    memory; xor overwrites its first."""
    a = schedule.Allocator(order, outs, entry, REGS, slot, "mov", slot_limit=RC_SLOT)
    lines = a.lines
    for p, o in enumerate(order):
        dying = a.dying(o, p)
        if o.kind == "xor":
            x, y = o.srcs
            in_regs = [v for v in (x, y) if v in dying and v in a.vreg]
            if in_regs or dying:
                target = (in_regs or dying)[0]
                other = y if target == x else x
                r = a.in_reg(target, p, avoid=[a.vreg.get(other)])
                lines.append(f"xor {r}, {a.operand(other)}")
                a.free(target)
                for v in dying:
                    if v != target:
                        a.free(v)
                a.define(o.dst, r)
            else:
                first, other = (x, y) if x in a.vreg else (y, x)
                r = a.free_reg(p, [a.vreg.get(x), a.vreg.get(y)])
                lines.append(f"mov {r}, {a.operand(first)}")
                lines.append(f"xor {r}, {a.operand(other)}")
                a.define(o.dst, r)
        elif o.kind == "rorx":
            (x,) = o.srcs
            src = a.operand(x)
            if x in dying:
                r = a.free_register(x) or a.free_reg(p)
            else:
                r = a.free_reg(p, avoid=[a.vreg.get(x)])
            lines.append(f"rorx {r}, {src}, {o.imm}")
            if x in dying:
                a.drop_slot(x)
            a.define(o.dst, r)
        elif o.kind == "andn":
            b1, b2 = o.srcs
            r1 = a.in_reg(b1, p, avoid=[a.vreg.get(b2)])
            src2 = a.operand(b2)
            for v in dying:
                a.free_register(v)
            r = a.free_reg(p, avoid=[r1] + ([src2] if src2 in REGS else []))
            lines.append(f"andn {r}, {r1}, {src2}")
            for v in dying:
                a.drop_slot(v)
            a.define(o.dst, r)
        elif o.kind == "iota":
            (x,) = o.srcs
            r = a.in_reg(x, p)
            table = a.free_reg(p, avoid=[r])
            lines.append(f"mov {table}, {slot(RC_SLOT)}")
            lines.append(f"xor {r}, qword ptr [{table} + {8 * o.imm}]")
            a.free(x)
            a.define(o.dst, r)
    return a


def exchange(alloc, moves):
    """Breaks a cycle of register moves with one `xchg`."""
    dst, val = next(iter(moves.items()))
    occupant, src = alloc.reg[dst], alloc.vreg[val]
    alloc.lines.append(f"xchg {dst}, {src}")
    alloc.reg[src], alloc.vreg[occupant] = occupant, src
    alloc.reg[dst], alloc.vreg[val] = val, dst
    del moves[dst]
    # The exchange may have put another lane where it belongs.
    for d in [d for d, v in moves.items() if alloc.vreg.get(v) == d]:
        del moves[d]


def loop_body(order, outs):
    """The loop body and where it keeps the lanes at its top."""
    _, lines, entry = schedule.closed_loop(order, outs, allocate, exchange)
    if not verify(lines, entry):
        raise SystemExit("the allocator produced a wrong loop for this order: a bug in this script")
    return lines, entry


def function(lines, entry):
    """The whole naked function: `state` in rdi, the 24 round constants in rsi."""
    out = [f"push {r}" for r in CALLEE_SAVED]
    out.append(f"sub rsp, {8 * FRAME_SLOTS}")
    out.append(f"mov {slot(STATE_SLOT)}, rdi")
    out.append(f"mov {slot(RC_SLOT)}, rsi")
    out.append(f"mov {slot(COUNT_SLOT)}, {24 // ROUNDS_PER_LOOP}")
    for i in range(25):
        if entry[i][0] == "m":
            out.append(f"mov rax, qword ptr [rdi + {8 * i}]")
            out.append(f"mov {slot(i)}, rax")
    in_regs = sorted(((i, loc) for i, (kind, loc) in entry.items() if kind == "r"),
                     key=lambda t: t[1] == "rdi")
    out += [f"mov {loc}, qword ptr [rdi + {8 * i}]" for i, loc in in_regs]
    out.append(".p2align 5")
    out.append("2:")
    out += lines
    out.append(f"add {slot(RC_SLOT)}, {8 * ROUNDS_PER_LOOP}")
    out.append(f"sub {slot(COUNT_SLOT)}, 1")
    out.append("jnz 2b")
    out += [f"mov {slot(i)}, {loc}" for i, loc in in_regs]
    out.append(f"mov rdi, {slot(STATE_SLOT)}")
    for i in range(25):
        out.append(f"mov rax, {slot(i)}")
        out.append(f"mov qword ptr [rdi + {8 * i}], rax")
    out.append(f"add rsp, {8 * FRAME_SLOTS}")
    out += [f"pop {r}" for r in reversed(CALLEE_SAVED)]
    out.append("ret")
    return out


def verify(lines, entry, seed=1):
    """Runs the loop body on a random state in a model of the few instructions
    it uses, against `reference_rounds`: a wrong allocation never reaches a
    timing or the file."""
    rnd = random.Random(seed)
    a = [rnd.getrandbits(64) for _ in range(25)]
    regs, mem = {}, {RC_SLOT: "rc"}
    for i, (kind, loc) in entry.items():
        if kind == "r":
            regs[loc] = a[i]
        else:
            mem[loc] = a[i]

    def address(text):
        base, offset = text[len("qword ptr ["):-1].split(" + ")
        if base == "rsp":
            return int(offset) // 8
        assert regs[base] == "rc", line
        return ("rc", int(offset) // 8 + round_base)

    def read(text):
        if text.startswith("qword"):
            at = address(text)
            return ROUND_CONSTANTS[at[1]] if isinstance(at, tuple) else mem[at]
        return regs[text]

    def write(text, v):
        if text.startswith("qword"):
            mem[address(text)] = v & MASK
        else:
            regs[text] = v & MASK

    # The body's constants are the first ROUNDS_PER_LOOP: the loop's first pass.
    round_base = 0
    for line in lines:
        op, rest = line.split(" ", 1)
        args = [x.strip() for x in rest.split(", ")]
        if op == "mov" and read(args[1]) == "rc":
            regs[args[0]] = "rc"
        elif op == "mov":
            write(args[0], read(args[1]))
        elif op == "xor":
            write(args[0], read(args[0]) ^ read(args[1]))
        elif op == "rorx":
            write(args[0], rotl(read(args[1]), 64 - int(args[2])))
        elif op == "andn":
            write(args[0], ~read(args[1]) & read(args[2]))
        elif op == "xchg":
            x, y = read(args[0]), read(args[1])
            write(args[0], y)
            write(args[1], x)
        else:
            raise SystemExit(f"verify: no model of {line!r}")
    got = [regs[loc] if kind == "r" else mem[loc] for _, (kind, loc) in sorted(entry.items())]
    return got == schedule.reference_rounds(a, ROUNDS_PER_LOOP)


def main(argv):
    ops, outs = schedule.keccak_ops(ROUNDS_PER_LOOP, rotate)
    schedule.main(
        argv, __doc__, ops,
        body=lambda order: loop_body(order, outs)[0],
        whole=lambda order: function(*loop_body(order, outs)),
        header=[
            "// Generated by asm/x1_schedule.py emit asm/x1_order.txt: do not edit.",
            "// Six rounds a loop; see the script for how the order was found.",
        ],
        constants=ROUND_CONSTANTS, state_words=25)


if __name__ == "__main__":
    main(sys.argv)

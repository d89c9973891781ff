#!/usr/bin/env python3
"""Writes `src/x1_asm.s`, the `x1-asm` backend: Keccak-f[1600] on one state
in general-purpose registers, six rounds a loop, with an instruction order
searched on the machine and a register allocation of our own.

Why: LLVM and gcc both spill about ten of the 25 lanes and do the same 130
integer-ALU operations a round; what differs is the order and the spills, and
on a Zen 4 core LLVM's loop (`x1-scalar`) took 0.8 % more cycles per
permutation than gcc's build of XKCP's opt64. The allocator here is a
straight-line one (Belady: evict the value used furthest ahead) that folds
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
none of this: only the .s is used. `search` needs llvm-mca-19; `tune` needs cc
and taskset, and should run on an otherwise idle core of the CPU it tunes for.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedule  # noqa: E402
from schedule import MASK, Op, RHO, ROUND_CONSTANTS, ROWS, rotl  # noqa: E402

ROUNDS_PER_LOOP = 6
REGS = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp",
        "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"]
CALLEE_SAVED = ["rbx", "rbp", "r12", "r13", "r14", "r15"]
# Frame slots (8 bytes each): 0..24 are the lanes' homes between loop
# iterations, spills take 25 and up, the last three hold the loop's own state.
FRAME_SLOTS = 64
RC_SLOT, COUNT_SLOT, STATE_SLOT = 61, 62, 63


def build(rounds):
    """The operations of `rounds` rounds in row-by-row order, and the names
    of the lanes they leave. Theta's column parities are a tree of depth 3."""
    ops = []
    count = [0]

    def value(name):
        count[0] += 1
        return f"{name}_{count[0]}"

    def emit(kind, name, srcs, imm=None):
        dst = value(name)
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
        d = []
        for x in range(5):
            rotated = emit("rorx", "rc", [c[(x + 1) % 5]], 63)
            d.append(emit("xor", "d", [rotated, c[(x - 1) % 5]]))
        e = [None] * 25
        for y in range(5):
            b = []
            for i in ROWS[y]:
                t = emit("xor", "t", [a[i], d[i % 5]])
                b.append(emit("rorx", "b", [t], 64 - RHO[i]) if RHO[i] else t)
            for x in range(5):
                n = emit("andn", "n", [b[(x + 1) % 5], b[(x + 2) % 5]])
                out = emit("xor", "e", [n, b[x]])
                if y == 0 and x == 0:
                    out = emit("iota", "e", [out], r)
                e[5 * y + x] = out
        a = e
    return ops, a


def slot(n):
    return f"qword ptr [rsp + {8 * n}]"


def allocate(order, outs, entry):
    """Registers and spill slots for `order`, starting from the lanes at
    `entry` (lane -> ('r', reg) or ('m', home slot)). Returns the lines, where
    each final lane ended, and the allocator's state for the fix-up moves."""
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
        if val in home:
            # A final lane spills to its home, where lane i's input lived; that
            # input was consumed rounds earlier.
            s = home[val]
            assert s not in used_slots, (val, s)
        elif free_slots:
            s = free_slots.pop()
        else:
            s = next_slot[0]
            next_slot[0] += 1
            assert s < RC_SLOT, "out of spill slots"
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

    def free(val):
        free_register(val)
        drop_slot(val)

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
            lines.append(f"mov {slot(vslot[val])}, {victim}")
        reg[victim] = None
        del vreg[val]
        return victim

    def in_reg(val, p, avoid=()):
        if val in vreg:
            return vreg[val]
        r = free_reg(p, avoid)
        lines.append(f"mov {r}, {slot(vslot[val])}")
        reg[r], vreg[val] = val, r
        return r

    def operand(val):
        return vreg[val] if val in vreg else slot(vslot[val])

    def define(val, r):
        reg[r], vreg[val] = val, r

    for p, o in enumerate(order):
        dying = [s for s in o.srcs if last_use(s) == p]
        if o.kind == "xor":
            a, b = o.srcs
            in_regs = [x for x in (a, b) if x in dying and x in vreg]
            if in_regs or dying:
                target = (in_regs or dying)[0]
                other = b if target == a else a
                r = in_reg(target, p, avoid=[vreg.get(other)])
                lines.append(f"xor {r}, {operand(other)}")
                free(target)
                for x in dying:
                    if x != target:
                        free(x)
                define(o.dst, r)
            else:
                first, other = (a, b) if a in vreg else (b, a)
                r = free_reg(p, [vreg.get(a), vreg.get(b)])
                lines.append(f"mov {r}, {operand(first)}")
                lines.append(f"xor {r}, {operand(other)}")
                define(o.dst, r)
        elif o.kind == "rorx":
            (a,) = o.srcs
            src = operand(a)
            if a in dying:
                r = free_register(a) or free_reg(p)
            else:
                r = free_reg(p, avoid=[vreg.get(a)])
            lines.append(f"rorx {r}, {src}, {o.imm}")
            if a in dying:
                drop_slot(a)
            define(o.dst, r)
        elif o.kind == "andn":
            b1, b2 = o.srcs
            r1 = in_reg(b1, p, avoid=[vreg.get(b2)])
            src2 = operand(b2)
            for x in dying:
                free_register(x)
            r = free_reg(p, avoid=[r1] + ([src2] if src2 in REGS else []))
            lines.append(f"andn {r}, {r1}, {src2}")
            for x in dying:
                drop_slot(x)
            define(o.dst, r)
        elif o.kind == "iota":
            (a,) = o.srcs
            r = in_reg(a, p)
            table = free_reg(p, avoid=[r])
            lines.append(f"mov {table}, {slot(RC_SLOT)}")
            lines.append(f"xor {r}, qword ptr [{table} + {8 * o.imm}]")
            free(a)
            define(o.dst, r)
    exit_loc = {i: ("r", vreg[v]) if v in vreg else ("m", vslot[v]) for i, v in enumerate(outs)}
    return lines, exit_loc, (reg, vreg, vslot)


def move_home(state, outs, entry, lines):
    """Moves the final lanes to where the loop expects them at its top."""
    reg, vreg, vslot = state
    for i, val in enumerate(outs):
        kind, loc = entry[i]
        if kind == "m" and vslot.get(val) != i:
            lines.append(f"mov {slot(i)}, {vreg[val]}")
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
                    lines.append(f"mov {dst}, {src}")
                    reg[src] = None
                else:
                    lines.append(f"mov {dst}, {slot(vslot[val])}")
                if occupant is not None and vreg.get(occupant) == dst:
                    del vreg[occupant]
                reg[dst], vreg[val] = val, dst
                del moves[dst]
                progress = True
        if not progress:
            dst, val = next(iter(moves.items()))
            occupant, src = reg[dst], vreg[val]
            lines.append(f"xchg {dst}, {src}")
            reg[src], vreg[occupant] = occupant, src
            reg[dst], vreg[val] = val, dst
            del moves[dst]
            # The exchange may have put another lane where it belongs.
            moves = {d: v for d, v in moves.items() if vreg.get(v) != d}
    return lines


def loop_body(order, outs):
    """The loop body and where it keeps the lanes at its top. The entry
    assignment is iterated to where the body leaves the lanes, so that few
    moves close the loop."""
    entry = {i: ("m", i) for i in range(25)}
    for _ in range(4):
        _, exit_loc, _ = allocate(order, outs, entry)
        settled = {i: exit_loc[i] if exit_loc[i][0] == "r" else ("m", i) for i in range(25)}
        if settled == entry:
            break
        entry = settled
    lines, _, state = allocate(order, outs, entry)
    lines = move_home(state, outs, entry, lines)
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
            print(schedule.tune(ops, source, order, steps, seed, out, ROUND_CONSTANTS, 25))
        return
    order = schedule.read_order(ops, argv[2] if len(argv) > 2 else None)
    lines, entry = loop_body(order, outs)
    if argv[1] == "score":
        print(schedule.mca_cycles(lines))
        return
    header = [
        "// Generated by asm/x1_schedule.py emit asm/x1_order.txt: do not edit.",
        "// Six rounds a loop; see the script for how the order was found.",
    ]
    print("\n".join(header + function(lines, entry)))


if __name__ == "__main__":
    main(sys.argv)

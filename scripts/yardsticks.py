#!/usr/bin/env python3
"""Public reference code as cryptobench yardsticks, measured through our own C path.

    scripts/yardsticks.py xkcp SOURCE OUT
    scripts/yardsticks.py spook-he SOURCE OUT

SOURCE: a checkout of the public code, or its git directory (what `fetch` leaves under
/work/.mirror/OWNER+NAME/repo). OUT: a directory to write, outside git's view (devbin/
is ignored). The public code never enters the repository: this script copies the
sources the builds need into OUT and writes our manifests (and, for XKCP, our wrapper)
beside them; `cryptobench check OUT/manifest.toml` then verifies every build.

xkcp (github.com/XKCP/XKCP): Keccak-p[1600], one to eight states
(docs/results/keccak-xkcp-permutation.md). A wrapper of our own exposes XKCP's SnP and
PlSnP code as `crypto_core`: N states of 200 bytes in (`OverwriteBytes` per instance),
`Permute_24rounds` or `PermuteAll_24rounds` called 1, 2, 4 or 8 times, N states out
(`ExtractBytes`), so both sides read a permutation as (T4 - T2) / 2 and (T8 - T4) / 4,
without the load and store around it. Writes perm.c, api.h, lib/ (XKCP's lib/common,
lib/low/common, the plain 64-bit and the times2/4/8 code), manifest.toml (every build at
x86-64, haswell and native) and yardsticks-haswell.toml, yardsticks-native.toml (the
builds fastest at each on Zen 4). The 2-, 4- and 8-times builds carry vectors from the
FIPS 202 permutation written out below, independent of XKCP and of our crate; one-time
builds are checked by the tool's own known algorithms (keccak-f1600, -x2/x4/x8).

spook-he (github.com/uclcrypto/spook-he): the Spook designers' v1 AEAD code, every
Clyde x Shadow variant at the seed's four targets, with our -O3 and with their bench
flags (-ofast), checked against the LWC KAT file in ../shared/kat/spook
(docs/results/spook-vs-designers.md). Writes src/ and manifest.toml.
"""
import io
import os
import shutil
import subprocess
import sys
import tarfile

# XKCP: (variant, states, source under lib/low, configuration directory, CPU features)
XKCP_BUILDS = [
    ("opt64-lcu6", 1, "KeccakP-1600/plain-64bits/KeccakP-1600-opt64.c", "lcu6", []),
    ("opt64-lcua", 1, "KeccakP-1600/plain-64bits/KeccakP-1600-opt64.c", "lcua", []),
    ("opt64-u6", 1, "KeccakP-1600/plain-64bits/KeccakP-1600-opt64.c", "u6", []),
    ("opt64-ua", 1, "KeccakP-1600/plain-64bits/KeccakP-1600-opt64.c", "ua", []),
    ("times2-ssse3-u2", 2, "KeccakP-1600-times2/SIMD128/KeccakP-1600-times2-SIMD128.c",
     "SSSE3-u2", ["ssse3"]),
    ("times2-avx512-u12", 2, "KeccakP-1600-times2/AVX512/KeccakP-1600-times2-SIMD512.c",
     "AVX512u12", ["avx512f", "avx512vl"]),
    ("times4-avx2-u12", 4, "KeccakP-1600-times4/AVX2/KeccakP-1600-times4-SIMD256.c",
     "u12", ["avx2"]),
    ("times4-avx2-u6", 4, "KeccakP-1600-times4/AVX2/KeccakP-1600-times4-SIMD256.c",
     "u6", ["avx2"]),
    ("times4-avx2-ua", 4, "KeccakP-1600-times4/AVX2/KeccakP-1600-times4-SIMD256.c",
     "ua", ["avx2"]),
    ("times4-avx512-u12", 4, "KeccakP-1600-times4/AVX512/KeccakP-1600-times4-SIMD512.c",
     "AVX512u12", ["avx512f", "avx512vl"]),
    ("times8-avx512-u12", 8, "KeccakP-1600-times8/AVX512/KeccakP-1600-times8-SIMD512.c",
     "u12", ["avx512f"]),
]
# The builds kept for the narrowed runs (the fastest on Zen 4 in sessions 15 and 18).
XKCP_YARDSTICKS = {
    "haswell": ["opt64-u6", "opt64-ua", "times2-ssse3-u2", "times4-avx2-u6"],
    "native": ["times2-ssse3-u2", "times2-avx512-u12", "times4-avx2-u6", "times4-avx2-ua",
               "times4-avx2-u12", "times4-avx512-u12", "times8-avx512-u12"],
}
XKCP_PARTS = ["lib/common", "lib/low/common", "lib/low/KeccakP-1600/common",
             "lib/low/KeccakP-1600/plain-64bits", "lib/low/KeccakP-1600-times2",
             "lib/low/KeccakP-1600-times4", "lib/low/KeccakP-1600-times8"]
TIMES_NAMES = {1: "", 2: "-twice", 4: "-4times", 8: "-8times"}

WRAPPER = r"""/* crypto_core over XKCP's SnP / PlSnP interfaces: N states of 200 bytes in, each
 * permuted XKCP_TIMES times (1 by default; 2, 4 and 8 for differencing), N states out.
 * Written by scripts/yardsticks.py; XKCP's own code stays under lib/. */
#include "api.h"
#include "align.h"
#include <stdint.h>
#include <stddef.h>
#ifndef XKCP_TIMES
#define XKCP_TIMES 1
#endif
#if XKCP_N == 1
#include "KeccakP-1600-SnP.h"
int crypto_core(unsigned char *out, const unsigned char *in, const unsigned char *k, const unsigned char *c)
{
    (void)k; (void)c;
    KeccakP1600_state s;
    KeccakP1600_OverwriteBytes(&s, in, 0, 200);
    for (int t = 0; t < XKCP_TIMES; t++) KeccakP1600_Permute_24rounds(&s);
    KeccakP1600_ExtractBytes(&s, out, 0, 200);
    return 0;
}
#else
#if XKCP_N == 2
#include "KeccakP-1600-times2-SnP.h"
#define P(f) KeccakP1600times2_##f
#elif XKCP_N == 4
#include "KeccakP-1600-times4-SnP.h"
#define P(f) KeccakP1600times4_##f
#else
#include "KeccakP-1600-times8-SnP.h"
#define P(f) KeccakP1600times8_##f
#endif
int crypto_core(unsigned char *out, const unsigned char *in, const unsigned char *k, const unsigned char *c)
{
    (void)k; (void)c;
    P(states) s;
    for (unsigned i = 0; i < XKCP_N; i++) P(OverwriteBytes)(&s, i, in + 200 * i, 0, 200);
    for (int t = 0; t < XKCP_TIMES; t++) P(PermuteAll_24rounds)(&s);
    for (unsigned i = 0; i < XKCP_N; i++) P(ExtractBytes)(&s, i, out + 200 * i, 0, 200);
    return 0;
}
#endif
"""
# XKCP's speed moves with where its code lies: the same times8 build took 1738 or 1537
# cycles a permutation as a wrapper of another size sat ahead of it (Zen 4, session 18).
# The alignments files build the yardsticks again at 0, 16, 32 and 48 bytes past a 64-byte
# boundary (its code is 16-byte aligned: every placement modulo 64), 4 and 8 times a call.
ALIGNMENT_PADS = (0, 16, 32, 48)
PAD = r"""/* A 64-byte boundary and XKCP_PAD bytes of nops, linked ahead of XKCP's code.
 * Written by scripts/yardsticks.py. */
#define XKCP_STR2(x) #x
#define XKCP_STR(x) XKCP_STR2(x)
__asm__(".text\n.p2align 6\n.skip " XKCP_STR(XKCP_PAD) ", 0x90\n");
"""
API_H = """#ifndef XKCP_N
#define XKCP_N 1
#endif
#define CRYPTO_OUTPUTBYTES (200 * XKCP_N)
#define CRYPTO_INPUTBYTES (200 * XKCP_N)
#define CRYPTO_KEYBYTES 0
#define CRYPTO_CONSTBYTES 0
"""


def fail(message):
    print(f"yardsticks: {message}", file=sys.stderr)
    sys.exit(2)


# FIPS 202, section 3: Keccak-f[1600] on 25 little-endian lanes, x + 5 y.
MASK = (1 << 64) - 1


def round_constants():
    out, r = [], 1
    for _ in range(24):
        rc = 0
        for j in range(7):
            if r & 1:
                rc |= 1 << ((1 << j) - 1)
            r = ((r << 1) ^ (0x71 if r & 0x80 else 0)) & 0xFF
        out.append(rc)
    return out


def rotation_offsets():
    offsets, x, y = [0] * 25, 1, 0
    for t in range(24):
        offsets[x + 5 * y] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return offsets


RC, ROT = round_constants(), rotation_offsets()


def rotl(v, n):
    return ((v << n) | (v >> (64 - n))) & MASK if n else v


def keccak_f1600(lanes):
    a = list(lanes)
    for rc in RC:
        c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]
        d = [c[(x - 1) % 5] ^ rotl(c[(x + 1) % 5], 1) for x in range(5)]
        a = [a[i] ^ d[i % 5] for i in range(25)]
        b = [0] * 25
        for x in range(5):
            for y in range(5):
                b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl(a[x + 5 * y], ROT[x + 5 * y])
        a = [b[i] ^ (~b[(i % 5 + 1) % 5 + 5 * (i // 5)] & b[(i % 5 + 2) % 5 + 5 * (i // 5)])
             for i in range(25)]
        a[0] ^= rc
    return a


def permute_states(data, times):
    out = bytearray()
    for s in range(0, len(data), 200):
        lanes = [int.from_bytes(data[s + 8 * i:s + 8 * i + 8], "little") for i in range(25)]
        for _ in range(times):
            lanes = keccak_f1600(lanes)
        out += b"".join(v.to_bytes(8, "little") for v in lanes)
    return bytes(out)


def self_test():
    # FIPS 202's intermediate values: Keccak-f[1600] on the all-zero state, lane 0.
    if keccak_f1600([0] * 25)[0] != 0xF1258F7940E1DDE7:
        fail("the reference permutation is wrong (Keccak-f[1600](0) lane 0)")


def vectors(states, times):
    rows = []
    for start in (3, 16):
        data = bytes((start + 7 * i) & 0xFF for i in range(200 * states))
        rows.append('{ input = "%s", key = "", output = "%s", source = '
                    '"Keccak-f[1600] %d times per state (FIPS 202, a Python reference)" }'
                    % (data.hex(), permute_states(data, times).hex(), times))
    return "[" + ", ".join(rows) + "]"


def toml_list(items):
    return "[" + ", ".join(f'"{i}"' for i in items) + "]"


def xkcp_implementation(build, times, pad=None):
    variant, states, source, config, requires = build
    base = "keccak-f1600" if states == 1 else f"keccak-f1600-x{states}"
    source_dir = os.path.dirname(f"lib/low/{source}")
    include_dirs = [f"{source_dir}/{config}", source_dir, "lib/low/KeccakP-1600/common",
                    "lib/low/common", "lib/common", "."]
    # XKCP's code before the wrapper, so that it lies at the same address in every call
    # count's build (the wrapper's size changes with XKCP_TIMES); with a pad, that many
    # bytes ahead of it.
    padded = pad is not None
    sources = (["pad.c"] if padded else []) + ["lib/low/" + source, "perm.c"]
    flags = [f"-DXKCP_N={states}", f"-DXKCP_TIMES={times}"] + ([f"-DXKCP_PAD={pad}"] if padded else [])
    lines = ["[[implementation]]",
             f'variant = "{variant}{f"-pad{pad}" if padded else ""}"',
             f'algorithm = "{base}{TIMES_NAMES[times]}"',
             'kind = "core"',
             f"sources = {toml_list(sources)}",
             f"include_dirs = {toml_list(include_dirs)}",
             f"flags = {toml_list(flags)}",
             f"requires = {toml_list(requires)}"]
    if times > 1:
        lines.append(f"vectors = {vectors(states, times)}")
    lines.append("sizes = { CRYPTO_INPUTBYTES = %d, CRYPTO_OUTPUTBYTES = %d }"
                 % (200 * states, 200 * states))
    return "\n".join(lines) + "\n"


def xkcp_manifest(commit, targets, builds, times=tuple(TIMES_NAMES), pads=(None,)):
    head = ['name = "xkcp"',
            f'description = "XKCP {commit} Keccak-p[1600] SnP/PlSnP code behind crypto_core: '
            'N states in, permuted 1, 2, 4 or 8 times, N states out"',
            'flags = ["-O3"]',
            f"targets = {toml_list(targets)}", ""]
    # One-call builds first, then twice, 4 and 8 times: the order the runs' tables follow.
    body = [xkcp_implementation(b, t, p) for t in times for b in builds for p in pads]
    return "\n".join(head) + "\n" + "\n".join(body)


def write_xkcp(source, out):
    self_test()
    commit = copy_parts(source, XKCP_PARTS, out)
    write(out, "perm.c", WRAPPER)
    write(out, "pad.c", PAD)
    write(out, "api.h", API_H)
    write(out, "manifest.toml", xkcp_manifest(commit, ["x86-64", "haswell", "native"],
                                              XKCP_BUILDS))
    for target, names in XKCP_YARDSTICKS.items():
        builds = [b for b in XKCP_BUILDS if b[0] in names]
        write(out, f"yardsticks-{target}.toml", xkcp_manifest(commit, [target], builds))
        write(out, f"alignments-{target}.toml",
              xkcp_manifest(commit, [target], builds, times=(4, 8), pads=ALIGNMENT_PADS))
    return f"XKCP {commit}, {len(XKCP_BUILDS)} builds x {len(TIMES_NAMES)} call counts"


# spook-he: Clyde x Shadow, each built with our flags and with the designers' bench flags
# (bench/spook_bench.sh: -std=gnu99 -Ofast, linked with -flto).
SPOOK_CLYDES = {"clyde_32bit": ([], []), "clyde_64bit": (["-mbmi2"], ["bmi2"])}
SPOOK_SHADOWS = {"shadow_32bit": [], "shadow_128bit": ["sse2"], "shadow_256bit": ["avx2"],
                 "shadow_512bit": ["avx512f"]}
SPOOK_OFAST = ["-Ofast", "-flto", "-std=gnu99"]
SPOOK_KAT = "spook128su512v1_LWC_AEAD_KAT_128_128.txt"


def spook_manifest(commit, kat_dir):
    lines = ['name = "spook-he"',
             f'description = "The Spook designers\' v1 code (uclcrypto/spook-he {commit}), '
             'measured as users would"',
             'flags = ["-O3"]',
             'targets = ["x86-64", "haswell", "skylake-avx512", "native"]',
             f'kat_dir = "{kat_dir}"', ""]
    for suffix, extra in (("", []), ("-ofast", SPOOK_OFAST)):
        for clyde, (clyde_flags, clyde_needs) in SPOOK_CLYDES.items():
            for shadow, shadow_needs in SPOOK_SHADOWS.items():
                lines += ["[[implementation]]",
                          f'variant = "{clyde}-{shadow}{suffix}"',
                          'algorithm = "spook-128-512-su-v1"',
                          'kind = "aead"',
                          "sources = " + toml_list(["src/encrypt.c", "src/s1p.c",
                                                    f"src/{clyde}.c", f"src/{shadow}.c"]),
                          'include_dirs = ["src"]',
                          f"flags = {toml_list(clyde_flags + extra)}",
                          f"requires = {toml_list(shadow_needs + clyde_needs)}",
                          f'kat = "{SPOOK_KAT}"',
                          "sizes = { CRYPTO_KEYBYTES = 16, CRYPTO_NPUBBYTES = 16, "
                          "CRYPTO_ABYTES = 16 }", ""]
    return "\n".join(lines)


def write_spook_he(source, out):
    commit = copy_parts(source, ["src"], out)
    kats = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared",
                        "kat", "spook")
    if not os.path.isfile(os.path.join(kats, SPOOK_KAT)):
        fail(f"{os.path.normpath(kats)}: no {SPOOK_KAT} (the shared KAT files)")
    kat_dir = os.path.relpath(kats, os.path.abspath(out))
    write(out, "manifest.toml", spook_manifest(commit, kat_dir))
    return f"spook-he {commit}, {2 * len(SPOOK_CLYDES) * len(SPOOK_SHADOWS)} variants"


def write(out, name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


def copy_parts(source, parts, out):
    """The given folders of SOURCE (a checkout or a git directory) into OUT; its commit."""
    if os.path.isdir(os.path.join(source, parts[0])):
        for part in parts:
            if not os.path.isdir(os.path.join(source, part)):
                fail(f"{source}: no {part} (not the expected checkout?)")
            shutil.copytree(os.path.join(source, part), os.path.join(out, part),
                            dirs_exist_ok=True)
        git = ["git", "-C", source]
    else:
        git = ["git", "--git-dir", source]
        archive = subprocess.run(git + ["archive", "--format=tar", "HEAD"] + parts,
                                 capture_output=True)
        if archive.returncode != 0:
            fail(f"{source}: neither a checkout (no {parts[0]}) nor a git directory "
                 f"holding {' '.join(parts)}")
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(out, filter="data")
    commit = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True)
    return commit.stdout.strip() if commit.returncode == 0 else "(commit unknown)"


WRITERS = {"xkcp": write_xkcp, "spook-he": write_spook_he}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in WRITERS:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    kind, source, out = sys.argv[1:]
    if not os.path.exists(source):
        fail(f"{source}: no such directory")
    os.makedirs(out, exist_ok=True)
    what = WRITERS[kind](source, out)
    print(f"{out}: {what}; verify every build with `cryptobench check {out}/manifest.toml`")


if __name__ == "__main__":
    main()

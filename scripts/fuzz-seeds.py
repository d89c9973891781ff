#!/usr/bin/env python3
"""Write the seed inputs of the fuzz targets (docs/fuzzing.md) into fuzz/corpus/TARGET/,
from the repository's own files where there are any, else from realistic examples.

    scripts/fuzz-seeds.py [STORE.db] [KAT_DIR]

STORE.db, a store written by `cryptobench run`, `bulk` and `import`, gives the
store_run and store_case seeds their real stored JSON (a few examples are written
without it). KAT_DIR (default ../shared/kat/spook, where the spook manifest points)
gives the first entries of its KAT files. Existing corpus files are kept; a seed's name
is `seed-` and the file it came from, so rerunning it rewrites the same files.
"""

import pathlib
import re
import sqlite3
import struct
import sys

root = pathlib.Path(__file__).resolve().parent.parent
corpus = root / "fuzz" / "corpus"


def seed(target, name, data):
    d = corpus / target
    d.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (d / ("seed-" + re.sub(r"[^A-Za-z0-9._-]", "_", name))).write_bytes(data)


def kat_entries(text, n):
    """The first n entries of a genkat_aead file."""
    return "\n\n".join(text.strip().split("\n\n")[:n]) + "\n"


# C manifests: each as it is, and with its sources and include directories renamed to
# the stubs in fuzz/manifest-dir/, so that the checks after theirs are reached.
for m in sorted(list(root.glob("tests/c/**/*.toml")) + list(root.glob("implementations/**/*.toml"))):
    rel = m.relative_to(root)
    text = m.read_text()
    seed("manifest", str(rel), text)
    stubbed = re.sub(r'"[^"\n]*/([^"/\n]+\.[ch])"', r'"\1"', text)
    stubbed = re.sub(r"(?m)^include_dirs = \[.*\]$", 'include_dirs = ["."]', stubbed)
    if stubbed != text:
        seed("manifest", str(rel) + ".stubbed", stubbed)

# KAT files: the repository's, whole and cut to a few entries, and the spook ones cut.
for k in sorted(root.glob("tests/c/**/*kat*.txt")):
    text = k.read_text()
    seed("kat", k.name, text)
    seed("kat", k.name + ".3", kat_entries(text, 3))
kat_dir = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else root.parent / "shared" / "kat" / "spook"
for k in sorted(kat_dir.glob("*.txt")):
    seed("kat", k.name + ".4", kat_entries(k.read_text(), 4))

# criterion: benchmark.json, NUL, sample.json of every benchmark under tests/data.
for b in sorted(root.glob("tests/data/**/benchmark.json")):
    s = b.parent / "sample.json"
    if s.is_file():
        seed("criterion_benchmark", str(b.parent.relative_to(root / "tests/data")), b.read_bytes() + b"\0" + s.read_bytes())
sample = '{"sampling_mode": "Linear", "iters": [5.0, 10.0, 15.0], "times": [4112.3, 8183.6, 12312.3]}'
for name, throughput in [
    ("bits", '{"Bits": 8192}'),
    ("odd-bits", '{"Bits": 12}'),
    ("bytes-decimal", '{"BytesDecimal": 64}'),
    ("elements", '{"Elements": 8}'),
    ("elements-and-bytes", '{"ElementsAndBytes": {"elements": 1, "bytes": 32}}'),
    ("null", "null"),
]:
    bench = '{"group_id": "sha", "function_id": "hash", "value_str": "1024", "throughput": %s}' % throughput
    seed("criterion_benchmark", "throughput-" + name, bench + "\0" + sample)

header = "group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count\n"
seed("criterion_raw_csv", "ns", header + 'xor,"a,b",64,64,bytes,1234.5,ns,10\nxor,"a,b",64,64,bytes,2469.0,ns,20\n')
seed("criterion_raw_csv", "cycles", header + "xor,f,,,,1234.5,cycles,10\n")
seed("criterion_raw_csv", "other", header + "xor,f,,,,1234.5,instructions,10\n")
for r in sorted(root.glob("tests/data/**/report/index.html")):
    seed("criterion_report", str(r.relative_to(root / "tests/data")), r.read_bytes())
seed("criterion_report", "ns", "<html><body><table><tr><td>12.3 ns</td><td>1.2 µs</td></tr></table></body></html>\n")

# openssl speed -mr: the fixture, and the shapes tests/import.rs feeds it.
seed("openssl_speed", "openssl-speed-aes-128-gcm.txt", (root / "tests/data/openssl-speed-aes-128-gcm.txt").read_bytes())
seed("openssl_speed", "two-algorithms", "+H:16:64\n+F:25:AES-128-GCM:47710793.85:150000000.00\n+F:26:AES-256-GCM:40000000.00:120000000.00\n")
seed("openssl_speed", "concatenated", "+H:16:64\n+F:6:sha256:100.00:200.00\n+H:16:64\n+F:6:sha256:110.00:210.00\n")
seed("openssl_speed", "public-key", "+H:16\n+F:6:sha256:100.00\n+F2:1:2048:0.000123:0.000004\n+F4:1:256:0.00002:0.00006\n")
seed("openssl_speed", "zero", "+H:16:64\n+F:6:sha256:16000000.00:0.00\n")
seed("openssl_speed", "bom", "\ufeff+H:16\n+F:25:AES-128-GCM:47710793.85\n")
seed("openssl_speed", "space-in-name", "+H:16:64\n+F:6:aes-128 cbc:100.00:200.00\n")
seed("openssl_speed", "multi", "Forked child 0\nGot: +H:1024 from 0\nGot: +F:25:AES-128-GCM:1199647744.00 from 0\n+F:25:AES-128-GCM:2332718080.00\n")

for s in ["512MiB", "1 GiB", "64KB", "1048576", "16kib", "3MB", "1GB", "32B", "0", "1.5KiB", "1e3", "0x40", "12x", "99999999999999GiB", "8"]:
    seed("size", s, s)

for n in ["rustcrypto/chacha20", "openssl/shake128", "cryptobench/aes-128-ctr@aesni",
          "spook/clyde-128/clyde_32bit@haswell", "memcpy", "a/b/c/d", "a/b@", "x@y/z", ""]:
    seed("name", n or "empty", n)

# The store: real rows where a store is given, and hand-written ones.
seed("store_run", "imported", "complete\0criterion-ns\0"
     '{"cpu_model":"unknown (not recorded by criterion)","warnings":["imported"]}\0'
     '{"source":"criterion","path":"target/criterion","note":"n","imported_at":"2026-11-23T00:00:00Z"}')
seed("store_run", "foreign", 'running\0rdpmc\0{"cpu":7}\0{"run":{"processes":"many"}}')
seed("store_case", "len", 'ok\0{"len":16384}')
seed("store_case", "empty", "unsupported\0{}")
if len(sys.argv) > 1:
    db = sqlite3.connect(sys.argv[1])
    for (i, status, counter, machine, options) in db.execute(
        "SELECT id, status, counter, machine_json, options_json FROM runs"
    ):
        seed("store_run", f"run-{i}-{counter}", "\0".join([status, counter, machine, options]))
    for (i, status, params) in db.execute(
        "SELECT MIN(id), status, params_json FROM cases GROUP BY status, params_json"
    ):
        seed("store_case", f"case-{i}", status + "\0" + params)
for name, xs in [("one", [270.5]), ("several", [1.0, 2.5, 1e9, 0.0]), ("odd", [float("nan"), float("inf"), -0.0])]:
    seed("store_samples", name, struct.pack("<%dd" % len(xs), *xs))
seed("store_samples", "truncated", struct.pack("<d", 3.0)[:5])

#!/usr/bin/env bash
# Spook for cryptobench: build and test every variant this CPU can run.
#
#   implementations/c/spook/test/run_tests.sh [KAT_DIR]
#
# KAT_DIR defaults to $SPOOK_KAT_DIR, else ../shared/kat/spook relative to the
# repository root.  Each variant is built exactly as the benchmark builds it
# (one shared object from spook_all.c) and loaded by kat_test:
#   - AEAD builds: all 1089 LWC KAT entries (encryption and decryption),
#     tampering rejection, in-place use, long-message round trips, and a
#     cross-check against the portable build on long random inputs;
#   - crypto_core builds: the Clyde-128 / Shadow-512 v1 / v2 primitive vectors;
#   - every build: only the expected symbols are exported.
# Builds use -march=native, plus -march=x86-64 for the variants that need no
# extension (clyde 32/64, shadow 32/128).  Exit status: 0 all passed, 1 some
# failure, 77 KAT files missing (skipped; never a silent pass).
#
# Environment: CC (default cc), CFLAGS_EXTRA (appended to every build, e.g.
# -DSPOOK_NO_AVX512VL), SPOOK_MARCHES (default "native x86-64"; e.g.
# "native x86-64 haswell" on a CPU that can run haswell code).
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(cd "$here/.." && pwd)"
root="$(cd "$src/../../.." && pwd)"
kat="${1:-${SPOOK_KAT_DIR:-$root/../shared/kat/spook}}"
CC="${CC:-cc}"
CFLAGS_EXTRA="${CFLAGS_EXTRA:-}"

if [ ! -d "$kat" ]; then
  echo "SKIPPED: ../shared/kat/spook not found ($kat)"
  exit 77
fi
for v in 1 2; do
  for m in su mu; do
    kb=128; [ "$m" = mu ] && kb=256
    f="$kat/spook128${m}512v${v}_LWC_AEAD_KAT_${kb}_128.txt"
    if [ ! -f "$f" ]; then
      echo "SKIPPED: KAT file missing: $f"
      exit 77
    fi
  done
done

# CPU features (Linux /proc/cpuinfo; where it is absent only the compiler's
# view of -march is used).
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
cpu_has() { [ "$flags" = "  " ] && return 0; case "$flags" in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
arch="$(uname -m)"

work="$(mktemp -d "${TMPDIR:-/tmp}/spook-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT

if ! "$CC" -O2 -o "$work/kat_test" "$here/kat_test.c" -ldl; then
  echo "FAIL: cannot build kat_test"
  exit 1
fi
"$work/kat_test" tables || { echo "FAIL: constant tables"; exit 1; }

pass=0
fail=0
skip=0

# can_run SHADOW MARCH -> 0 if that Shadow implementation builds for MARCH
# (the compiler defines the extension it needs) and this CPU has it.
can_run() {
  local sh=$1 march=$2 macros
  macros="$("$CC" -march="$march" -dM -E - </dev/null 2>/dev/null)" || return 1
  case "$sh" in
    128) [[ "$macros" == *"__SSE2__ "* ]] && cpu_has sse2 ;;
    256) [[ "$macros" == *"__AVX2__ "* ]] && cpu_has avx2 ;;
    512) [[ "$macros" == *"__AVX512F__ "* ]] && cpu_has avx512f ;;
    *) return 0 ;;
  esac
}

# build OUT MARCH FLAGS... -> compile spook_all.c into a shared object
build() {
  local out=$1 march=$2
  shift 2
  # shellcheck disable=SC2086
  "$CC" -O3 -march="$march" -fPIC -shared $CFLAGS_EXTRA "$@" \
    "$src/spook_all.c" -o "$out" 2>"$out.log"
}

# exports OUT EXPECTED... -> the dynamic symbols defined are exactly EXPECTED
exports() {
  local out=$1
  shift
  command -v nm >/dev/null 2>&1 || return 0
  local got want
  got="$(nm -D --defined-only "$out" | awk '$2 ~ /^[TtDdBbRr]$/ {print $3}' | sort | tr '\n' ' ')"
  want="$(printf '%s\n' "$@" | sort | tr '\n' ' ')"
  [ "$got" = "$want" ] || { echo "    exported: $got (expected: $want)"; return 1; }
}

report() { # STATUS NAME DETAIL
  printf '%-4s %-46s %s\n' "$1" "$2" "$3"
  case "$1" in
    ok) pass=$((pass + 1)) ;;
    FAIL) fail=$((fail + 1)) ;;
    skip) skip=$((skip + 1)) ;;
  esac
}

# -march values to test (each must be one this CPU can execute).
marches="native"
[ "$arch" = x86_64 ] && marches="native x86-64"
marches="${SPOOK_MARCHES:-$marches}"

# ---- crypto_core builds: the primitives alone ----
for march in $marches; do
  for cl in 32 64; do
    name="core clyde_${cl}bit -march=$march"
    out="$work/core_clyde_${cl}_$march.so"
    if ! build "$out" "$march" -DSPOOK_CORE=clyde -DSPOOK_CLYDE=$cl; then
      report FAIL "$name" "build failed: $(head -c 300 "$out.log")"
      continue
    fi
    if msg="$("$work/kat_test" clyde "$out" 2>&1)" && exports "$out" crypto_core; then
      report ok "$name" "Clyde-128 vector"
    else
      report FAIL "$name" "$msg"
    fi
  done
  for v in 1 2; do
    for sh in 32 128 256 512; do
      name="core shadow_${sh}bit v$v -march=$march"
      if ! can_run "$sh" "$march"; then
        [ "$march" != x86-64 ] && report skip "$name" "not built: needs an extension that -march=$march or this CPU lacks"
        continue
      fi
      out="$work/core_shadow_${sh}_v${v}_$march.so"
      if ! build "$out" "$march" -DSPOOK_CORE=shadow -DSPOOK_SHADOW=$sh -DSPOOK_VERSION=$v; then
        report FAIL "$name" "build failed: $(head -c 300 "$out.log")"
        continue
      fi
      if msg="$("$work/kat_test" shadow "$out" $v 2>&1)" && exports "$out" crypto_core; then
        report ok "$name" "Shadow-512 v$v vector"
      else
        report FAIL "$name" "$msg"
      fi
    done
  done
done

# ---- AEAD builds ----
for v in 1 2; do
  for m in su mu; do
    kb=128; mflag=""
    [ "$m" = mu ] && kb=256 && mflag=-DSPOOK_MODE_MU
    katfile="$kat/spook128${m}512v${v}_LWC_AEAD_KAT_${kb}_128.txt"
    ref=""
    for march in $marches; do
      for cl in 32 64; do
        for sh in 32 128 256 512; do
          name="spook128${m}512v$v clyde$cl shadow$sh -march=$march"
          if ! can_run "$sh" "$march"; then
            [ "$march" != x86-64 ] && report skip "$name" "not built: needs an extension that -march=$march or this CPU lacks"
            continue
          fi
          out="$work/aead_${m}_v${v}_${cl}_${sh}_$march.so"
          # shellcheck disable=SC2086
          if ! build "$out" "$march" -DSPOOK_VERSION=$v -DSPOOK_CLYDE=$cl -DSPOOK_SHADOW=$sh $mflag; then
            report FAIL "$name" "build failed: $(head -c 300 "$out.log")"
            continue
          fi
          [ -z "$ref" ] && ref="$out" # first build: clyde32/shadow32 native
          if msg="$("$work/kat_test" aead "$out" "$katfile" 2>&1)" &&
            msg2="$("$work/kat_test" cross "$out" "$ref" 2>&1)" &&
            exports "$out" crypto_aead_encrypt crypto_aead_decrypt; then
            report ok "$name" "$msg"
          else
            report FAIL "$name" "$msg ${msg2:-}"
          fi
          msg2=""
        done
      done
    done
  done
done

echo "summary: $pass passed, $fail failed, $skip skipped (extension missing from -march or CPU)"
[ "$fail" -eq 0 ]

#!/usr/bin/env bash
# 2-way NEON Keccak / SHAKE for cryptobench: build and run the known-answer
# and lane-equality tests (test/kat.c) for AArch64.
#
#   implementations/c/keccak-neon-x2/test/run_tests.sh
#
# On a non-Arm host (the usual case) every build is cross-compiled with
# aarch64-linux-gnu-gcc and run under qemu-aarch64 user-mode emulation:
#   - ARMv8.0-A builds (-march=armv8-a) at -O2 and -O3, run with
#     -cpu cortex-a53 (an ARMv8.0 core without the SHA-3 extension, so an
#     ARMv8.2 instruction slipping into the baseline build would trap) and
#     with -cpu max;
#   - SHA-3 builds (-march=armv8.2-a+sha3) at -O2 and -O3, run with -cpu max;
#   - the SHA-3 build run on cortex-a53 must die with SIGILL: proof that the
#     emulator enforces the CPU model, so the cortex-a53 pass above means
#     something;
#   - objdump checks that the SHA-3 builds contain EOR3/RAX1/XAR/BCAX and the
#     ARMv8.0 builds none of them.
# Every build uses -Wall -Wextra -Wpedantic -std=c11 -Werror.
#
# On an AArch64 host it builds with the native compiler and runs directly
# (the SHA-3 builds only where /proc/cpuinfo lists "sha3").  This native path
# has not been run: no Arm machine was available when it was written.
#
# Exit status: 0 all passed, 1 some failure, 77 a tool is missing (skipped,
# never a silent pass).
#
# Environment: CC (default aarch64-linux-gnu-gcc, or cc on AArch64),
# QEMU (default qemu-aarch64), SYSROOT (default /usr/aarch64-linux-gnu),
# OBJDUMP (default aarch64-linux-gnu-objdump, or objdump on AArch64).
set -u

start_ns=$(date +%s%N)
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(cd "$here/.." && pwd)"

native=0
[ "$(uname -m)" = aarch64 ] && native=1

if [ "$native" = 1 ]; then
  CC="${CC:-cc}"
  OBJDUMP="${OBJDUMP:-objdump}"
else
  CC="${CC:-aarch64-linux-gnu-gcc}"
  OBJDUMP="${OBJDUMP:-aarch64-linux-gnu-objdump}"
  QEMU="${QEMU:-qemu-aarch64}"
  SYSROOT="${SYSROOT:-/usr/aarch64-linux-gnu}"
  if ! command -v "$CC" >/dev/null 2>&1; then
    echo "SKIPPED: cross compiler '$CC' not found; install it with: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
    exit 77
  fi
  if ! command -v "$QEMU" >/dev/null 2>&1; then
    echo "SKIPPED: '$QEMU' not found; install it with: apt-get install qemu-user"
    exit 77
  fi
  if [ ! -e "$SYSROOT/lib/ld-linux-aarch64.so.1" ]; then
    echo "SKIPPED: AArch64 C library not found under $SYSROOT; install it with: apt-get install libc6-dev-arm64-cross"
    exit 77
  fi
fi
have_objdump=1
command -v "$OBJDUMP" >/dev/null 2>&1 || have_objdump=0

work="$(mktemp -d "${TMPDIR:-/tmp}/keccak-neon-x2-test.XXXXXX")"
trap 'rm -rf "$work"' EXIT

pass=0
fail=0
skip=0
report() { # STATUS NAME DETAIL
  printf '%-4s %-44s %s\n' "$1" "$2" "$3"
  case "$1" in
    ok) pass=$((pass + 1)) ;;
    FAIL) fail=$((fail + 1)) ;;
    skip) skip=$((skip + 1)) ;;
  esac
}

# run CPU BINARY -> run it (under qemu with that CPU model unless native)
run() {
  local cpu=$1 bin=$2
  if [ "$native" = 1 ]; then
    "$bin"
  else
    "$QEMU" -L "$SYSROOT" -cpu "$cpu" "$bin"
  fi
}

host_has_sha3=1
if [ "$native" = 1 ]; then
  grep -qw sha3 /proc/cpuinfo 2>/dev/null || host_has_sha3=0
fi

sha3_insns='(eor3|rax1|xar|bcax)[[:space:]]'
warn="-Wall -Wextra -Wpedantic -std=c11 -Werror"

echo "compiler: $("$CC" --version | head -n1)"
[ "$native" = 0 ] && echo "emulator: $("$QEMU" --version | head -n1)"

for march in armv8-a armv8.2-a+sha3; do
  for opt in -O2 -O3; do
    name="$march $opt"
    bin="$work/kat_${march}_${opt#-}"
    # shellcheck disable=SC2086
    if ! "$CC" $opt $warn -march="$march" -I"$src" -o "$bin" \
      "$here/kat.c" "$src/keccak_x2_neon.c" "$src/keccak_ref.c" 2>"$bin.log"; then
      if [ "$march" != armv8-a ] && grep -q "march\|sha3" "$bin.log"; then
        report skip "$name" "compiler rejects -march=$march: $(head -c 200 "$bin.log")"
      else
        report FAIL "$name" "build failed:"
        cat "$bin.log"
      fi
      continue
    fi

    # Does the object use the instructions its -march promises (or forbids)?
    if [ "$have_objdump" = 1 ]; then
      n="$("$OBJDUMP" -d "$bin" | grep -cE "$sha3_insns")"
      if [ "$march" = armv8-a ]; then
        [ "$n" -eq 0 ] && report ok "$name: no SHA-3 instructions" "objdump: 0 EOR3/RAX1/XAR/BCAX" ||
          report FAIL "$name: no SHA-3 instructions" "objdump found $n"
      else
        [ "$n" -gt 0 ] && report ok "$name: uses SHA-3 instructions" "objdump: $n EOR3/RAX1/XAR/BCAX" ||
          report FAIL "$name: uses SHA-3 instructions" "objdump found none"
      fi
    else
      report skip "$name: instruction check" "$OBJDUMP not found (binutils-aarch64-linux-gnu)"
    fi

    if [ "$march" = armv8-a ]; then
      cpus="cortex-a53 max"
    else
      cpus="max"
      if [ "$host_has_sha3" = 0 ]; then
        report skip "$name" "built; not run: this CPU lacks the SHA-3 extension"
        continue
      fi
    fi
    [ "$native" = 1 ] && cpus="native"
    for cpu in $cpus; do
      out="$(run "$cpu" "$bin" 2>&1)"
      st_run=$?
      if [ "$st_run" -eq 0 ]; then
        report ok "$name (cpu $cpu)" "$(echo "$out" | tail -n1)"
      else
        report FAIL "$name (cpu $cpu)" "exit status $st_run"
      fi
      # The per-group lines once per -march (the builds differ only in
      # flags), and always when something failed.
      if [ "$opt" = -O2 ] && [ "$cpu" = "${cpus%% *}" ] || [ "$st_run" -ne 0 ]; then
        echo "$out" | sed 's/^/       | /'
      fi
    done

    # The emulator must refuse SHA-3 instructions on an ARMv8.0 CPU model.
    if [ "$march" != armv8-a ] && [ "$native" = 0 ]; then
      run cortex-a53 "$bin" >/dev/null 2>&1
      st=$?
      if [ "$st" -eq 132 ]; then # 128 + SIGILL
        report ok "$name (cpu cortex-a53)" "traps with SIGILL as it must (no SHA-3 on ARMv8.0)"
      else
        report FAIL "$name (cpu cortex-a53)" "expected SIGILL (status 132), got status $st"
      fi
    fi
  done
done

end_ns=$(date +%s%N)
ms=$(((end_ns - start_ns) / 1000000))
echo "summary: $pass passed, $fail failed, $skip skipped; $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s"
[ "$fail" -eq 0 ] || exit 1
exit 0

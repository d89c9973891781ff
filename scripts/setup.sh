#!/usr/bin/env bash
# Installs what cryptobench needs to build and run on a Debian machine. Idempotent: it
# installs only what is missing, so it is cheap to run before every build.
set -euo pipefail

# Debian packages: a C compiler for bundled SQLite and the C implementations,
# pkg-config + OpenSSL headers for the `openssl` provider, llvm for `llvm-mca` estimates,
# chromium to render HTML reports in tests (scripts/browser-check.sh), and an AArch64
# cross compiler with qemu-user to test the NEON Keccak (implementations/c/keccak-neon-x2)
# under emulation, valgrind for `--counter instructions`, and PostgreSQL, whose server the
# tests start (a throw-away one, as the `postgres` user) to test the shared store, and
# GNU time for the peak memory scripts/fleet-bench.sh reports, and Python 3, which
# writes the searched-order assembly of crates/keccak-lanes (its tests check that the
# committed .s files are what the scripts write), and clang, the other compiler a manifest
# may name (`compiler = "clang"`), whose diagnostics the prototype checks must read too.
packages=(build-essential pkg-config libssl-dev llvm llvm-19 chromium postgresql
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user valgrind time python3 clang)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi

if ! command -v cargo >/dev/null; then
  echo "setup: cargo not found; install a Rust toolchain (rustup, Rust >= 1.95) and re-run" >&2
  exit 1
fi

#!/usr/bin/env bash
# The test command: install what is missing, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
spook_kat="${SPOOK_KAT_DIR:-../shared/kat/spook}"
if [ ! -d "$spook_kat" ]; then
  echo "warning: $spook_kat not found: tests/spook.rs will skip the Spook known-answer" \
    "tests (set SPOOK_KAT_DIR to the folder of the LWC KAT files)" >&2
fi
cargo test --release --locked --workspace

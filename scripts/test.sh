#!/usr/bin/env bash
# The test command: install what is missing, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo test --release --locked

#!/usr/bin/env bash
# The main job: installs missing packages, builds cellsim (Release) and runs
# `cellsim demo` on an embedded default rack (3 cells, write-back flash cache,
# DATA and RECO in NORMAL redundancy, AU 4 MiB) in a temporary directory.
# Extra arguments go to `cellsim demo` (e.g. --size 4096m to reproduce the seed).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh release cellsim_cli >/dev/null
exec build/release/cellsim/cli/cellsim demo "$@"

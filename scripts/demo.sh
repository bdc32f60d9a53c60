#!/usr/bin/env bash
# The main job: installs missing packages, builds cellsim (Release) and runs the
# demo on an embedded default rack in a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh release cellsim >/dev/null
bin=build/release/cellsim/cli/cellsim
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cellsim-demo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$bin" probe --dir "$tmp"
"$bin" io zero "$tmp/zero.img" --size 1g

#!/usr/bin/env bash
# Installs the Debian 12 packages cellsim needs, skipping those already there.
# Idempotent; needs root (or sudo) only when something is missing.
#   scripts/deps.sh             the packages of the build, the tests and the demo
#   scripts/deps.sh PKG...      these packages instead (the plot scripts' gnuplot, jq)
set -euo pipefail
# libclang-rt-14-dev holds clang's sanitizer and libFuzzer runtimes; it is only
# a Recommends of clang, which --no-install-recommends would skip.
# lld links the sanitizer flavours' test binaries about 4x faster than GNU ld
# (scripts/build.sh), which is minutes of CI time.
pkgs=(build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev lld
      liburing-dev libabsl-dev libfmt-dev libgtest-dev libgmock-dev libbenchmark-dev
      libxxhash-dev nlohmann-json3-dev libcli11-dev fio util-linux)
if (($#)); then pkgs=("$@"); fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "deps: all ${#pkgs[@]} packages present"
fi

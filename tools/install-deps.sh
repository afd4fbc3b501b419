#!/usr/bin/env bash
# Installs every build, test and tooling dependency of ckptdp from Debian's packages.
# Idempotent: re-running it on a machine that has everything is quick and changes nothing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libboost-graph-dev libtbb-dev libabsl-dev
  catch2 libbenchmark-dev nlohmann-json3-dev libcli11-dev
  coinor-cbc python3-matplotlib time
  clang libclang-rt-14-dev clang-format
  libopenmpi-dev openmpi-bin
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all ${#packages[@]} packages present"
fi

#!/usr/bin/env bash
# Fuzzes the instance loader (fuzz/instance_fuzzer.cc) for a bounded time.
#
#   tools/fuzz.sh [SECONDS]      default 60
#
# Builds the libFuzzer target with clang in build-fuzz/, seeds a corpus from the shipped,
# test and bad instances (plus "JSON NUL CSV" seeds for the instances that read a series
# CSV), runs the fuzzer and exits non-zero if it found a crash, a leak or a timeout. The
# growing corpus is kept in build-fuzz/corpus between runs; findings are written to
# build-fuzz/findings/. Turn each finding into a regression file under tests/data/fuzz/
# (tests/instance/fuzz_regression_test.cc loads every file there).
set -euo pipefail

seconds="${1:-60}"
if ! [[ "${seconds}" =~ ^[0-9]+$ ]] || [[ "${seconds}" -lt 1 ]]; then
  echo "usage: $0 [SECONDS]" >&2
  exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${root}/build-fuzz"
jobs="$(nproc 2>/dev/null || echo 2)"

# CKPTDP_WERROR=ON in the environment (as tools/test-all.sh sets it) makes warnings errors.
CC=clang CXX=clang++ cmake -S "${root}" -B "${build}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCKPTDP_FUZZ=ON -DCKPTDP_BUILD_TESTS=OFF -DCKPTDP_BUILD_BENCH=OFF \
  -DCKPTDP_WERROR="${CKPTDP_WERROR:-OFF}" >/dev/null
cmake --build "${build}" --target instance_fuzzer -j "${jobs}"

seeds="${build}/seeds"
corpus="${build}/corpus"
findings="${build}/findings"
rm -rf "${seeds}" "${findings}"
mkdir -p "${seeds}" "${corpus}" "${findings}"

shopt -s nullglob
for json in "${root}"/instances/*.json "${root}"/tests/data/instances/*.json \
            "${root}"/tests/data/bad/*.json "${root}"/tests/data/bad_modes/*.json \
            "${root}"/tests/data/fuzz/*; do
  [[ "$(basename "${json}")" == expected.json ]] && continue
  dir="$(basename "$(dirname "${json}")")"
  cp "${json}" "${seeds}/${dir}_$(basename "${json}")"
  # Instances with a series CSV: a seed whose CSV travels inside the input (after a NUL),
  # renamed to the fuzz.csv the fuzzer writes, so that CSV parsing is fuzzed as well.
  csv="$(grep -o '"csv" *: *"[^"]*"' "${json}" | head -n 1 | sed 's/.*: *"\(.*\)"/\1/' || true)"
  if [[ -n "${csv}" && -f "$(dirname "${json}")/${csv}" ]]; then
    { sed "s|\"${csv}\"|\"fuzz.csv\"|" "${json}"; printf '\0'; cat "$(dirname "${json}")/${csv}"; } \
      >"${seeds}/${dir}_$(basename "${json}" .json)_with_csv"
  fi
done
echo "fuzz.sh: $(ls "${seeds}" | wc -l) seeds, corpus of $(ls "${corpus}" | wc -l) kept inputs"

# The largest seed is the paper case with its CSV inline (a few KB); leave room to grow.
status=0
"${build}/instance_fuzzer" "${corpus}" "${seeds}" \
  -max_total_time="${seconds}" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
  -artifact_prefix="${findings}/" -print_final_stats=1 || status=$?

found=("${findings}"/*)
if [[ ${#found[@]} -gt 0 || ${status} -ne 0 ]]; then
  echo "fuzz.sh: the fuzzer exited with ${status}; findings:" >&2
  for f in "${found[@]}"; do echo "  ${f}" >&2; done
  exit 1
fi
echo "fuzz.sh: no findings in ${seconds} s"

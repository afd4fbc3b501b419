#!/usr/bin/env bash
# Builds everything with AddressSanitizer and UndefinedBehaviorSanitizer (CKPTDP_SANITIZE)
# in build-asan/ and runs the test suite under them; exits non-zero on any failure. The test
# cases tagged [release-only] are not registered there (CMakeLists.txt says why): they check
# numbers (thread-count determinism, CBC's optima) that the release build checks.
#
#   tools/sanitize.sh [extra ctest arguments, e.g. -R cli]
#
# Any sanitizer report aborts the process (-fno-sanitize-recover=all), so it fails the test
# that triggered it. The build type is RelWithDebInfo: the suite solves the paper case many
# times, which an unoptimised build makes several times slower than the extra compile time
# of -O2 costs. Its debug information is -g1 (GCC: functions and line tables, all that a
# sanitizer's stack trace prints) instead of -g: about 30 % less compile time (four of the
# slowest files, measured once), with the same file:line in every report.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${root}/build-asan"
jobs="$(nproc 2>/dev/null || echo 2)"

# CKPTDP_WERROR=ON in the environment (as tools/test-all.sh sets it) makes warnings errors.
cmake -S "${root}" -B "${build}" -DCKPTDP_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCKPTDP_BUILD_BENCH=OFF -DCKPTDP_WERROR="${CKPTDP_WERROR:-OFF}" >/dev/null
cmake --build "${build}" -j "${jobs}"

# detect_leaks: on by default on Linux x86-64, stated so a changed default cannot hide one.
# halt_on_error / print_stacktrace: one clear report per failing test.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
cd "${build}"
ctest --output-on-failure --no-tests=error -j "${jobs}" "$@"

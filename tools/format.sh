#!/usr/bin/env bash
# Formats the C++ sources with clang-format (.clang-format) and nothing else: clang-format
# treats any other file, Markdown included, as C++ and mangles it (issue 20: docs/cli.md).
#
#   tools/format.sh            every tracked .h and .cc file
#   tools/format.sh FILE...    only these, if they are C++ files
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -gt 0 ]]; then
  files=()
  for f in "$@"; do
    case $f in
      *.h | *.cc) files+=("$f") ;;
      *) echo "format: skipping $f (not a C++ file)" >&2 ;;
    esac
  done
else
  mapfile -t files < <(git ls-files -- '*.h' '*.cc')
fi
if ((${#files[@]})); then
  clang-format -i "${files[@]}"
fi

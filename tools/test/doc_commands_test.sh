#!/usr/bin/env bash
# Every fenced ```sh block of README.md and docs/*.md, run as written, in order, one shell a
# file (as a user pastes them: an `export` holds for the blocks after it), in a directory that
# looks like a fresh clone ($PWD/tools/..., $PWD/examples, ...). `bazel run //PKG:NAME -- ARGS`
# runs the built PKG/NAME as `bazel run` would (in its runfiles, BUILD_WORKING_DIRECTORY set);
# `tools/setup.sh`, `bazel build` and `bazel test` are what CI itself runs and are skipped. A
# block tagged ```sh gpu or ```sh cluster needs a GPU host or a cluster and is skipped here.
set -uo pipefail
runfiles="${TEST_SRCDIR}/tessel"
work="${TEST_TMPDIR}/clone"
mkdir -p "$work" "${TEST_TMPDIR}/home"
for entry in "$runfiles"/*; do ln -s "$entry" "$work/$(basename "$entry")"; done
export HOME="${TEST_TMPDIR}/home" RUNFILES_ROOT="$runfiles"
# Debian's python3 (NumPy and SciPy from tools/setup.sh), whatever else is first on PATH.
export PATH="/usr/bin:/bin:$PATH"

bazel() {
  local verb="$1"
  shift
  case "$verb" in
    build | test)
      echo "(doc test: 'bazel $verb $*' is what CI runs; skipped)"
      return 0 ;;
    run) ;;
    *) echo "doc test: unsupported 'bazel $verb'" >&2; return 1 ;;
  esac
  local target=""
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --) shift; break ;;
      //*) target="$1"; shift ;;
      -*) shift ;; # build flags (--define=...): the test's binaries are built already
      *) break ;;
    esac
  done
  local path="${target#//}"
  path="${path/://}"
  [[ -x "$RUNFILES_ROOT/$path" ]] || { echo "doc test: $target is not built for this test (add it to its data)" >&2; return 1; }
  (export BUILD_WORKING_DIRECTORY="$PWD"; cd "$RUNFILES_ROOT" && "$RUNFILES_ROOT/$path" "$@")
}
export -f bazel

failures=0
for doc in README.md docs/*.md; do
  script="$(awk '
    /^```sh[ \t]*$/ { inside = 1; ++n; printf "echo \"--- %s block %d (line %d)\"\n", FILENAME, n, NR; next }
    /^```/ { inside = 0; next }
    inside { sub(/^tools\/setup\.sh/, "echo \"(doc test: tools/setup.sh is what CI runs; skipped)\" #"); print }
  ' "$runfiles/$doc")"
  [[ -n "$script" ]] || continue
  echo "=== $doc"
  if ! (cd "$work" && timeout 900 bash -euo pipefail -c "$script"); then
    echo "FAIL: a command of $doc failed (above)" >&2
    failures=$((failures + 1))
  fi
done
[[ $failures -eq 0 ]] || { echo "$failures documents with failing commands" >&2; exit 1; }
echo PASS

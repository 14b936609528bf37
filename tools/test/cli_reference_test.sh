#!/usr/bin/env bash
# The command-line reference (docs/cli.md) and the backend pages against the tools themselves:
# every option a tool's --help lists (tessel-compile: every option it declares) is in that
# tool's section of docs/cli.md, and every knob `tessel-compile --list-knobs` prints for a
# backend is in its docs/backend-*.md. --help exits 0 on every tool; a wrong flag exits with
# the shared code 2 and names the flag.
set -uo pipefail
cd "${TEST_SRCDIR}/tessel"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# The section of docs/cli.md under the heading that names TOOL ("## compare, report, merge").
section() {
  awk -v tool="$1" '
    /^## / { inside = 0; n = split(substr($0, 4), names, /, */); for (i = 1; i <= n; ++i) if (names[i] == tool) inside = 1; next }
    inside' docs/cli.md
}

for entry in sweep:autotune/sweep tessel-bench:autotune/tessel-bench tessel-run:tools/tessel-run \
             report:autotune/report compare:autotune/compare merge:autotune/merge \
             bundle_consumer:runtime/examples/bundle_consumer; do
  tool="${entry%%:*}" bin="${entry#*:}"
  help="$("$bin" --help 2>&1)" || fail "$tool --help exits non-zero"
  out="$("$bin" a --no-such-flag 2>&1)"; rc=$?
  [[ $rc -eq 2 && "$out" == *"--no-such-flag"* ]] || fail "$tool --no-such-flag: exit $rc, '$out'"
  text="$(section "$tool")"
  [[ -n "$text" ]] || { fail "docs/cli.md has no section for $tool"; continue; }
  for option in $(grep -oE '^ +(-[a-z],)?--[a-z][a-z0-9-]*' <<<"$help" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    [[ "$option" == --help ]] && continue
    grep -qF -- "$option" <<<"$text" || fail "$tool's option $option is not in docs/cli.md's $tool section"
  done
done

# tessel-compile registers LLVM's options too: its own are the cl::opt it declares.
tools/tessel-compile --help > /dev/null 2>&1 || fail "tessel-compile --help exits non-zero"
out="$(tools/tessel-compile --no-such-flag 2>&1)"; rc=$?
[[ $rc -eq 2 && "$out" == *"no-such-flag"* ]] || fail "tessel-compile --no-such-flag: exit $rc, '$out'"
text="$(section tessel-compile)"
for option in $(grep -oE 'cl::opt<[^>]*> *[A-Za-z]+\("[a-z][a-z0-9-]*"' tools/tessel-compile.cpp | grep -oE '"[a-z][a-z0-9-]*"' | tr -d '"'); do
  flag="--$option"; [[ ${#option} -eq 1 ]] && flag="-$option"
  grep -qF -- "$flag" <<<"$text" || fail "tessel-compile's option $flag is not in docs/cli.md"
done
for list in "cl::list<[^>]*> *[A-Za-z]+\(\"[a-z][a-z0-9-]*\""; do
  for option in $(grep -oE "$list" tools/tessel-compile.cpp | grep -oE '"[a-z][a-z0-9-]*"' | tr -d '"'); do
    grep -qF -- "--$option" <<<"$text" || fail "tessel-compile's option --$option is not in docs/cli.md"
  done
done

# tessel-opt (mlir-opt's options): --help exits 0, an unknown flag 2.
tools/tessel-opt --help > /dev/null 2>&1 || fail "tessel-opt --help exits non-zero"
out="$(tools/tessel-opt --no-such-flag 2>&1)"; rc=$?
[[ $rc -eq 2 && "$out" == *"no-such-flag"* ]] || fail "tessel-opt --no-such-flag: exit $rc, '$out'"

# Every knob of every backend on its page.
for backend in cpu:cpu cuda:cuda:sm_90a rocm:rocm:gfx942; do
  page="docs/backend-${backend%%:*}.md" target="${backend#*:}"
  knobs="$(tools/tessel-compile --list-knobs --target="$target" 2>&1 | awk '/^knobs/ {k = 1; next} /^[a-z]/ {k = 0} k && NF {print $1}')"
  [[ -n "$knobs" ]] || fail "tessel-compile --list-knobs --target=$target listed no knobs"
  for knob in $knobs; do
    grep -qE -- "\`$knob\`" "$page" || fail "$target's knob $knob is not in $page"
  done
done

[[ $failures -eq 0 ]] || { echo "$failures failures" >&2; exit 1; }
echo PASS

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
# Whether FLAG is in TEXT as a whole option (--tie is not found in --tie-break).
mentions() { grep -qE -- "$1([^A-Za-z0-9_-]|\$)" <<<"$2"; }

# The section of docs/cli.md under the heading that names TOOL ("## compare, report, merge").
section() {
  awk -v tool="$1" '
    /^## / { inside = 0; n = split(substr($0, 4), names, /, */); for (i = 1; i <= n; ++i) if (names[i] == tool) inside = 1; next }
    inside' docs/cli.md
}

# --help exits 0; an unknown flag exits 2 and names it (ARGS come before it: a positional the
# tool needs, so that the flag is what it refuses).
exit_codes() { # TOOL BIN [ARGS...]
  local tool="$1" bin="$2" out rc
  shift 2
  "$bin" --help > /dev/null 2>&1 || fail "$tool --help exits non-zero"
  out="$("$bin" "$@" --no-such-flag 2>&1)"; rc=$?
  [[ $rc -eq 2 && "$out" == *"no-such-flag"* ]] || fail "$tool --no-such-flag: exit $rc, '$out'"
}

for entry in sweep:autotune/sweep tessel-bench:autotune/tessel-bench tessel-run:tools/tessel-run \
             report:autotune/report compare:autotune/compare merge:autotune/merge \
             bundle_consumer:runtime/examples/bundle_consumer; do
  tool="${entry%%:*}" bin="${entry#*:}"
  exit_codes "$tool" "$bin" a
  help="$("$bin" --help 2>&1)"
  text="$(section "$tool")"
  [[ -n "$text" ]] || { fail "docs/cli.md has no section for $tool"; continue; }
  for option in $(grep -oE '^ +(-[a-z],)?--[a-z][a-z0-9-]*' <<<"$help" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
    [[ "$option" == --help ]] && continue
    mentions "$option" "$text" || fail "$tool's option $option is not in docs/cli.md's $tool section"
  done
done

# tessel-compile and tessel-opt register LLVM's options too: tessel-compile's own are the
# cl::opt and cl::list it declares (tessel-opt's are mlir-opt's).
exit_codes tessel-compile tools/tessel-compile
exit_codes tessel-opt tools/tessel-opt
text="$(section tessel-compile)"
# (Declarations span lines: the file is read as one line.)
declared="$(tr '\n' ' ' < tools/tessel-compile.cpp | grep -oE 'cl::(opt|list)<[^>]*> *[A-Za-z]+\( *"[a-z][a-z0-9-]*"' | grep -oE '"[a-z][a-z0-9-]*"' | tr -d '"')"
[[ $(wc -w <<<"$declared") -ge 15 ]] || fail "found only $(wc -w <<<"$declared") of tessel-compile's declared options"
for option in $declared; do
  flag="--$option"; [[ ${#option} -eq 1 ]] && flag="-$option"
  mentions "$flag" "$text" || fail "tessel-compile's option $flag is not in docs/cli.md"
done

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

#!/bin/bash
# Builds tessel's fuzz entries as libFuzzer binaries with clang (AddressSanitizer and
# UndefinedBehaviorSanitizer), for campaigns longer than the *_fuzz_test targets run:
#
#   tools/build_fuzzers.sh [--out DIR] [--run SECONDS] [NAME...]
#
# NAME: one of the entries below (default: all). Each becomes DIR/NAME (default DIR:
# /tmp/tessel-fuzzers) with its seeds in DIR/NAME.corpus/; --run then runs each for SECONDS
# from the repository root, adding what it finds to the corpus and leaving a crashing input
# as DIR/NAME-crash-*. Run one by hand the same way:
#
#   cd REPO && DIR/NAME DIR/NAME.corpus -max_total_time=600 -artifact_prefix=DIR/NAME-
#
# The entries are the functions the *_fuzz_test targets drive under gcc (TESSEL_FUZZ_ENTRY in
# tools/fuzz/Fuzz.h); their sources are found with bazel query, so this script needs no list of
# files. Objects are kept in DIR/obj and rebuilt when a source or header they read changed.
# Needs clang 22 and its libFuzzer runtime (tools/setup.sh --with-clang installs them).
# Command lines of tessel-run and tessel-bench are fuzzed out of process by
# //tools/test:cli_fuzz_test; run it longer with --test_env=TESSEL_FUZZ_SECONDS=N.
set -euo pipefail
cd "$(dirname "$0")/.."

# name  bazel library  entry source
ENTRIES="
kernel_source   //compiler/frontend:fuzzers compiler/frontend/fuzz/ParserFuzzer.cpp
ttir            //compiler/frontend:fuzzers compiler/frontend/fuzz/TtirFuzzer.cpp
npy             //runtime:fuzzers           runtime/fuzz/NpyFuzzer.cpp
gpu_artifact    //runtime:fuzzers           runtime/fuzz/GpuArtifactFuzzer.cpp
bundle_manifest //runtime:fuzzers           runtime/fuzz/ManifestFuzzer.cpp
record_line     //autotune:fuzzers          autotune/fuzz/RecordFuzzer.cpp
configuration   //autotune:fuzzers          autotune/fuzz/ConfigurationFuzzer.cpp
benchmark_json  //autotune:fuzzers          autotune/fuzz/BenchmarkJsonFuzzer.cpp
kernel_spec     //kernels/spec:fuzzers      kernels/spec/fuzz/SpecFuzzer.cpp
"

usage() {
  echo "usage: tools/build_fuzzers.sh [--out DIR] [--run SECONDS] [NAME...]" >&2
  echo "names:" $(echo "$ENTRIES" | awk 'NF {print $1}') >&2
  exit 2
}

out=/tmp/tessel-fuzzers
run=0
names=()
while [ $# -gt 0 ]; do
  case "$1" in
  --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
  --run)
    [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || usage
    run=$2
    shift 2
    ;;
  -h | --help) usage ;;
  -*) echo "build_fuzzers: unknown flag $1" >&2; usage ;;
  *)
    echo "$ENTRIES" | awk -v n="$1" '$1 == n {found = 1} END {exit !found}' ||
      { echo "build_fuzzers: no fuzz entry named '$1'" >&2; usage; }
    names+=("$1")
    shift
    ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=($(echo "$ENTRIES" | awk 'NF {print $1}'))

llvm=/usr/lib/llvm-22
cxx=${CXX:-$llvm/bin/clang++}
if ! command -v "$cxx" >/dev/null; then
  echo "build_fuzzers: $cxx not found (tools/setup.sh --with-clang installs clang 22)" >&2
  exit 1
fi
mkdir -p "$out/obj"
bin=$(bazel info bazel-bin 2>/dev/null)
flags=(-std=c++17 -fno-rtti -g -O1 -fno-omit-frame-pointer
  -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr -fno-sanitize-recover=all
  -Wno-unused-command-line-argument -Wno-c++20-extensions -I. -I"$bin" -I"$llvm/include"
  -DTESSEL_LLVM_PREFIX="\"$llvm\"")

# True when object $1 is missing or older than anything its dependency file names.
stale() {
  local o=$1 f
  [ -f "$o" ] && [ -f "$o.d" ] || return 0
  for f in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$o.d"); do
    [ "$f" -nt "$o" ] && return 0
  done
  return 1
}

# Compiles source $1 (in the tree or, when generated, under bazel-bin) to object $2, extra flags
# after.
compile() {
  local src=$1 o=$2
  shift 2
  [ -f "$src" ] || src="$bin/$src"
  stale "$o" || return 0
  mkdir -p "$(dirname "$o")"
  "$cxx" "${flags[@]}" "$@" -MMD -MF "$o.d" -c "$src" -o "$o"
}

jobs_max=$(nproc)
for name in "${names[@]}"; do
  read -r _ label entry <<<"$(echo "$ENTRIES" | awk -v n="$name" '$1 == n')"
  echo "build_fuzzers: $name ($entry)"
  # Generated headers and sources.
  bazel build "$label" >"$out/bazel.log" 2>&1 || { cat "$out/bazel.log" >&2; exit 1; }
  # The library's own sources and its dependencies' in this workspace, less the fuzz entries.
  sources=$(bazel query "filter('\.(cpp|cc)$', deps($label)) except filter('^@', deps($label))" \
    2>/dev/null | sed -e 's|^//||' -e 's|:|/|' -e 's|^/||' | grep -v '/fuzz/' | sort)
  objects=()
  pids=()
  for src in $sources; do
    o="$out/obj/${src%.*}.o"
    objects+=("$o")
    compile "$src" "$o" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$jobs_max" ]; then
      wait "${pids[0]}"
      pids=("${pids[@]:1}")
    fi
  done
  for p in "${pids[@]}"; do wait "$p"; done
  compile "$entry" "$out/obj/entry-$name.o" -DTESSEL_LIBFUZZER
  libs=$(bazel query "filter('^@(openblas|benchmark|libsodium)', deps($label))" 2>/dev/null |
    sed -n -e 's|^@openblas.*|-lopenblas|p' -e 's|^@libsodium.*|-l:libsodium.a|p' | sort -u)
  "$cxx" -fsanitize=fuzzer,address,undefined "$out/obj/entry-$name.o" "${objects[@]}" \
    -L"$llvm/lib" -lMLIR -lLLVM -Wl,-rpath,"$llvm/lib" \
    $(ls /usr/lib/x86_64-linux-gnu/libabsl_*.so | sed -e 's|.*/lib\(absl_.*\)\.so$|-l\1|') \
    $libs -ldl -pthread -o "$out/$name"
  rm -rf "$out/$name.corpus.seeds"
  mkdir -p "$out/$name.corpus" "$out/$name.corpus.seeds"
  TESSEL_FUZZ_WRITE_SEEDS="$out/$name.corpus.seeds" "$out/$name"
  cp -n "$out/$name.corpus.seeds"/* "$out/$name.corpus/"
  rm -rf "$out/$name.corpus.seeds"
  echo "build_fuzzers: built $out/$name ($(ls "$out/$name.corpus" | wc -l) inputs in its corpus)"
done

[ "$run" -gt 0 ] || exit 0
status=0
for name in "${names[@]}"; do
  echo "build_fuzzers: running $name for $run s"
  ASAN_OPTIONS=detect_leaks=0 "$out/$name" "$out/$name.corpus" -max_total_time="$run" \
    -timeout=30 -rss_limit_mb=4096 -artifact_prefix="$out/$name-" -print_final_stats=1 \
    >"$out/$name.log" 2>&1 || { status=1; echo "build_fuzzers: $name found a failure:"; \
    tail -30 "$out/$name.log"; }
  grep -E '^stat::number_of_executed_units|^Done' "$out/$name.log" || true
done
exit $status

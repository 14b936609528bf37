#!/bin/bash
# Builds the frontend's fuzz target (compiler/frontend/fuzz/ParserFuzzer.cpp) as a libFuzzer
# binary with clang: tools/build_parser_fuzzer.sh [OUT]. Then run it on the seed corpus:
#   OUT -max_total_time=60 compiler/frontend/test/samples
# Under the default gcc toolchain the same entry point runs as //compiler/frontend:parser_fuzz_test.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/tessel_parser_fuzzer}
cxx=${CXX:-clang++}
if ! command -v "$cxx" >/dev/null; then
  echo "build_parser_fuzzer: $cxx not found (apt-get install clang)" >&2
  exit 1
fi
bazel build //compiler/dialect/triton:triton >/dev/null
bin=$(bazel info bazel-bin 2>/dev/null)
llvm=/usr/lib/llvm-22
"$cxx" -std=c++17 -fno-rtti -fsanitize=fuzzer,address -g -O1 -I. -I"$bin" -I"$llvm/include" \
  compiler/frontend/fuzz/ParserFuzzer.cpp compiler/frontend/Parser.cpp \
  compiler/frontend/Lexer.cpp compiler/frontend/SourceLocation.cpp \
  compiler/frontend/CodeGen.cpp compiler/frontend/Builtins.cpp \
  compiler/dialect/triton/TritonDialect.cpp compiler/dialect/triton/TritonOps.cpp \
  -L"$llvm/lib" -lMLIR -lLLVM -Wl,-rpath,"$llvm/lib" \
  -labsl_statusor -labsl_status -labsl_cord -labsl_strings -labsl_str_format_internal \
  -labsl_throw_delegate -labsl_raw_logging_internal -o "$out"
echo "built $out"

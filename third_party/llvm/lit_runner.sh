#!/usr/bin/env bash
# Runs one lit test file: lit_runner.sh LIT TEST_FILE TOOL...
# Puts each TOOL's directory on PATH and writes a minimal lit config next to a copy of the test,
# so that RUN lines call `tessel-opt %s | FileCheck %s` as in upstream MLIR.
set -euo pipefail

lit_bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
test_file="$2"
shift 2
tool_path=""
for tool in "$@"; do
  dir="$(cd "$(dirname "$tool")" && pwd)"
  tool_path="$dir:$tool_path"
done

work="${TEST_TMPDIR:-$(mktemp -d)}/lit"
mkdir -p "$work"
cp "$test_file" "$work/"
cat >"$work/lit.cfg.py" <<CFG
import lit.formats
config.name = "tessel"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".ttir", ".py"]
config.test_source_root = "$work"
config.environment["PATH"] = "$tool_path" + config.environment.get("PATH", "/usr/bin:/bin")
# The workspace's files a test names in its data (bazel runs the test from that root).
config.substitutions.append(("%{workspace}", "$PWD"))
CFG
exec "$lit_bin" -v "$work/$(basename "$test_file")"

#!/usr/bin/env bash
# tools/gpu_pack.sh OUT [CANDIDATES_DIR]
#
# Packs what a GPU host needs to run tessel's runtime-only binaries, which are built here:
# tessel-bench and tessel-run (no LLVM, no compiler), the shared libraries they need that a
# host with only the NVIDIA driver lacks (Abseil's), and optionally the candidates a
# `sweep --target=cuda:... --build-only --out=CANDIDATES_DIR` built. Prints the command to run
# on the GPU host. Build first: bazel build //autotune:tessel-bench //tools:tessel-run
set -euo pipefail
out="${1:?usage: tools/gpu_pack.sh OUT [CANDIDATES_DIR]}"
candidates="${2:-}"
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/bazel-bin"
for b in autotune/tessel-bench tools/tessel-run; do
  [[ -x "$bin/$b" ]] || { echo "gpu_pack: $bin/$b is not built (bazel build //autotune:tessel-bench //tools:tessel-run)" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
cp "$bin/autotune/tessel-bench" "$bin/tools/tessel-run" "$out/bin/"
# The libraries a driver-only host lacks: Abseil (the C library, libstdc++, OpenBLAS and the
# driver are there).
for b in "$out"/bin/*; do
  ldd "$b" | awk '/=> \// {print $3}' | grep -E 'libabsl_' || true
done | sort -u | while read -r lib; do cp -L "$lib" "$out/lib/"; done
if [[ -n "$candidates" ]]; then
  mkdir -p "$out/candidates"
  cp -r "$candidates"/candidates "$candidates"/candidates.jsonl "$candidates"/run.sh "$out/candidates/"
  rm -f "$out/candidates/results.jsonl"
fi
cat > "$out/run-on-gpu-host.sh" <<'SH'
#!/bin/sh
# Runs the packed candidates on this (GPU) host; results in candidates/results.jsonl.
here="$(cd "$(dirname "$0")" && pwd)"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
sh "$here/candidates/run.sh" "$here/bin/tessel-bench"
SH
chmod +x "$out/run-on-gpu-host.sh"
du -sh "$out" | awk '{print "gpu_pack: " $1 " in " $2}'
echo "on the GPU host: $out/run-on-gpu-host.sh   (or: LD_LIBRARY_PATH=$out/lib $out/bin/tessel-bench --device cuda ...)"

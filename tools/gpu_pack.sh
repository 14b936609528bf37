#!/usr/bin/env bash
# tools/gpu_pack.sh OUT [CANDIDATES_DIR...]
#
# Packs what a GPU host needs to run tessel's runtime-only binaries, which are built here:
# tessel-bench, tessel-run and the example bundle consumer (no LLVM, no compiler), the shared libraries they need that a
# host with only the NVIDIA driver lacks (Abseil's, unless they were linked statically), and
# the candidates of any number of `sweep --target=cuda:... --build-only --out=DIR` runs, each
# as OUT/<basename of DIR>/. Prints the command to run on the GPU host, which measures every
# packed directory in turn (results in OUT/<name>/results.jsonl, copied back beside that
# directory's candidates.jsonl for `sweep --ingest=DIR`). Build first, Abseil linked
# statically so that the GPU host needs only the driver, glibc, libstdc++ and OpenBLAS:
#   bazel build --define=absl=static //autotune:tessel-bench //tools:tessel-run \
#     //runtime/examples:bundle_consumer //compiler/backend/cuda/test:gpu_e2e_test //tools:tessel-compile
# The checks against Triton go along (OUT/gpu_checks/run-philox-check.sh OUTDIR on the GPU host).
set -euo pipefail
out="${1:?usage: tools/gpu_pack.sh OUT [CANDIDATES_DIR...]}"
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="$root/bazel-bin"
binaries=(autotune/tessel-bench tools/tessel-run runtime/examples/bundle_consumer)
for b in "${binaries[@]}"; do
  [[ -x "$bin/$b" ]] || { echo "gpu_pack: $bin/$b is not built (bazel build //autotune:tessel-bench //tools:tessel-run //runtime/examples:bundle_consumer)" >&2; exit 1; }
done
names=()
for dir in "$@"; do
  [[ -f "$dir/run.sh" && -f "$dir/candidates.jsonl" ]] ||
    { echo "gpu_pack: $dir is not the output of sweep --build-only (no run.sh / candidates.jsonl)" >&2; exit 1; }
  name="$(basename "$dir")"
  for n in "${names[@]+"${names[@]}"}"; do
    [[ "$n" != "$name" ]] || { echo "gpu_pack: two candidate directories are named $name" >&2; exit 1; }
  done
  [[ "$name" != bin && "$name" != lib ]] || { echo "gpu_pack: a candidate directory may not be named $name" >&2; exit 1; }
  names+=("$name")
done
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
for b in "${binaries[@]}"; do cp "$bin/$b" "$out/bin/"; done
# The libraries a driver-only host lacks: Abseil (the C library, libstdc++, OpenBLAS and the
# driver are there).
for b in "$out"/bin/*; do
  ldd "$b" | awk '/=> \// {print $3}' | grep -E 'libabsl_' || true
done | sort -u | while read -r lib; do cp -L "$lib" "$out/lib/"; done
# The zoo is its specs and sources (kernels/<folder>/*.toml, *.py): the GPU tests read them
# from kernels/ under their working directory (a --build-only folder carries its own).
copy_zoo() { # DIR
  local f
  for f in "$root"/kernels/*/*.toml "$root"/kernels/*/*.py; do
    mkdir -p "$1/kernels/$(basename "$(dirname "$f")")"
    cp "$f" "$1/kernels/$(basename "$(dirname "$f")")/"
  done
}
# The runtime-only GPU tests and the artifacts the build compiled for them, at the relative
# paths they read (bazel build //compiler/backend/cuda/test:gpu_e2e_test first).
test="$bin/compiler/backend/cuda/test/gpu_e2e_test"
if [[ -x "$test" ]]; then
  mkdir -p "$out/tests/compiler/backend/cuda/test"
  cp "$test" "$out/tests/"
  cp "$bin"/compiler/backend/cuda/test/*.artifact "$out/tests/compiler/backend/cuda/test/"
  copy_zoo "$out/tests"
fi
# The checks against Triton on the GPU host (tools/gpu_checks/): the scripts, the kernel
# sources they give Triton (attention_baselines.py times torch SDPA and the zoo's attention
# through Triton, matmul_baselines.py cuBLAS and the zoo's matmul), and the cuda artifact of
# the same kernel that tessel-run runs.
mkdir -p "$out/gpu_checks"
cp "$root"/tools/gpu_checks/*.py "$root"/compiler/frontend/test/kernels/frontend_kernels.py \
  "$root"/compiler/frontend/test/kernels/helpers.py "$root"/kernels/attention/attention.py \
  "$root"/kernels/matmul/matmul.py "$out/gpu_checks/"
if [[ -x "$bin/tools/tessel-compile" ]]; then
  "$bin/tools/tessel-compile" "$root/compiler/frontend/test/kernels/frontend_kernels.py" \
    --entry philox_kernel --target cuda:sm_90 --signature '*i32,*i32,*fp32,*i32,i64,i32' \
    --constexpr BLOCK=64 --emit artifact -o "$out/gpu_checks/philox.artifact"
fi
for dir in "$@"; do
  name="$(basename "$dir")"
  mkdir -p "$out/$name"
  cp -r "$dir"/candidates "$dir"/candidates.jsonl "$dir"/run.sh "$out/$name/"
  # The zoo's specs and sources, and other specs' copies: tessel-bench reads them there.
  for sub in kernels specs; do
    if [[ -d "$dir/$sub" ]]; then cp -r "$dir/$sub" "$out/$name/"; fi
  done
  rm -f "$out/$name/results.jsonl"
done
cat > "$out/run-on-gpu-host.sh" <<'SH'
#!/bin/sh
# Runs the GPU tests, then every packed candidate directory on this (GPU) host; results in
# <dir>/results.jsonl.
here="$(cd "$(dirname "$0")" && pwd)"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -x "$here/tests/gpu_e2e_test" ]; then
  (cd "$here/tests" && ./gpu_e2e_test) || echo "gpu_e2e_test FAILED"
fi
for run in "$here"/*/run.sh; do
  [ -f "$run" ] || continue
  dir="$(dirname "$run")"
  start=$(date +%s)
  sh "$run" "$here/bin/tessel-bench"
  echo "$(basename "$dir"): $(grep -c '"status"' "$dir/results.jsonl" 2>/dev/null || echo 0) results in $(( $(date +%s) - start )) s: $dir/results.jsonl"
done
SH
chmod +x "$out/run-on-gpu-host.sh"
cat > "$out/gpu_checks/run-philox-check.sh" <<'SH'
#!/bin/sh
# tessel's random numbers against Triton's own on this GPU host (needs Triton and PyTorch):
# tessel-run runs philox_kernel's cuda artifact, philox_vs_triton.py runs the same source with
# Triton. Usage: run-philox-check.sh OUTDIR
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: run-philox-check.sh OUTDIR}"
seed=81985529216486895 n=300
LD_LIBRARY_PATH="$here/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$here/../bin/tessel-run" \
  "$here/philox.artifact" --device cuda --entry philox_kernel --grid 5 --arg out:1500:i32 \
  --arg out:1200:i32 --arg out:3000:f32 --arg out:600:i32 --arg scalar:i64:$seed \
  --arg scalar:i32:$n --out-dir "$out" && python3 "$here/philox_vs_triton.py" "$out" $seed $n
SH
chmod +x "$out/gpu_checks/run-philox-check.sh"
du -sh "$out" | awk '{print "gpu_pack: " $1 " in " $2}'
echo "on the GPU host: $out/run-on-gpu-host.sh   (or: LD_LIBRARY_PATH=$out/lib $out/bin/tessel-bench --device cuda ...)"

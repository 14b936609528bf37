#!/usr/bin/env bash
# sweep --build-only --pack=DIR for a GPU target, without a GPU: the folder carries the
# runtime-only binaries (their libraries resolve from DIR/lib), the GPU tests and the checks;
# DIR/run spreads the groups over a fake device list, one worker a device (a fake tessel-bench
# says which device it ran on), CUDA_VISIBLE_DEVICES is respected, a bad --devices is refused,
# and `sweep --ingest=DIR` reads every candidate back into records and a bundle. A cuda sweep
# asked to measure here says to build a pack.
set -euo pipefail
cd "${TEST_SRCDIR}/tessel"
T="${TEST_TMPDIR}"
fail() { echo "FAIL: $*" >&2; exit 1; }
spec=examples/rms_norm/rms_norm.toml

out="$(autotune/sweep --target=cuda:sm_90a --spec=$spec 2>&1)" && fail "a cuda sweep without --build-only ran"
[[ "$out" == *"--build-only --pack=DIR"* ]] || fail "no pointer to --build-only --pack: $out"

autotune/sweep --target=cuda:sm_90a --build-only --pack="$T/pack" --spec=$spec \
  --strategy=exhaustive > "$T/build.log" 2>&1 || { cat "$T/build.log"; fail "sweep --pack"; }
P="$T/pack"
for f in run run.sh candidates.jsonl bin/tessel-bench bin/tessel-run bin/bundle_consumer \
         tests/gpu_e2e_tests gpu_checks/matmul_baselines.py gpu_checks/philox.artifact; do
  [[ -e "$P/$f" ]] || fail "the pack lacks $f"
done
for f in run gpu_checks/run-philox-check.sh; do
  [[ -x "$P/$f" ]] || fail "$f is not executable"
done
for b in "$P"/bin/* "$P/tests/gpu_e2e_tests"; do
  if LD_LIBRARY_PATH="$P/lib" ldd "$b" | grep -q "not found"; then fail "$b needs a library the pack lacks"; fi
done
ls "$P"/tests/compiler/backend/cuda/test/*.artifact > /dev/null || fail "the GPU tests' artifacts are missing"
built=$(grep -c '"status":"built"' "$P/candidates.jsonl")
[[ $built -ge 4 ]] || fail "only $built candidates built"

# A fake runner: every measurement ok, saying which device it ran on.
cat > "$P/bin/tessel-bench" <<'SH'
#!/bin/sh
echo "{\"status\":\"ok\",\"median_seconds\":0.001,\"min_seconds\":0.001,\"max_seconds\":0.001,\"repetitions\":3,\"samples_seconds\":[0.001,0.001,0.001],\"environment\":{\"device\":\"cuda\",\"gpu\":\"Fake GPU\",\"cuda_visible_devices\":\"${CUDA_VISIBLE_DEVICES:-}\"}}"
SH
chmod +x "$P/bin/tessel-bench"

"$P/run" --devices=0,1 --no-tests > "$T/run.log" 2>&1 || { cat "$T/run.log"; fail "run --devices=0,1"; }
markers=$(grep -c '^{"candidate": ' "$P/results.jsonl")
[[ $markers -eq $built ]] || fail "$markers of $built candidates measured"
for d in 0 1; do
  grep -q "\"cuda_visible_devices\":\"$d\"" "$P/results.jsonl" || fail "nothing ran on device $d"
done
CUDA_VISIBLE_DEVICES=3,5 "$P/run" --no-tests > "$T/run2.log" 2>&1 || { cat "$T/run2.log"; fail "run with CUDA_VISIBLE_DEVICES"; }
for d in 3 5; do
  grep -q "\"cuda_visible_devices\":\"$d\"" "$P/results.jsonl" || fail "CUDA_VISIBLE_DEVICES=3,5: nothing ran on $d"
done
if "$P/run" --devices=0,,1 --no-tests > /dev/null 2>&1; then fail "--devices=0,,1 was accepted"; fi

autotune/sweep --ingest="$P" --spec=$spec --target=cuda:sm_90a > "$T/ingest0.log" 2>&1 ||
  { cat "$T/ingest0.log"; fail "ingest of one GPU model on two devices"; }
# Two GPU models in one group: refused unless --mixed-devices. (The fake runner now says odd
# candidates ran on another model.)
sed -i 's/\\"gpu\\":\\"Fake GPU\\"/\\"gpu\\":\\"$model\\"/' "$P/bin/tessel-bench"
sed -i '1a case "$*" in *candidates/[13579].artifact*) model="Fake GPU B" ;; *) model="Fake GPU A" ;; esac' "$P/bin/tessel-bench"
"$P/run" --devices=0 --no-tests > "$T/run3.log" 2>&1 || { cat "$T/run3.log"; fail "run, two models"; }
grep -q 'Fake GPU B' "$P/results.jsonl" && grep -q 'Fake GPU A' "$P/results.jsonl" || fail "the fake runner did not report two models: $(cat "$P/bin/tessel-bench")"
out="$(autotune/sweep --ingest="$P" --spec=$spec --target=cuda:sm_90a 2>&1)" && fail "a group of two GPU models was ingested"
[[ "$out" == *"different GPU models"* ]] || fail "no clear refusal of mixed models: $out"
autotune/sweep --ingest="$P" --spec=$spec --target=cuda:sm_90a --mixed-devices > "$T/ingest.log" 2>&1 ||
  { cat "$T/ingest.log"; fail "ingest --mixed-devices"; }
records=$(grep -c '"status":"ok"' "$P/records.jsonl")
[[ $records -eq $built ]] || fail "$records of $built candidates recorded"
grep -q '"cuda_visible_devices' "$P/records.jsonl" || fail "the records do not say which device"
[[ -f "$P/bundle/manifest.json" ]] || fail "no bundle"
echo PASS

#!/usr/bin/env bash
# docs/records.schema.json and docs/bundle.schema.json against real files: a sweep of the
# examples' kernel specs writes records and a bundle (schema 2, with launch contracts), each
# validated; a manifest broken on purpose must fail the validation (the check can fail).
set -euo pipefail
cd "${TEST_SRCDIR}/tessel"
out="${TEST_TMPDIR}/sweep"
autotune/sweep --spec=examples --strategy=exhaustive --min-time=0.001 --flush=off \
  --out="$out" > "${TEST_TMPDIR}/sweep.log" 2>&1 || { cat "${TEST_TMPDIR}/sweep.log"; exit 1; }
grep -q '"launch"' "$out/bundle/manifest.json" || { echo "FAIL: no launch contract in the bundle"; exit 1; }
/usr/bin/python3 autotune/test/validate_json.py docs/records.schema.json "$out/records.jsonl"
/usr/bin/python3 autotune/test/validate_json.py docs/bundle.schema.json "$out/bundle/manifest.json"
sed 's/"kind": "meta"/"kind": "magic"/' "$out/bundle/manifest.json" > "${TEST_TMPDIR}/broken.json"
if /usr/bin/python3 autotune/test/validate_json.py docs/bundle.schema.json "${TEST_TMPDIR}/broken.json" 2>/dev/null; then
  echo "FAIL: a manifest with an unknown argument kind conforms to the schema"
  exit 1
fi
echo "schemas hold on real records and bundles"

#!/usr/bin/env bash
# Two real sweeps (random and evolutionary search, a compute-bound and a memory-bound kernel),
# then what dashboards do with them: `autotune report` rendered in headless Chromium (no console
# errors, every chart with data, a screenshot that is not blank), `autotune compare`, and Google
# Benchmark's own compare.py on the sweeps' benchmark.json.
# Arguments: the sweep, report and compare binaries.
set -euo pipefail
SWEEP=$1 REPORT=$2 COMPARE=$3
T=${TEST_TMPDIR:?}
export HOME=$T/home
mkdir -p "$HOME"
fail() { echo "FAIL: $*" >&2; exit 1; }

for run in random evolutionary; do
  "$SWEEP" --kernels=matmul --dtypes=f32 --shapes=M=64,N=64,K=64 --strategy=$run --budget=5 \
    --min-time=0.005 --flush=off --out="$T/$run" > "$T/$run.log" 2>&1 || { cat "$T/$run.log"; fail "sweep $run"; }
  "$SWEEP" --kernels=row_sum --strategy=$run --budget=3 --min-time=0.005 --resume \
    --out="$T/$run" >> "$T/$run.log" 2>&1 || { cat "$T/$run.log"; fail "sweep $run (row_sum)"; }
done

"$REPORT" "$T/random" "$T/evolutionary" -o "$T/report.html" || fail "report"
grep -q "<script>" "$T/report.html" || fail "no script in the report"
grep -q "https\?://[a-z]*\.[a-z]*/.*\.js" "$T/report.html" && fail "the report loads a script from the network"

chrome() {
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --user-data-dir="$T/profile" --enable-logging=stderr --v=0 "$@"
}
chrome --dump-dom "file://$T/report.html" > "$T/dom.html" 2> "$T/chrome.log" || { cat "$T/chrome.log"; fail "chromium"; }
body=$(grep -o '<body[^>]*>' "$T/dom.html" | head -1)
echo "rendered: $body"
[[ $body == *'data-ready="yes"'* ]] || fail "the page's script did not finish: $body"
[[ $body == *'data-errors="0"'* ]] || fail "errors while rendering: $body"
[[ $body == *'data-empty-charts="0"'* ]] || fail "a chart without data: $body"
charts=$(sed -n 's/.*data-charts="\([0-9]*\)".*/\1/p' <<< "$body")
# Per kernel: a roofline chart, per shape a heat map and a progress chart, and the trend.
[ "${charts:-0}" -ge 8 ] || fail "only ${charts:-0} charts"
if grep "INFO:CONSOLE" "$T/chrome.log"; then fail "console messages while rendering"; fi

chrome --screenshot="$T/shot.png" --window-size=1280,2400 --hide-scrollbars \
  "file://$T/report.html" 2>> "$T/chrome.log" || fail "screenshot"
/usr/bin/python3 - "$T/shot.png" <<'PY' || fail "blank screenshot"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, width, height = 8, b"", 0, 0
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), (depth, ctype)
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
raw = zlib.decompress(idat)
stride = width * bpp
prev = bytearray(stride)
colors, nonwhite = set(), 0
for y in range(height):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    if y % 4 == 0:
        for x in range(0, width, 4):
            px = bytes(line[x * bpp:x * bpp + 3])
            colors.add(px)
            nonwhite += px != b"\xff\xff\xff"
samples = (height // 4 + 1) * (width // 4 + 1)
print("screenshot %dx%d: %d colours, %.1f%% not white" % (width, height, len(colors), 100.0 * nonwhite / samples))
assert len(colors) > 20 and nonwhite > samples // 50, "blank"
PY

# autotune compare on the two real sweeps: a verdict per benchmark, never a usage error.
set +e
"$COMPARE" "$T/random" "$T/evolutionary" > "$T/compare.txt" 2>&1
rc=$?
set -e
cat "$T/compare.txt"
[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "compare exited with $rc"
grep -q "matmul/f32/K=64,M=64,N=64/cpu" "$T/compare.txt" || fail "compare lacks matmul"
grep -q "row_sum/f32/" "$T/compare.txt" || fail "compare lacks row_sum"

# Google Benchmark's compare.py reads the sweeps' benchmark.json and runs its U test. (It
# prints no p-value row when the p-value is exactly 0, as with fully separated samples, so the
# U test's row is checked on a sweep against itself: p = 1.)
/usr/bin/python3 /usr/share/benchmark/compare.py benchmarks "$T/random/benchmark.json" \
  "$T/evolutionary/benchmark.json" > "$T/gbench.txt" 2>&1 || { cat "$T/gbench.txt"; fail "compare.py"; }
for id in "matmul/f32/K=64,M=64,N=64/cpu" "row_sum/f32/cols=1000,rows=1024/cpu"; do
  grep -q "$id" "$T/gbench.txt" || { tail -5 "$T/gbench.txt"; fail "compare.py lacks $id"; }
done
/usr/bin/python3 /usr/share/benchmark/compare.py benchmarks "$T/random/benchmark.json" \
  "$T/random/benchmark.json" > "$T/gbench-self.txt" 2>&1 || { tail -5 "$T/gbench-self.txt"; fail "compare.py"; }
grep -q "matmul/f32/K=64,M=64,N=64/cpu_pvalue.*1.0000.*U Test" "$T/gbench-self.txt" || { tail -5 "$T/gbench-self.txt"; fail "no U test in compare.py's output"; }
echo "PASS"

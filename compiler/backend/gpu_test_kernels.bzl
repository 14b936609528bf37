"""The end-to-end test kernels both GPU backends compile (cuda/test, rocm/test).

Each entry is (name, source label, entry, extra tessel-compile flags): Triton 3.6's TTIR of
end-to-end kernels, the frontend tests' math kernel with its transcendental functions, the
kernels of cuda/test/vector_access.mlir (vector loads and stores; the divisibility the runtime
checks at launch), a grouped matmul whose operands are found through int64 address tables.
"""

_TTIR = "//compiler/dialect/triton:test/triton_printed/%s.ttir"

_MATH = ("//compiler/frontend:test/kernels/frontend_kernels.py", "math_kernel",
         "--signature '*fp32,*fp32,*fp32,i32' --constexpr BLOCK=128")

_VECTORS = "//compiler/backend/cuda/test:vector_access.mlir"

_GROUPED = ("//compiler/frontend:test/kernels/frontend_kernels.py", "grouped_matmul_kernel",
            "--signature '*i64,*i64,*i64,*i32' --constexpr BM=64 --constexpr BN=64 " +
            "--constexpr BK=32")

GPU_TEST_KERNELS = [
    ("vadd", _TTIR % "vadd_block128", "vadd", ""),
    ("row_cumsum", _TTIR % "row_cumsum_block512", "row_cumsum", ""),
    ("atomic_histogram", _TTIR % "atomic_histogram_block128", "atomic_histogram", ""),
    ("noinline_axpy", _TTIR % "noinline_axpy_block128", "noinline_axpy", ""),
    ("math", _MATH[0], _MATH[1], _MATH[2]),
    ("aligned", _VECTORS, "aligned", ""),
    ("rows_divisible", _VECTORS, "rows_divisible", ""),
    ("grouped_matmul", _GROUPED[0], _GROUPED[1], _GROUPED[2]),
]

def gpu_test_artifacts(target, suffix = "", flags = {}):
    """One genrule per test kernel: NAME + suffix + ".artifact", compiled for `target`.

    `flags`: extra tessel-compile flags by kernel name. Returns the artifacts' labels.
    """
    labels = []
    for name, src, entry, extra in GPU_TEST_KERNELS:
        out = name + suffix
        native.genrule(
            name = out + "_artifact",
            srcs = [src],
            outs = [out + ".artifact"],
            cmd = "$(location //tools:tessel-compile) $< --entry " + entry + " " + extra + " " +
                  flags.get(name, "") + " --target " + target + " --emit artifact -o $@",
            tools = ["//tools:tessel-compile"],
        )
        labels.append(":" + out + ".artifact")
    return labels

"""`lit_tests`: one `bazel test` target per lit test file, run by LLVM 22's lit + FileCheck."""

_DEFAULT_TOOLS = [
    "//tools:tessel-opt",
    "@llvm//:bin/FileCheck",
    "@llvm//:bin/not",
    "@llvm//:bin/count",
]

def lit_tests(name, srcs, tools = [], data = [], size = "small", tags = []):
    """Defines `<name>/<file>` sh_tests for each lit test in `srcs` and a test_suite `name`.

    Each test runs `lit` on its file with the tools' directories on PATH, so RUN lines call
    `tessel-opt %s | FileCheck %s` directly.
    """
    all_tools = _DEFAULT_TOOLS + tools
    tests = []
    for src in srcs:
        test_name = "%s/%s" % (name, src)
        native.sh_test(
            name = test_name,
            size = size,
            srcs = ["//third_party/llvm:lit_runner.sh"],
            args = ["$(location @llvm//:bin/lit)", "$(location %s)" % src] +
                   ["$(location %s)" % t for t in all_tools],
            data = [src, "@llvm//:bin/lit"] + all_tools + data,
            tags = tags,
        )
        tests.append(test_name)
    native.test_suite(name = name, tests = tests, tags = tags)

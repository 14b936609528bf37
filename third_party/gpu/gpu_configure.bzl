"""Detection of the optional GPU toolkits (CUDA, ROCm/HIP).

Each rule generates a repository with `defs.bzl` (FOUND, ROOT, REASON) and a `headers` target.
When the toolkit is absent, `headers` is incompatible with every platform, so everything that
depends on it is skipped by `bazel build //...`, and `gpu_library` / `gpu_test` print why.
"""

def _write(rctx, found, root, include, reason, what):
    rctx.file("defs.bzl", "FOUND = %r\nROOT = %r\nREASON = %r\n" % (found, root, reason))
    if found:
        rctx.symlink(include, "include")
        body = """
cc_library(
    name = "headers",
    hdrs = glob(["include/**/*.h", "include/**/*.hpp"], allow_empty = True),
    includes = ["include"],
)
"""
    else:
        body = """
# %s
cc_library(
    name = "headers",
    target_compatible_with = ["@tessel//third_party/gpu:toolkit_missing"],
)
""" % reason
    rctx.file("BUILD.bazel", "# Generated: %s detection.\npackage(default_visibility = [\"//visibility:public\"])\n%s" % (what, body))

def _cuda_configure_impl(rctx):
    candidates = []
    if rctx.os.environ.get("CUDA_PATH"):
        candidates.append(rctx.os.environ["CUDA_PATH"])
    candidates.append("/usr/local/cuda")
    for root in candidates:
        if rctx.path(root + "/include/cuda.h").exists:
            _write(rctx, True, root, root + "/include", "", "CUDA toolkit")
            return
    reason = "CUDA toolkit not found (no include/cuda.h under %s; set CUDA_PATH to point at one); CUDA targets are skipped." % " or ".join(candidates)
    _write(rctx, False, "", "", reason, "CUDA toolkit")

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    environ = ["CUDA_PATH"],
    configure = True,
    local = True,
)

def _rocm_configure_impl(rctx):
    candidates = []
    if rctx.os.environ.get("ROCM_PATH"):
        candidates.append(rctx.os.environ["ROCM_PATH"])
    candidates += ["/usr", "/opt/rocm"]
    for root in candidates:
        if rctx.path(root + "/include/hip/hip_runtime_api.h").exists:
            # /usr/include is the compiler's own include directory: no symlink needed there, and
            # globbing it would pull in every system header.
            if root == "/usr":
                rctx.file("defs.bzl", "FOUND = True\nROOT = '/usr'\nREASON = ''\n")
                rctx.file("BUILD.bazel", "# Generated: HIP headers from libamdhip64-dev.\npackage(default_visibility = [\"//visibility:public\"])\ncc_library(name = \"headers\")\n")
                return
            _write(rctx, True, root, root + "/include", "", "ROCm/HIP")
            return
    _write(rctx, False, "", "", "HIP headers not found (looked for include/hip/hip_runtime_api.h in %s; Debian package libamdhip64-dev); ROCm targets are skipped." %
                                ", ".join(candidates), "ROCm/HIP")

rocm_configure = repository_rule(
    implementation = _rocm_configure_impl,
    environ = ["ROCM_PATH"],
    configure = True,
    local = True,
)

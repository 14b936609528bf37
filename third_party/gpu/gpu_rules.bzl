"""Macros for targets that need an optional GPU toolkit."""

load("@local_cuda//:defs.bzl", CUDA_FOUND = "FOUND", CUDA_REASON = "REASON")
load("@local_rocm//:defs.bzl", ROCM_FOUND = "FOUND", ROCM_REASON = "REASON")

def _skip_note(kind, name):
    reason = CUDA_REASON if kind == "cuda" else ROCM_REASON
    print("skipping //%s:%s: %s" % (native.package_name(), name, reason))

def _toolkit(kind):
    if kind == "cuda":
        return CUDA_FOUND, "@local_cuda//:headers"
    if kind == "rocm":
        return ROCM_FOUND, "@local_rocm//:headers"
    fail("unknown GPU toolkit %r (expected cuda or rocm)" % kind)

def gpu_cc_library(name, toolkit, deps = [], **kwargs):
    """A cc_library that needs the `toolkit` (cuda or rocm) headers; skipped with a note when absent."""
    found, headers = _toolkit(toolkit)
    if not found:
        _skip_note(toolkit, name)
    native.cc_library(name = name, deps = deps + [headers], **kwargs)

def gpu_cc_test(name, toolkit, deps = [], **kwargs):
    """A cc_test that needs the `toolkit` (cuda or rocm) headers; skipped with a note when absent."""
    found, headers = _toolkit(toolkit)
    if not found:
        _skip_note(toolkit, name)
    native.cc_test(name = name, deps = deps + [headers], **kwargs)

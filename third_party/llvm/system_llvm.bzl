"""Repository rule exposing the system LLVM/MLIR 22 installation (Debian's llvm-22 packages)."""

_DEFAULT_PREFIX = "/usr/lib/llvm-22"

_REQUIRED = {
    "include/mlir/IR/MLIRContext.h": "libmlir-22-dev",
    "include/llvm/Support/raw_ostream.h": "llvm-22-dev",
    "lib/libMLIR.so": "libmlir-22-dev",
    "lib/libLLVM.so": "llvm-22-dev",
    "bin/mlir-tblgen": "mlir-22-tools",
    "bin/FileCheck": "llvm-22-tools",
    "bin/lit": "llvm-22-tools",
    "bin/not": "llvm-22-tools",
    "bin/ld.lld": "lld-22",
}

_TOOLS = ["mlir-tblgen", "FileCheck", "lit", "not", "count", "ld.lld", "llc", "opt"]

def _system_llvm_impl(rctx):
    prefix = rctx.os.environ.get("TESSEL_LLVM_PREFIX", _DEFAULT_PREFIX)
    missing = []
    for rel, pkg in _REQUIRED.items():
        if not rctx.path(prefix + "/" + rel).exists:
            missing.append("  %s/%s (Debian package %s)" % (prefix, rel, pkg))
    if missing:
        fail("tessel needs LLVM/MLIR 22 but these files are missing:\n%s\nRun tools/setup.sh " %
             "\n".join(missing) + "(or set TESSEL_LLVM_PREFIX to another LLVM 22 installation).")

    rctx.symlink(prefix + "/include", "include")
    for tool in _TOOLS:
        if rctx.path(prefix + "/bin/" + tool).exists:
            rctx.symlink(prefix + "/bin/" + tool, "bin/" + tool)
    lib = prefix + "/lib"
    rctx.template("BUILD.bazel", rctx.attr._build_tpl, {"%{LIBDIR}": lib})
    rctx.file("defs.bzl", "LLVM_PREFIX = %r\nLLVM_LIBDIR = %r\n" % (prefix, lib))

system_llvm = repository_rule(
    implementation = _system_llvm_impl,
    environ = ["TESSEL_LLVM_PREFIX"],
    configure = True,
    local = True,
    attrs = {"_build_tpl": attr.label(default = "//third_party/llvm:llvm.BUILD.tpl")},
)

"""`mlir_tblgen`: runs the system mlir-tblgen over ODS files (dialects, ops, types, attributes,
enums, passes) and exposes the generated .inc files as a cc_library."""

def mlir_tblgen(name, td_file, outs, td_srcs = [], deps = [], visibility = None):
    """Generates .inc files from `td_file`.

    Args:
      name: the cc_library holding the generated files (as textual headers).
      td_file: the ODS file mlir-tblgen reads.
      outs: list of (flags, output file) pairs, e.g. ("-gen-op-decls", "FooOps.h.inc").
      td_srcs: other .td files `td_file` includes (from this workspace).
      deps: further cc_library dependencies of the generated code.
      visibility: of the cc_library.
    """
    srcs = [td_file] + td_srcs + ["@llvm//:mlir_td_files"]
    generated = []
    for flags, out in outs:
        rule = "%s_%s" % (name, out.replace(".", "_").replace("/", "_"))
        native.genrule(
            name = rule,
            srcs = srcs,
            outs = [out],
            tools = ["@llvm//:bin/mlir-tblgen"],
            cmd = ("$(location @llvm//:bin/mlir-tblgen) %s " % flags +
                   "-I $$(dirname $(location @llvm//:bin/mlir-tblgen))/../include -I . " +
                   "$(location %s) -o $@" % td_file),
            message = "mlir-tblgen %s %s" % (flags, out),
        )
        generated.append(out)
    native.cc_library(
        name = name,
        textual_hdrs = generated,
        deps = deps + ["@llvm//:mlir"],
        visibility = visibility,
    )

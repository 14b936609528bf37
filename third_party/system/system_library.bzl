"""Repository rule for a library installed from a Debian -dev package."""

def _system_library_impl(rctx):
    include_dirs = ["/usr/include", "/usr/local/include"]
    found = [d for d in include_dirs if rctx.path(d + "/" + rctx.attr.header).exists]
    if not found:
        fail("tessel needs <%s> from the Debian package(s) %s; run tools/setup.sh." %
             (rctx.attr.header, rctx.attr.package))
    rctx.symlink(rctx.attr.build_file, "BUILD.bazel")

system_library = repository_rule(
    implementation = _system_library_impl,
    local = True,
    attrs = {
        "header": attr.string(mandatory = True),
        "package": attr.string(mandatory = True),
        "build_file": attr.label(mandatory = True, allow_single_file = True),
    },
)

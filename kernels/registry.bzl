"""The zoo's kernels: one folder each under kernels/, in the order the sweep takes them.

A new kernel is its folder (its .py, its kernel spec <name>.toml, optionally a <Name>.cpp with
its C++ reference registered by `TESSEL_ZOO_REFERENCES(<folder>)`, and a BUILD with one
`zoo_kernel` rule) plus one line here.
"""

ZOO_KERNELS = [
    "matmul",
    "softmax",
    "row_sum",
    "row_argmax",
    "row_max",
    "col_sum",
    "layer_norm",
    "attention",
    "vector_add",
]

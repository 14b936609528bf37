"""The Triton 3.6 dumps under test/triton_printed/, as labels, for tests that read them."""

TRITON_PRINTED_NAMES = [
    "atomic_histogram_block128",
    "attn_fwd_d128_causal",
    "attn_fwd_d128_full",
    "attn_fwd_d64_causal",
    "attn_fwd_d64_full",
    "col_sum_32x64",
    "layer_norm_block256",
    "matmul_128x128x32",
    "matmul_bf16_64x64x32",
    "matmul_f32_64x64x32",
    "noinline_axpy_block128",
    "row_argmax_block512",
    "row_cumsum_block512",
    "shapes_zoo_block64",
    "skip_odd_programs_block128",
    "softmax_block1024",
    "tile_histogram_16bins",
    "vadd_block128",
    "wrapped_matmul_hinted_32x32x16",
    "wrapped_matmul_plain_32x32x16",
]

TRITON_PRINTED = ["//compiler/dialect/triton:test/triton_printed/%s.ttir" % n for n in TRITON_PRINTED_NAMES]

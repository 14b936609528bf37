//===- CorpusSpecs.h - how Triton specialized each kernel of the TTIR corpus -*- C++ -*-===//
//
// For each dump under compiler/dialect/triton/test/triton_printed/ (and the hand-written
// block-pointer matmul): the Triton-language source and entry it came from — the zoo's own
// source for zoo kernels, tools/ttir_corpus/corpus_kernels.py for the others — and the
// constexprs and argument types of the specialization (integers equal to 1 baked in, as
// Triton does). Shared by the frontend's corpus test and the CPU end-to-end test's .py mode.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_FRONTEND_TEST_CORPUSSPECS_H
#define TESSEL_COMPILER_FRONTEND_TEST_CORPUSSPECS_H

#include <map>
#include <string>
#include <vector>

namespace tessel::test {

struct CorpusSpec {
  std::string dump;      ///< dump name (or path of a hand-written TTIR file)
  std::string source;    ///< the .py file, relative to the workspace
  std::string entry;
  std::string signature; ///< runtime parameter types
  std::map<std::string, std::string> constexprs;
  /// false: Triton rewrote the IR (block pointers), its ops differ by design (an early return
  /// is a cf.cond_br to a tt.return there, an scf.if here) or none exists.
  bool printedByTriton = true;
};

inline const std::vector<CorpusSpec> &corpusSpecs() {
  static const std::vector<CorpusSpec> specs = [] {
    const std::string corpus = "tools/ttir_corpus/corpus_kernels.py";
    const std::string samples = "compiler/frontend/test/samples/kernels.py";
    auto zoo = [](const std::string &name) { return "kernels/" + name + "/" + name + ".py"; };
    auto matmul = [&](const std::string &dump, const std::string &src, const std::string &entry,
                      const std::string &t, int m, int n, int k,
                      const std::vector<std::string> &names) {
      return CorpusSpec{dump, src, entry,
                        "*" + t + ":16,*" + t + ":16,*" + t +
                            ":16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16",
                        {{names[0], std::to_string(m)}, {names[1], std::to_string(n)},
                         {names[2], std::to_string(k)}, {names[3], "8"},
                         {"stride_ak", "1"}, {"stride_bn", "1"}, {"stride_cn", "1"}}};
    };
    const std::vector<std::string> zooNames = {"BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M"};
    auto attn = [&](int d, bool causal) {
      return CorpusSpec{"attn_fwd_d" + std::to_string(d) + (causal ? "_causal" : "_full"),
                        zoo("attention"), "attention",
                        "*fp16:16,*fp16:16,*fp16:16,*fp16:16,fp32,i32:16,i32:16,i32:16,i32",
                        {{"stride_qk", "1"}, {"H", "3"}, {"HEAD_DIM", std::to_string(d)},
                         {"BLOCK_M", "64"}, {"BLOCK_N", "32"},
                         {"CAUSAL", causal ? "True" : "False"}}};
    };
    auto wrapped = [&](bool hinted) {
      return CorpusSpec{std::string("wrapped_matmul_") + (hinted ? "hinted" : "plain") +
                            "_32x32x16",
                        corpus, "wrapped_matmul",
                        "*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32,i32,i32",
                        {{"stride_ak", "1"}, {"stride_bn", "1"}, {"stride_cn", "1"},
                         {"HINTED", hinted ? "True" : "False"}, {"BLOCK_M", "32"},
                         {"BLOCK_N", "32"}, {"BLOCK_K", "16"}}};
    };
    return std::vector<CorpusSpec>{
        {"vadd_block128", corpus, "vadd", "*fp32:16,*fp32:16,*fp32:16,i32", {{"BLOCK", "128"}}},
        {"softmax_block1024", samples, "softmax_kernel", "*fp32:16,*fp32:16,i32:16,i32:16,i32:16",
         {{"BLOCK_SIZE", "1024"}}},
        {"layer_norm_block256", zoo("layer_norm"), "layer_norm",
         "*fp32:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,*fp32:16,i32,i32,fp32",
         {{"BLOCK", "256"}}},
        attn(64, false),
        attn(64, true),
        attn(128, false),
        attn(128, true),
        matmul("matmul_128x128x32", samples, "matmul_kernel_base", "fp16", 128, 128, 32,
               {"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M"}),
        matmul("matmul_f32_64x64x32", zoo("matmul"), "matmul", "fp32", 64, 64, 32, zooNames),
        matmul("matmul_bf16_64x64x32", zoo("matmul"), "matmul", "bf16", 64, 64, 32, zooNames),
        {"compiler/pipeline/test/block_pointer_matmul.mlir", zoo("matmul"), "block_ptr_matmul",
         "*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32,i32,i32",
         {{"BLOCK_M", "64"}, {"BLOCK_N", "64"}, {"BLOCK_K", "32"}, {"GROUP_M", "8"},
          {"stride_ak", "1"}, {"stride_bn", "1"}, {"stride_cn", "1"}},
         /*printedByTriton=*/false},
        {"row_argmax_block512", corpus, "row_argmax", "*fp32:16,*i32:16,*fp32:16,*fp32:16,i32,i32",
         {{"BLOCK", "512"}}},
        {"row_cumsum_block512", corpus, "row_cumsum", "*fp32:16,*fp32:16,i32,i32",
         {{"BLOCK", "512"}}},
        {"col_sum_32x64", zoo("col_sum"), "col_sum", "*fp32:16,*fp32:16,i32:16,i32,i32",
         {{"BLOCK_M", "32"}, {"BLOCK_N", "64"}}},
        {"atomic_histogram_block128", corpus, "atomic_histogram", "*i32:16,*i32:16,i32",
         {{"BLOCK", "128"}}},
        {"tile_histogram_16bins", corpus, "tile_histogram", "*i32:16,*i32:16",
         {{"NUM_BINS", "16"}, {"BLOCK", "128"}}},
        {"noinline_axpy_block128", corpus, "noinline_axpy", "*fp32:16,*fp32:16,*fp32:16,i32,fp32",
         {{"BLOCK", "128"}}},
        {"shapes_zoo_block64", corpus, "shapes_zoo", "*fp32:16,*i32:16,*fp32:16", {{"BLOCK", "64"}}},
        {"skip_odd_programs_block128", corpus, "skip_odd_programs", "*fp32:16,*fp32:16,i32",
         {{"SKIP_ODD", "True"}, {"BLOCK", "128"}}, /*printedByTriton=*/false},
        wrapped(false),
        wrapped(true),
    };
  }();
  return specs;
}

inline const CorpusSpec *findCorpusSpec(const std::string &dump) {
  for (const CorpusSpec &s : corpusSpecs())
    if (s.dump == dump)
      return &s;
  return nullptr;
}

} // namespace tessel::test

#endif // TESSEL_COMPILER_FRONTEND_TEST_CORPUSSPECS_H

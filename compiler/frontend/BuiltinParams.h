//===- BuiltinParams.h - a builtin call's arguments matched to its parameters -*- C++ -*-===//
//
// Shared by the builtin families (Builtins*.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_FRONTEND_BUILTINPARAMS_H
#define TESSEL_COMPILER_FRONTEND_BUILTINPARAMS_H

#include "compiler/frontend/Generator.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace tessel::frontend {

/// Matches a call's arguments to parameter names (Python rules: positional first, then
/// keywords; unknown keywords and missing required parameters are errors).
class Params {
public:
  /// The arguments of `args` matched to `params` (name, required) of the function `fn`.
  static absl::StatusOr<Params> Make(Generator &g, CallArgs &args, const std::string &fn,
                                     std::vector<std::pair<std::string, bool>> params) {
    Params p(g, args, fn);
    if (args.positional.size() > params.size())
      return g.error(args.loc, fn + "() takes at most " + std::to_string(params.size()) +
                                   " arguments, " + std::to_string(args.positional.size()) +
                                   " given");
    for (size_t k = 0; k < params.size(); ++k) {
      p.names_.push_back(params[k].first);
      p.values_.push_back(k < args.positional.size() ? args.positional[k] : nullptr);
    }
    for (auto &kw : args.keywords) {
      auto it = std::find(p.names_.begin(), p.names_.end(), kw.first);
      if (it == p.names_.end())
        return g.error(args.loc, fn + "() got an unexpected keyword argument '" + kw.first + "'");
      size_t k = it - p.names_.begin();
      if (p.values_[k])
        return g.error(args.loc, fn + "() got two values for '" + kw.first + "'");
      p.values_[k] = kw.second;
    }
    for (size_t k = 0; k < params.size(); ++k)
      if (params[k].second && !p.values_[k])
        return g.error(args.loc, fn + "() is missing the argument '" + params[k].first + "'");
    return p;
  }
  /// The argument, or null when not given.
  V get(const std::string &name) const {
    auto it = std::find(names_.begin(), names_.end(), name);
    return it == names_.end() ? nullptr : values_[it - names_.begin()];
  }
  /// The argument, or null when not given or None.
  V opt(const std::string &name) const {
    V v = get(name);
    return v && v->kind != Val::None ? v : nullptr;
  }
  /// The argument as a scalar or tensor SSA value; an error when not given or None.
  absl::StatusOr<V> tensor(const std::string &name) const {
    V v = get(name);
    if (!v || v->kind == Val::None)
      return g_->error(args_->loc, fn_ + "() needs '" + name + "'");
    return g_->toTensor(v, args_->loc);
  }

private:
  Params(Generator &g, CallArgs &args, std::string fn) : g_(&g), args_(&args), fn_(std::move(fn)) {}

  Generator *g_;
  CallArgs *args_;
  std::string fn_;
  std::vector<std::string> names_;
  std::vector<V> values_;
};

/// A tuple (or list) of constexpr ints, or a single int.
absl::StatusOr<std::vector<int64_t>> intList(Generator &g, const V &v, SourceLocation at,
                                             const std::string &what);
/// The `dim` argument of a function over one dimension of `x` (tl.flip, tl.sort): the last
/// when not given, negative from the end; an error for a scalar or out of range.
absl::StatusOr<int64_t> dimArg(Generator &g, const Params &p, const V &x, SourceLocation at,
                               const std::string &fn);
/// The index along `dim` of every element of a tensor of `shape`: tl.arange(0, shape[dim])
/// expanded in the other dimensions and broadcast.
absl::StatusOr<V> positionsAlong(Generator &g, llvm::ArrayRef<int64_t> shape, int64_t dim,
                                 SourceLocation at);
/// A tensor shape argument: constexpr ints, each a positive power of two.
absl::StatusOr<llvm::SmallVector<int64_t>> shapeArg(Generator &g, SourceLocation at, const V &v);

} // namespace tessel::frontend

#endif // TESSEL_COMPILER_FRONTEND_BUILTINPARAMS_H

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
  Params(Generator &g, CallArgs &args, const std::string &fn,
         std::vector<std::pair<std::string, bool>> params) // name, required
      : g_(g), args_(args), fn_(fn) {
    if (args.positional.size() > params.size())
      g.error(args.loc, fn + "() takes at most " + std::to_string(params.size()) +
                            " arguments, " + std::to_string(args.positional.size()) + " given");
    for (size_t k = 0; k < params.size(); ++k) {
      names_.push_back(params[k].first);
      values_.push_back(k < args.positional.size() ? args.positional[k] : nullptr);
    }
    for (auto &kw : args.keywords) {
      auto it = std::find(names_.begin(), names_.end(), kw.first);
      if (it == names_.end())
        g.error(args.loc, fn + "() got an unexpected keyword argument '" + kw.first + "'");
      size_t k = it - names_.begin();
      if (values_[k])
        g.error(args.loc, fn + "() got two values for '" + kw.first + "'");
      values_[k] = kw.second;
    }
    for (size_t k = 0; k < params.size(); ++k)
      if (params[k].second && !values_[k])
        g.error(args.loc, fn + "() is missing the argument '" + params[k].first + "'");
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
  V tensor(const std::string &name) const {
    V v = get(name);
    if (!v || v->kind == Val::None)
      g_.error(args_.loc, fn_ + "() needs '" + name + "'");
    return g_.toTensor(v, args_.loc);
  }

private:
  Generator &g_;
  CallArgs &args_;
  std::string fn_;
  std::vector<std::string> names_;
  std::vector<V> values_;
};

/// A tuple (or list) of constexpr ints, or a single int.
std::vector<int64_t> intList(Generator &g, const V &v, SourceLocation at, const std::string &what);
/// The `dim` argument of a function over one dimension of `x` (tl.flip, tl.sort): the last
/// when not given, negative from the end; an error for a scalar or out of range.
int64_t dimArg(Generator &g, const Params &p, const V &x, SourceLocation at, const std::string &fn);
/// The index along `dim` of every element of a tensor of `shape`: tl.arange(0, shape[dim])
/// expanded in the other dimensions and broadcast.
V positionsAlong(Generator &g, llvm::ArrayRef<int64_t> shape, int64_t dim, SourceLocation at);
/// A tensor shape argument: constexpr ints, each a positive power of two.
llvm::SmallVector<int64_t> shapeArg(Generator &g, SourceLocation at, const V &v);

} // namespace tessel::frontend

#endif // TESSEL_COMPILER_FRONTEND_BUILTINPARAMS_H

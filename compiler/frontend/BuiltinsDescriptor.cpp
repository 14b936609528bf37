//===- BuiltinsDescriptor.cpp - tensor descriptors as checked block pointers -*- C++ -*-===//
//
// tl.make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero")
// describes a strided tensor in memory and the block one load or store moves. desc.load(offs)
// reads the block at `offs` with everything outside `shape` padded (zero, or NaN with
// padding_option="nan"); desc.store(offs, value) writes the part inside `shape`. Both become
// a block pointer (tt.make_tensor_ptr, row-major order) and a tt.load / tt.store checked on
// every dimension: the structured lowering's masked block accesses. The GPU's TMA engine is
// one way to run them; the semantics do not depend on it.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/BuiltinParams.h"
#include "compiler/frontend/Generator.h"

#include <algorithm>

namespace tessel::frontend {

namespace {

/// A list or tuple argument as a tuple of its items.
absl::StatusOr<V> asTuple(Generator &g, const V &v, SourceLocation at,
                          const std::string &what) {
  if (!v || v->kind != Val::Tuple)
    return g.error(at, what + " must be a list or tuple");
  return v;
}

/// An element type as a dtype argument names it: int8 / uint8 for integers (the signedness
/// is the value's, not the type's), MLIR's or Triton's spelling otherwise.
std::string dtypeName(mlir::Type t, bool isUnsigned) {
  if (auto i = mlir::dyn_cast<mlir::IntegerType>(t); i && i.getWidth() > 1)
    return (isUnsigned ? "uint" : "int") + std::to_string(i.getWidth());
  return typeText(t);
}

} // namespace

V makeDescriptor(V base, V shape, V strides, V block, std::string padding) {
  V d = makeTuple({std::move(base), std::move(shape), std::move(strides), std::move(block)});
  d->kind = Val::Descriptor;
  d->s = std::move(padding);
  return d;
}

absl::StatusOr<V> Generator::experimentalDescriptorAccess(const std::string &name, CallArgs &args) {
  // The API before tensor descriptors (Triton 3.2): a load names its block shape and dtype,
  // which must be the descriptor's. Its descriptor was a CUDA TMA descriptor in memory, which
  // only the GPU driver can read; tessel takes a tensor descriptor in its place.
  SourceLocation at = args.loc;
  bool load = name == "_experimental_descriptor_load";
  std::string fn = "tl." + name;
  ASSIGN_OR_RETURN(
      Params p,
      Params::Make(*this, args, fn,
                   load ? std::vector<std::pair<std::string, bool>>{{"desc_pointer", true},
                                                                    {"offsets", true},
                                                                    {"shape", true},
                                                                    {"dtype", true}}
                        : std::vector<std::pair<std::string, bool>>{
                              {"desc_pointer", true}, {"value", true}, {"offsets", true}}));
  V desc = p.get("desc_pointer");
  if (desc->kind != Val::Descriptor)
    return error(at, fn + " needs a tensor descriptor (a tensordesc<...> argument or "
                          "tl.make_tensor_descriptor), got " + describe(desc) +
                         ": a CUDA TMA descriptor in memory is not supported");
  if (load) {
    ASSIGN_OR_RETURN(std::vector<int64_t> shape,
                     intList(*this, p.get("shape"), at, fn + "'s shape"));
    ASSIGN_OR_RETURN(std::vector<int64_t> block,
                     intList(*this, desc->items[3], at, "the block shape"));
    if (shape != block)
      return error(at, fn + "'s shape must be the descriptor's block shape " +
                           describe(desc->items[3]) + ", got " + describe(p.get("shape")));
    bool u = false;
    ASSIGN_OR_RETURN(mlir::Type dtype, requireDtype(p.get("dtype"), at, fn + "'s dtype", &u));
    mlir::Type pointee =
        mlir::cast<tt::PointerType>(desc->items[0]->value.getType()).getPointeeType();
    bool pointeeUnsigned = desc->items[0]->isUnsigned;
    if (dtype != pointee || (mlir::isa<mlir::IntegerType>(dtype) && u != pointeeUnsigned))
      return error(at, fn + "'s dtype must be the descriptor's element type " +
                           dtypeName(pointee, pointeeUnsigned) + ", got " + dtypeName(dtype, u));
    CallArgs forward{{desc, p.get("offsets")}, {}, at};
    return callDescriptorBuiltin("load_tensor_descriptor", forward);
  }
  CallArgs forward{{desc, p.get("offsets"), p.get("value")}, {}, at};
  return callDescriptorBuiltin("store_tensor_descriptor", forward);
}

absl::StatusOr<V> Generator::callDescriptorBuiltin(const std::string &nameIn, CallArgs &args) {
  std::string name = nameIn;
  if (name.rfind("method.", 0) == 0)
    name = name.substr(7);
  SourceLocation at = args.loc;
  if (name == "make_tensor_descriptor") {
    ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, "tl.make_tensor_descriptor",
                                            {{"base", true}, {"shape", true}, {"strides", true},
                                             {"block_shape", true}, {"padding_option", false}}));
    ASSIGN_OR_RETURN(V base, toTensor(p.get("base"), at));
    if (!mlir::isa<tt::PointerType>(base->value.getType()))
      return error(at, "make_tensor_descriptor's base must be a scalar pointer, got " +
                           describe(base));
    ASSIGN_OR_RETURN(V shape,
                     asTuple(*this, p.get("shape"), at, "make_tensor_descriptor's shape"));
    ASSIGN_OR_RETURN(V strides,
                     asTuple(*this, p.get("strides"), at, "make_tensor_descriptor's strides"));
    ASSIGN_OR_RETURN(V block, asTuple(*this, p.get("block_shape"), at,
                                      "make_tensor_descriptor's block_shape"));
    size_t rank = block->items.size();
    if (rank == 0 || shape->items.size() != rank || strides->items.size() != rank)
      return error(at, "make_tensor_descriptor's shape, strides and block_shape need one length "
                       "(at least 1), got " + std::to_string(shape->items.size()) + ", " +
                           std::to_string(strides->items.size()) + " and " +
                           std::to_string(rank));
    for (const V &b : block->items) {
      RETURN_IF_ERROR(requireInt(b, at, "a block_shape entry").status());
    }
    std::string padding = "zero";
    if (V pad = p.opt("padding_option")) {
      if (pad->kind != Val::Str || (pad->s != "zero" && pad->s != "nan"))
        return error(at, "padding_option must be \"zero\" or \"nan\"");
      padding = pad->s;
    }
    return makeDescriptor(base, shape, strides, block, padding);
  }

  if (name == "_experimental_descriptor_load" || name == "_experimental_descriptor_store")
    return experimentalDescriptorAccess(name, args);

  bool load = name == "load" || name == "load_tensor_descriptor";
  bool store = name == "store" || name == "store_tensor_descriptor";
  if (!load && !store)
    return nullptr;
  std::string fn = name.find("tensor_descriptor") != std::string::npos ? "tl." + name
                                                                         : "desc." + name;
  std::vector<std::pair<std::string, bool>> params = {{"desc", true}, {"offsets", true}};
  if (store)
    params.push_back({"value", true});
  ASSIGN_OR_RETURN(Params p, Params::Make(*this, args, fn, params));
  V desc = p.get("desc");
  if (desc->kind != Val::Descriptor)
    return error(at, fn + " needs a tensor descriptor, got " + describe(desc));
  ASSIGN_OR_RETURN(V offsets, asTuple(*this, p.get("offsets"), at, fn + "'s offsets"));
  size_t rank = desc->items[3]->items.size();
  if (offsets->items.size() != rank)
    return error(at, fn + " takes " + std::to_string(rank) + " offsets (one per dimension), got " +
                         std::to_string(offsets->items.size()));
  std::vector<V> order, check;
  for (size_t k = 0; k < rank; ++k) {
    order.push_back(makeInt(int64_t(rank - 1 - k)));
    check.push_back(makeInt(int64_t(k)));
  }
  CallArgs make{{desc->items[0], desc->items[1], desc->items[2], offsets, desc->items[3],
                 makeTuple(order)},
                {},
                at};
  ASSIGN_OR_RETURN(V blockPtr, callBuiltin("make_block_ptr", make));
  if (load) {
    CallArgs l{{blockPtr},
               {{"boundary_check", makeTuple(check)}, {"padding_option", makeStr(desc->s)}},
               at};
    return callBuiltin("load", l);
  }
  CallArgs s{{blockPtr, p.get("value")}, {{"boundary_check", makeTuple(check)}}, at};
  return callBuiltin("store", s);
}

} // namespace tessel::frontend

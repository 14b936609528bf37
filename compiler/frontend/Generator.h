//===- Generator.h - internal state of tt IR generation (the generator's and builtins' files) -*- C++ -*-===//

#ifndef TESSEL_COMPILER_FRONTEND_GENERATOR_H
#define TESSEL_COMPILER_FRONTEND_GENERATOR_H

#include "compiler/dialect/triton/TritonDialect.h"
#include "compiler/frontend/CodeGen.h"
#include "compiler/frontend/StatusMacros.h"

#include "mlir/IR/Builders.h"

#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <set>

namespace tessel::frontend {

/// A parsed kernel file: the one compiled, or one it imports (`from helpers import f`).
struct ModuleCtx {
  const SourceFile *file = nullptr;
  const Module *ast = nullptr;
  std::unique_ptr<SourceFile> ownedFile;
  std::unique_ptr<Module> ownedAst;
  std::string dir; ///< where its relative imports are looked up
  std::map<std::string, const FunctionDef *> functions;
  std::map<std::string, const ClassDef *> classes;
  std::map<std::string, const struct Stmt *> globalDefs;  ///< by qualified name
  std::map<std::string, const struct HostName *> hostNames; ///< by qualified name
  std::map<std::string, std::shared_ptr<struct Val>> globals;
};

/// The shape of a tensor value (empty for a scalar), its element type, and its type with
/// another element type.
inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value v) {
  if (auto t = mlir::dyn_cast<mlir::RankedTensorType>(v.getType()))
    return t.getShape();
  return {};
}
inline mlir::Type elementOf(mlir::Value v) { return mlir::getElementTypeOrSelf(v.getType()); }
inline mlir::Type withElement(mlir::Type type, mlir::Type elem) {
  if (auto t = mlir::dyn_cast<mlir::RankedTensorType>(type))
    return mlir::RankedTensorType::get(t.getShape(), elem);
  return elem;
}

struct Val;
using V = std::shared_ptr<Val>;

/// An instance of a @tl.aggregate class: one object, shared by every name that refers to it
/// (Python identity), with mutable fields.
struct AggObject {
  const ClassDef *cls = nullptr;
  std::map<std::string, V> fields;
  /// Where a field was first assigned through a reference taken out of a tuple, and through
  /// any other reference (both: an error).
  SourceLocation mutatedViaTuple, mutatedDirectly;
  bool hasMutationViaTuple = false, hasMutationDirectly = false;
};
using Obj = std::shared_ptr<AggObject>;

/// A value during generation: an SSA value (scalar or tensor) or a compile-time object.
struct Val {
  enum Kind {
    Tensor,    ///< `value` (scalar or ranked tensor); `isUnsigned` for unsigned integers
               ///< (for pointers: the pointee is unsigned)
    Int,       ///< constexpr int `i`
    Float,     ///< constexpr float `f`
    Bool,      ///< constexpr bool `i` (distinct from Int: True is not 1)
    None,      ///< constexpr None
    Str,       ///< constexpr string `s`
    Dtype,     ///< a dtype `type` (`isUnsigned` for uint dtypes)
    Tuple,     ///< `items`
    Function,  ///< a @triton.jit function `fn`
    Namespace, ///< a module path `s` (triton, triton.language, triton.language.math)
    Builtin,   ///< a builtin function `s` (tl.load, range, min, ...)
    Method,    ///< method `s` bound to `self`
    Slice,     ///< `:` in a subscript
    Aggregate, ///< an aggregate object `obj`
    Class,     ///< an aggregate class `cls` (calling it constructs an object)
    /// A tensor descriptor (tl.make_tensor_descriptor): `items` are the base pointer and the
    /// shape, strides and block_shape tuples; `s` the padding of out-of-bounds loads.
    Descriptor,
  };
  Kind kind;
  mlir::Value value;
  bool isUnsigned = false;
  int64_t i = 0;
  double f = 0;
  std::string s;
  mlir::Type type;
  std::vector<V> items;
  const FunctionDef *fn = nullptr;
  V self;
  bool isBlockType = false; ///< Dtype: a tensor's type (`x.type`), not a scalar type
  Obj obj;                   ///< Aggregate
  ModuleCtx *mod = nullptr;  ///< Namespace of an imported kernel file
  bool viaTuple = false;     ///< Aggregate: this reference was taken out of a tuple
  const ClassDef *cls = nullptr; ///< Class

  bool isConstexpr() const { return kind == Int || kind == Float || kind == Bool || kind == None; }
  bool isNumber() const { return kind == Int || kind == Float || kind == Bool; }
};

/// A fresh value of `kind` (its fields default).
V newVal(Val::Kind kind);
V makeTensor(mlir::Value value, bool isUnsigned = false);
V makeInt(int64_t v);
V makeFloat(double v);
V makeBool(bool v);
V makeNone();
V makeStr(std::string s);
V makeDtype(mlir::Type type, bool isUnsigned = false);
V makeTuple(std::vector<V> items);
V makeBuiltin(std::string name);
V makeNamespace(std::string path);
V makeMethod(V self, std::string name);
/// A tensor descriptor: its base pointer, shape and strides (tuples of scalars), block shape (a
/// tuple of ints) and padding ("zero" or "nan").
V makeDescriptor(V base, V shape, V strides, V block, std::string padding);

/// Whether two compile-time values are the same constant (kind and value).
bool equalConstexprs(const V &a, const V &b);
/// Whether `t` is one of the 8-bit float types.
bool isFp8(mlir::Type t);
/// "float8e4nv" for a Triton 8-bit float type, else MLIR's spelling of `t`.
std::string typeText(mlir::Type t);

/// Keyword/positional arguments of a builtin call, matched against its parameter names.
struct CallArgs {
  std::vector<V> positional;
  std::vector<std::pair<std::string, V>> keywords;
  SourceLocation loc;
};

class Generator {
public:
  Generator(mlir::MLIRContext &context, const SourceFile &file, const Module &module);
  absl::StatusOr<mlir::OwningOpRef<mlir::ModuleOp>> generate(const KernelSpec &spec);

  // ---- shared by the generator's files and the builtins ------------------------------
  // Every user error is an absl::Status (StatusMacros.h): a fallible function returns
  // absl::Status or absl::StatusOr<T>, and `return error(at, "...")` reports one.

  /// The error "file:line:col: error: message" at `loc` of the file being generated, with its
  /// source line and a caret.
  [[nodiscard]] absl::Status error(SourceLocation loc, const std::string &message) const;
  /// An error unless a tensor of `shape` has at most Triton's TRITON_MAX_TENSOR_NUMEL
  /// (2^20) elements, as Triton refuses (no size computed from it can overflow then).
  [[nodiscard]] absl::Status checkNumel(llvm::ArrayRef<int64_t> shape, SourceLocation at) const;
  mlir::Location loc(SourceLocation at) const;
  mlir::OpBuilder &builder() { return b_; }
  mlir::MLIRContext *context() { return &context_; }

  /// A scalar or tensor SSA value for `v` (constexpr numbers become constants: int -> i32 or
  /// i64 when it does not fit, float -> f32, bool -> i1).
  absl::StatusOr<V> toTensor(const V &v, SourceLocation at);
  /// `v` converted to element type `elem` (same shape).
  /// `v` converted to `elem` (Triton's tl.cast); `rounding`: fp_downcast_rounding, for a
  /// narrowing float conversion.
  absl::StatusOr<V> cast(const V &v, mlir::Type elem, bool toUnsigned, SourceLocation at,
                         bool bitcast = false,
                         std::optional<tt::RoundingMode> rounding = std::nullopt);
  /// tl.cast / tensor.to: `input` (the tensor's parameter name), dtype, fp_downcast_rounding
  /// ('rtne' or 'rtz'), bitcast.
  absl::StatusOr<V> castCall(const std::string &name, const std::string &input, CallArgs &args,
                             SourceLocation at);
  /// Broadcasts two tensors (or a scalar and a tensor) to a common shape.
  absl::StatusOr<std::pair<V, V>> broadcastPair(V a, V b, SourceLocation at);
  /// `v` broadcast (splat / expand + broadcast) to `shape`.
  absl::StatusOr<V> broadcastTo(const V &v, llvm::ArrayRef<int64_t> shape, SourceLocation at);
  /// Binary operator `op` (+ - * / // % & | ^ << >> < <= > >= == !=) with Triton's rules.
  absl::StatusOr<V> binary(const std::string &op, V a, V b, SourceLocation at);
  absl::StatusOr<V> unary(const std::string &op, V a, SourceLocation at);
  /// A constant of element type `elem` and `shape` (scalar when empty).
  mlir::Value constant(mlir::Type elem, double value, llvm::ArrayRef<int64_t> shape);
  absl::StatusOr<bool> truthy(const V &v, SourceLocation at);
  absl::StatusOr<int64_t> requireInt(const V &v, SourceLocation at, const std::string &what);
  absl::StatusOr<mlir::Type> requireDtype(const V &v, SourceLocation at, const std::string &what,
                                          bool *isUnsigned = nullptr);

  absl::StatusOr<V> callBuiltin(const std::string &name, CallArgs &args);
  // The builtins, one member function per function or group of aliases (Builtins.inc: which
  // names each generates; Builtins*.cpp by family).
#define TESSEL_BUILTIN(member, ...)                                                                \
  absl::StatusOr<V> member(const std::string &name, CallArgs &args);
#include "compiler/frontend/Builtins.inc"

  /// Math beyond the core set (BuiltinsMath.cpp): inverse and hyperbolic trigonometry,
  /// cbrt, rounding, log10, atan2, copysign, hypot; null for other names.
  absl::StatusOr<V> callMathBuiltin(const std::string &name, CallArgs &args);
  /// `ops` as values of the widest float type among them (f32 when none is a float),
  /// broadcast to one shape.
  absl::StatusOr<llvm::SmallVector<mlir::Value>> floatOperands(std::vector<V> ops,
                                                               SourceLocation at);
  /// Tensor descriptors (BuiltinsDescriptor.cpp): tl.make_tensor_descriptor, desc.load /
  /// desc.store and tl.load_tensor_descriptor / tl.store_tensor_descriptor, as block-pointer
  /// loads and stores checked against the shape on every dimension; null for other names.
  absl::StatusOr<V> callDescriptorBuiltin(const std::string &name, CallArgs &args);
  /// tl._experimental_descriptor_load / _store (Triton 3.2's API) on a tensor descriptor.
  absl::StatusOr<V> experimentalDescriptorAccess(const std::string &name, CallArgs &args);
  /// tl.dot_scaled (BuiltinsScaled.cpp); null for other names.
  absl::StatusOr<V> callScaledBuiltin(const std::string &name, CallArgs &args);
  /// The random-number family (BuiltinsRandom.cpp): tl.umulhi, tl.philox, tl.randint(4x),
  /// tl.rand(4x), tl.randn(4x) and their helpers; null for other names.
  absl::StatusOr<V> callRandomBuiltin(const std::string &name, CallArgs &args);
  /// The high half of the full product of two unsigned integers of one type.
  absl::StatusOr<V> umulhi(V x, V y, SourceLocation at);
  /// `rounds` rounds of Philox on `counter` (four words of 32 or 64 bits) keyed by `seed`:
  /// a tuple of four unsigned tensors.
  absl::StatusOr<V> philox(V seed, std::array<V, 4> counter, int rounds, SourceLocation at);
  /// Random bits to a float in [0, 1) as Triton maps them.
  absl::StatusOr<V> uniformFromBits(V x, SourceLocation at);
  /// The Box-Muller pair of two uniform floats.
  absl::StatusOr<V> normalPair(V u1, V u2, SourceLocation at);
  absl::StatusOr<V> callFunction(const FunctionDef &fn, CallArgs &args, V self = nullptr);
  /// Calls a value (function, builtin, method) with evaluated arguments.
  absl::StatusOr<V> callValue(const V &callee, CallArgs &args);
  std::string describe(const V &v) const;

private:
  /// Statements of an enclosing block still to run after the one being generated: what an if
  /// with a return in it takes into its branches (the rest of the function, across the
  /// bodies of compile-time ifs, which are generated in place).
  struct PendingBlock {
    enum Kind {
      Open,           ///< a function's body, a branch: what follows it is pending too
      LoopBody,       ///< what follows is the next iteration: no return can move past it
      RestOfFunction, ///< taken into an if's branch: nothing after it is pending
    };
    std::vector<const Stmt *> stmts;
    size_t next = 0; ///< the first statement not started yet
    Kind kind = Open;
  };
  struct Frame {
    std::map<std::string, V> vars;
    bool returned = false;
    V returnValue;
    /// Innermost last.
    std::vector<PendingBlock> pending;
    const FunctionDef *fn = nullptr;
    ModuleCtx *module = nullptr; ///< whose globals names resolve to (null: the kernel's file)
    /// Without `fn`: the host scope a module constant is evaluated in (Stmt::scope).
    std::string scope;
  };
  /// The host scope names resolve in: the running function's (FunctionDef::scope).
  std::string currentScope() const;
  ModuleCtx *currentModule() const;
  ModuleCtx *moduleOf(const FunctionDef &fn);
  absl::StatusOr<ModuleCtx *> loadModule(const std::string &dotted, SourceLocation at);
  void indexModule(ModuleCtx &ctx);
  absl::StatusOr<V> moduleMember(ModuleCtx &ctx, const std::string &name, SourceLocation at);

  absl::StatusOr<V> eval(const Expr &e);
  absl::StatusOr<V> evalName(const Expr &e);
  absl::StatusOr<V> evalAttribute(const Expr &e);
  absl::StatusOr<V> evalSubscript(const Expr &e);
  absl::StatusOr<V> evalCompare(const Expr &e);
  absl::StatusOr<V> evalBoolOp(const Expr &e);
  /// The kernel --entry names: a qualified name ("test_add.kernel", "kernel" at module
  /// level), or the name of the only kernel called that.
  absl::StatusOr<const FunctionDef *> findEntry(const std::string &entry);
  absl::StatusOr<V> evalGlobal(const std::string &name, SourceLocation at);
  /// `name` as `qualified` (scope.name) of `ctx` names it: a constant, function or class, or
  /// an error for a host name.
  absl::StatusOr<V> evalScoped(ModuleCtx &ctx, const std::string &qualified,
                               const std::string &name, SourceLocation at);
  absl::StatusOr<V> resolveNamespace(const std::string &path, const std::string &member,
                                     SourceLocation at);

  /// Runs `block`'s statements until one returns.
  [[nodiscard]] absl::Status exec(const Block &block,
                                  PendingBlock::Kind kind = PendingBlock::Open);
  /// Runs the innermost pending block's statements until one returns, then drops it.
  [[nodiscard]] absl::Status runPending();
  /// The statements that run after the one being generated, to the end of the function;
  /// nullopt inside a loop's body.
  std::optional<std::vector<const Stmt *>> continuation() const;
  [[nodiscard]] absl::Status execStmt(const Stmt &s);
  [[nodiscard]] absl::Status assign(const Expr &target, const V &value);
  /// An if with a return in it (either branch, any depth) ends the function: each branch is
  /// followed by the rest of the function, as Triton's cf.cond_br to a tt.return block.
  [[nodiscard]] absl::Status execIf(const Stmt &s);
  [[nodiscard]] absl::Status execFor(const Stmt &s);
  [[nodiscard]] absl::Status execWhile(const Stmt &s);
  /// Names a block assigns (targets of assignments, loop variables), in first-seen order.
  static void assignedNames(const Block &block, std::vector<std::string> &out);
  /// The SSA value carried for `v` through a loop or an if (constexpr numbers materialized).
  absl::StatusOr<V> carryable(const V &v, SourceLocation at);
  /// A tensor-valued field of an aggregate reachable from the current frame.
  struct FieldSlot {
    Obj obj;
    std::string field;
  };
  /// Every tensor field of every aggregate object reachable from the current frame's names
  /// (through fields and tuples), each object once: what loops and ifs must carry, since a
  /// method call in their body may mutate any of them.
  std::vector<FieldSlot> reachableFields(bool tensorsOnly = true);
  static void collectFields(const V &v, std::vector<FieldSlot> &out, std::set<AggObject *> &seen,
                            bool tensorsOnly = true);
  /// The reachable fields that are not tensors, and their values.
  void staticFieldSnapshot(std::vector<FieldSlot> &slots, std::vector<V> &values);
  /// Fails if a field that is not a tensor changed (a loop cannot carry it).
  [[nodiscard]] absl::Status checkFieldsUnchanged(const std::vector<FieldSlot> &slots,
                                                  const std::vector<V> &before, SourceLocation at);
  absl::StatusOr<V> construct(const ClassDef &cls, CallArgs &args);
  absl::StatusOr<std::vector<mlir::Value>> fieldYields(const std::vector<FieldSlot> &fields,
                                                       llvm::ArrayRef<mlir::Value> inits,
                                                       size_t offset, SourceLocation at);
  [[nodiscard]] absl::Status checkUncarried(const std::vector<std::string> &assigned,
                                            const std::map<std::string, V> &before,
                                            SourceLocation at);
  bool isAggregateClass(const ClassDef &cls) const;

  /// A call of a noinline function: a private tt.func per signature and a tt.call.
  absl::StatusOr<V> callNoinline(const FunctionDef &fn, const std::map<std::string, V> &bound,
                                 SourceLocation at);
  struct NoinlineInfo {
    tt::FuncOp func;
    bool tuple = false;
    size_t numReturns = 0; ///< results after these are the mutable arguments' fields
    std::vector<bool> unsignedResults;
  };

  mlir::Type parseTypeName(const std::string &name, bool &isUnsigned) const;
  bool isJit(const FunctionDef &fn, bool *noinline = nullptr);

  mlir::MLIRContext &context_;
  const SourceFile &file_;
  const Module &module_;
  mlir::OpBuilder b_;
  mlir::ModuleOp moduleOp_;
  std::deque<ModuleCtx> modules_; ///< [0]: the kernel's file
  std::map<std::string, ModuleCtx *> modulesByPath_;
  std::map<const FunctionDef *, ModuleCtx *> fnModule_;
  std::vector<std::string> evaluatingGlobals_;
  std::deque<Frame> frames_; // a deque: pushing a frame keeps references to the others valid
  int callDepth_ = 0;
  std::map<std::string, NoinlineInfo> noinline_; ///< by exact specialization key
  std::set<std::string> noinlineSymbols_;
  bool debug_ = false;
  std::vector<std::string> noinlineInProgress_;
};

} // namespace tessel::frontend

#endif // TESSEL_COMPILER_FRONTEND_GENERATOR_H

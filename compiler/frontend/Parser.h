//===- Parser.h - Triton-language source to a syntax tree -*- C++ -*-===//
//
// A recursive-descent parser for the Python subset kernels are written in: imports,
// module-level constants, decorated functions and aggregate classes; assignments (tuple
// targets, augmented, annotated), if/elif/else, for, while, return, pass, assert and
// expression statements; Python's expression grammar and precedence. Constructs outside the
// language (break, continue, try, with, lambda, ...) parse to errors naming them. Every error
// is "file:line:col: error: ..." with the source line and a caret.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_COMPILER_FRONTEND_PARSER_H
#define TESSEL_COMPILER_FRONTEND_PARSER_H

#include "compiler/frontend/Ast.h"

#include "absl/status/statusor.h"

namespace tessel::frontend {

absl::StatusOr<Module> Parse(const SourceFile &file);

} // namespace tessel::frontend

#endif // TESSEL_COMPILER_FRONTEND_PARSER_H

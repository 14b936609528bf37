//===- TestPasses.h - passes that print analysis results for lit -*- C++ -*-===//

#ifndef TESSEL_COMPILER_ANALYSIS_TESTPASSES_H
#define TESSEL_COMPILER_ANALYSIS_TESTPASSES_H

#include "compiler/dialect/triton/TritonDialect.h"

namespace tessel {
/// Registers `-test-print-axis-info`, `-test-print-allocation` and `-test-print-membar`.
void registerAnalysisTestPasses();
/// Registers `-test-print-allocation` (called by registerAnalysisTestPasses).
void registerAllocationTestPass();
/// Registers `-test-print-membar` (called by registerAnalysisTestPasses).
void registerMembarTestPass();
} // namespace tessel

#endif // TESSEL_COMPILER_ANALYSIS_TESTPASSES_H

//===- TestPasses.h - passes that print analysis results for lit -*- C++ -*-===//

#ifndef TESSEL_COMPILER_ANALYSIS_TESTPASSES_H
#define TESSEL_COMPILER_ANALYSIS_TESTPASSES_H

#include "compiler/dialect/triton/TritonDialect.h"

namespace tessel {
/// Registers `-test-print-axis-info` and `-test-print-allocation`.
void registerAnalysisTestPasses();
/// Registers `-test-print-allocation` (called by registerAnalysisTestPasses).
void registerAllocationTestPass();
} // namespace tessel

#endif // TESSEL_COMPILER_ANALYSIS_TESTPASSES_H

//===- TestPasses.h - passes that print analysis results for lit -*- C++ -*-===//

#ifndef TESSEL_COMPILER_ANALYSIS_TESTPASSES_H
#define TESSEL_COMPILER_ANALYSIS_TESTPASSES_H

#include "compiler/dialect/triton/TritonDialect.h"

namespace tessel {
/// Registers `-test-print-axis-info`.
void registerAnalysisTestPasses();
} // namespace tessel

#endif // TESSEL_COMPILER_ANALYSIS_TESTPASSES_H

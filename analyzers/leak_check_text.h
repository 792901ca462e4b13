// The leak check's report as valgrind memcheck prints it (what CI scripts and
// people used to `valgrind --leak-check=full` read): the HEAP SUMMARY, with
// --leak-check=full the loss records of the kinds shown (smallest first,
// "N (D direct, I indirect) bytes in B blocks are definitely lost in loss
// record K of T", then the allocation stack, frame 0 the allocation
// function), the LEAK SUMMARY and the ERROR SUMMARY, each line prefixed
// "==PID== ". heaprec --leak-check prints it on stderr for each process.
//
// A pure function of the report; allocates.
#ifndef HEAPREC_ANALYZERS_LEAK_CHECK_TEXT_H_
#define HEAPREC_ANALYZERS_LEAK_CHECK_TEXT_H_

#include <cstdint>
#include <string>

#include "analyzers/analysis.h"
#include "analyzers/leak_report.h"
#include "analyzers/summary.h"

namespace heaprec::analyzers {

struct LeakCheckOptions {
  bool full = true;  // --leak-check=full (else summary)
  LeakKindSet show = DefaultLeakKinds();
  LeakKindSet errors_for = DefaultLeakKinds();
};

// The text, and through *errors the loss records that count as errors.
std::string LeakCheckText(const Analysis& a, const SummaryAnalyzer& s, const LeakReport& l,
                          const LeakCheckOptions& o, uint64_t* errors);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_LEAK_CHECK_TEXT_H_

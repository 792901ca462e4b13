// What a recording says it could not record: the recorder's loss counters
// from a trace's end record (format/FORMAT.md, End.counters), each with the
// sentence the reports print for it. One list for the text report's
// warnings, the JSON's "losses" object and the HTML page's warnings.
// Pure functions; thread-safe.
#ifndef HEAPREC_ANALYZERS_RECORDING_LOSSES_H_
#define HEAPREC_ANALYZERS_RECORDING_LOSSES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/records.h"

namespace heaprec::analyzers {

struct RecordingLoss {
  std::string name;  // the counter's name, e.g. "truncated_stacks"
  uint64_t value = 0;
  const char* what;  // "call stacks were deeper than ...": follows the value
};

// Every loss counter the reports know, in a fixed order, with its value in
// end (0 when the counter is absent or there is no end record);
// unkept_samples only when end has it (sampled traces).
std::vector<RecordingLoss> RecordingLosses(const std::optional<format::EndRecord>& end);

// "12 WHAT (name)." for a loss with a value, for warnings.
std::string LossSentence(const RecordingLoss& loss);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_RECORDING_LOSSES_H_

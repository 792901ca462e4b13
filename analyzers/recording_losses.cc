#include "analyzers/recording_losses.h"

#include <utility>

namespace heaprec::analyzers {

std::vector<RecordingLoss> RecordingLosses(const std::optional<format::EndRecord>& end) {
  static const std::pair<const char*, const char*> kLosses[] = {
      {"dropped_events",
       "events were not recorded (the recorder could not keep up or its launcher was gone): "
       "totals undercount"},
      {"unreadable_stacks", "call stacks could not be read back"},
      {"stack_table_full", "allocations lost their call stack: the stack table was full"},
      {"unwind_failures", "call stacks could not be unwound"},
      {"unwind_skipped", "allocations have no call stack: their thread had no unwinder memory"},
      {"truncated_stacks",
       "allocations had call stacks deeper than the recorder keeps (heaprec --depth, at most "
       "256): their outermost frames are cut, and the cut stacks are grouped under "
       "[truncated]"},
      {"module_log_full", "loaded modules were not logged: some frames may have no symbols"},
      {"label_log_full", "marker labels were lost"},
      {"unkept_samples",
       "sampled blocks had no room in the recorder's set of live samples: their frees were not "
       "recorded, so they count as leaked"}};
  std::vector<RecordingLoss> out;
  for (const auto& [name, what] : kLosses) {
    RecordingLoss loss{name, 0, what};
    bool present = false;
    if (end) {
      for (const auto& [counter, value] : end->counters) {
        if (counter != name) continue;
        loss.value += value;
        present = true;
      }
    }
    // Only sampled traces count unkept samples: exact ones do not list it.
    if (!present && loss.name == "unkept_samples") continue;
    out.push_back(std::move(loss));
  }
  return out;
}

std::string LossSentence(const RecordingLoss& loss) {
  return std::to_string(loss.value) + " " + loss.what + " (" + loss.name + ").";
}

}  // namespace heaprec::analyzers

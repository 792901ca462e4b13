// The markers that say recording was switched on or off while the process
// ran (heaprec --start-paused, --start PID, --stop PID, --switch-signal), or
// began and ended in a running process (heaprec -p): their labels, written
// by the recorder and read by the analyses, defined once here
// (format/FORMAT.md, "Markers").
//
// Header-only, no allocation: the preload library (the writer of these
// labels) may include it.
#ifndef HEAPREC_FORMAT_SWITCH_MARKERS_H_
#define HEAPREC_FORMAT_SWITCH_MARKERS_H_

#include <string_view>

namespace heaprec::format {

// Recording of allocations starts (stops) at the event with the marker's seq.
// While stopped, frees and the release of a block by realloc are still
// recorded (without stacks); allocations are not.
inline constexpr char kRecordingStartLabel[] = "heaprec:start";
inline constexpr char kRecordingStopLabel[] = "heaprec:stop";

// heaprec -p: the recording's first record (in a process running before it)
// and its last (the process ran on after it).
inline constexpr char kAttachLabel[] = "heaprec:attach";
inline constexpr char kDetachLabel[] = "heaprec:detach";

inline bool IsRecordingSwitch(std::string_view label) {
  return label == kRecordingStartLabel || label == kRecordingStopLabel;
}

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_SWITCH_MARKERS_H_

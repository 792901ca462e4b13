// Moment: a point in a trace named on heapreplay's command line (--at,
// --from, --to), and MomentWatch, which says when the event stream reaches it.
//
// Spelling: a time since recording started, a number with a unit ("1.5s",
// "250ms", "40us", "1000ns"), or otherwise a marker label (heaprec_mark's
// text, or "signal-N" for the N-th marker signal): the first marker with that
// label. "end" is the end of the trace.
// A time moment is reached just before the first event later than it; a label
// just before the event the marker precedes.
// Plain data and a small state machine; not thread-safe.
#ifndef HEAPREC_ANALYZERS_MOMENT_H_
#define HEAPREC_ANALYZERS_MOMENT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "format/records.h"

namespace heaprec::analyzers {

struct Moment {
  enum class Kind { kEnd, kTime, kLabel };
  Kind kind = Kind::kEnd;
  uint64_t time_ns = 0;  // kTime
  std::string label;     // kLabel
  std::string text;      // as given
};

// nullopt (and *error, one line) for an empty text or a malformed time.
std::optional<Moment> ParseMoment(const std::string& text, std::string* error);

// The moment as reports name it after "at": "the end", "2.5s", "marker
// loaded" ("live at marker loaded").
std::string MomentWords(const Moment& m);

class MomentWatch {
 public:
  explicit MomentWatch(Moment m) : moment_(std::move(m)) {}

  // True once, when the moment is reached at this marker / before this event.
  bool AtMarker(const format::Marker& m);
  bool BeforeEvent(const format::Event& e);

  bool reached() const { return reached_; }
  // Where it was reached (0 until then): the seq of the event after it, and
  // the time.
  uint64_t seq() const { return seq_; }
  uint64_t time_ns() const { return time_ns_; }
  const Moment& moment() const { return moment_; }

 private:
  bool Reach(uint64_t seq, uint64_t time_ns);

  Moment moment_;
  bool reached_ = false;
  uint64_t seq_ = 0, time_ns_ = 0;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_MOMENT_H_

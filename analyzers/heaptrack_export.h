// HeaptrackExport: heapreplay --export heaptrack FILE. An Analyzer that
// turns the pass's events into heaptrack's allocation lines (an allocation
// info per call stack and size; `+` for each block made, `-` for each block
// released, the release first when a realloc does both, as heaptrack records
// a realloc), then writes the recording with the trace's call stacks and
// symbols (format/heaptrack_writer.h). heaptrack_print and heaptrack_gui
// open the file; their calls, peak, leaked bytes and temporaries are
// heapreplay's (each stack is a heaptrack trace, so per stack too).
// RSS samples (format 3.4) become heaptrack's `R` lines (resident pages,
// rounded up, after the `c` time stamp), as heaptrack writes its own every
// 10 ms: heaptrack_print's "peak RSS" is heapreplay's peak_rss_bytes (its
// "including heaptrack overhead": here the RSS heaprec measured).
// What heaptrack's format cannot hold is left out: threads, addresses,
// allocation functions, leak kinds, markers; frees of blocks the trace never
// saw made (heaptrack drops them too). A sampled trace is refused (the format
// has no weights). Not thread-safe; memory: a few bytes per event.
#ifndef HEAPREC_ANALYZERS_HEAPTRACK_EXPORT_H_
#define HEAPREC_ANALYZERS_HEAPTRACK_EXPORT_H_

#include <string>

#include "analyzers/analysis.h"
#include "analyzers/analyzer.h"
#include "format/heaptrack_writer.h"

namespace heaprec::analyzers {

class HeaptrackExport : public Analyzer {
 public:
  // pass: the Analysis this analyzer is added to (its process's page size
  // converts RSS samples to pages).
  explicit HeaptrackExport(const Analysis& pass) : pass_(pass) {}
  void OnEvent(const format::Event& e, const HeapChange& c, const LiveHeap& heap) override;
  void OnRssSample(const format::RssSample& s, const LiveHeap& heap) override;
  // After the pass: writes the file. False + one line "PATH: why" in *error.
  bool Write(const std::string& path, std::string* error);

 private:
  uint32_t PageSize() const;

  const Analysis& pass_;
  format::HeaptrackWriter writer_;
};

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_HEAPTRACK_EXPORT_H_

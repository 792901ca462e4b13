// ProgressMeter: while heapreplay reads a trace, one line on stderr that
// says how far it has got, as a user of a multi-gigabyte trace expects:
//
//   heapreplay: reading big.zst: 1.2 GiB of 4.1 GiB (29%), 18.4 M events/s, 41 s left
//
// Only when stderr is a terminal, and only once the read has taken a second
// (HEAPREPLAY_PROGRESS_AFTER_MS sets that delay, for tests); redrawn four
// times a second on its own thread from format::ReadProgress (which the
// reader updates after each chunk); erased when the meter is destroyed, so
// that nothing of it stays on the screen or reaches a file or a pipe.
// Allocates; one meter per read.
#ifndef HEAPREC_HEAPREPLAY_PROGRESS_METER_H_
#define HEAPREC_HEAPREPLAY_PROGRESS_METER_H_

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "format/trace_reader.h"

namespace heaprec::heapreplay {

// The line (without the carriage return), from what the reader reported:
// bytes of total (0: unknown) read in seconds, with events decoded.
std::string ProgressLine(const std::string& path, uint64_t bytes, uint64_t total, uint64_t events,
                         double seconds);

class ProgressMeter {
 public:
  // Starts the display thread if stderr is a terminal; progress must
  // outlive the meter.
  ProgressMeter(std::string path, const format::ReadProgress* progress);
  ~ProgressMeter();
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

 private:
  void Run();

  std::string path_;
  const format::ReadProgress* progress_;
  uint64_t total_ = 0;
  uint64_t after_ms_ = 1000;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_PROGRESS_METER_H_

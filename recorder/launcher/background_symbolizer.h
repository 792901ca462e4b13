// BackgroundSymbolizer: symbolizes a traced process's return addresses on
// its own thread while the process still runs, so that little is left to do
// when it exits (symbolizing after exit added ~0.1 s to every recording,
// most of it decompressing libc's separate debug information).
//
// The caller queues modules and (address, module id) pairs in the order the
// symbols need them (a module before the addresses in it); the worker thread
// feeds them, in that order, to one symbolize::DwarfSymbolizer. Finish() waits
// for the queue to drain, stops the thread and hands out every symbol, keyed
// by address. The results are exactly what the same DwarfSymbolizer calls
// would give on the caller's thread. The worker uses the symbol cache of
// earlier runs (symbolize/symbol_cache.h, SymbolCache::DefaultDir) and
// saves what it learned into it as it ends, before Finish() returns.
//
// AddModule and Symbolize are called from one thread (the launcher's);
// the worker is started on the first call and runs as SCHED_IDLE, so that it
// uses only the CPU time the traced program and the draining leave; Finish()
// puts it back to SCHED_OTHER where allowed (root). Where the program runs on
// after the recording (heaprec -p), SetSymbolizersIdle(false) first: a busy
// program would starve an idle thread, and an unprivileged one (or one in a
// sandbox) cannot leave SCHED_IDLE again.
// Allocates; for the launcher only.
#ifndef HEAPREC_RECORDER_LAUNCHER_BACKGROUND_SYMBOLIZER_H_
#define HEAPREC_RECORDER_LAUNCHER_BACKGROUND_SYMBOLIZER_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "format/records.h"

namespace heaprec::symbolize {
class DwarfSymbolizer;
}

namespace heaprec::recorder::launcher {

// Whether workers started from now on run as SCHED_IDLE (default true).
void SetSymbolizersIdle(bool idle);

class BackgroundSymbolizer {
 public:
  BackgroundSymbolizer();
  ~BackgroundSymbolizer();  // stops the worker, dropping what is queued
  BackgroundSymbolizer(const BackgroundSymbolizer&) = delete;
  BackgroundSymbolizer& operator=(const BackgroundSymbolizer&) = delete;

  void AddModule(const format::Module& module);
  // Symbol::address and Symbol::module of the result are address and module.
  void Symbolize(uint64_t address, uint32_t module);
  // Everything queued, symbolized and saved to the symbol cache; then the
  // worker is stopped. Call once.
  std::map<uint64_t, format::Symbol> Finish();

 private:
  struct Work {
    bool is_module = false;
    format::Module module;
    uint64_t address = 0;
    uint32_t module_id = 0;
  };
  void Push(Work w);
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Work> queue_;                                  // guarded by mu_
  bool stop_ = false;                                       // guarded by mu_
  std::map<uint64_t, format::Symbol> results_;              // the worker's until it is joined
  std::unique_ptr<symbolize::DwarfSymbolizer> symbolizer_;  // the worker's; freed here
  std::thread worker_;
};

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_BACKGROUND_SYMBOLIZER_H_

// Symbols made on a worker thread while the traced process runs
// (background_symbolizer.h).
#include "recorder/launcher/background_symbolizer.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <atomic>
#include <utility>

#include "symbolize/dwarf_symbolizer.h"
#include "symbolize/symbol_cache.h"

namespace heaprec::recorder::launcher {

BackgroundSymbolizer::BackgroundSymbolizer() = default;

BackgroundSymbolizer::~BackgroundSymbolizer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    queue_.clear();
  }
  cv_.notify_one();
  if (worker_.joinable()) worker_.join();
  symbolizer_.reset();
}

void BackgroundSymbolizer::AddModule(const format::Module& module) {
  Work w;
  w.is_module = true;
  w.module = module;
  Push(std::move(w));
}

void BackgroundSymbolizer::Symbolize(uint64_t address, uint32_t module) {
  Work w;
  w.address = address;
  w.module_id = module;
  Push(std::move(w));
}

void BackgroundSymbolizer::Push(Work w) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(w));
  }
  if (!worker_.joinable()) worker_ = std::thread(&BackgroundSymbolizer::Run, this);
  cv_.notify_one();
}

std::map<uint64_t, format::Symbol> BackgroundSymbolizer::Finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;  // the worker drains the queue first, then ends
  }
  cv_.notify_one();
  if (worker_.joinable()) {
    // What is left is awaited now: at the launcher's priority, where the
    // system lets it rise again (root; else it stays idle, which waits long
    // only while the program runs on: heaprec -p detached from a busy one).
    sched_param param = {};
    pthread_setschedparam(worker_.native_handle(), SCHED_OTHER, &param);
    worker_.join();
  }
  return std::move(results_);
}

namespace {
std::atomic<bool> g_idle{true};
}  // namespace

void SetSymbolizersIdle(bool idle) { g_idle.store(idle); }

void BackgroundSymbolizer::Run() {
  // SCHED_IDLE: the traced program and the launcher's draining come first;
  // this thread takes only the CPU time they leave (all of it once the
  // program has exited). Nice 19 still took time from them: measured on
  // alloc_heavy, no gain at nice 19, ~35 ms at SCHED_IDLE.
  sched_param param = {};
  if (g_idle.load()) pthread_setschedparam(pthread_self(), SCHED_IDLE, &param);
  // The signals heaprec forwards to the program go to the main thread.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  // A member, not a local: its tables are freed with this object, not as
  // the worker ends, which Finish() waits for (~2 ms after Python's dict
  // benchmark, on the wait after the program).
  symbolizer_ = std::make_unique<symbolize::DwarfSymbolizer>();
  symbolize::DwarfSymbolizer& symbolizer = *symbolizer_;
  symbolizer.UseCache(symbolize::SymbolCache::DefaultDir());
  for (;;) {
    Work w;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) break;  // stopped, and nothing left
      w = std::move(queue_.front());
      queue_.pop_front();
    }
    if (w.is_module) {
      symbolizer.AddModule(w.module);
      continue;
    }
    format::Symbol s = symbolizer.Symbolize(w.address, w.module_id);
    s.address = w.address;
    s.module = w.module_id;
    results_[w.address] = std::move(s);
  }
  // Here, not when symbolizer_ is destroyed: the launcher leaves its
  // session, and with it this object, to the process's exit (main.cc).
  symbolizer.SaveCache();
}

}  // namespace heaprec::recorder::launcher

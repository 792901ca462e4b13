// ProgressMeter (progress_meter.h).
#include "heapreplay/progress_meter.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "analyzers/human_bytes.h"

namespace heaprec::heapreplay {

std::string ProgressLine(const std::string& path, uint64_t bytes, uint64_t total, uint64_t events,
                         double seconds) {
  const size_t slash = path.rfind('/');
  std::string line = "heapreplay: reading " +
                     (slash == std::string::npos ? path : path.substr(slash + 1)) + ": " +
                     analyzers::HumanBytes(bytes);
  char buf[96];
  if (total > 0) {
    std::snprintf(
        buf, sizeof(buf), " of %s (%d%%)", analyzers::HumanBytes(total).c_str(),
        static_cast<int>(100.0 * static_cast<double>(bytes) / static_cast<double>(total)));
    line += buf;
  }
  if (seconds > 0) {
    std::snprintf(buf, sizeof(buf), ", %.1f M events/s",
                  static_cast<double>(events) / seconds / 1e6);
    line += buf;
  }
  if (total > 0 && bytes > 0 && bytes < total && seconds > 0) {
    const double left = seconds * static_cast<double>(total - bytes) / static_cast<double>(bytes);
    std::snprintf(buf, sizeof(buf), ", %.0f s left", left);
    line += buf;
  }
  return line;
}

ProgressMeter::ProgressMeter(std::string path, const format::ReadProgress* progress)
    : path_(std::move(path)), progress_(progress) {
  if (progress_ == nullptr || isatty(STDERR_FILENO) != 1) return;
  struct stat st;
  if (stat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    total_ = static_cast<uint64_t>(st.st_size);
  if (const char* after = std::getenv("HEAPREPLAY_PROGRESS_AFTER_MS")) {
    after_ms_ = std::strtoull(after, nullptr, 10);
  }
  thread_ = std::thread([this] { Run(); });
}

ProgressMeter::~ProgressMeter() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ProgressMeter::Run() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  // A delay of 0 (tests) draws at once, even a read that has already ended.
  if (after_ms_ > 0 &&
      cv_.wait_for(lock, std::chrono::milliseconds(after_ms_), [this] { return stop_; })) {
    return;
  }
  bool drawn = false;
  do {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string line =
        ProgressLine(path_, progress_->bytes.load(std::memory_order_relaxed), total_,
                     progress_->events.load(std::memory_order_relaxed), seconds);
    std::fprintf(stderr, "\r%s\033[K", line.c_str());
    std::fflush(stderr);
    drawn = true;
  } while (!cv_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; }));
  if (drawn) {
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
  }
}

}  // namespace heaprec::heapreplay

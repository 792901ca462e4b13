// Session: region discovery, liveness and the region -> trace pipeline.
#include "recorder/launcher/session.h"

#include <dirent.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "recorder/launcher/output_path.h"

namespace heaprec::recorder::launcher {
namespace {

// Takes the records of a region that has no trace file (it could not be
// created), so that its program never waits for ring space.
struct DiscardSink : RecordSink {
  void OnRecord(uint32_t, const RawRecord&) override {}
};

int PidfdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

// The program name for %n: argv[0]'s last component, else the executable's.
std::string ProgramName(const RegionHeader& h) {
  std::string name(h.cmdline, strnlen(h.cmdline, h.cmdline_bytes < kCmdlineBytes ? h.cmdline_bytes
                                                                                 : kCmdlineBytes));
  if (name.empty()) name.assign(h.exe, strnlen(h.exe, kExeBytes));
  const size_t slash = name.rfind('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  for (char& c : name) {
    if (c == '/' || c == ' ') c = '_';
  }
  return name.empty() ? "program" : name;
}

}  // namespace

Session::Session(std::string dir, const Options& options)
    : dir_(std::move(dir)), options_(options) {
  inotify_fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotify_fd_ >= 0 &&
      inotify_add_watch(inotify_fd_, dir_.c_str(), IN_CREATE | IN_MOVED_TO) < 0) {
    close(inotify_fd_);
    inotify_fd_ = -1;
  }
}

Session::~Session() {
  for (auto& e : entries_) {
    if (e->pidfd >= 0) close(e->pidfd);
  }
  if (inotify_fd_ >= 0) close(inotify_fd_);
}

bool Session::RegionsMayHaveAppeared(uint64_t now_ns) {
  if (now_ns - last_look_ns_ < kLookNs) return false;
  last_look_ns_ = now_ns;
  bool appeared = !waiting_.empty();
  if (inotify_fd_ >= 0) {
    alignas(inotify_event) char events[4096];
    while (read(inotify_fd_, events, sizeof(events)) > 0) appeared = true;
  }
  return appeared;
}

void Session::SetExitStatus(pid_t pid, int status) { exit_status_[pid] = status; }

std::vector<std::string> Session::TakeErrors() {
  std::vector<std::string> out;
  out.swap(errors_);
  return out;
}

namespace {

// The pid in a region file name "<pid>.<start ns>.<n>.region".
pid_t PidOfName(const std::string& name) { return static_cast<pid_t>(std::atol(name.c_str())); }

}  // namespace

bool Session::ProcessGone(pid_t pid) const {
  return exit_status_.count(pid) != 0 || (kill(pid, 0) != 0 && errno == ESRCH);
}

void Session::Discover() {
  DIR* d = opendir(dir_.c_str());
  if (d == nullptr) return;
  std::vector<std::pair<std::string, std::unique_ptr<RegionReader>>> found;
  while (const dirent* ent = readdir(d)) {
    const std::string name = ent->d_name;
    if (name.size() < 8 || name.compare(name.size() - 7, 7, ".region") != 0) continue;
    if (known_.count(name) != 0) continue;
    std::string error;
    std::unique_ptr<RegionReader> reader = RegionReader::Open(dir_ + "/" + name, &error);
    if (reader == nullptr) {
      if (!error.empty()) {
        errors_.push_back("heaprec: " + error);
        known_.insert(name);
        waiting_.erase(name);
      } else if (ProcessGone(PidOfName(name))) {
        // Its process died before the region was ready: nothing to read.
        unlink((dir_ + "/" + name).c_str());
        known_.insert(name);
        waiting_.erase(name);
      } else {
        waiting_.insert(name);
      }
      continue;
    }
    waiting_.erase(name);
    known_.insert(name);
    // The launcher's mapping keeps the data; the name is no longer needed.
    unlink((dir_ + "/" + name).c_str());
    found.emplace_back(name, std::move(reader));
  }
  closedir(d);
  // Oldest first, so that an image replaced by exec is seen as replaced.
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return a.second->header().start_monotonic_ns < b.second->header().start_monotonic_ns;
  });
  for (auto& [name, reader] : found) Adopt(name, std::move(reader));
}

bool Session::NewerImageWaiting(pid_t pid) const {
  for (const std::string& name : waiting_) {
    if (PidOfName(name) == pid) return true;
  }
  return false;
}

std::string Session::TracePath(const RegionReader& reader, const std::string& parent,
                               std::unique_ptr<TraceBuilder>* builder) {
  const RegionHeader& h = reader.header();
  const std::string path = ExpandPattern(options_.output, h.pid, ProgramName(h));
  std::string error;
  // The search for a free name goes on from where the last one for the same
  // path ended (the names before it were taken then, and stay taken): the
  // processes of a session that share one -o name probe each name once
  // instead of all earlier ones again (1,000 shell children: ~500,000
  // access() calls, 1.4 s of the launcher's time).
  int& next = next_name_[path];
  for (int tries = 0; tries < 10000; ++tries, ++next) {
    const std::string candidate = Alternative(path, next);
    if (access(candidate.c_str(), F_OK) == 0) continue;
    *builder = TraceBuilder::Create(const_cast<RegionReader*>(&reader), candidate,
                                    options_.addresses, parent, &error);
    if (*builder != nullptr) {
      ++next;
      return candidate;
    }
    if (error.find("File exists") == std::string::npos) break;
  }
  errors_.push_back("heaprec: " + error);
  return "";
}

std::string Session::ParentTrace(const RegionHeader& h, const Entry* replaced) const {
  if (replaced != nullptr) return replaced->trace;
  const Entry* parent = nullptr;
  for (const auto& other : entries_) {
    if (other->pid != h.ppid) continue;
    if (h.parent_start_ns != 0) {
      // A fork child: exactly the image that forked.
      if (other->start_ns == h.parent_start_ns) parent = other.get();
    } else if (other->start_ns <= h.start_monotonic_ns &&
               (parent == nullptr || other->start_ns > parent->start_ns)) {
      parent = other.get();  // the parent's image that had started by then
    }
  }
  return parent != nullptr ? parent->trace : "";
}

void Session::Adopt(const std::string& name, std::unique_ptr<RegionReader> reader) {
  auto e = std::make_unique<Entry>();
  e->pid = attached_pid_ != 0 ? attached_pid_ : reader->header().pid;
  e->start_ns = reader->header().start_monotonic_ns;
  // A newer image of a known pid means the older one exec'd away.
  const Entry* replaced = nullptr;
  for (auto& other : entries_) {
    if (other->pid == e->pid && other->reader != nullptr && other->start_ns <= e->start_ns) {
      Finish(*other, /*replaced=*/true);
      replaced = other.get();
    }
  }
  e->pidfd = PidfdOpen(e->pid);
  e->rss = std::make_unique<RssSampler>(e->pid);
  e->reader = std::move(reader);
  e->trace = TracePath(*e->reader, ParentTrace(e->reader->header(), replaced), &e->builder);
  entries_.push_back(std::move(e));
}

bool Session::Gone(const Entry& e) const {
  if (exit_status_.count(e.pid) != 0) return true;
  if (e.pid == main_pid_) return false;  // until reaped
  if (e.pidfd < 0) return true;          // already gone when found
  pollfd p = {e.pidfd, POLLIN, 0};
  return poll(&p, 1, 0) > 0;
}

void Session::Finish(Entry& e, bool replaced) {
  e.reader->Drain(/*all=*/true);  // the final Emit skips gaps: nothing may stay behind
  if (e.builder != nullptr) {
    e.builder->PollModules();
    e.reader->Emit(*e.builder, /*final=*/true, 0);
    // An image replaced by exec did not exit: its status is -1. Else the
    // status waitpid gave, or the one the process announced as it ended.
    int code = -1;
    const RegionHeader& h = e.reader->header();
    if (const auto status = exit_status_.find(e.pid); status != exit_status_.end()) {
      code = status->second;
    } else if (h.exit_announced.load(std::memory_order_acquire) != 0) {
      code = h.exit_wait_status.load(std::memory_order_relaxed);
    }
    if (replaced) code = -1;
    TraceResult r;
    r.path = e.builder->path();
    r.pid = e.pid;
    r.process = e.builder->process();
    r.exit_status = code;
    r.replaced_by_exec = replaced;
    if (!e.builder->Finish(code, replaced, options_.leak_scan)) {
      r.error = r.path + ": " + e.builder->error();
    }
    r.allocations = e.builder->allocations();
    r.frees = e.builder->totals().frees;
    r.stacks = e.builder->distinct_stacks();
    r.bytes = e.builder->bytes_written();
    r.peak_bytes = e.builder->peak_bytes();
    r.leaked_bytes = e.builder->live_bytes();
    results_.push_back(r);
    last_builder_ = std::move(e.builder);
  } else {
    DiscardSink discard;
    e.reader->Emit(discard, true, 0);
  }
  if (attached_pid_ != 0) e.reader->ReleaseMemory();
  e.gone = true;
  if (e.pidfd >= 0) close(e.pidfd);
  e.pidfd = -1;
  e.reader.reset();
}

void Session::SampleRss(Entry& e, uint64_t now_ns) {
  if (now_ns < e.next_rss_ns || e.builder == nullptr) return;
  // Keep the cadence, but after a stall (a leak scan, a slow disk) start
  // again from now rather than catching up with samples of the same moment.
  e.next_rss_ns = now_ns - e.next_rss_ns < RssSampler::kIntervalNs
                      ? e.next_rss_ns + RssSampler::kIntervalNs
                      : now_ns + RssSampler::kIntervalNs;
  // The seq first: every record before it was taken before the reading.
  const RegionHeader& h = e.reader->header();
  format::RssSample s;
  s.seq = std::max<uint64_t>(CurrentSeq(h), e.reader->next_seq());
  RssReading r;
  if (!e.rss->Read(&r)) return;
  s.time_ns = now_ns > h.start_monotonic_ns ? now_ns - h.start_monotonic_ns : 0;
  s.anon_bytes = r.anon_bytes;
  s.file_bytes = r.file_bytes;
  s.shmem_bytes = r.shmem_bytes;
  e.builder->AddRssSample(s);
}

void Session::AnswerScans(Entry& e) {
  if (e.builder == nullptr) {
    // No trace to write a scan to: nobody may wait for one.
    RegionHeader& h = *e.reader->view().header();
    h.scans_done.store(h.scans_requested.load(std::memory_order_acquire),
                       std::memory_order_release);
    syscall(SYS_futex, reinterpret_cast<uint32_t*>(&h.scans_done), FUTEX_WAKE, INT_MAX, nullptr,
            nullptr, 0);
    return;
  }
  if (!e.builder->has_scan_request()) return;
  LeakScanner& scanner = Scanner();
  while (e.builder->has_scan_request()) {
    scanner.Answer(e.pid, e.builder->TakeScanRequest(), *e.reader, *e.builder);
  }
}

LeakScanner& Session::Scanner() {
  if (scanner_ == nullptr)
    scanner_ = std::make_unique<LeakScanner>(std::vector<std::string>{dir_, library_});
  return *scanner_;
}

void Session::WarmLeakScans() {
  for (auto& e : entries_) {
    if (e->reader == nullptr || e->builder == nullptr) continue;
    const std::vector<format::Module>& modules = e->builder->modules();
    if (e->warmed_modules < modules.size()) {
      Scanner().Warm(modules[e->warmed_modules++]);
      return;
    }
  }
}

bool Session::Step(uint64_t now_ns, bool scan) {
  if (scan) Discover();
  uint64_t waits = 0;
  for (const auto& e : entries_) {
    if (e->reader != nullptr) waits += e->reader->TakeProducerWaits();
  }
  const bool fast = governor_.Update(now_ns, slept_ns_, waits);
  slept_ns_ = 0;
  bool moved = false;
  for (auto& e : entries_) {
    if (e->reader == nullptr) continue;
    if (e->builder != nullptr) e->builder->SetFastCompression(fast);
    e->reader->PublishClock(now_ns);
    // Check liveness before draining: a process seen gone has written all.
    const bool gone = Gone(*e);
    moved |= e->reader->Drain() > 0;
    if (e->builder != nullptr) {
      if (!gone) SampleRss(*e, now_ns);
      e->builder->PollModules();
      moved |= e->reader->Emit(*e->builder, false, now_ns, kEmitBudget) > 0;
      e->builder->WriteRssSamples(e->reader->next_seq());
      if (!gone) AnswerScans(*e);
      e->builder->MaybeFlush(now_ns);
    } else {
      DiscardSink discard;
      moved |= e->reader->Emit(discard, false, now_ns, kEmitBudget) > 0;
      AnswerScans(*e);
    }
    // A newer image of this pid may still be getting ready: it decides.
    if (gone && !NewerImageWaiting(e->pid)) Finish(*e, false);
  }
  if (!moved && options_.leak_scan) WarmLeakScans();
  return moved;
}

bool Session::AllDone() const {
  if (!waiting_.empty()) return false;
  for (const auto& e : entries_) {
    if (e->reader != nullptr) return false;
  }
  return true;
}

void Session::FinishAll(bool replaced) {
  Discover();
  for (auto& e : entries_) {
    if (e->reader != nullptr) Finish(*e, replaced);
  }
}

bool Session::CaughtUp() const {
  for (const auto& e : entries_) {
    if (e->reader == nullptr) continue;
    const RegionHeader& h = e->reader->header();
    if (e->reader->next_seq() < CurrentSeq(h) || !e->reader->idle()) return false;
  }
  return true;
}

}  // namespace heaprec::recorder::launcher

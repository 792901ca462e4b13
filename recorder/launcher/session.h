// Session: everything the launcher follows during one run. It watches the
// session folder for regions (one per traced process image: the program, its
// fork children, exec'd programs), gives each a trace file, moves records
// from regions to traces as they come, and finishes a trace when its process
// is gone (exited, killed, or replaced by exec).
//
// Each trace names its parent's (format::ProcessInfo::parent_trace): for an
// exec'd image, the traced image it replaced (same pid); for a fork child,
// the image that forked it (the region says which); else (a vfork or
// posix_spawn child's exec'd image) the image of its parent process that had
// started by then. How each process ended: the wait status when the launcher
// reaped it (its child, orphans), else what the process announced
// (RegionHeader::exit_wait_status), else unknown.
//
// Not thread-safe; allocates; driven by the launcher's main loop, which
// does not destroy its Session: once every trace is finished and closed,
// freeing the Session's tables (symbols, stacks, the leak scanner's module
// data) would only add to the wait after the program; the exit frees them.
#ifndef HEAPREC_RECORDER_LAUNCHER_SESSION_H_
#define HEAPREC_RECORDER_LAUNCHER_SESSION_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "recorder/launcher/compression_governor.h"
#include "recorder/launcher/leak_scanner.h"
#include "recorder/launcher/options.h"
#include "recorder/launcher/region_reader.h"
#include "recorder/launcher/rss_sampler.h"
#include "recorder/launcher/trace_builder.h"

namespace heaprec::recorder::launcher {

struct TraceResult {
  std::string path;
  int pid = 0;
  format::ProcessInfo process;  // as written: ppid, parent_trace, args...
  int exit_status = -1;         // wait status; -1 unknown
  bool replaced_by_exec = false;
  uint64_t allocations = 0;
  uint64_t frees = 0;
  uint64_t stacks = 0;
  uint64_t bytes = 0;         // the trace file's size
  uint64_t peak_bytes = 0;    // live bytes at their highest
  uint64_t leaked_bytes = 0;  // live bytes at the end
  std::string error;          // non-empty if the trace could not be written
};

class Session {
 public:
  Session(std::string dir, const Options& options);
  ~Session();

  // Whether a region file may have appeared since the last look, so that
  // the next Step should look (its scan argument): the folder's inotify
  // watch saw a file created or moved in, or a file seen earlier is not
  // ready yet. Looks at most every kLookNs (false in between; a busy
  // launcher steps ~10,000 times a second). Without inotify, false: the
  // caller's periodic look covers it. A short-lived process (a shell's
  // /bin/true) asks for its final leak scan before the launcher knows it;
  // looking only every 5 ms made each wait ~2.5 ms on average.
  bool RegionsMayHaveAppeared(uint64_t now_ns);
  static constexpr uint64_t kLookNs = 500 * 1000;

  // The exit status of a process this launcher reaped (its child or an
  // orphan it inherited as subreaper).
  void SetExitStatus(pid_t pid, int status);
  // The launcher's own child: its regions end only when it is reaped, so its
  // exit status is always known.
  void SetMainPid(pid_t pid) { main_pid_ = pid; }
  // heaprec -p: the regions are the attached process's, whatever pid its
  // header says (its own PID namespace may number it differently); its
  // traces start where the recording did, and its region's memory is given
  // back when its trace is finished (the process keeps only the mapping).
  void SetAttachedPid(pid_t pid) { attached_pid_ = pid; }
  // libheaprec.so's path: its memory in the traced processes is no root of
  // their leak scans.
  void SetPreloadLibrary(const std::string& path) { library_ = path; }
  // One pass: find new regions, move records, finish what is gone. Returns
  // true if anything was moved (the caller sleeps otherwise).
  bool Step(uint64_t now_ns, bool scan);
  // Records one pass emits of a process, at most (RegionReader::Emit): the
  // compression governor decides between passes. Without a bound, a thread
  // that wrote as fast as the launcher compressed kept one Emit going for up
  // to 1.1 s at the strong level before the governor could see it falling
  // behind (tests/bench/churn: 1 run in 3-4 took 2.0-2.9 s instead of 1.1-1.5 s,
  // its trace nearly all at level 7). 2^17 records are two chunks, 20-40 ms.
  static constexpr size_t kEmitBudget = size_t{1} << 17;
  // The caller slept ns since the last Step (it found nothing to move): how
  // busy the launcher is decides the traces' compression level
  // (compression_governor.h).
  void NoteSlept(uint64_t ns) { slept_ns_ += ns; }
  // True when every region found is finished and no new one is waiting.
  bool AllDone() const;
  // Regions found so far.
  size_t adopted() const { return known_.size(); }
  // Finishes every trace now, live processes included; replaced: their
  // images were replaced by exec.
  void FinishAll(bool replaced = false);
  // True when every seq the regions handed out has been read (after the
  // recorder stopped taking new ones: heaprec_detach).
  bool CaughtUp() const;
  const std::vector<TraceResult>& results() const { return results_; }
  // Errors to report (one line each), taken once.
  std::vector<std::string> TakeErrors();

 private:
  struct Entry {
    std::unique_ptr<RegionReader> reader;
    std::unique_ptr<TraceBuilder> builder;
    pid_t pid = 0;
    int pidfd = -1;
    uint64_t start_ns = 0;
    std::string trace;  // the trace file; "" if it could not be made
    bool gone = false;
    std::unique_ptr<RssSampler> rss;  // the process's /proc/PID/status
    uint64_t next_rss_ns = 0;         // when the next RSS sample is due
    size_t warmed_modules = 0;        // of builder->modules(), read for leak scans
  };
  // Every RssSampler::kIntervalNs: e's RSS, held by its builder until the
  // records before it are written (format::RssSample).
  void SampleRss(Entry& e, uint64_t now_ns);
  void Discover();
  void Adopt(const std::string& name, std::unique_ptr<RegionReader> reader);
  bool Gone(const Entry& e) const;
  bool ProcessGone(pid_t pid) const;
  bool NewerImageWaiting(pid_t pid) const;
  // The trace of the image that started the one with this header ("" none);
  // replaced: the image it replaced by exec, if traced.
  std::string ParentTrace(const RegionHeader& h, const Entry* replaced) const;
  // Answers the leak scans e's process asked for (leak_scanner.h).
  void AnswerScans(Entry& e);
  // On a turn that moved nothing: reads one module's data for the leak
  // scans (LeakScanner::Warm), so that the exit scan finds it read.
  void WarmLeakScans();
  LeakScanner& Scanner();
  // replaced: the image exec'd another program (its exit status is unknown).
  void Finish(Entry& e, bool replaced);
  std::string TracePath(const RegionReader& reader, const std::string& parent,
                        std::unique_ptr<TraceBuilder>* builder);

  std::string dir_;
  Options options_;
  std::string library_;
  std::unique_ptr<LeakScanner> scanner_;
  // The builder of the process finished last, kept until the next one
  // finishes: after the last process it goes with the launcher (see
  // Session's comment), not freed while the user waits (Python's dict
  // benchmark: ~5 ms of the launcher's ~15-35 ms after the program).
  std::unique_ptr<TraceBuilder> last_builder_;
  pid_t main_pid_ = 0;
  pid_t attached_pid_ = 0;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::set<std::string> known_;    // region files adopted
  std::set<std::string> waiting_;  // region files not ready yet
  std::map<pid_t, int> exit_status_;
  std::vector<TraceResult> results_;
  std::vector<std::string> errors_;
  // Per expanded -o path: the first Alternative() not known taken (TracePath).
  std::map<std::string, int> next_name_;
  CompressionGovernor governor_;
  uint64_t slept_ns_ = 0;      // since the last Step
  int inotify_fd_ = -1;        // watches dir_ for new files; -1 without inotify
  uint64_t last_look_ns_ = 0;  // RegionsMayHaveAppeared
};

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_SESSION_H_

// trace_dump: prints every record of a trace as text, one per line, in the
// order the reader delivers them. A debugging aid for the format and the
// recorder; heapreplay is the tool for questions about the heap.
//   bazel run //format:trace_dump -- TRACE [--events N]
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "format/stack_table.h"
#include "format/trace_reader.h"

namespace heaprec::format {
namespace {

class Dumper : public TraceVisitor {
 public:
  explicit Dumper(uint64_t max_events) : max_events_(max_events) {}
  void OnProcess(const ProcessInfo& p) override {
    std::printf("process pid=%d ppid=%d program=%s args=", p.pid, p.ppid, p.program.c_str());
    for (const std::string& a : p.args) std::printf("[%s]", a.c_str());
    std::printf(" page_size=%u recorder=%s host=%s parent_seq=%" PRIu64
                " parent_trace=%s from_start=%d",
                p.page_size, p.recorder.c_str(), p.hostname.c_str(), p.parent_trace_seq,
                p.parent_trace.c_str(), p.from_start ? 1 : 0);
    if (p.sample_rate != 0) std::printf(" sample_rate=%" PRIu64, p.sample_rate);
    std::printf("\n");
    sampled_ = p.sample_rate != 0;
  }
  void OnModule(const Module& m) override {
    std::printf("module %u %s load=0x%" PRIx64 " ranges=%zu build_id_bytes=%zu seq=%" PRIu64 "\n",
                m.id, m.path.c_str(), m.load_address, m.ranges.size(), m.build_id.size(), m.seq);
  }
  void OnModuleUnload(const ModuleUnload& u) override {
    std::printf("unload %u seq=%" PRIu64 "\n", u.id, u.seq);
  }
  void OnThread(const ThreadInfo& t) override {
    std::printf("thread %u tid=%d name=%s seq=%" PRIu64 "\n", t.thread, t.tid, t.name.c_str(),
                t.seq);
  }
  void OnStackNode(const StackNode& n) override { stacks_.Add(n); }
  void OnSymbol(const Symbol& s) override {
    std::printf("symbol 0x%" PRIx64 " module=%u", s.address, s.module);
    for (const SourceFrame& f : s.frames) {
      std::printf(" | %s %s:%u", f.function.c_str(), f.file.c_str(), f.line);
    }
    std::printf("\n");
  }
  void OnMarker(const Marker& m) override {
    std::printf("marker seq=%" PRIu64 " t=%" PRIu64 " thread=%u %s\n", m.seq, m.time_ns, m.thread,
                m.label.c_str());
  }
  void OnRssSample(const RssSample& s) override {
    std::printf("rss seq=%" PRIu64 " t=%" PRIu64 " anon=%" PRIu64 " file=%" PRIu64 " shmem=%" PRIu64
                "\n",
                s.seq, s.time_ns, s.anon_bytes, s.file_bytes, s.shmem_bytes);
  }
  void OnLeakScan(const LeakScan& s) override {
    static const char* const kKinds[] = {"unknown", "definite", "indirect", "possible",
                                         "reachable"};
    uint64_t count[5] = {};
    for (size_t i = 0; i < s.blocks.size(); ++i) ++count[static_cast<int>(s.KindAt(i)) % 5];
    std::printf("leak_scan seq=%" PRIu64 " t=%" PRIu64
                " thread=%u reason=%u status=%u part=%u%s"
                " blocks=%zu",
                s.seq, s.time_ns, s.thread, static_cast<unsigned>(s.reason),
                static_cast<unsigned>(s.status), s.part, s.more ? " more" : "", s.blocks.size());
    for (int k = 1; k < 5; ++k) std::printf(" %s=%" PRIu64, kKinds[k], count[k]);
    std::printf(" scanned=%" PRIu64 " pause_ns=%" PRIu64 " label=%s note=%s\n", s.bytes_scanned,
                s.pause_ns, s.label.c_str(), s.note.c_str());
    for (const LeakRoot& r : s.roots) {
      std::printf("leak_root id=%u kind=%u module=%u thread=%u addr=0x%" PRIx64 " size=%" PRIu64
                  " %s\n",
                  r.id, static_cast<unsigned>(r.kind), r.module, r.thread, r.address, r.size,
                  r.name.c_str());
    }
  }
  void OnEvent(const Event& e) override {
    if (events_++ >= max_events_) return;
    std::printf("event seq=%" PRIu64 " t=%" PRIu64 " thread=%u %s block=%" PRIu64 " addr=0x%" PRIx64
                " size=%" PRIu64,
                e.seq, e.time_ns, e.thread, ApiName(e.api), e.block, e.address, e.size);
    if (HasAlignment(e.api)) std::printf(" align=%" PRIu64, e.alignment);
    if (HasOldAddress(e.api)) {
      std::printf(" old_block=%" PRIu64 " old=0x%" PRIx64, e.old_block, e.old_address);
    }
    std::printf(" stack=%u", e.stack);
    if (sampled_) std::printf(" weight=%.4f", e.weight);
    for (uint64_t pc : stacks_.Frames(e.stack)) std::printf(" 0x%" PRIx64, pc);
    std::printf("\n");
  }
  void OnEnd(const EndRecord& e) override {
    std::printf("end events=%" PRIu64 " allocations=%" PRIu64 " frees=%" PRIu64 " reallocs=%" PRIu64
                " bytes=%" PRIu64 " stack_nodes=%" PRIu64 " chunks=%" PRIu64
                " exit_status=%d replaced_by_exec=%d\n",
                e.events, e.allocations, e.frees, e.reallocs, e.bytes_allocated, e.stack_nodes,
                e.chunks, e.exit_status, e.replaced_by_exec ? 1 : 0);
    for (const auto& [name, value] : e.counters) {
      std::printf("counter %s=%" PRIu64 "\n", name.c_str(), value);
    }
  }

 private:
  StackTable stacks_;
  uint64_t max_events_;
  uint64_t events_ = 0;
  bool sampled_ = false;  // a sampled trace: events show their weight
};

}  // namespace
}  // namespace heaprec::format

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: trace_dump TRACE [--events N]\n");
    return 2;
  }
  uint64_t max_events = UINT64_MAX;
  if (argc == 4 && std::string(argv[2]) == "--events")
    max_events = std::strtoull(argv[3], nullptr, 10);
  heaprec::format::Dumper dumper(max_events);
  const heaprec::format::ReadResult r = heaprec::format::ReadTraceFile(argv[1], dumper);
  if (r.status == heaprec::format::ReadResult::kError) {
    std::fprintf(stderr, "trace_dump: %s\n", r.message.c_str());
    return 1;
  }
  if (r.status == heaprec::format::ReadResult::kTruncated) {
    std::fprintf(stderr, "trace_dump: warning: %s\n", r.message.c_str());
  }
  return 0;
}

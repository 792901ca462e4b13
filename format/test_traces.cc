// The sample trace used by the format tests and the fuzzer's seed corpus.
#include "format/test_traces.h"

#include <map>
#include <random>

#include "format/block_numbers.h"

namespace heaprec::format::testing {

ProcessInfo SampleProcess() {
  ProcessInfo p;
  p.program = "/usr/bin/sample";
  p.args = {"sample", "--flag", "arg with spaces", ""};
  p.pid = 4242;
  p.ppid = 1;
  p.start_realtime_ns = 1'700'000'000'123'456'789ULL;
  p.start_monotonic_ns = 987'654'321ULL;
  p.page_size = 4096;
  p.recorder = "heaprec test";
  p.hostname = "testhost";
  return p;
}

std::vector<Api> AllApis() {
  std::vector<Api> apis;
  for (int v = 0; v < 256; ++v) {
    const Api api = static_cast<Api>(v);
    if (IsValid(api) && std::string(ApiName(api)) != "unknown") apis.push_back(api);
  }
  return apis;
}

namespace {

Module SampleModule(uint32_t id, uint64_t seq) {
  Module m;
  m.id = id;
  m.path = "/usr/lib/libsample" + std::to_string(id) + ".so";
  m.build_id = std::string("\x01\x02\x00\xfe", 4) + std::to_string(id);
  m.load_address = 0x7f0000000000ULL + id * 0x100000;
  m.ranges = {{m.load_address, m.load_address + 0x1000, 0},
              {m.load_address + 0x1000, m.load_address + 0x5000, 0x1000}};
  m.seq = seq;
  return m;
}

Symbol SampleSymbol(uint64_t address, uint32_t module) {
  Symbol s;
  s.address = address;
  s.module = module;
  s.frames = {{"inlined_helper<int>()", "/src/helper.h", 12, 3},
              {"caller(int)", "/src/caller.cc", 40, 0}};
  return s;
}

}  // namespace

std::vector<Event> AsRead(const std::vector<Event>& written, bool keep_addresses) {
  std::map<uint64_t, uint64_t> live;  // address -> block
  // Released addresses, one per slot of BlockNumbers::ReleasedSlot (FORMAT.md,
  // Blocks): slot -> (address, block released there).
  std::map<size_t, std::pair<uint64_t, uint64_t>> freed;
  uint64_t made = 0;
  std::vector<Event> out;
  auto release = [&](uint64_t address, uint64_t block) {
    live.erase(address);
    freed[BlockNumbers::ReleasedSlot(address)] = {address, block};
  };
  auto make = [&](uint64_t address, uint64_t block) {
    const auto it = freed.find(BlockNumbers::ReleasedSlot(address));
    if (it != freed.end() && it->second.first == address) freed.erase(it);
    live[address] = block;
  };
  auto released_block = [&](uint64_t address) -> uint64_t {
    const auto it = freed.find(BlockNumbers::ReleasedSlot(address));
    return it != freed.end() && it->second.first == address ? it->second.second : 0;
  };
  for (Event e : written) {
    e.block = e.old_block = 0;
    switch (e.kind()) {
      case EventKind::kAlloc:
        if (e.address != 0) make(e.address, e.block = ++made);
        if (!keep_addresses) e.address = 0;
        break;
      case EventKind::kFree:
        if (e.address != 0 && live.count(e.address)) {
          e.block = live[e.address];
          release(e.address, e.block);
        } else if (e.address != 0) {
          e.block = released_block(e.address);  // a double free, if remembered
        }
        if (!keep_addresses && e.block != 0) e.address = 0;
        break;
      case EventKind::kRealloc: {
        const auto it = e.old_address == 0 ? live.end() : live.find(e.old_address);
        e.old_block = it == live.end() ? 0 : it->second;
        if (e.address != 0) {
          if (e.old_block != 0) release(e.old_address, e.old_block);
          make(e.address, e.block = ++made);
        } else if (e.size == 0 && e.old_block != 0) {
          release(e.old_address, e.old_block);
        }
        if (!keep_addresses) {
          e.address = 0;
          if (e.old_block != 0) e.old_address = 0;
        }
        break;
      }
      case EventKind::kInvalid:
        break;
    }
    out.push_back(e);
  }
  return out;
}

Records WriteSample(TraceWriter& w, int events, int flush_every, uint32_t seed, bool reuse_blocks) {
  std::mt19937_64 rng(seed);
  Records r;
  const std::vector<Api> apis = AllApis();
  uint64_t seq = 0, time = 0;
  uint32_t next_stack = 1;
  std::vector<uint64_t> allocated;
  for (uint32_t t = 1; t <= 3; ++t) {
    ThreadInfo info{t, static_cast<int32_t>(4242 + t), "worker-" + std::to_string(t), 0};
    w.AddThread(info);
    r.threads.push_back(info);
  }
  for (uint32_t m = 1; m <= 2; ++m) {
    r.modules.push_back(SampleModule(m, 1));
    w.AddModule(r.modules.back());
  }
  for (int i = 0; i < events; ++i) {
    // A new stack now and then: a child of a random earlier node.
    if (next_stack == 1 || rng() % 4 == 0) {
      const uint32_t parent = next_stack == 1 ? 0 : static_cast<uint32_t>(rng() % next_stack);
      StackNode n{next_stack++, parent, 0x400000 + (rng() % 0x10000)};
      w.AddStackNode(n);
      r.stack_nodes.push_back(n);
    }
    if (rng() % 50 == 0) {
      Marker m{++seq, time, 1, "marker-" + std::to_string(i)};
      w.AddMarker(m);
      r.markers.push_back(m);
      r.order.push_back("M" + std::to_string(m.seq));
    }
    Event e;
    e.seq = seq += 1 + (rng() % 8 == 0 ? rng() % 1000 : 0);
    // Time mostly grows but sometimes steps back (clock reads race seq).
    time = rng() % 10 == 0 && time > 100 ? time - 100 : time + rng() % 100000;
    e.time_ns = time;
    e.thread = 1 + static_cast<uint32_t>(rng() % 3);
    e.api = apis[i % apis.size()];
    e.address = rng() % 3 == 0 ? 0 : 0x55550000ULL + (rng() % (1 << 30)) * 16;
    e.size = rng() % 5 == 0 ? (uint64_t{1} << 40) + rng() % 100 : rng() % 4096;
    e.alignment = HasAlignment(e.api) ? uint64_t{16} << (rng() % 8) : 0;
    e.old_address = HasOldAddress(e.api) ? 0x66660000ULL + rng() % 4096 : 0;
    e.stack = static_cast<uint32_t>(rng() % next_stack);
    if (reuse_blocks && !allocated.empty() && rng() % 4 != 0) {
      // Name a block allocated before (live or already freed).
      const uint64_t earlier = allocated[rng() % allocated.size()];
      if (e.kind() == EventKind::kFree) e.address = earlier;
      if (e.kind() == EventKind::kRealloc) e.old_address = earlier;
    }
    if (e.kind() != EventKind::kFree && e.address != 0) allocated.push_back(e.address);
    w.AddEvent(e);
    r.events.push_back(e);
    r.order.push_back("E" + std::to_string(e.seq));
    if (i == events / 2) {
      w.AddModuleUnload({2, e.seq + 1});
      r.unloads.push_back({2, e.seq + 1});
      r.modules.push_back(SampleModule(3, e.seq + 1));
      w.AddModule(r.modules.back());
      ThreadInfo renamed{2, 4244, "renamed", e.seq};
      w.AddThread(renamed);
      r.threads.push_back(renamed);
    }
    if (flush_every > 0 && (i + 1) % flush_every == 0) w.Flush();
  }
  for (const StackNode& n : r.stack_nodes) {
    if (n.id % 3 == 0) {
      r.symbols.push_back(SampleSymbol(n.address, 1));
      w.AddSymbol(r.symbols.back());
    }
  }
  r.events = AsRead(r.events, w.options().keep_addresses);
  return r;
}

std::string SampleTraceBytes(int events, int flush_every, uint32_t seed, Records* expected,
                             std::vector<uint64_t>* chunk_ends, const TraceWriter::Options& options,
                             bool reuse_blocks) {
  StringSink sink;
  TraceWriter w(&sink, SampleProcess(), options);
  Records r = WriteSample(w, events, flush_every, seed, reuse_blocks);
  r.processes.push_back(SampleProcess());
  EndRecord end;
  end.end_time_ns = 123456789;
  end.exit_status = 0;
  end.counters = {{"reentrant_calls", 3}, {"bootstrap_allocations", 1}};
  w.Finish(end);
  if (expected) {
    EndRecord e = w.totals();
    e.chunks = w.chunks_written();
    e.end_time_ns = end.end_time_ns;
    e.exit_status = end.exit_status;
    e.counters = end.counters;
    r.ends.push_back(e);
    *expected = std::move(r);
  }
  if (chunk_ends) *chunk_ends = w.chunk_ends();
  return sink.bytes();
}

}  // namespace heaprec::format::testing

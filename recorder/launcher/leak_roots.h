// LeakRoots: what a leak scan of a stopped process reads as roots, following
// memcheck (notes: the leak spec, sections 3 and 12): every readable and
// writable mapping that is not heap, not a device and not heaprec's own
// memory; of a thread's stack only what lies at or above its stack pointer
// minus the 128-byte red zone; then the 16 general registers of every thread
// (but, at the process's end, not those of the thread that is exiting, as
// memcheck leaves out the thread that calls exit_group).
//
// "Heap" is a mapping that holds a live block: the allocator's arenas, with
// their free lists and metadata (under valgrind the heap is its own arena,
// never a root). heaprec's own memory: the rings (the session's region
// files) and libheaprec.so's data.
//
// Every root range gets a root id with a name a user can act on: a global or
// static variable by symbol and module ("g_cache [libfoo.so]"), the rest of
// a module's data, a thread's stack, its TLS, its registers, an anonymous
// mapping by address. Ranges come out ascending and not overlapping, in
// memcheck's scan order.
//
// Not thread-safe; allocates. Used by the leak scanner.
#ifndef HEAPREC_RECORDER_LAUNCHER_LEAK_ROOTS_H_
#define HEAPREC_RECORDER_LAUNCHER_LEAK_ROOTS_H_

#include <sys/types.h>
#include <sys/user.h>

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/records.h"
#include "recorder/launcher/process_memory.h"
#include "recorder/leakscan/scan_types.h"
#include "recorder/leakscan/vtable_oracle.h"
#include "symbolize/data_symbols.h"

namespace heaprec::recorder::launcher {

struct ScanThread {
  pid_t tid = 0;
  uint32_t thread = 0;  // the trace's thread index; 0 if unknown
  std::string name;
  user_regs_struct regs = {};
};

struct RootsInput {
  std::span<const Mapping> mappings;            // ascending
  std::span<const leakscan::LiveBlock> blocks;  // ascending
  std::span<const ScanThread> threads;          // in the order their registers are scanned
  pid_t exiting_tid = 0;                        // its registers are left out (0: none)
  std::vector<std::string> excluded_prefixes;   // paths of heaprec's own memory
  // heaprec's own anonymous memory (RegionHeader::own_memory): [start, end).
  std::vector<std::pair<uint64_t, uint64_t>> excluded_ranges;
  std::span<const format::Module> modules;  // loaded, for globals and TLS
  // A module's variables and TLS segment (symbolize/data_symbols.h), cached
  // by the caller.
  std::function<const symbolize::ModuleData&(const format::Module&)> module_data;
};

struct Roots {
  std::vector<leakscan::RootRange> ranges;  // ascending, not overlapping
  std::vector<leakscan::RootValue> values;  // registers
  // roots[i].id == i + 1. A global's name is left empty (a module's data
  // has thousands of them, and a scan names a few): Root() gives it whole.
  std::vector<format::LeakRoot> roots;
  std::vector<leakscan::Segment> segments;  // every mapping, for vtables
  uint64_t bytes = 0;                       // in ranges
  // Per root: a global's symbol and its module's file name, else empty.
  // They point into RootsInput's modules and module data, which must
  // outlive every Root() call.
  std::vector<std::pair<std::string_view, std::string_view>> global_names;

  // roots[id - 1] with its name: "g_cache [libfoo.so]" for a global.
  format::LeakRoot Root(leakscan::RootId id) const;
};

Roots BuildRoots(const RootsInput& in);

}  // namespace heaprec::recorder::launcher

#endif  // HEAPREC_RECORDER_LAUNCHER_LEAK_ROOTS_H_

// MemorySource: where the leak scan reads the scanned process's memory. The
// launcher serves it with process_vm_readv (one call a batch), tests with a
// sparse fake, the benchmark from a local buffer.
//
// The engine never reads word by word: it asks for whole root ranges in
// chunks (1 MiB by default) and for blocks gathered many to a call, at most
// kMaxReadRequests ranges a call (process_vm_readv's IOV_MAX). A range that
// fails is asked for again page by page; what still fails is unreadable, and
// its words are not pointers.
//
// Interface only; an implementation says its own thread-safety. The engine
// calls it from one thread.
#ifndef HEAPREC_RECORDER_LEAKSCAN_MEMORY_SOURCE_H_
#define HEAPREC_RECORDER_LEAKSCAN_MEMORY_SOURCE_H_

#include <cstddef>
#include <cstdint>
#include <span>

namespace heaprec::recorder::leakscan {

inline constexpr size_t kMaxReadRequests = 1024;

// length bytes at address (in the scanned process) to destination (here).
struct ReadRequest {
  uint64_t address = 0;
  uint64_t length = 0;
  std::byte* destination = nullptr;
};

class MemorySource {
 public:
  virtual ~MemorySource() = default;
  // Copies every request; ok[i] is set to whether all of request i was copied
  // (its destination holds garbage otherwise). 1 <= requests.size() <=
  // kMaxReadRequests, ok.size() == requests.size(); destinations do not
  // overlap.
  virtual void Read(std::span<const ReadRequest> requests, std::span<bool> ok) = 0;
};

}  // namespace heaprec::recorder::leakscan

#endif  // HEAPREC_RECORDER_LEAKSCAN_MEMORY_SOURCE_H_

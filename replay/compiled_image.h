// A compiled trace as one flat image in a memory file, so that a bench
// worker (a fresh process running under the allocator being measured) maps
// the op tables instead of building them with that allocator.
//
//   int fd = WriteImage(compiled, &error);   // memfd, inherited across exec
//   Image image; image.Map(fd, &error);      // in the worker
//   image.ops(t), image.op_count(t), image.waits(t) ...
//
// Layout: ImageHeader, then one ThreadEntry per replay thread, then the
// arrays, each 64-byte aligned. Native byte order: it never leaves the
// machine. Map checks the magic, version and every offset.
// WriteImage allocates nothing beyond a small buffer; Image never allocates
// and is read-only (safe to share between replay threads).
#ifndef HEAPREC_REPLAY_COMPILED_IMAGE_H_
#define HEAPREC_REPLAY_COMPILED_IMAGE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "replay/compiled_ops.h"
#include "replay/trace_compiler.h"

namespace heaprec::replay {

struct ImageHeader {
  char magic[8];
  uint32_t version;
  uint32_t threads;
  uint32_t main_thread;  // CompiledTrace::main_thread: < threads, or kNoMainThread
  uint32_t reserved;
  CompileStats stats;
};

struct ThreadEntry {
  uint64_t ops_offset, ops_count;
  uint64_t waits_offset, waits_count;
};

// Returns a memfd (not close-on-exec) holding the image, or -1 with *error.
int WriteImage(const CompiledTrace& trace, std::string* error);

class Image {
 public:
  Image() = default;
  ~Image();
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;

  // Maps fd read-only; false with *error when it is not a valid image.
  bool Map(int fd, std::string* error);

  const CompileStats& stats() const { return header()->stats; }
  uint32_t threads() const { return header()->threads; }
  // The replay thread to run on the replayer's calling thread, or kNoMainThread.
  uint32_t main_thread() const { return header()->main_thread; }
  const Op* ops(uint32_t t) const { return At<Op>(entry(t).ops_offset); }
  uint64_t op_count(uint32_t t) const { return entry(t).ops_count; }
  const Wait* waits(uint32_t t) const { return At<Wait>(entry(t).waits_offset); }
  uint64_t wait_count(uint32_t t) const { return entry(t).waits_count; }
  // Reads every page once, so that mapping costs fall before the clock.
  uint64_t Prefault() const;

 private:
  const ImageHeader* header() const { return static_cast<const ImageHeader*>(base_); }
  const ThreadEntry& entry(uint32_t t) const {
    return reinterpret_cast<const ThreadEntry*>(header() + 1)[t];
  }
  template <class T>
  const T* At(uint64_t offset) const {
    return reinterpret_cast<const T*>(static_cast<const char*>(base_) + offset);
  }

  const void* base_ = nullptr;
  size_t size_ = 0;
};

}  // namespace heaprec::replay

#endif  // HEAPREC_REPLAY_COMPILED_IMAGE_H_

// FrameReadAhead: FrameReader's chunks, optionally inflated on a thread of
// its own while the caller decodes the chunk before.
//
// Why: heapreplay's reading thread (ReadTraceFileAhead) inflated each chunk
// with zstd and then decoded it, and it is the pass's longest stage: on a
// churn-like trace (14 M events) it was busy ~2.6x as long as the analysis
// thread, zstd ~11% of that. With `thread`, a third thread runs
// FrameReader::Next up to kAhead chunks ahead.
//
// The contract is FrameReader's after ReadHeader (and JumpTo, done before
// construction): Next gives the same statuses, chunks and offsets in the same
// order, up to the first status other than kChunk, after which the caller
// calls Next no more. The
// FrameReader is the thread's from construction to destruction: the caller
// must not touch it meanwhile. The destructor stops the thread (a read cut
// short by the caller leaves at most kAhead chunks inflated for nothing).
// Memory: at most kAhead + 2 chunks beside FrameReader's own. Not
// thread-safe for its caller (one reader).
#ifndef HEAPREC_FORMAT_FRAME_READ_AHEAD_H_
#define HEAPREC_FORMAT_FRAME_READ_AHEAD_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "format/frame_reader.h"

namespace heaprec::format {

class FrameReadAhead {
 public:
  static constexpr size_t kAhead = 2;

  // thread = false: Next calls frames->Next on the caller's thread.
  FrameReadAhead(FrameReader* frames, bool thread);
  ~FrameReadAhead();
  FrameReadAhead(const FrameReadAhead&) = delete;
  FrameReadAhead& operator=(const FrameReadAhead&) = delete;

  // As FrameReader::Next; *chunk's old bytes may be reused for later chunks.
  FrameReader::Status Next(std::vector<uint8_t>* chunk);

  // As FrameReader's, for the chunk (or status) Next gave last.
  uint64_t chunk_offset() const { return now_.chunk_offset; }
  uint64_t offset() const { return now_.offset; }
  bool chunk_starts_frame() const { return now_.starts_frame; }
  uint64_t error_offset() const { return now_.error_offset; }
  const std::string& error() const { return now_.error; }

 private:
  struct Item {
    FrameReader::Status status = FrameReader::Status::kEnd;
    std::vector<uint8_t> bytes;
    uint64_t chunk_offset = 0, offset = 0, error_offset = 0;
    bool starts_frame = false;
    std::string error;
  };
  // FrameReader::Next into *bytes, and what it says of the chunk into *item.
  void Read(std::vector<uint8_t>* bytes, Item* item);
  void Run();

  FrameReader* const frames_;
  Item now_;  // what the caller was given last
  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::deque<Item> full_;                   // inflated, in order
  std::vector<std::vector<uint8_t>> free_;  // buffers to reuse
  bool stop_ = false;                       // the destructor asks the thread to end
  std::thread thread_;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_FRAME_READ_AHEAD_H_

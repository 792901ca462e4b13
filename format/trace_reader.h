// TraceReader: streams a whole trace into a TraceVisitor, chunk by chunk, with
// memory bounded by one chunk (see FrameReader), and says how it ended.
//
//   ReadResult r = ReadTraceFile("t.zst", visitor);
//   if (r.status == ReadResult::kError) { print r.message; exit 1 }
//   if (r.status == ReadResult::kTruncated) { warn r.message; }
//
// Damage never crashes or hangs: a trace cut anywhere delivers every whole
// chunk before the cut and ends kTruncated; wrong magic, a newer major
// version, a corrupt chunk or garbage end kError with a message that names the
// file and the byte offset. Records of a damaged chunk are never delivered.
// Not thread-safe; allocates; for tools.
#ifndef HEAPREC_FORMAT_TRACE_READER_H_
#define HEAPREC_FORMAT_TRACE_READER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "format/decoder_state.h"
#include "format/format_version.h"
#include "format/trace_visitor.h"

namespace heaprec::format {

struct ReadResult {
  enum Status {
    kComplete,   // every chunk through the end record was read
    kTruncated,  // the file stops early; everything before the cut was read
    kError,      // unreadable from error_offset on; see message
    kStopped,    // ReaderOptions::end_after was set: the chunks before were read
  };
  Status status = kError;
  // kError: "PATH: what is wrong at which byte offset". kTruncated: a warning
  // with the word "truncated", the path and the offset of the cut.
  std::string message;
  uint64_t error_offset = 0;
  FormatVersion version;
  uint64_t chunks = 0;  // chunks delivered
  uint64_t events = 0;  // events delivered
  uint64_t bytes = 0;   // bytes consumed (header and whole frames)
};

// How far a read has got, for a progress display on another thread: the
// reader stores the bytes consumed and the events decoded after each chunk.
struct ReadProgress {
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> events{0};
};

struct ReaderOptions {
  size_t max_chunk_bytes = kMaxChunkBytes;
  ReadProgress* progress = nullptr;  // updated if set; must outlive the read

  // Seeking (heapreplay's trace index), formats 2 and 3 only (format 1
  // ignores these three):
  // - resume: the chunks before resume->next_index are skimmed
  //   (ChunkDecoder::Skim: no event, no RSS sample), then the decoder takes
  //   *resume, the visitor is told OnResume, and the read goes on as usual.
  //   *resume must be a state of this very trace (the caller checks).
  const DecoderState* resume = nullptr;
  // - jump: with resume, a state at a frame start (frame_offset not 0) at
  //   or before it: the read starts decompressing there, the decoder takes
  //   *jump, and only the chunks from there to resume are skimmed. The
  //   caller delivers what the chunks before jump held (heapreplay keeps
  //   it in the index). A source that cannot seek ends kError.
  const DecoderState* jump = nullptr;
  // - checkpoint_every_bytes: before decoding the first chunk that starts
  //   at least this many file bytes after the last checkpoint (or the
  //   start), and before each chunk that starts a zstd frame (but the
  //   first), the visitor gets OnCheckpoint with the decoder's state (not
  //   in the middle of a leak scan: then before the first chunk after it).
  uint64_t checkpoint_every_bytes = 0;
  // - skip_events_after: once the visitor sets it, the chunks not yet
  //   decoded are skimmed (a pass that stopped at its moment wants only the
  //   stack nodes, symbols and the end). Set on the visitor's thread; read
  //   between chunks.
  const std::atomic<bool>* skip_events_after = nullptr;
  // - end_after: once the visitor sets it, the read ends before the next
  //   chunk, kStopped (a pass that wants nothing after its moment: not even
  //   the end record). Set on the visitor's thread; read between chunks.
  const std::atomic<bool>* end_after = nullptr;
  // Inflate the next chunks on a thread of its own while this one decodes
  // (FrameReadAhead): for a reader that is itself a stage of a pipeline
  // (ReadTraceFileAhead), with cores to spare.
  bool inflate_ahead = false;
};

// Reads the file at path. name_for_messages defaults to path.
ReadResult ReadTraceFile(const std::string& path, TraceVisitor& visitor,
                         const ReaderOptions& options = {});

// Reads a trace held in memory; name is used in messages.
ReadResult ReadTraceMemory(const std::string& name, const void* data, size_t size,
                           TraceVisitor& visitor, const ReaderOptions& options = {});

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_TRACE_READER_H_

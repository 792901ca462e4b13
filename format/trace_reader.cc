// TraceReader: FrameReader (bytes -> chunks) + ChunkDecoder (chunk -> records).
#include "format/trace_reader.h"

#include <memory>
#include <vector>

#include "format/byte_io.h"
#include "format/chunk_decoder.h"
#include "format/frame_read_ahead.h"
#include "format/frame_reader.h"

namespace heaprec::format {
namespace {

// whole_end: the offset just past the last whole chunk (or the header).
ReadResult Truncated(const std::string& name, uint64_t whole_end, const ChunkDecoder& decoder,
                     ReadResult r) {
  r.status = ReadResult::kTruncated;
  r.error_offset = whole_end;
  r.message = name + ": trace is truncated after byte offset " + std::to_string(whole_end) + " (" +
              std::to_string(decoder.chunks()) +
              " whole chunks read; the recording may have been cut short)";
  return r;
}

ReadResult ReadFrom(const std::string& name, std::unique_ptr<ByteSource> source,
                    TraceVisitor& visitor, const ReaderOptions& options) {
  ReadResult r;
  FrameReader frames(std::move(source), options.max_chunk_bytes);
  ChunkDecoder decoder;  // replaced once the header says which version
  auto fail = [&](uint64_t offset, const std::string& what) {
    r.status = ReadResult::kError;
    r.error_offset = offset;
    r.message = name + ": " + what;
    return r;
  };
  switch (frames.ReadHeader()) {
    case FrameReader::Status::kEnd:
      return fail(0, "empty file, not a heaprec trace");
    case FrameReader::Status::kError:
      return fail(frames.error_offset(), frames.error());
    case FrameReader::Status::kTruncated:
      return Truncated(name, 0, decoder, r);
    case FrameReader::Status::kChunk:
      break;
  }
  uint64_t whole_end = frames.offset();
  r.version = frames.version();
  decoder = ChunkDecoder(r.version);
  std::vector<uint8_t> chunk;
  const bool seekable = r.version.major >= 2;
  const DecoderState* resume = seekable ? options.resume : nullptr;
  if (resume != nullptr && options.jump != nullptr && options.jump->frame_offset != 0) {
    if (!frames.JumpTo(options.jump->frame_offset)) {
      return fail(options.jump->frame_offset,
                  "cannot seek to byte offset " + std::to_string(options.jump->frame_offset));
    }
    decoder.Resume(*options.jump);
    whole_end = options.jump->frame_offset;
  }
  // From here on the frames are read through ahead (on its thread if asked).
  FrameReadAhead ahead(&frames, options.inflate_ahead);
  const uint64_t every = seekable ? options.checkpoint_every_bytes : 0;
  uint64_t next_checkpoint = every;
  bool skimming = false;  // since skip_events_after: for good
  for (;;) {
    if (options.end_after != nullptr && options.end_after->load(std::memory_order_relaxed)) {
      r.status = ReadResult::kStopped;
      r.chunks = decoder.chunks();
      r.events = decoder.events();
      r.bytes = whole_end;
      return r;
    }
    const FrameReader::Status s = ahead.Next(&chunk);
    r.chunks = decoder.chunks();
    r.events = decoder.events();
    r.bytes = ahead.offset();
    if (s == FrameReader::Status::kError) {
      return fail(ahead.error_offset(), ahead.error());
    }
    if (s == FrameReader::Status::kTruncated) {
      return Truncated(name, whole_end, decoder, r);
    }
    if (s == FrameReader::Status::kEnd) {
      if (!decoder.seen_end()) {
        return Truncated(name, whole_end, decoder, r);
      }
      r.status = ReadResult::kComplete;
      return r;
    }
    if (resume != nullptr && decoder.chunks() == resume->next_index) {
      decoder.Resume(*resume);
      visitor.OnResume();
      resume = nullptr;
    }
    if (!skimming && options.skip_events_after != nullptr &&
        options.skip_events_after->load(std::memory_order_relaxed)) {
      skimming = true;
    }
    const bool skim = skimming || resume != nullptr;
    if (every != 0 && !skim && decoder.chunks() > 0 &&
        (whole_end >= next_checkpoint || ahead.chunk_starts_frame())) {
      DecoderState state;
      if (decoder.State(&state)) {  // after the chunk before this one
        state.frame_offset = ahead.chunk_starts_frame() ? ahead.chunk_offset() : 0;
        visitor.OnCheckpoint(state);
        next_checkpoint = whole_end + every;
      }
    }
    std::string why;
    if (!(skim ? decoder.Skim(chunk.data(), chunk.size(), visitor, &why)
               : decoder.Decode(chunk.data(), chunk.size(), visitor, &why))) {
      return fail(ahead.chunk_offset(), "corrupt chunk at byte offset " +
                                            std::to_string(ahead.chunk_offset()) + ": " + why);
    }
    whole_end = ahead.offset();
    if (options.progress != nullptr) {
      options.progress->bytes.store(whole_end, std::memory_order_relaxed);
      options.progress->events.store(decoder.events(), std::memory_order_relaxed);
    }
  }
}

}  // namespace

ReadResult ReadTraceFile(const std::string& path, TraceVisitor& visitor,
                         const ReaderOptions& options) {
  std::string error;
  std::unique_ptr<FdSource> source = FdSource::Open(path, &error);
  if (!source) {
    ReadResult r;
    r.status = ReadResult::kError;
    r.message = path + ": cannot open: " + error;
    return r;
  }
  return ReadFrom(path, std::move(source), visitor, options);
}

ReadResult ReadTraceMemory(const std::string& name, const void* data, size_t size,
                           TraceVisitor& visitor, const ReaderOptions& options) {
  return ReadFrom(name, std::make_unique<MemorySource>(data, size), visitor, options);
}

}  // namespace heaprec::format

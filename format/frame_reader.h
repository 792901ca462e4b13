// FrameReader: splits a trace into its header and its chunks. Format 1: one
// zstd frame per chunk. Format 2: one zstd stream (usually one frame) whose
// decompressed bytes are chunks, each after a size and a CRC-32. Knows the
// file layout; knows nothing of what a chunk holds (that is ChunkDecoder's).
//
// Memory is bounded: one read buffer, the zstd window (at most 2^27 bytes)
// and one decompressed chunk (at most kMaxChunkBytes). Never hangs: every
// loop consumes input or ends.
// Not thread-safe; allocates; for tools, never the traced process.
#ifndef HEAPREC_FORMAT_FRAME_READER_H_
#define HEAPREC_FORMAT_FRAME_READER_H_

#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/uninitialized.h"
#include "format/byte_io.h"
#include "format/format_version.h"

namespace heaprec::format {

class FrameReader {
 public:
  enum class Status {
    kChunk,      // *chunk holds the next chunk's bytes
    kEnd,        // clean end of the file, after whole frames
    kTruncated,  // the file ends inside the header or a frame
    kError,      // damaged input; error() says what, error_offset() where
  };

  FrameReader(std::unique_ptr<ByteSource> source, size_t max_chunk_bytes);
  explicit FrameReader(std::unique_ptr<ByteSource> source)
      : FrameReader(std::move(source), kMaxChunkBytes) {}
  ~FrameReader();
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;

  // Reads and checks the header. kChunk here means "header good, go on";
  // kEnd means an empty file (reported as an error by TraceReader).
  Status ReadHeader();
  // Reads the next chunk. chunk_offset() is the byte offset of its frame.
  // A format 2 chunk cut short by the end of the file is kTruncated.
  Status Next(std::vector<uint8_t>* chunk);

  FormatVersion version() const { return version_; }
  uint64_t chunk_offset() const { return frame_offset_; }
  uint64_t error_offset() const { return error_offset_; }
  const std::string& error() const { return error_; }
  // Format 2 and later: the chunk Next just gave is the first of its zstd
  // frame (chunk_offset() is the frame's start): a read can begin there
  // (JumpTo) with the reader state of the chunk before.
  bool chunk_starts_frame() const { return frame_offset_ == clean_frame_start_; }
  // Format 2 and later, after ReadHeader: goes on at offset, the start of a
  // zstd frame that begins with a chunk (chunk_starts_frame() said so in an
  // earlier read). False if the source cannot seek.
  bool JumpTo(uint64_t offset);
  // Bytes consumed so far (format 1: the offset just past the last whole
  // frame; format 2: what zstd has taken in, at most the file's length).
  uint64_t offset() const { return consumed_; }

 private:
  // Makes at least n bytes available at in_pos_, unless the file ends first.
  // Returns false on a read error (error_ set).
  bool Fill(size_t n);
  size_t available() const { return in_len_ - in_pos_; }
  Status Fail(uint64_t offset, std::string message);
  Status DecompressFrame(std::vector<uint8_t>* chunk);
  // Skips skippable frames up to the next zstd frame (kChunk: there).
  Status SeekFrame();
  Status SkipFrame(uint64_t size);
  // Format 2: the next length-prefixed chunk of the stream.
  Status NextStreamed(std::vector<uint8_t>* chunk);
  // Format 2: decompresses the next whole piece of the stream (a frame
  // header, a block or a checksum) into out_. kChunk: progress.
  Status Inflate();
  // Gives zstd exactly the next n input bytes and appends all its output.
  Status Feed(size_t n);
  // Starts the next zstd frame, skipping skippable ones. kEnd at a clean end.
  Status StartFrame();

  std::unique_ptr<ByteSource> source_;
  size_t max_chunk_bytes_;
  ZSTD_DCtx* dctx_;
  std::vector<uint8_t> in_;
  size_t in_pos_ = 0;
  size_t in_len_ = 0;
  bool eof_ = false;
  uint64_t consumed_ = 0;  // file offset of in_[in_pos_]
  uint64_t frame_offset_ = 0;
  uint64_t error_offset_ = 0;
  FormatVersion version_;
  std::string error_;
  // Format 2 stream state.
  // Decompressed bytes not yet handed out (resized for zstd without zeroing).
  base::UninitializedVector<uint8_t> out_;
  bool in_frame_ = false;
  enum class Stage { kFrameHeader, kBlock, kChecksum };
  Stage stage_ = Stage::kFrameHeader;
  bool checksum_ = false;
  uint64_t next_chunk_offset_ = 0;           // where the next chunk's bytes begin
  uint64_t frame_start_ = 0;                 // where the current zstd frame begins
  uint64_t clean_frame_start_ = UINT64_MAX;  // the last frame begun between chunks
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_FRAME_READER_H_

// FrameReader: header check and frame-by-frame zstd decompression.
#include "format/frame_reader.h"

#include <cstring>
#include <utility>

namespace heaprec::format {
namespace {

constexpr size_t kReadBlock = 256 * 1024;
constexpr size_t kZstdFrameHeaderMax = 18;  // ZSTD_FRAMEHEADERSIZE_MAX

uint32_t Le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

FrameReader::FrameReader(std::unique_ptr<ByteSource> source, size_t max_chunk_bytes)
    : source_(std::move(source)),
      max_chunk_bytes_(max_chunk_bytes),
      dctx_(ZSTD_createDCtx()),
      in_(kReadBlock) {
  // A chunk's window never needs to exceed the largest chunk.
  int window_log = 10;
  while ((size_t{1} << window_log) < max_chunk_bytes_ && window_log < 27) {
    ++window_log;
  }
  ZSTD_DCtx_setParameter(dctx_, ZSTD_d_windowLogMax, window_log);
}

FrameReader::~FrameReader() { ZSTD_freeDCtx(dctx_); }

bool FrameReader::Fill(size_t n) {
  if (available() >= n || eof_) return true;
  if (in_pos_ > 0) {  // move what is left to the front
    std::memmove(in_.data(), in_.data() + in_pos_, available());
    in_len_ -= in_pos_;
    in_pos_ = 0;
  }
  if (in_.size() < n) in_.resize(n);
  while (in_len_ < n && !eof_) {
    const long r = source_->Read(in_.data() + in_len_, in_.size() - in_len_);
    if (r < 0) {
      error_ = "read failed at byte offset " + std::to_string(consumed_ + available()) + ": " +
               source_->error();
      error_offset_ = consumed_ + available();
      return false;
    }
    if (r == 0) eof_ = true;
    in_len_ += static_cast<size_t>(r);
  }
  return true;
}

FrameReader::Status FrameReader::Fail(uint64_t offset, std::string message) {
  error_offset_ = offset;
  error_ = std::move(message);
  return Status::kError;
}

FrameReader::Status FrameReader::ReadHeader() {
  if (!Fill(kHeaderSize)) return Status::kError;
  const size_t n = available() < kHeaderSize ? available() : kHeaderSize;
  if (n == 0) return Status::kEnd;
  switch (CheckHeader(in_.data() + in_pos_, n, &version_)) {
    case HeaderCheck::kBadMagic:
      if (n >= 4 && Le32(in_.data() + in_pos_) == kZstdMagic) {
        return Fail(0,
                    "not a heaprec trace: a plain zstd stream at byte "
                    "offset 0 (a heaptrack recording?)");
      }
      return Fail(0, "not a heaprec trace (bad magic at byte offset 0)");
    case HeaderCheck::kShort:
      return Status::kTruncated;
    case HeaderCheck::kNewerMajor:
      return Fail(16, "format version " + std::to_string(version_.major) + "." +
                          std::to_string(version_.minor) +
                          " at byte offset 16 is newer than this build reads (" +
                          std::to_string(kFormatMajor) + ".x)");
    case HeaderCheck::kOk:
      break;
  }
  in_pos_ += kHeaderSize;
  consumed_ += kHeaderSize;
  return Status::kChunk;
}

FrameReader::Status FrameReader::SkipFrame(uint64_t size) {
  while (size > 0) {
    if (!Fill(1)) return Status::kError;
    if (available() == 0) return Status::kTruncated;
    const size_t step = available() < size ? available() : size;
    in_pos_ += step;
    consumed_ += step;
    size -= step;
  }
  return Status::kChunk;
}

FrameReader::Status FrameReader::Next(std::vector<uint8_t>* chunk) {
  for (;;) {
    frame_offset_ = consumed_;
    if (!Fill(8)) return Status::kError;
    if (available() == 0) return Status::kEnd;
    if (available() < 4) return Status::kTruncated;
    const uint32_t magic = Le32(in_.data() + in_pos_);
    if (magic == kZstdMagic) return DecompressFrame(chunk);
    if ((magic & kSkippableMagicMask) != (kSkippableMagic & kSkippableMagicMask)) {
      return Fail(frame_offset_, "corrupt chunk at byte offset " + std::to_string(frame_offset_) +
                                     ": not a zstd frame");
    }
    // A skippable frame: room for later extensions; skip it.
    if (available() < 8) return Status::kTruncated;
    const uint32_t size = Le32(in_.data() + in_pos_ + 4);
    in_pos_ += 8;
    consumed_ += 8;
    const Status s = SkipFrame(size);
    if (s != Status::kChunk) return s;
  }
}

FrameReader::Status FrameReader::DecompressFrame(std::vector<uint8_t>* chunk) {
  const std::string where = "corrupt chunk at byte offset " + std::to_string(frame_offset_) + ": ";
  ZSTD_DCtx_reset(dctx_, ZSTD_reset_session_only);
  // Refuse early a frame that declares more than a chunk may hold.
  if (!Fill(kZstdFrameHeaderMax)) return Status::kError;
  const unsigned long long declared = ZSTD_getFrameContentSize(in_.data() + in_pos_, available());
  if (declared == ZSTD_CONTENTSIZE_ERROR) {
    // Too few bytes for a frame header only happens at the end of the file.
    if (available() < kZstdFrameHeaderMax && eof_) return Status::kTruncated;
    return Fail(frame_offset_, where + "bad zstd frame header");
  }
  if (declared != ZSTD_CONTENTSIZE_UNKNOWN && declared > max_chunk_bytes_) {
    return Fail(frame_offset_, where + "chunk of " + std::to_string(declared) +
                                   " bytes exceeds the limit of " +
                                   std::to_string(max_chunk_bytes_));
  }
  size_t capacity =
      declared == ZSTD_CONTENTSIZE_UNKNOWN ? 64 * 1024 : static_cast<size_t>(declared);
  chunk->resize(capacity);
  ZSTD_outBuffer out = {chunk->data(), chunk->size(), 0};
  for (;;) {
    if (available() == 0 && !Fill(1)) return Status::kError;
    ZSTD_inBuffer in = {in_.data() + in_pos_, available(), 0};
    const size_t out_before = out.pos;
    const size_t ret = ZSTD_decompressStream(dctx_, &out, &in);
    in_pos_ += in.pos;
    consumed_ += in.pos;
    if (ZSTD_isError(ret)) {
      return Fail(frame_offset_, where + ZSTD_getErrorName(ret));
    }
    if (out.pos > max_chunk_bytes_) {
      return Fail(frame_offset_, where + "chunk exceeds the limit of " +
                                     std::to_string(max_chunk_bytes_) + " bytes");
    }
    if (ret == 0) break;        // frame decoded, checked and flushed
    if (out.pos == out.size) {  // room for at most max + 1 bytes
      size_t grown = out.size * 2 + 1;
      if (grown > max_chunk_bytes_ + 1) grown = max_chunk_bytes_ + 1;
      chunk->resize(grown);
      out.dst = chunk->data();
      out.size = chunk->size();
      continue;
    }
    if (in.pos == 0 && out.pos == out_before) {
      // No progress with room to write: zstd needs more input than we have.
      if (eof_) return Status::kTruncated;
      if (!Fill(available() + 1)) return Status::kError;
    }
  }
  chunk->resize(out.pos);
  return Status::kChunk;
}

}  // namespace heaprec::format

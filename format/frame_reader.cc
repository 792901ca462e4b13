// FrameReader: header check; format 1 frame by frame, format 2 block by block.
// ZSTD_getFrameHeader (exported by libzstd, declared in its "experimental" part).
#define ZSTD_STATIC_LINKING_ONLY
#include "format/frame_reader.h"

#include <cstddef>
#include <cstring>
#include <utility>

#include "base/large_buffers.h"
#include "format/checksum.h"

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
      dctx_(ZSTD_createDCtx_advanced({base::AllocateLargeBuffer, base::FreeLargeBuffer, nullptr})),
      in_(kReadBlock) {
  // Format 2 streams keep up to 2^27 bytes of history (the heaprec launcher writes 2^24, 2^25
  // before).
  ZSTD_DCtx_setParameter(dctx_, ZSTD_d_windowLogMax, 27);
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
  next_chunk_offset_ = consumed_;
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
  if (version_.major >= 2) return NextStreamed(chunk);
  const Status s = SeekFrame();
  return s == Status::kChunk ? DecompressFrame(chunk) : s;
}

FrameReader::Status FrameReader::SeekFrame() {
  for (;;) {
    frame_offset_ = consumed_;
    if (!Fill(8)) return Status::kError;
    if (available() == 0) return Status::kEnd;
    if (available() < 4) return Status::kTruncated;
    const uint32_t magic = Le32(in_.data() + in_pos_);
    if (magic == kZstdMagic) return Status::kChunk;
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

bool FrameReader::JumpTo(uint64_t offset) {
  if (version_.major < 2 || !source_->Seek(offset)) return false;
  in_pos_ = in_len_ = 0;
  eof_ = false;
  consumed_ = offset;
  out_.clear();
  in_frame_ = false;
  stage_ = Stage::kFrameHeader;
  next_chunk_offset_ = frame_offset_ = offset;
  return true;
}

FrameReader::Status FrameReader::StartFrame() {
  const Status s = SeekFrame();
  if (s != Status::kChunk) return s;
  if (out_.empty()) {  // between chunks: after skipped frames
    next_chunk_offset_ = consumed_;
    clean_frame_start_ = consumed_;
  }
  ZSTD_DCtx_reset(dctx_, ZSTD_reset_session_only);
  in_frame_ = true;
  frame_start_ = consumed_;
  return Status::kChunk;
}

FrameReader::Status FrameReader::Feed(size_t n) {
  ZSTD_inBuffer in = {in_.data() + in_pos_, n, 0};
  for (;;) {
    const size_t have = out_.size();
    out_.resize(have + ZSTD_DStreamOutSize());
    ZSTD_outBuffer out = {out_.data(), out_.size(), have};
    const size_t ret = ZSTD_decompressStream(dctx_, &out, &in);
    out_.resize(out.pos);
    if (ZSTD_isError(ret)) {
      // zstd reuses tables and history from earlier blocks, so the damage may
      // lie anywhere in the frame before here: error_offset is the frame's.
      return Fail(frame_start_, "corrupt chunk at byte offset " +
                                    std::to_string(next_chunk_offset_) +
                                    ": zstd: " + ZSTD_getErrorName(ret) +
                                    " (the damage may be anywhere in the zstd frame from byte "
                                    "offset " +
                                    std::to_string(frame_start_) + ")");
    }
    if (ret == 0) in_frame_ = false;  // frame done, its checksum checked
    // Done when the input is taken and zstd had room to spare (holds nothing).
    if (in.pos == in.size && out.pos < out.size) break;
  }
  in_pos_ += n;
  consumed_ += n;
  return Status::kChunk;
}

FrameReader::Status FrameReader::Inflate() {
  if (!in_frame_) {
    const Status s = StartFrame();
    if (s != Status::kChunk) return s;
    stage_ = Stage::kFrameHeader;
  }
  // Whole pieces only (frame header, one block, the checksum), so that
  // consumed_ is always at a block boundary: chunk offsets are exact.
  size_t need = 0;
  Stage next = stage_;
  switch (stage_) {
    case Stage::kFrameHeader: {
      if (!Fill(kZstdFrameHeaderMax)) return Status::kError;
      const uint8_t* p = in_.data() + in_pos_;
      ZSTD_frameHeader h;
      const size_t r = ZSTD_getFrameHeader(&h, p, available());
      if (r > 0 && !ZSTD_isError(r)) return Status::kTruncated;  // needs more than the file has
      if (ZSTD_isError(r) || h.frameType != ZSTD_frame) {
        return Fail(consumed_, "corrupt chunk at byte offset " + std::to_string(consumed_) +
                                   ": bad zstd frame header");
      }
      need = h.headerSize;
      checksum_ = h.checksumFlag != 0;
      next = Stage::kBlock;
      break;
    }
    case Stage::kBlock: {
      if (!Fill(3)) return Status::kError;
      if (available() < 3) return Status::kTruncated;
      const uint8_t* p = in_.data() + in_pos_;
      const uint32_t header = uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16;
      const uint32_t type = (header >> 1) & 3;
      const uint32_t size = header >> 3;
      need = 3 + (type == 1 ? 1 : size);  // an RLE block stores one byte
      if ((header & 1) != 0) next = checksum_ ? Stage::kChecksum : Stage::kFrameHeader;
      break;
    }
    case Stage::kChecksum:
      need = 4;
      next = Stage::kFrameHeader;
      break;
  }
  if (!Fill(need)) return Status::kError;
  if (available() < need) return Status::kTruncated;
  const Status s = Feed(need);
  if (s != Status::kChunk) return s;
  if (!in_frame_ && out_.empty()) next_chunk_offset_ = consumed_;  // between frames
  stage_ = next;
  if (next == Stage::kFrameHeader && in_frame_) {
    return Fail(consumed_, "corrupt chunk at byte offset " + std::to_string(consumed_) +
                               ": zstd frame does not end after its last block");
  }
  return Status::kChunk;
}

FrameReader::Status FrameReader::NextStreamed(std::vector<uint8_t>* chunk) {
  for (;;) {
    const size_t ready = out_.size();
    if (ready >= kChunkPrefixSize) {
      const uint8_t* p = out_.data();
      const uint32_t size = Le32(p);
      const uint32_t crc = Le32(p + 4);
      if (size > max_chunk_bytes_) {
        return Fail(next_chunk_offset_, "corrupt chunk at byte offset " +
                                            std::to_string(next_chunk_offset_) + ": chunk of " +
                                            std::to_string(size) + " bytes exceeds the limit of " +
                                            std::to_string(max_chunk_bytes_));
      }
      if (ready >= kChunkPrefixSize + size) {
        chunk->assign(p + kChunkPrefixSize, p + kChunkPrefixSize + size);
        // Drop what was handed out (what follows is at most a block's worth).
        out_.erase(out_.begin(),
                   out_.begin() + static_cast<std::ptrdiff_t>(kChunkPrefixSize + size));
        // This chunk began where the previous one ended; the next begins here.
        frame_offset_ = next_chunk_offset_;
        next_chunk_offset_ = consumed_;
        if (ChunkChecksum(chunk->data(), size) != crc) {
          return Fail(frame_offset_, "corrupt chunk at byte offset " +
                                         std::to_string(frame_offset_) + ": checksum mismatch");
        }
        return Status::kChunk;
      }
    }
    const bool mid_chunk = ready > 0;
    const Status s = Inflate();
    if (s == Status::kEnd && mid_chunk) return Status::kTruncated;
    if (s != Status::kChunk) return s;
  }
}

}  // namespace heaprec::format

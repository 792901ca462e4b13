// Lines of a plain, zstd or gzip text file (text_lines.h).
#include "format/text_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>

namespace heaprec::format {
namespace {

constexpr size_t kInputBlock = size_t{1} << 16;
constexpr size_t kOutputBlock = size_t{1} << 17;
// A line longer than this is damage, not text (heaptrack's longest lines are
// symbol names and stacks of inlined frames: far below).
constexpr size_t kMaxLine = size_t{64} << 20;

}  // namespace

struct TextLines::Decoder {
  ZSTD_DStream* zstd = nullptr;
  z_stream gzip{};
  bool gzip_open = false;
  bool frame_open = false;   // inside a zstd frame or gzip member not yet ended
  bool output_full = false;  // the last call filled its output: more may be held
  ~Decoder() {
    if (zstd != nullptr) ZSTD_freeDStream(zstd);
    if (gzip_open) inflateEnd(&gzip);
  }
};

TextLines::TextLines() = default;

TextLines::~TextLines() {
  if (fd_ >= 0) close(fd_);
}

long TextLines::ReadFile(void* data, size_t n) {
  for (;;) {
    const ssize_t got = read(fd_, data, n);
    if (got >= 0) {
      file_bytes_ += static_cast<uint64_t>(got);
      return got;
    }
    if (errno != EINTR) return -1;
  }
}

bool TextLines::Open(const std::string& path, std::string* error) {
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    *error = path + ": " + std::strerror(errno);
    return false;
  }
  in_.resize(kInputBlock);
  // The first block says how the text is stored.
  const long got = ReadFile(in_.data(), in_.size());
  if (got < 0) {
    *error = path + ": " + std::strerror(errno);
    return false;
  }
  in_end_ = static_cast<size_t>(got);
  in_eof_ = got == 0;
  const auto* b = reinterpret_cast<const unsigned char*>(in_.data());
  decoder_ = std::make_unique<Decoder>();
  if (in_end_ >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd) {
    compression_ = Compression::kZstd;
    decoder_->zstd = ZSTD_createDStream();
    ZSTD_initDStream(decoder_->zstd);
  } else if (in_end_ >= 2 && b[0] == 0x1f && b[1] == 0x8b) {
    compression_ = Compression::kGzip;
    if (inflateInit2(&decoder_->gzip, 16 + MAX_WBITS) != Z_OK) {
      *error = path + ": cannot start gzip decompression";
      return false;
    }
    decoder_->gzip_open = true;
  }
  return true;
}

bool TextLines::Fill() {
  if (end_ != End::kNotYet) return false;
  const bool held = decoder_->output_full;
  if (in_pos_ == in_end_ && !in_eof_ && !held) {
    const long got = ReadFile(in_.data(), in_.size());
    if (got < 0) {
      end_ = End::kError;
      message_ = std::string("read failed: ") + std::strerror(errno);
      return false;
    }
    in_pos_ = 0;
    in_end_ = static_cast<size_t>(got);
    in_eof_ = got == 0;
  }
  if (in_pos_ == in_end_ && in_eof_ && !held) {
    if (decoder_->frame_open) {
      end_ = End::kCut;
      message_ = compression_ == Compression::kZstd ? "the zstd stream stops mid-frame"
                                                    : "the gzip stream stops before its end";
    }
    return false;
  }
  if (compression_ == Compression::kNone) {
    text_.append(in_.data() + in_pos_, in_end_ - in_pos_);
    in_pos_ = in_end_;
    return true;
  }
  const size_t old_size = text_.size();
  text_.resize(old_size + kOutputBlock);
  size_t produced = 0;
  if (compression_ == Compression::kZstd) {
    ZSTD_inBuffer in{in_.data() + in_pos_, in_end_ - in_pos_, 0};
    ZSTD_outBuffer out{text_.data() + old_size, kOutputBlock, 0};
    const size_t r = ZSTD_decompressStream(decoder_->zstd, &out, &in);
    if (ZSTD_isError(r)) {
      text_.resize(old_size);
      end_ = End::kError;
      message_ = std::string("corrupt zstd data: ") + ZSTD_getErrorName(r);
      return false;
    }
    decoder_->frame_open = r != 0;
    in_pos_ += in.pos;
    produced = out.pos;
  } else {
    z_stream& z = decoder_->gzip;
    z.next_in = reinterpret_cast<Bytef*>(in_.data() + in_pos_);
    z.avail_in = static_cast<uInt>(in_end_ - in_pos_);
    z.next_out = reinterpret_cast<Bytef*>(text_.data() + old_size);
    z.avail_out = static_cast<uInt>(kOutputBlock);
    const int r = inflate(&z, Z_NO_FLUSH);
    in_pos_ = in_end_ - z.avail_in;
    produced = kOutputBlock - z.avail_out;
    if (r == Z_STREAM_END) {
      decoder_->frame_open = false;
      inflateReset(&z);  // another member may follow (gzip files may be concatenated)
    } else if (r == Z_OK || r == Z_BUF_ERROR) {
      decoder_->frame_open = true;
    } else {
      text_.resize(old_size);
      end_ = End::kError;
      message_ = std::string("corrupt gzip data: ") + (z.msg != nullptr ? z.msg : "inflate failed");
      return false;
    }
  }
  decoder_->output_full = produced == kOutputBlock;
  text_.resize(old_size + produced);
  return true;
}

bool TextLines::Next(std::string_view* line) {
  for (;;) {
    const size_t nl = text_.find('\n', text_pos_);
    if (nl != std::string::npos) {
      *line = std::string_view(text_).substr(text_pos_, nl - text_pos_);
      text_pos_ = nl + 1;
      ++line_number_;
      return true;
    }
    if (text_pos_ > 0) {  // keep only the partial line
      text_.erase(0, text_pos_);
      text_pos_ = 0;
    }
    if (text_.size() > kMaxLine) {
      end_ = End::kError;
      message_ = "line " + std::to_string(line_number_ + 1) + " is longer than " +
                 std::to_string(kMaxLine >> 20) + " MiB: not text";
      return false;
    }
    if (!Fill()) {
      if (end_ == End::kNotYet) {
        end_ = text_.empty() ? End::kComplete : End::kCut;
        if (!text_.empty()) message_ = "the last line stops before its end";
      }
      return false;
    }
  }
}

}  // namespace heaprec::format

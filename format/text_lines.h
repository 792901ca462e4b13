// TextLines: the lines of a text file that may be zstd- or gzip-compressed,
// told apart by the file's first bytes (not its name), decompressed as they
// are read: memory is one input block and the longest line, whatever the
// file's size. For foreign traces written as text (heaptrack_reader.h).
//
//   TextLines in;
//   if (!in.Open(path, &error)) { print error; exit 1 }
//   std::string_view line;
//   while (in.Next(&line)) { ... }
//   switch (in.end()) { kComplete, kCut (the file stops early), kError }
//
// A cut compressed stream or a last line without its newline ends kCut:
// every whole line before the cut was delivered, the partial one is not.
// A read error or a corrupt compressed stream ends kError with message().
// Not thread-safe; allocates; for tools.
#ifndef HEAPREC_FORMAT_TEXT_LINES_H_
#define HEAPREC_FORMAT_TEXT_LINES_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace heaprec::format {

class TextLines {
 public:
  enum class Compression { kNone, kZstd, kGzip };
  enum class End { kNotYet, kComplete, kCut, kError };

  TextLines();
  ~TextLines();
  TextLines(const TextLines&) = delete;
  TextLines& operator=(const TextLines&) = delete;

  // Opens path; false and *error = "PATH: reason" if it cannot be read.
  bool Open(const std::string& path, std::string* error);
  // The next whole line, without its '\n', valid until the next call; false
  // at the end of the text or on damage (end() says which).
  bool Next(std::string_view* line);

  // Text decompressed but not delivered: after the end, a cut last line.
  std::string_view pending() const { return std::string_view(text_).substr(text_pos_); }
  Compression compression() const { return compression_; }
  End end() const { return end_; }
  // kError: what is wrong ("corrupt zstd data: ..."), without the path.
  // kCut: what was cut ("the zstd stream stops mid-frame", ...).
  const std::string& message() const { return message_; }
  uint64_t line_number() const { return line_number_; }  // of the line last delivered, from 1
  uint64_t file_bytes_read() const { return file_bytes_; }

 private:
  struct Decoder;
  // Appends decompressed bytes to text_; false at the end of the input.
  bool Fill();
  long ReadFile(void* data, size_t n);

  int fd_ = -1;
  Compression compression_ = Compression::kNone;
  std::unique_ptr<Decoder> decoder_;
  std::string in_;  // compressed input not yet consumed: in_[in_pos_, in_end_)
  size_t in_pos_ = 0, in_end_ = 0;
  bool in_eof_ = false;
  std::string text_;  // decompressed text not yet delivered: text_[text_pos_, size)
  size_t text_pos_ = 0;
  End end_ = End::kNotYet;
  std::string message_;
  uint64_t line_number_ = 0;
  uint64_t file_bytes_ = 0;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_TEXT_LINES_H_

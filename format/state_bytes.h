// StateWriter / StateReader: the byte encoding of a reader's or an
// analysis's state in heapreplay's trace index (FORMAT.md, "The trace
// index"): unsigned LEB128 varints, and strings as a varint length and the
// bytes. The reader fails for good (ok() false) at the first value that runs
// past the end, and then answers 0 or empty; callers check ok() once at the
// end. Header-only; allocates (the writer's string); not thread-safe.
#ifndef HEAPREC_FORMAT_STATE_BYTES_H_
#define HEAPREC_FORMAT_STATE_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "format/varint.h"

namespace heaprec::format {

class StateWriter {
 public:
  void U(uint64_t v) {
    uint8_t buf[10];
    out_.append(reinterpret_cast<const char*>(buf), WriteVarint(buf, v) - buf);
  }
  void S(std::string_view s) {
    U(s.size());
    out_.append(s);
  }
  const std::string& bytes() const { return out_; }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class StateReader {
 public:
  explicit StateReader(std::string_view bytes) : p_(bytes.data()), end_(p_ + bytes.size()) {}

  uint64_t U() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return Fail();
      const uint8_t b = static_cast<uint8_t>(*p_++);
      v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return v;
    }
    return Fail();
  }
  // A count of items each at least min_bytes long: fails if more than the
  // bytes left could hold (so a damaged count never allocates wildly).
  uint64_t Count(size_t min_bytes = 1) {
    const uint64_t n = U();
    if (n > static_cast<uint64_t>(end_ - p_) / (min_bytes == 0 ? 1 : min_bytes)) return Fail();
    return n;
  }
  std::string S() {
    const uint64_t n = Count();
    if (!ok_) return {};
    std::string s(p_, n);
    p_ += n;
    return s;
  }
  bool ok() const { return ok_; }
  bool at_end() const { return p_ == end_; }

 private:
  uint64_t Fail() {
    ok_ = false;
    p_ = end_;
    return 0;
  }
  const char* p_;
  const char* end_;
  bool ok_ = true;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_STATE_BYTES_H_

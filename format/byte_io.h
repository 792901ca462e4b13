// Where trace bytes go to and come from: a file descriptor or memory.
//
// Not thread-safe (one owner at a time); allocates only in StringSink.
// Used by TraceWriter, FrameReader and their tests and fuzzer.
#ifndef HEAPREC_FORMAT_BYTE_IO_H_
#define HEAPREC_FORMAT_BYTE_IO_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace heaprec::format {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  // Writes all n bytes or returns false and sets error().
  virtual bool Write(const void* data, size_t n) = 0;
  virtual const std::string& error() const = 0;
};

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes: returns how many (0 at the end), or -1 and sets
  // error() on a read failure.
  virtual long Read(void* data, size_t n) = 0;
  virtual const std::string& error() const = 0;
  // Reads on from this byte offset of the source; false if it cannot.
  virtual bool Seek(uint64_t offset) { return false; }
};

// Writes to a file descriptor it owns (closed by Close or the destructor).
class FdSink : public ByteSink {
 public:
  // Creates or truncates path. On failure returns nullptr and sets *error to
  // "PATH: reason".
  static std::unique_ptr<FdSink> Create(const std::string& path, std::string* error);
  explicit FdSink(int fd) : fd_(fd) {}
  ~FdSink() override;
  bool Write(const void* data, size_t n) override;
  const std::string& error() const override { return error_; }
  bool Close();

 private:
  int fd_;
  std::string error_;
};

// Appends to a string; for tests and in-memory traces.
class StringSink : public ByteSink {
 public:
  bool Write(const void* data, size_t n) override {
    bytes_.append(static_cast<const char*>(data), n);
    return true;
  }
  const std::string& error() const override { return error_; }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  std::string error_;
};

class FdSource : public ByteSource {
 public:
  // Opens path for reading. On failure returns nullptr and sets *error to a
  // reason without the path ("No such file or directory", "is a directory").
  static std::unique_ptr<FdSource> Open(const std::string& path, std::string* error);
  explicit FdSource(int fd) : fd_(fd) {}
  ~FdSource() override;
  long Read(void* data, size_t n) override;
  const std::string& error() const override { return error_; }
  bool Seek(uint64_t offset) override;

 private:
  int fd_;
  std::string error_;
};

// Reads from memory the caller keeps alive.
class MemorySource : public ByteSource {
 public:
  MemorySource(const void* data, size_t size)
      : data_(static_cast<const uint8_t*>(data)), size_(size) {}
  long Read(void* data, size_t n) override;
  const std::string& error() const override { return error_; }
  bool Seek(uint64_t offset) override;

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_BYTE_IO_H_

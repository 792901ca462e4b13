// RSS sample columns, both directions (rss_columns.h).
#include "format/rss_columns.h"

#include "format/varint.h"
#include "format/varint_column.h"
#include "format/zigzag.h"

namespace heaprec::format {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kUsNs = 1000;

// One column's varints, or false with *error naming the column.
bool Column(const flatbuffers::Vector<uint8_t>* v, size_t count, const char* name,
            std::vector<uint64_t>* out, std::string* error) {
  const bool ok = ReadVarintColumn(v, count, out);
  if (!ok)
    *error = std::string("RSS samples: column ") + name + " does not hold one varint a sample";
  return ok;
}

}  // namespace

flatbuffers::Offset<fb::RssSamples> EncodeRssSamples(flatbuffers::FlatBufferBuilder& b,
                                                     const std::vector<RssSample>& samples) {
  std::vector<uint8_t> seq, time, anon, file, shmem;
  RssSample prev;
  uint64_t prev_us = 0;
  for (const RssSample& s : samples) {
    const uint64_t us = s.time_ns / kUsNs;
    PutVarint(&seq, s.seq - prev.seq);
    PutVarint(&time, us - prev_us);
    PutVarint(&anon, ZigzagDelta(prev.anon_bytes / kKiB, s.anon_bytes / kKiB));
    PutVarint(&file, ZigzagDelta(prev.file_bytes / kKiB, s.file_bytes / kKiB));
    PutVarint(&shmem, ZigzagDelta(prev.shmem_bytes / kKiB, s.shmem_bytes / kKiB));
    prev = s;
    prev_us = us;
  }
  const auto seq_v = b.CreateVector(seq);
  const auto time_v = b.CreateVector(time);
  const auto anon_v = b.CreateVector(anon);
  const auto file_v = b.CreateVector(file);
  const auto shmem_v = b.CreateVector(shmem);
  return fb::CreateRssSamples(b, static_cast<uint32_t>(samples.size()), seq_v, time_v, anon_v,
                              file_v, shmem_v);
}

bool DecodeRssSamples(const fb::RssSamples& f, std::vector<RssSample>* out, std::string* error) {
  const size_t n = f.count();
  std::vector<uint64_t> seq, time, anon, file, shmem;
  if (!Column(f.seq_v(), n, "seq_v", &seq, error) ||
      !Column(f.time_us_v(), n, "time_us_v", &time, error) ||
      !Column(f.anon_v(), n, "anon_v", &anon, error) ||
      !Column(f.file_v(), n, "file_v", &file, error) ||
      !Column(f.shmem_v(), n, "shmem_v", &shmem, error)) {
    return false;
  }
  out->resize(n);
  uint64_t s = 0, us = 0, a = 0, fi = 0, sh = 0;
  for (size_t i = 0; i < n; ++i) {
    if (seq[i] > UINT64_MAX - s || time[i] > UINT64_MAX / kUsNs - us) {
      *error = "RSS samples: seq or time out of range";
      return false;
    }
    s += seq[i];
    us += time[i];
    a = ApplyZigzagDelta(a, anon[i]);
    fi = ApplyZigzagDelta(fi, file[i]);
    sh = ApplyZigzagDelta(sh, shmem[i]);
    if (a > UINT64_MAX / kKiB || fi > UINT64_MAX / kKiB || sh > UINT64_MAX / kKiB ||
        a + fi + sh > UINT64_MAX / kKiB) {
      *error = "RSS samples: size out of range";
      return false;
    }
    (*out)[i] = {s, us * kUsNs, a * kKiB, fi * kKiB, sh * kKiB};
  }
  return true;
}

}  // namespace heaprec::format

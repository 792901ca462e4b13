// TRACE.hri: a trace's checkpoints (trace_index.h; FORMAT.md, "The trace
// index").
#include "heapreplay/trace_index.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "analyzers/analysis_state.h"
#include "format/state_bytes.h"

namespace heaprec::heapreplay {
namespace {

constexpr char kMagic[] = "HRINDEX1";  // 8 bytes at the start
constexpr char kEnd[] = "HRINDEXE";    // 8 bytes at the end
constexpr uint64_t kVersion = 3;       // 3: checkpoints hold the peak and hot sites
constexpr size_t kHashedBytes = 64 * 1024;
constexpr size_t kTail = 24;  // directory offset, directory checksum, kEnd

uint64_t Fnv(const char* data, size_t n, uint64_t h = 14695981039346656037ull) {
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<uint8_t>(data[i]);
    h *= 1099511628211ull;
  }
  return h;
}

void PutLe64(uint64_t v, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

uint64_t GetLe64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

bool ReadAt(std::ifstream& in, uint64_t offset, size_t n, std::string* out) {
  out->resize(n);
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(out->data(), static_cast<std::streamsize>(n));
  return static_cast<size_t>(in.gcount()) == n;
}

}  // namespace

std::string IndexPath(const std::string& trace) { return trace + ".hri"; }

bool KeyOf(const std::string& trace, IndexKey* key, std::string* error) {
  struct stat st;
  if (stat(trace.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    *error = trace + ": not a regular file";
    return false;
  }
  key->size = static_cast<uint64_t>(st.st_size);
  key->mtime_ns = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull +
                  static_cast<uint64_t>(st.st_mtim.tv_nsec);
  std::ifstream in(trace, std::ios::binary);
  std::string head, tail;
  const size_t n = static_cast<size_t>(std::min<uint64_t>(key->size, kHashedBytes));
  if (!in || !ReadAt(in, 0, n, &head) || !ReadAt(in, key->size - n, n, &tail)) {
    *error = trace + ": cannot read";
    return false;
  }
  key->hash = Fnv(tail.data(), tail.size(), Fnv(head.data(), head.size()));
  return true;
}

TraceIndex::Status TraceIndex::Open(const std::string& trace, const IndexKey& key,
                                    std::string* why) {
  path_ = IndexPath(trace);
  std::ifstream in(path_, std::ios::binary | std::ios::ate);
  if (!in) {
    *why = "no index";
    return Status::kMissing;
  }
  file_size_ = static_cast<uint64_t>(in.tellg());
  std::string magic, tail, dir;
  if (file_size_ < 8 + kTail || !ReadAt(in, 0, 8, &magic) || magic != std::string(kMagic, 8) ||
      !ReadAt(in, file_size_ - kTail, kTail, &tail) || tail.substr(16) != std::string(kEnd, 8)) {
    *why = "not a heapreplay index, or cut short";
    return Status::kDamaged;
  }
  const uint64_t dir_offset = GetLe64(tail.data());
  if (dir_offset < 8 || dir_offset > file_size_ - kTail ||
      !ReadAt(in, dir_offset, file_size_ - kTail - dir_offset, &dir) ||
      Fnv(dir.data(), dir.size()) != GetLe64(tail.data() + 8)) {
    *why = "bad directory checksum";
    return Status::kDamaged;
  }
  format::StateReader r(dir);
  if (r.U() != kVersion) {
    *why = "an index of another heapreplay version";
    return Status::kStale;
  }
  IndexKey k;
  k.size = r.U();
  k.mtime_ns = r.U();
  k.hash = r.U();
  log_offset_ = r.U();
  log_size_ = r.U();
  if (log_offset_ > dir_offset || log_size_ > dir_offset - log_offset_) {
    *why = "a record log outside the file";
    return Status::kDamaged;
  }
  checkpoints_.resize(r.Count(8));
  for (Checkpoint& c : checkpoints_) {
    c.chunk = static_cast<uint32_t>(r.U());
    c.frame_offset = r.U();
    c.log_bytes = r.U();
    c.log_chunks = r.U();
    if (c.log_bytes > log_size_) {
      *why = "a checkpoint beyond the record log";
      return Status::kDamaged;
    }
    c.max_time_ns = r.U();
    c.markers = r.U();
    c.offset = r.U();
    c.size = r.U();
    if (c.offset < 8 || c.offset > dir_offset || c.size > dir_offset - c.offset) {
      *why = "a checkpoint outside the file";
      return Status::kDamaged;
    }
  }
  labels_.resize(r.Count());
  for (std::string& l : labels_) l = r.S();
  if (!r.ok() || !r.at_end()) {
    *why = "bad directory";
    return Status::kDamaged;
  }
  if (!(k == key)) {
    *why = "the trace changed since it was indexed";
    return Status::kStale;
  }
  return Status::kOk;
}

int TraceIndex::Choose(const std::vector<analyzers::Moment>& moments) const {
  using Kind = analyzers::Moment::Kind;
  int best = -1;
  for (size_t i = 0; i < checkpoints_.size(); ++i) {
    const Checkpoint& c = checkpoints_[i];
    bool before_all = true;
    for (const analyzers::Moment& m : moments) {
      if (m.kind == Kind::kTime && c.max_time_ns > m.time_ns) before_all = false;
      if (m.kind == Kind::kLabel) {
        const auto it = std::find(labels_.begin(), labels_.end(), m.label);
        if (it == labels_.end()) return -1;
        if (c.markers > static_cast<uint64_t>(it - labels_.begin())) before_all = false;
      }
    }
    if (before_all && (best < 0 || c.chunk > checkpoints_[best].chunk)) best = static_cast<int>(i);
  }
  return best;
}

int TraceIndex::FrameBefore(int i) const {
  const uint32_t chunk = checkpoints_.at(static_cast<size_t>(i)).chunk;
  int best = -1;
  for (size_t j = 0; j < checkpoints_.size(); ++j) {
    const Checkpoint& c = checkpoints_[j];
    if (c.frame_offset != 0 && c.log_chunks != 0 && c.chunk <= chunk &&
        (best < 0 || c.chunk > checkpoints_[best].chunk)) {
      best = static_cast<int>(j);
    }
  }
  return best;
}

bool TraceIndex::ReadLog(std::string* log, std::string* why) const {
  std::ifstream in(path_, std::ios::binary);
  if (!in || !ReadAt(in, log_offset_, log_size_, log)) {
    *why = "cannot read its record log";
    return false;
  }
  return true;
}

bool TraceIndex::Read(int i, format::DecoderState* state, std::string* analysis,
                      std::string* why) const {
  const Checkpoint& c = checkpoints_.at(static_cast<size_t>(i));
  std::ifstream in(path_, std::ios::binary);
  std::string packed;
  if (!in || !ReadAt(in, c.offset, c.size, &packed)) {
    *why = "cannot read checkpoint " + std::to_string(i);
    return false;
  }
  const unsigned long long n = ZSTD_getFrameContentSize(packed.data(), packed.size());
  if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > (1ull << 40)) {
    *why = "checkpoint " + std::to_string(i) + " is damaged";
    return false;
  }
  std::string bytes(n, '\0');
  const size_t got = ZSTD_decompress(bytes.data(), bytes.size(), packed.data(), packed.size());
  if (ZSTD_isError(got) || got != n) {
    *why = "checkpoint " + std::to_string(i) + " is damaged";
    return false;
  }
  format::StateReader r(bytes);
  const std::string decoder = r.S();
  *analysis = r.S();
  format::StateReader d(decoder);
  if (!r.ok() || !r.at_end() || !state->Decode(&d) || !d.at_end() || state->next_index != c.chunk) {
    *why = "checkpoint " + std::to_string(i) + " is damaged";
    return false;
  }
  return true;
}

IndexWriter::IndexWriter(const std::string& trace, const IndexKey& key)
    : path_(IndexPath(trace)), tmp_(path_ + ".tmp." + std::to_string(getpid())), key_(key) {
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (file_ == nullptr) {
    error_ = std::strerror(errno);
    return;
  }
  Write(std::string(kMagic, 8));
}

IndexWriter::~IndexWriter() {
  if (file_ != nullptr) {
    std::fclose(file_);
    std::remove(tmp_.c_str());
  }
}

bool IndexWriter::Write(const std::string& bytes) {
  if (file_ == nullptr) return false;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    error_ = std::strerror(errno);
    std::fclose(file_);
    std::remove(tmp_.c_str());
    file_ = nullptr;
    return false;
  }
  offset_ += bytes.size();
  return true;
}

void IndexWriter::Log::OnProcess(const format::ProcessInfo& p) {
  if (w_) return;
  w_ = std::make_unique<format::TraceWriter>(&sink_, p, format::TraceWriter::Options{});
}

bool IndexWriter::Log::Cut(uint64_t* bytes, uint64_t* chunks) {
  if (!w_ || !w_->Flush() || !w_->ok()) return false;
  *bytes = sink_.bytes().size();
  *chunks = w_->chunks_written();
  return true;
}

void IndexWriter::Add(const format::DecoderState& state, const analyzers::Analysis& a,
                      const analyzers::SummaryAnalyzer& s, const analyzers::PeakAnalyzer& peak,
                      const analyzers::HotAnalyzer& hot) {
  if (file_ == nullptr) return;
  // About 16 bytes a live block (AnalysisState), and the sites, known
  // before they are saved.
  const uint64_t estimate =
      16 * a.heap().live_blocks() + analyzers::AnalysisState::SitesEstimate(peak, hot) + 4096;
  if (raw_ + estimate > RawBudget(key_.size)) return;  // left out: the pass stays fast
  format::StateWriter d, p, both;
  state.Encode(&d);
  analyzers::AnalysisState::Save(a, s, peak, hot, &p);
  both.S(d.bytes());
  both.S(p.bytes());
  const std::string& raw = both.bytes();
  raw_ += raw.size();
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  std::string packed(ZSTD_compressBound(raw.size()), '\0');
  const size_t n = ZSTD_compress2(cctx, packed.data(), packed.size(), raw.data(), raw.size());
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) {
    error_ = ZSTD_getErrorName(n);
    return;
  }
  packed.resize(n);
  if (offset_ + n > Budget(key_.size)) return;  // left out: the index stays small
  Checkpoint c;
  c.chunk = state.next_index;
  if (state.frame_offset != 0 && log_.Cut(&c.log_bytes, &c.log_chunks)) {
    c.frame_offset = state.frame_offset;
  }
  c.max_time_ns = s.duration_ns();
  c.markers = a.markers().size();
  c.offset = offset_;
  c.size = n;
  if (Write(packed)) checkpoints_.push_back(c);
}

bool IndexWriter::Finish(const analyzers::Analysis& a, std::string* why) {
  const uint64_t log_offset = offset_;
  Write(log_.bytes());
  format::StateWriter w;
  w.U(kVersion);
  w.U(key_.size);
  w.U(key_.mtime_ns);
  w.U(key_.hash);
  w.U(log_offset);
  w.U(log_.bytes().size());
  w.U(checkpoints_.size());
  for (const Checkpoint& c : checkpoints_) {
    w.U(c.chunk);
    w.U(c.frame_offset);
    w.U(c.log_bytes);
    w.U(c.log_chunks);
    w.U(c.max_time_ns);
    w.U(c.markers);
    w.U(c.offset);
    w.U(c.size);
  }
  w.U(a.markers().size());
  for (const format::Marker& m : a.markers()) w.S(m.label);
  std::string tail = w.Take();
  const uint64_t dir_offset = offset_;
  const uint64_t sum = Fnv(tail.data(), tail.size());
  PutLe64(dir_offset, &tail);
  PutLe64(sum, &tail);
  tail.append(kEnd, 8);
  bool ok = Write(tail);  // on failure closes and removes the file
  if (ok) {
    ok = std::fflush(file_) == 0;
    ok = std::fclose(file_) == 0 && ok;
    file_ = nullptr;
    if (!ok) {
      error_ = std::strerror(errno);
      std::remove(tmp_.c_str());
    }
  }
  if (!ok) {
    *why = error_.empty() ? "cannot create it" : error_;
    return false;
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    *why = std::strerror(errno);
    std::remove(tmp_.c_str());
    return false;
  }
  return true;
}

}  // namespace heaprec::heapreplay

// RegionReader: ring draining, seq-ordered merge, checked reads.
#include "recorder/launcher/region_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "recorder/shared/ring_slots.h"

namespace heaprec::recorder::launcher {

std::unique_ptr<RegionReader> RegionReader::Open(const std::string& path, std::string* error) {
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    *error = path + ": " + std::strerror(errno);
    return nullptr;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < kRegionBytes) {
    close(fd);
    return nullptr;  // still being created
  }
  void* base = mmap(nullptr, kRegionBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    close(fd);
    *error = path + ": mmap: " + std::strerror(errno);
    return nullptr;
  }
  RegionView view;
  view.base = static_cast<uint8_t*>(base);
  const RegionHeader* h = view.header();
  if (h->ready.load(std::memory_order_acquire) != 1) {
    munmap(base, kRegionBytes);
    close(fd);
    return nullptr;
  }
  if (h->magic != kRegionMagic || h->version != kRegionVersion) {
    munmap(base, kRegionBytes);
    close(fd);
    *error = path + ": not a heaprec region of this version";
    return nullptr;
  }
  return std::unique_ptr<RegionReader>(new RegionReader(path, view, fd));
}

RegionReader::~RegionReader() {
  munmap(view_.base, kRegionBytes);
  close(fd_);
}

size_t RegionReader::Drain(bool all) {
  size_t moved = 0;
  for (uint32_t word = 0; word < kSlots / 64; ++word) {
    uint64_t bits = view_.header()->slots_in_use[word].load(std::memory_order_acquire);
    if (word == 0) bits |= 1;  // the shared ring, always
    while (bits != 0) {
      const uint32_t slot = word * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
      bits &= bits - 1;
      moved += DrainSlot(slot, all);
    }
  }
  queued_ += moved;
  return moved;
}

size_t RegionReader::DrainSlot(uint32_t slot, bool all) {
  Ring& ring = view_.rings()[slot];
  if (slot != 0 && ring.state.load(std::memory_order_acquire) == kSlotFree) return 0;
  const Readable r = ReadableRecords(ring);
  Queue& q = queues_[slot];
  if (r.count() != 0 && !all && slot != 0 && q.records.size() - q.head >= kMaxQueued) return 0;
  // The shared ring (several threads, its seqs not in order) is taken whole.
  const uint64_t head =
      all || slot == 0 ? r.head : r.tail + std::min<uint64_t>(r.count(), kDrainPiece);
  if (head != r.tail) {
    if (q.head > 0 && q.head * 2 >= q.records.size()) {  // drop what was emitted (amortized)
      q.records.erase(q.records.begin(), q.records.begin() + static_cast<std::ptrdiff_t>(q.head));
      q.head = 0;
    }
    // At most two contiguous pieces of the ring.
    for (uint64_t tail = r.tail; tail != head;) {
      const uint64_t at = tail & (kRingRecords - 1);
      const uint64_t n = std::min<uint64_t>(head - tail, kRingRecords - at);
      q.records.insert(q.records.end(), ring.records + at, ring.records + at + n);
      tail += n;
    }
    if (Consumed(ring, head)) ++producer_waits_;
    if (!in_heap_[slot]) {
      fronts_.push({q.front().seq, slot});
      in_heap_[slot] = true;
    }
  }
  if (slot != 0) FreeSlotIfDrained(view_, slot, head);
  return head - r.tail;
}

size_t RegionReader::Emit(RecordSink& sink, bool final, uint64_t now_ns, size_t budget) {
  if (final) budget = SIZE_MAX;
  size_t emitted = 0;
  while (!fronts_.empty() && emitted < budget) {
    const Front f = fronts_.top();
    if (f.seq > next_seq_ && !final) {
      // A gap: the record with next_seq_ is still being written.
      if (stalled_since_ns_ == 0) stalled_since_ns_ = now_ns;
      if (now_ns - stalled_since_ns_ < 1000000000ull) break;
    }
    stalled_since_ns_ = 0;
    fronts_.pop();
    Queue& q = queues_[f.slot];
    // Emit the runs of consecutive seqs at this queue's front without going
    // back to the heap (one thread allocating alone is one long run), and
    // the ring's next piece when the queue runs out.
    do {
      const RawRecord* r = q.records.data() + q.head;
      const RawRecord* const end = q.records.data() + q.records.size();
      size_t n = 1;
      if (r->seq >= next_seq_) {
        while (r + n != end && r[n].seq == r[n - 1].seq + 1) ++n;
        skipped_seqs_ += r->seq - next_seq_;
        next_seq_ = r[n - 1].seq + 1;
        sink.OnRun(f.slot, r, n, end);
        emitted += n;
      }  // else: a repeated seq from a damaged ring; dropped
      q.pop_front(n);
      queued_ -= n;
      if (q.empty() && f.slot != 0) queued_ += DrainSlot(f.slot, false);
    } while (!q.empty() && q.front().seq == next_seq_ && emitted < budget);
    if (!q.empty()) {
      fronts_.push({q.front().seq, f.slot});
    } else {
      in_heap_[f.slot] = false;
    }
  }
  return emitted;
}

bool RegionReader::ReadStack(uint32_t id, std::vector<uint64_t>* frames) const {
  const uint64_t used = view_.header()->stack_arena_used.load(std::memory_order_acquire);
  if (id == 0 || id + uint64_t{kStackEntryHeaderWords} > used ||
      id + uint64_t{kStackEntryHeaderWords} > kStackArenaWords) {
    return false;
  }
  const uint64_t* entry = view_.stack_arena() + id;
  const uint64_t depth = entry[1];
  if (depth == 0 || depth > kMaxStackFrames ||
      id + kStackEntryHeaderWords + depth > kStackArenaWords) {
    return false;
  }
  frames->assign(entry + kStackEntryHeaderWords, entry + kStackEntryHeaderWords + depth);
  return true;
}

std::string RegionReader::Label(uint64_t index) const {
  if (index >= kLabelRecords) return "";
  const LabelRecord& l = view_.labels()[index];
  if (l.ready.load(std::memory_order_acquire) != 1) return "";
  return std::string(l.text, strnlen(l.text, kLabelBytes));
}

std::vector<const ModuleRecord*> RegionReader::NewModules() {
  std::vector<const ModuleRecord*> out;
  uint32_t count = view_.header()->module_count.load(std::memory_order_acquire);
  if (count > kModuleRecords) count = kModuleRecords;
  while (modules_read_ < count) {
    const ModuleRecord& m = view_.modules()[modules_read_];
    if (m.ready.load(std::memory_order_acquire) != 1) break;
    out.push_back(&m);
    ++modules_read_;
  }
  return out;
}

void RegionReader::ReleaseMemory() {
  if (view_.base == nullptr) return;
  // A late writer drops its record instead of waiting for room; the header
  // page stays to say so, the rest (logs, stacks, rings) goes.
  view_.header()->launcher_gone.store(1, std::memory_order_release);
  madvise(view_.base + kModulesOffset, kRegionBytes - kModulesOffset, MADV_REMOVE);
}

}  // namespace heaprec::recorder::launcher

// Formats 2 to 4: varint columns decoded and resolved in one pass
// (varint_columns.h).
#include "format/internal/varint_columns.h"

#include <algorithm>

#include "format/internal/api_traits.h"
#include "format/internal/chunk_delivery.h"
#include "format/internal/seq_order.h"
#include "format/internal/varint_events.h"
#include "format/varint.h"
#include "format/zigzag.h"

namespace heaprec::format::detail {
namespace {

// One varint column, read a value at a time in step with the others, or a
// run of values at once (format/varint.h).
class VarintCursor {
 public:
  explicit VarintCursor(const flatbuffers::Vector<uint8_t>* v)
      : p_(v ? v->data() : nullptr), end_(p_ + Len(v)) {}

  // The next value; false if the column has none left or it is malformed
  // (longer than 10 bytes, over 64 bits).
  __attribute__((always_inline)) bool Next(uint64_t* v) { return ReadVarint(&p_, end_, v); }
  bool done() const { return p_ == end_; }

  // The next count values into out, as Next() would read them one by one;
  // returns how many were read (fewer: the column ended or a value is
  // malformed).
  size_t Take(uint64_t* out, size_t count) { return ReadVarintRun(&p_, end_, out, count); }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// A sparse column of format 4 (seq_skip_v, time_change_v): pairs
// (index gap, value) in column order, an entry's index being the previous
// entry's + 1 + gap (the first's, gap); every event it does not list has
// value 0. Read as the events are, in order: no array to clear.
class SparseCursor {
 public:
  static constexpr uint64_t kNone = UINT64_MAX;

  explicit SparseCursor(const flatbuffers::Vector<uint8_t>* v) : c_(v) { Advance(0); }

  // The value of event i; asked for every event in order from 0.
  __attribute__((always_inline)) uint64_t At(uint64_t i) {
    if (__builtin_expect(i != next_, 1)) return 0;
    const uint64_t v = value_;
    Advance(i + 1);
    return v;
  }
  // Every entry read, none malformed nor past the events read.
  bool done() const { return next_ == kNone && !bad_; }

 private:
  void Advance(uint64_t from) {
    if (c_.done()) {
      next_ = kNone;
      return;
    }
    uint64_t gap;
    if (!c_.Next(&gap) || !c_.Next(&value_) || gap >= kNone - from) {
      bad_ = true;
      next_ = kNone;
      return;
    }
    next_ = from + gap;
  }

  VarintCursor c_;
  uint64_t next_ = kNone;  // the index of the entry in value_; kNone: none left
  uint64_t value_ = 0;
  bool bad_ = false;
};

// The threads of format 4 (group_v): pairs (thread, events) per column
// group, in column order; neighbouring groups have different threads and
// none is empty.
class GroupCursor {
 public:
  explicit GroupCursor(const flatbuffers::Vector<uint8_t>* v) : c_(v) {}

  // The threads of the next count events into out; returns how many were
  // read (fewer: the groups ended or one is malformed).
  size_t Fill(size_t count, uint64_t* out) {
    size_t j = 0;
    while (j < count) {
      if (left_ == 0) {
        uint64_t thread, events;
        if (!c_.Next(&thread) || !c_.Next(&events) || events == 0 ||
            (started_ && thread == thread_)) {
          bad_ = true;
          return j;
        }
        thread_ = thread;
        left_ = events;
        started_ = true;
      }
      const size_t take = static_cast<size_t>(std::min<uint64_t>(left_, count - j));
      std::fill(out + j, out + j + take, thread_);
      j += take;
      left_ -= take;
    }
    return count;
  }
  bool done() const { return c_.done() && left_ == 0 && !bad_; }

 private:
  VarintCursor c_;
  uint64_t thread_ = 0, left_ = 0;
  bool started_ = false, bad_ = false;
};

// The five values every event has (thread, seq, time, stack, size), read a
// block of events ahead instead of a value at a time: formats 2 and 3 from
// a column each (VarintCursor::Take); format 4 from its groups and sparse
// seq skips and time changes, and the stacks from two columns, frees' apart
// (Stack()). kFormat4: format 4 (the decoders are instantiated for each, so
// that no event asks which).
template <bool kFormat4>
class EventVarints {
 public:
  static constexpr size_t kBlock = 512;

  explicit EventVarints(const fb::Chunk& c)
      : threads_(kFormat4 ? nullptr : c.thread_v()),
        seqs_(kFormat4 ? nullptr : c.seq_delta_v()),
        times_(kFormat4 ? nullptr : c.time_delta_v()),
        stacks_(c.stack_v()),
        sizes_(c.size_v()),
        free_stacks_(kFormat4 ? c.free_stack_v() : nullptr),
        has_free_stacks_(kFormat4 && Len(c.free_stack_v()) > 0),
        groups_(kFormat4 ? c.group_v() : nullptr),
        skips_(kFormat4 ? c.seq_skip_v() : nullptr),
        changes_(kFormat4 ? c.time_change_v() : nullptr) {}

  // Event i's values (events are asked for in order from 0, each once):
  // *j is its place in the block. False if a column has no value for it
  // (it ended, or its value is malformed), as reading them with
  // VarintCursor::Next would find at event i.
  __attribute__((always_inline)) bool At(size_t i, size_t n, size_t* j) {
    if (i == end_) Fill(i, n);
    *j = i - start_;
    return *j < ok_;
  }
  uint64_t thread(size_t j) const { return t_[j]; }
  // seq() and time(): once per event, in order (format 4 reads them as it goes).
  uint64_t seq(size_t j) {
    if constexpr (kFormat4) return skips_.At(start_ + j);
    return x_[j];
  }
  uint64_t time(size_t j) {
    if constexpr (kFormat4) return changes_.At(start_ + j);
    return y_[j];
  }
  uint64_t size(size_t j) const { return z_[j]; }
  // The stack of the event at j, a free or not; false if its column has no
  // value left (format 4 keeps a free's stack apart, 0 without any).
  __attribute__((always_inline)) bool Stack(size_t j, bool free, uint64_t* s) {
    if constexpr (!kFormat4) {
      *s = s_[j];
      return true;
    } else {
      if (__builtin_expect(has_free_stacks_, 0) && free) return free_stacks_.Next(s);
      // Read ahead when the buffer is used up, even at a free (which takes
      // nothing from it): the choice below is then a select, not a branch.
      if (__builtin_expect(next_stack_ == stacks_read_, 0)) {
        stacks_read_ = stacks_.Take(s_, kBlock);
        next_stack_ = 0;
        if (stacks_read_ == 0) {
          s_[0] = 0;
          if (!free) return false;
        }
      }
      const uint64_t v = s_[next_stack_];
      *s = free ? 0 : v;
      next_stack_ += free ? 0 : 1;
      return true;
    }
  }
  bool done() const {
    if constexpr (kFormat4) {
      return groups_.done() && skips_.done() && changes_.done() && stacks_.done() &&
             next_stack_ == stacks_read_ && free_stacks_.done() && sizes_.done();
    }
    return threads_.done() && seqs_.done() && times_.done() && stacks_.done() && sizes_.done();
  }

 private:
  // Out of line: a refill every kBlock events, kept out of the event loop's
  // registers.
  __attribute__((noinline)) void Fill(size_t i, size_t n) {
    const size_t count = std::min(kBlock, n - i);
    start_ = i;
    end_ = i + count;
    if constexpr (kFormat4) {
      ok_ = std::min(groups_.Fill(count, t_), sizes_.Take(z_, count));
      return;
    }
    ok_ = std::min({threads_.Take(t_, count), seqs_.Take(x_, count), times_.Take(y_, count),
                    stacks_.Take(s_, count), sizes_.Take(z_, count)});
  }

  VarintCursor threads_, seqs_, times_, stacks_, sizes_, free_stacks_;
  const bool has_free_stacks_;
  GroupCursor groups_;
  SparseCursor skips_, changes_;
  size_t start_ = 0, end_ = 0, ok_ = 0;  // the block: events [start_, end_), ok_ of them whole
  // Format 4: s_ holds stacks of events other than frees, read ahead
  // [0, stacks_read_), the next at next_stack_.
  size_t next_stack_ = 0, stacks_read_ = 0;
  uint64_t t_[kBlock], x_[kBlock], y_[kBlock], s_[kBlock], z_[kBlock];
};

// Stack nodes: parent ids from id - parent, addresses from zigzag deltas.
void ResolveStackNodes(const fb::Chunk& c, Columns* k) {
  uint64_t address = 0;
  for (size_t i = 0; i < k->stack_parent.size(); ++i) {
    const uint64_t id = uint64_t{c.base_stack_id()} + 1 + i;
    const uint64_t back = k->stack_parent[i];
    // parent = id - back must be 0 or an earlier node; a bad value shows up
    // as a "later parent" in CheckStacks.
    k->stack_parent[i] = back == 0 || back > id ? id : id - back;
    address = ApplyZigzagDelta(address, k->stack_address[i]);
    k->stack_address[i] = address;
  }
}

constexpr char kLengths[] = "event columns have different lengths";
constexpr char kSparse[] = "sparse columns do not match the events";

// A free's or a realloc's block ref, read (RefReader::Next's outputs).
struct Ref {
  BlockRefForm form = BlockRefForm::kAnyThread;
  uint64_t d = 0;       // d, or k or i for the thread forms
  uint32_t maker = 0;   // kOtherThread
  uint64_t passed = 0;  // d = 0: the address passed
};

// The block refs of a chunk's frees and reallocs, in column order
// (format/FORMAT.md, "Blocks"): each form's previous value, and the cursors
// of the columns that only some refs have.
class RefReader {
 public:
  explicit RefReader(const fb::Chunk& c)
      : refs_(c.block_ref()),
        makers_(c.ref_thread_v()),
        forms_(Len(c.ref_form()) > 0 ? c.ref_form()->data() : nullptr),
        n_forms_(Len(c.ref_form())),
        raw_(c.raw_address()),
        n_raw_(Len(c.raw_address())) {}

  __attribute__((noinline, cold)) static bool RefFormError(size_t i, uint8_t byte,
                                                           std::string* error) {
    *error = "event " + std::to_string(i) + " has block ref form " + std::to_string(byte);
    return false;
  }

  // kCallerThread and kOtherThread values chain within one thread's events.
  void NewThread() { prev_k_ = prev_i_ = 0; }

  // Event i (a free or a realloc) of thread `thread`: its ref (d, or k or i
  // for the thread forms), with the maker (kOtherThread) or the address
  // passed (d = 0).
  __attribute__((always_inline)) bool Next(size_t i, uint64_t thread, BlockRefForm* form_out,
                                           uint64_t* d, uint32_t* maker_out, uint64_t* passed,
                                           std::string* error) {
    uint8_t byte = 0;
    if (forms_ != nullptr) {
      if (next_form_ == n_forms_) return Fail(kSparse, error);
      byte = forms_[next_form_++];
    }
    uint64_t x;
    if (!refs_.Next(&x)) return Fail(kSparse, error);
    const auto form = static_cast<BlockRefForm>(byte);
    *form_out = form;
    switch (form) {
      case BlockRefForm::kCallerThread:
        *d = prev_k_ = ApplyZigzagDelta(prev_k_, x);
        if (prev_k_ != 0) return true;
        return EventError(i, " names its thread's 0th block", error);
      case BlockRefForm::kOtherThread: {
        *d = prev_i_ = ApplyZigzagDelta(prev_i_, x);
        uint64_t m;
        if (!makers_.Next(&m)) return Fail(kSparse, error);
        const uint64_t maker = ApplyZigzagDelta(thread, m);
        if (prev_i_ == 0 || maker > UINT32_MAX) {
          return EventError(i, " names a block of no thread", error);
        }
        *maker_out = static_cast<uint32_t>(maker);
        return true;
      }
      case BlockRefForm::kAnyThread:
        *d = prev_d_ = ApplyZigzagDelta(prev_d_, x);
        if (prev_d_ != 0) return true;
        if (next_raw_ == n_raw_) return Fail(kSparse, error);
        *passed = raw_->Get(static_cast<flatbuffers::uoffset_t>(next_raw_++));
        return true;
    }
    return RefFormError(i, byte, error);
  }

  // Every sparse column taken whole.
  bool done() const {
    return refs_.done() && makers_.done() && next_raw_ == n_raw_ &&
           (forms_ == nullptr || next_form_ == n_forms_);
  }

 private:
  __attribute__((noinline, cold)) static bool Fail(const char* what, std::string* error) {
    *error = what;
    return false;
  }

  VarintCursor refs_, makers_;
  const uint8_t* forms_;  // nullptr: every ref has form kAnyThread
  const size_t n_forms_;
  const flatbuffers::Vector<uint64_t>* raw_;
  const size_t n_raw_;
  uint64_t prev_d_ = 0, prev_k_ = 0, prev_i_ = 0;
  size_t next_form_ = 0, next_raw_ = 0;
};

// The event columns, decoded in column order, one event at a time, into k's
// columns.
template <bool kFormat4>
bool DecodeColumns(const fb::Chunk& c, ColumnLayout layout, uint64_t max_stack,
                   std::vector<uint64_t>* size_by_stack, Columns* k, std::string* error) {
  const size_t n = k->n;
  const bool runs = HasSeqRuns(layout);
  const bool kept = Len(c.address_delta_v()) != 0;  // the trace keeps addresses
  const uint64_t unit = TimeUnitNs(c);
  // Sized, not zeroed: what is read is written below.
  for (auto* v : {&k->seq, &k->units, &k->size, &k->d, &k->passed, &k->alignment}) v->resize(n);
  k->thread.resize(n);
  k->stack.resize(n);
  k->form.resize(n);
  k->maker.resize(n);
  k->address.resize(kept ? n : 0);
  k->old_address.resize(kept ? n : 0);
  k->kept = kept;
  k->groups.clear();
  k->first_bad = n;
  k->aligned = k->reallocs = 0;
  uint64_t* sizes_of = size_by_stack->data();
  const uint8_t* apis = n == 0 ? nullptr : c.api()->data();
  EventVarints<kFormat4> ev(c);
  VarintCursor addresses(c.address_delta_v());
  RefReader refs(c);
  const size_t n_aligned = Len(c.alignment()), n_old = Len(c.old_address());
  uint64_t seq = c.base_seq(), units = c.base_time_ns() / unit, address = c.base_address();
  uint64_t thread = 0;
  // k's columns and counts in locals (as DecodeDirect): a store to a
  // uint64_t column may alias a size_t of *k or a vector's insides, so the
  // compiler would load them again around every event. Counts written back
  // at the end.
  uint32_t* const k_thread = k->thread.data();
  uint32_t* const k_stack = k->stack.data();
  uint64_t* const k_seq = k->seq.data();
  uint64_t* const k_units = k->units.data();
  uint64_t* const k_size = k->size.data();
  uint64_t* const k_alignment = k->alignment.data();
  uint64_t* const k_address = k->address.data();
  uint64_t* const k_old_address = k->old_address.data();
  BlockRefForm* const k_form = k->form.data();
  uint64_t* const k_d = k->d.data();
  uint32_t* const k_maker = k->maker.data();
  uint64_t* const k_passed = k->passed.data();
  size_t first_bad = n, aligned = 0, reallocs = 0;
  uint64_t bad_stack = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint8_t traits = kApiTraits.of[apis[i]];
    const EventKind kind = ApiTraits::Kind(traits);
    size_t e;
    if (!ev.At(i, n, &e)) {
      *error = kLengths;
      return false;
    }
    const uint64_t t = ev.thread(e), y = ev.time(e), z = ev.size(e);
    uint64_t x = ev.seq(e), s;
    if (!ev.Stack(e, kind == EventKind::kFree, &s)) {
      *error = kLengths;
      return false;
    }
    if (i == 0 || t != thread) {
      k->groups.push_back(static_cast<uint32_t>(i));
      refs.NewThread();
      thread = t;
    }
    k_thread[i] = static_cast<uint32_t>(t);
    k_seq[i] = runs ? x : (seq = ApplyZigzagDelta(seq, x));
    k_units[i] = units = ApplyZigzagDelta(units, y);
    // Sizes are changes from the previous size of the same stack id.
    k_stack[i] = static_cast<uint32_t>(s);
    if (s <= max_stack) {
      uint64_t& last = sizes_of[s];
      k_size[i] = last = ApplyZigzagDelta(last, z);
    } else {
      k_size[i] = z;
    }
    if (((traits & ApiTraits::kBad) != 0 || s > max_stack) && first_bad == n) {
      first_bad = i;
      bad_stack = s;
    }
    if (kind == EventKind::kFree || kind == EventKind::kRealloc) {
      if (!refs.Next(i, t, &k_form[i], &k_d[i], &k_maker[i], &k_passed[i], error)) return false;
    }
    if ((traits & ApiTraits::kAligned) != 0) {
      if (aligned < n_aligned) {
        k_alignment[i] = c.alignment()->Get(static_cast<flatbuffers::uoffset_t>(aligned));
      }
      ++aligned;
    }
    if (kept) {
      if (!addresses.Next(&x)) {
        *error = kLengths;
        return false;
      }
      k_address[i] = address = ApplyZigzagDelta(address, x);
      if (kind == EventKind::kRealloc && reallocs < n_old) {
        k_old_address[i] = c.old_address()->Get(static_cast<flatbuffers::uoffset_t>(reallocs));
      }
    }
    reallocs += kind == EventKind::kRealloc;
  }
  k->first_bad = first_bad;
  k->bad_stack = bad_stack;
  k->aligned = aligned;
  k->reallocs = reallocs;
  if (!ev.done() || !addresses.done()) {
    *error = kLengths;
    return false;
  }
  if (!refs.done()) {
    *error = kSparse;
    return false;
  }
  return true;
}

// What a chunk whose columns are in seq order (formats 3 and 4, no seq runs)
// resolves as it decodes: its events go straight into their pieces.
struct Direct {
  uint64_t made = 0;  // blocks made before the chunk, then after it
  ThreadBlocks* threads = nullptr;
  std::vector<EventBatch>* pieces = nullptr;
  size_t p = 0;  // pieces used
};

// The event columns of a chunk in seq order, decoded, resolved and written
// as delivered into direct->pieces, one event at a time (a ref that names
// no block is kept in k->resolve_error for ResolveEvents, which comes last
// among the checks).
template <bool kFormat4>
bool DecodeDirect(const fb::Chunk& c, uint64_t max_stack, std::vector<uint64_t>* size_by_stack,
                  Columns* k, Direct* direct, std::string* error) {
  const size_t n = k->n;
  const bool kept = Len(c.address_delta_v()) != 0;  // the trace keeps addresses
  const uint64_t unit = TimeUnitNs(c);
  direct->p = SizePieces(n, k->sample_rate != 0, direct->pieces);
  k->kept = kept;
  k->groups.clear();
  k->first_bad = n;
  k->aligned = k->reallocs = 0;
  k->resolve_error.clear();
  uint64_t* sizes_of = size_by_stack->data();
  const uint8_t* apis = n == 0 ? nullptr : c.api()->data();
  EventVarints<kFormat4> ev(c);
  VarintCursor addresses(c.address_delta_v());
  RefReader refs(c);
  const size_t n_aligned = Len(c.alignment()), n_old = Len(c.old_address());
  uint64_t seq = c.base_seq(), units = c.base_time_ns() / unit, address = c.base_address();
  uint64_t thread = 0;
  uint64_t m = direct->made;  // blocks made so far
  // What the loop counts, in locals rather than in *k: a store to an event
  // column (uint64_t) may alias a size_t of *k, so the compiler would load
  // and store those around every event. Written back at the end.
  ThreadBlocks* const thread_blocks = direct->threads;
  size_t first_bad = n, aligned = 0, reallocs = 0;
  uint64_t bad_stack = 0;
  bool resolving = true;  // no ref has named no block yet
  for (size_t piece = 0; piece < direct->p; ++piece) {
    EventBatch& o = (*direct->pieces)[piece];
    const size_t count = o.count();
    EventBatch::Writer w(&o);  // the columns in a local (no reloads per event)
    for (size_t j = 0; j < count; ++j) {
      const size_t i = piece * kDeliveryPiece + j;
      const uint8_t b = apis[i];
      const uint8_t traits = kApiTraits.of[b];
      const auto kind = static_cast<EventKind>(traits & ApiTraits::kKindBits);
      size_t e;
      if (!ev.At(i, n, &e)) {
        *error = kLengths;
        return false;
      }
      const uint64_t t = ev.thread(e), y = ev.time(e), z = ev.size(e);
      uint64_t x = ev.seq(e), s;
      if (!ev.Stack(e, kind == EventKind::kFree, &s)) {
        *error = kLengths;
        return false;
      }
      if (i == 0 || t != thread) {
        refs.NewThread();
        thread = t;
      }
      const uint64_t next = seq + 1 + x;  // x: the seqs skipped since the event before
      if (next <= seq) {
        *error = "sequence numbers overflow";
        return false;
      }
      seq = next;
      units = ApplyZigzagDelta(units, y);
      // Sizes are changes from the previous size of the same stack id.
      uint64_t size = z;
      if (s <= max_stack) {
        uint64_t& last = sizes_of[s];
        size = last = ApplyZigzagDelta(last, z);
      }
      if (((traits & ApiTraits::kBad) != 0 || s > max_stack) && first_bad == n) {
        first_bad = i;
        bad_stack = s;
      }
      Ref ref;
      const bool has_ref = kind == EventKind::kFree || kind == EventKind::kRealloc;
      if (has_ref && !refs.Next(i, t, &ref.form, &ref.d, &ref.maker, &ref.passed, error)) {
        return false;
      }
      uint64_t alignment = 0;
      if ((traits & ApiTraits::kAligned) != 0) {
        if (aligned < n_aligned) {
          alignment = c.alignment()->Get(static_cast<flatbuffers::uoffset_t>(aligned));
        }
        ++aligned;
      }
      uint64_t old_address = 0;
      if (kept) {
        if (!addresses.Next(&x)) {
          *error = kLengths;
          return false;
        }
        address = ApplyZigzagDelta(address, x);
        if (kind == EventKind::kRealloc && reallocs < n_old) {
          old_address = c.old_address()->Get(static_cast<flatbuffers::uoffset_t>(reallocs));
        }
      }
      reallocs += kind == EventKind::kRealloc;
      const auto thread32 = static_cast<uint32_t>(t);
      Resolved r;
      if (resolving) {  // after a bad ref the chunk fails: nothing more to resolve
        resolving = Resolve(i, kind, b, thread32, has_ref, ref.form, ref.d, ref.maker, ref.passed,
                            thread_blocks, &m, &r, &k->resolve_error);
      }
      w.api[j] = static_cast<Api>(b & kApiMask);
      w.seq[j] = seq;
      w.time_ns[j] = units * unit;
      w.thread[j] = thread32;
      w.size[j] = size;
      w.stack[j] = static_cast<uint32_t>(s);
      w.block[j] = r.block;
      w.old_block[j] = r.old_block;
      // Mostly 0: the columns are written only once a value is not.
      w.SetRare(EventBatch::kAlignment, j, alignment);
      if (kept) {
        w.SetRare(EventBatch::kAddress, j, address);
        w.SetRare(EventBatch::kOldAddress, j, old_address);
      } else {
        w.SetRare(EventBatch::kAddress, j, kind == EventKind::kFree ? r.passed : 0);
        w.SetRare(EventBatch::kOldAddress, j, kind == EventKind::kRealloc ? r.passed : 0);
      }
    }
    if (k->sample_rate != 0) WeighPiece(k->sample_rate, &o);
  }
  if (n > 0) {
    k->first_seq = (*direct->pieces)[0].seq[0];
    k->last_seq = seq;
  }
  direct->made = m;
  k->first_bad = first_bad;
  k->bad_stack = bad_stack;
  k->aligned = aligned;
  k->reallocs = reallocs;
  if (!ev.done() || !addresses.done()) {
    *error = kLengths;
    return false;
  }
  if (!refs.done()) {
    *error = kSparse;
    return false;
  }
  return true;
}

}  // namespace

bool LoadStackColumns(const fb::Chunk& c, Columns* k, std::string* error) {
  if (!ReadVarintColumn(c.stack_parent_v(), SIZE_MAX, &k->stack_parent) ||
      !ReadVarintColumn(c.stack_address_v(), SIZE_MAX, &k->stack_address) ||
      k->stack_parent.size() != k->stack_address.size()) {
    *error = "stack columns have different lengths";
    return false;
  }
  ResolveStackNodes(c, k);
  return true;
}

bool LoadVarintColumns(const fb::Chunk& c, ColumnLayout layout, uint32_t last_stack_id,
                       std::vector<uint64_t>* size_by_stack, uint64_t made, ThreadBlocks* threads,
                       std::vector<EventBatch>* pieces, Columns* k, std::string* error) {
  k->n = Len(c.api());
  if (!ReadVarintColumn(c.stack_parent_v(), SIZE_MAX, &k->stack_parent) ||
      !ReadVarintColumn(c.stack_address_v(), SIZE_MAX, &k->stack_address) ||
      k->stack_parent.size() != k->stack_address.size()) {
    *error = "stack columns have different lengths";
    return false;
  }
  ResolveStackNodes(c, k);
  // The stack ids events may name; the size table covers them all (it
  // never outgrows the stack table).
  const uint64_t max_stack = uint64_t{last_stack_id} + k->stack_parent.size();
  if (max_stack >= size_by_stack->size()) size_by_stack->resize(max_stack + 1 + max_stack / 2, 0);
  // Formats 3 and 4 without seq runs: the columns are in seq order.
  k->direct = HasSeqRuns(layout) && Len(c.seq_run_v()) == 0;
  if (k->direct) {
    Direct d{made, threads, pieces, 0};
    const bool ok = layout == ColumnLayout::kVarintSparse
                        ? DecodeDirect<true>(c, max_stack, size_by_stack, k, &d, error)
                        : DecodeDirect<false>(c, max_stack, size_by_stack, k, &d, error);
    if (!ok) return false;
    k->pieces = d.p;
    k->made_after = d.made;
    return true;
  }
  const bool ok = layout == ColumnLayout::kVarintSparse
                      ? DecodeColumns<true>(c, layout, max_stack, size_by_stack, k, error)
                      : DecodeColumns<false>(c, layout, max_stack, size_by_stack, k, error);
  if (!ok) return false;
  if (!(HasSeqRuns(layout) ? OrderByRuns(c, k, error)  // seqs increase
                           : OrderBySeq(k, error))) {
    return false;
  }
  if (k->n > 0) {
    k->first_seq = k->seq[k->order.front()];
    k->last_seq = k->seq[k->order.back()];
  }
  return true;
}

bool CheckVarintEvents(const fb::Chunk& c, const Columns& k, uint64_t prev_seq, ColumnLayout layout,
                       std::string* error) {
  if (k.n > 0 && c.base_seq() < prev_seq) {
    *error = "events go back in sequence (base " + std::to_string(c.base_seq()) + " < " +
             std::to_string(prev_seq) + ")";
    return false;
  }
  if (k.first_bad < k.n) {
    const size_t i = k.first_bad;
    const uint8_t b = c.api()->Get(static_cast<flatbuffers::uoffset_t>(i));
    const Api api = ApiOf(b, layout);
    if (!IsValid(api) || ((b & kApiNoBlockFlag) != 0 && KindOf(api) == EventKind::kFree)) {
      *error = "event " + std::to_string(i) + " has invalid api " + std::to_string(b);
    } else {
      *error = "event " + std::to_string(i) + " names unknown stack " + std::to_string(k.bad_stack);
    }
    return false;
  }
  // Old addresses come only with the addresses.
  const size_t olds = k.kept ? k.reallocs : 0;
  if (Len(c.alignment()) != k.aligned || Len(c.old_address()) != olds) {
    *error = kSparse;
    return false;
  }
  return true;
}

}  // namespace heaprec::format::detail

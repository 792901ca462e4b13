// EventSpan and EventBatch: consecutive events of a trace, in seq order, as
// columns (one array per Event field, entry i of each is event i). This is
// how a reader hands many events at once to a TraceVisitor (OnEvents) and
// how heapreplay's analyses take them (analyzers/analyzer.h): a loop over
// columns reads only the fields it uses, and one call covers thousands of
// events. At(i) gives event i as an Event, whose predicates (records.h) say
// what it means; inlined, it loads only the columns the caller reads.
//
// EventSpan is a view (pointers into columns someone else owns, valid for
// the call it is passed to). EventBatch owns its columns and keeps their
// memory from one batch to the next.
// Plain data; not thread-safe; EventBatch allocates; for tools.
#ifndef HEAPREC_FORMAT_EVENT_BATCH_H_
#define HEAPREC_FORMAT_EVENT_BATCH_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/uninitialized.h"
#include "format/api.h"
#include "format/records.h"

namespace heaprec::format {

struct EventSpan {
  size_t count = 0;
  const uint64_t* seq = nullptr;
  const uint64_t* time_ns = nullptr;
  const uint32_t* thread = nullptr;
  const Api* api = nullptr;
  // The rare columns: nullptr when every event's value is 0 (in most traces
  // nearly all are: addresses are kept only for blocks never made).
  const uint64_t* address = nullptr;
  const uint64_t* size = nullptr;
  const uint64_t* alignment = nullptr;
  const uint64_t* old_address = nullptr;
  const uint32_t* stack = nullptr;
  const uint64_t* block = nullptr;
  const uint64_t* old_block = nullptr;
  const double* weight = nullptr;  // nullptr: every event weighs 1 (an exact trace)

  Event At(size_t i) const {
    Event e = AtPlain(i);
    e.address = address == nullptr ? 0 : address[i];
    e.alignment = alignment == nullptr ? 0 : alignment[i];
    e.old_address = old_address == nullptr ? 0 : old_address[i];
    e.weight = weight == nullptr ? 1.0 : weight[i];
    return e;
  }
  // Whether the span has none of the rare columns and no weights (the usual
  // exact trace without addresses): then AtPlain(i) == At(i).
  bool Plain() const {
    return address == nullptr && alignment == nullptr && old_address == nullptr &&
           weight == nullptr;
  }
  // At(i) of a Plain() span, without testing the rare columns.
  Event AtPlain(size_t i) const {
    Event e;
    e.seq = seq[i];
    e.time_ns = time_ns[i];
    e.thread = thread[i];
    e.api = api[i];
    e.size = size[i];
    e.stack = stack[i];
    e.block = block[i];
    e.old_block = old_block[i];
    return e;  // address, alignment, old_address 0, weight 1: Event's defaults
  }
  // Events [begin, end) of this span.
  EventSpan Sub(size_t begin, size_t end) const {
    EventSpan s = *this;
    s.count = end - begin;
    for (const uint64_t** c : {&s.seq, &s.time_ns, &s.address, &s.size, &s.alignment,
                               &s.old_address, &s.block, &s.old_block}) {
      if (*c != nullptr) *c += begin;
    }
    s.thread += begin;
    s.stack += begin;
    s.api += begin;
    if (s.weight != nullptr) s.weight += begin;
    return s;
  }
};

// Calls f(event i, i) for every event of s in order. A Plain() span skips
// the rare columns: reading them cost Python's trace 7% of heapreplay's
// instructions (`--leaks --peak --temporaries`).
template <typename F>
__attribute__((always_inline)) inline void ForEachEvent(const EventSpan& s, F&& f) {
  if (s.Plain()) {
    for (size_t i = 0; i < s.count; ++i) f(s.AtPlain(i), i);
  } else {
    for (size_t i = 0; i < s.count; ++i) f(s.At(i), i);
  }
}

// A span of the one event e (its fields as columns of length 1; valid while
// e is).
inline EventSpan OneEvent(const Event& e) {
  EventSpan s;
  s.count = 1;
  s.seq = &e.seq;
  s.time_ns = &e.time_ns;
  s.thread = &e.thread;
  s.api = &e.api;
  s.address = &e.address;
  s.size = &e.size;
  s.alignment = &e.alignment;
  s.old_address = &e.old_address;
  s.stack = &e.stack;
  s.block = &e.block;
  s.old_block = &e.old_block;
  s.weight = &e.weight;
  return s;
}

class EventBatch {
 public:
  // Sized without zeroing: the reader writes every entry.
  template <typename T>
  using Column = base::UninitializedVector<T>;

  size_t count() const { return seq.size(); }
  bool weighted() const { return weighted_; }

  // The rare columns, which hold values only once one is not 0 (until then
  // they are empty, and a span's pointer to them nullptr).
  enum Rare { kAddress, kOldAddress, kAlignment };
  bool has(Rare c) const { return has_[c]; }
  // Makes rare column c hold values, for count() events: the first `zeros`
  // 0, the rest unwritten (the caller writes them). Returns the column.
  uint64_t* Hold(Rare c, size_t zeros) {
    Column<uint64_t>& col = RareColumn(c);
    col.resize(count());
    std::fill(col.begin(), col.begin() + static_cast<std::ptrdiff_t>(zeros), 0);
    has_[c] = true;
    return col.data();
  }
  // Event i's value of rare column c (0 if the column holds none).
  void SetRare(Rare c, size_t i, uint64_t v) {
    if (has_[c]) {
      RareColumn(c)[i] = v;
    } else if (v != 0) {
      Hold(c, i)[i] = v;
    }
  }

  // The columns as pointers, for a loop that writes every event of the batch
  // (sized by Resize). Held in a local, they are not loaded again after
  // each store through api: a one-byte type, which may alias anything, so
  // the batch's own pointers would be. A rare column's pointer is null until
  // a value needs it (as SetRare).
  class Writer {
   public:
    __attribute__((always_inline)) explicit Writer(EventBatch* b)
        : api(b->api.data()),
          seq(b->seq.data()),
          time_ns(b->time_ns.data()),
          thread(b->thread.data()),
          size(b->size.data()),
          stack(b->stack.data()),
          block(b->block.data()),
          old_block(b->old_block.data()),
          batch_(b) {
      for (int c = 0; c < 3; ++c) {
        rare_[c] = b->has_[c] ? b->RareColumn(static_cast<Rare>(c)).data() : nullptr;
      }
    }
    // Inline, and the writer never passed on: a writer in memory could be
    // aliased by the api stores too.
    __attribute__((always_inline)) void SetRare(Rare c, size_t i, uint64_t v) {
      if (rare_[c] != nullptr) {
        rare_[c][i] = v;
      } else if (__builtin_expect(v != 0, 0)) {
        rare_[c] = HoldFor(batch_, c, i);
        rare_[c][i] = v;
      }
    }
    Api* const api;
    uint64_t* const seq;
    uint64_t* const time_ns;
    uint32_t* const thread;
    uint64_t* const size;
    uint32_t* const stack;
    uint64_t* const block;
    uint64_t* const old_block;

   private:
    __attribute__((noinline)) static uint64_t* HoldFor(EventBatch* b, Rare c, size_t zeros) {
      return b->Hold(c, zeros);
    }
    EventBatch* batch_;
    uint64_t* rare_[3];
  };

  // count events, new ones unwritten (the caller writes every column; the
  // rare ones with SetRare, or Hold); weights: a weight column (a sampled
  // trace's).
  void Resize(size_t count, bool weights) {
    for (Column<uint64_t>* c : {&seq, &time_ns, &size, &block, &old_block}) c->resize(count);
    thread.resize(count);
    stack.resize(count);
    api.resize(count);
    for (int c = 0; c < 3; ++c) {
      has_[c] = false;
      RareColumn(static_cast<Rare>(c)).clear();
    }
    weighted_ = weights;
    weight.resize(weights ? count : 0);
  }
  void Clear() { Resize(0, false); }

  void Set(size_t i, const Event& e) {
    seq[i] = e.seq;
    time_ns[i] = e.time_ns;
    thread[i] = e.thread;
    api[i] = e.api;
    size[i] = e.size;
    stack[i] = e.stack;
    block[i] = e.block;
    old_block[i] = e.old_block;
    SetRare(kAddress, i, e.address);
    SetRare(kOldAddress, i, e.old_address);
    SetRare(kAlignment, i, e.alignment);
    if (weighted_) weight[i] = e.weight;
  }
  // Appends e; a weight other than 1 starts the weight column.
  void Append(const Event& e) {
    if (e.weight != 1.0 && !weighted_) Weigh();
    const size_t i = count();
    seq.push_back(e.seq);
    time_ns.push_back(e.time_ns);
    thread.push_back(e.thread);
    api.push_back(e.api);
    size.push_back(e.size);
    stack.push_back(e.stack);
    block.push_back(e.block);
    old_block.push_back(e.old_block);
    for (int c = 0; c < 3; ++c) {
      if (has_[c]) RareColumn(static_cast<Rare>(c)).push_back(0);
    }
    SetRare(kAddress, i, e.address);
    SetRare(kOldAddress, i, e.old_address);
    SetRare(kAlignment, i, e.alignment);
    if (weighted_) weight.push_back(e.weight);
  }
  // Appends every event of s.
  void Append(const EventSpan& s) {
    if (s.weight != nullptr && !weighted_) Weigh();
    const size_t n = count();
    auto add = [&](auto* column, const auto* from) {
      column->insert(column->end(), from, from + s.count);
    };
    add(&seq, s.seq);
    add(&time_ns, s.time_ns);
    add(&thread, s.thread);
    add(&api, s.api);
    add(&size, s.size);
    add(&stack, s.stack);
    add(&block, s.block);
    add(&old_block, s.old_block);
    const uint64_t* rare[3] = {s.address, s.old_address, s.alignment};
    for (int c = 0; c < 3; ++c) {
      Column<uint64_t>& col = RareColumn(static_cast<Rare>(c));
      if (rare[c] != nullptr) {
        if (!has_[c]) {  // zeros for the events before
          col.assign(n, 0);
          has_[c] = true;
        }
        add(&col, rare[c]);
      } else if (has_[c]) {
        col.resize(n + s.count, 0);
      }
    }
    if (weighted_) {
      if (s.weight != nullptr) {
        add(&weight, s.weight);
      } else {
        weight.resize(n + s.count, 1.0);
      }
    }
  }

  EventSpan Span() const { return Span(0, count()); }
  EventSpan Span(size_t begin, size_t end) const {
    EventSpan s;
    s.count = end - begin;
    s.seq = seq.data() + begin;
    s.time_ns = time_ns.data() + begin;
    s.thread = thread.data() + begin;
    s.api = api.data() + begin;
    s.address = has_[kAddress] ? address.data() + begin : nullptr;
    s.size = size.data() + begin;
    s.alignment = has_[kAlignment] ? alignment.data() + begin : nullptr;
    s.old_address = has_[kOldAddress] ? old_address.data() + begin : nullptr;
    s.stack = stack.data() + begin;
    s.block = block.data() + begin;
    s.old_block = old_block.data() + begin;
    s.weight = weighted_ ? weight.data() + begin : nullptr;
    return s;
  }

  Column<uint64_t> seq, time_ns, size, block, old_block;
  Column<uint32_t> thread, stack;
  Column<Api> api;
  Column<uint64_t> address, old_address, alignment;  // rare: empty unless has()
  Column<double> weight;                             // empty unless weighted()

 private:
  Column<uint64_t>& RareColumn(Rare c) {
    return c == kAddress ? address : c == kOldAddress ? old_address : alignment;
  }
  void Weigh() {
    weighted_ = true;
    weight.assign(count(), 1.0);
  }
  bool weighted_ = false;
  bool has_[3] = {false, false, false};
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_EVENT_BATCH_H_

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
  const uint64_t* address = nullptr;
  const uint64_t* size = nullptr;
  const uint64_t* alignment = nullptr;
  const uint64_t* old_address = nullptr;
  const uint32_t* stack = nullptr;
  const uint64_t* block = nullptr;
  const uint64_t* old_block = nullptr;
  const double* weight = nullptr;  // nullptr: every event weighs 1 (an exact trace)

  Event At(size_t i) const {
    Event e;
    e.seq = seq[i];
    e.time_ns = time_ns[i];
    e.thread = thread[i];
    e.api = api[i];
    e.address = address[i];
    e.size = size[i];
    e.alignment = alignment[i];
    e.old_address = old_address[i];
    e.stack = stack[i];
    e.block = block[i];
    e.old_block = old_block[i];
    e.weight = weight == nullptr ? 1.0 : weight[i];
    return e;
  }
  // Events [begin, end) of this span.
  EventSpan Sub(size_t begin, size_t end) const {
    EventSpan s = *this;
    s.count = end - begin;
    for (const uint64_t** c : {&s.seq, &s.time_ns, &s.address, &s.size, &s.alignment,
                               &s.old_address, &s.block, &s.old_block}) {
      *c += begin;
    }
    s.thread += begin;
    s.stack += begin;
    s.api += begin;
    if (s.weight != nullptr) s.weight += begin;
    return s;
  }
};

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

  // count events, new ones unwritten (the caller writes every column);
  // weights: a weight column (a sampled trace's).
  void Resize(size_t count, bool weights) {
    for (Column<uint64_t>* c :
         {&seq, &time_ns, &address, &size, &alignment, &old_address, &block, &old_block}) {
      c->resize(count);
    }
    thread.resize(count);
    stack.resize(count);
    api.resize(count);
    weighted_ = weights;
    weight.resize(weights ? count : 0);
  }
  void Clear() { Resize(0, false); }

  void Set(size_t i, const Event& e) {
    seq[i] = e.seq;
    time_ns[i] = e.time_ns;
    thread[i] = e.thread;
    api[i] = e.api;
    address[i] = e.address;
    size[i] = e.size;
    alignment[i] = e.alignment;
    old_address[i] = e.old_address;
    stack[i] = e.stack;
    block[i] = e.block;
    old_block[i] = e.old_block;
    if (weighted_) weight[i] = e.weight;
  }
  // Appends e; a weight other than 1 starts the weight column.
  void Append(const Event& e) {
    if (e.weight != 1.0 && !weighted_) Weigh();
    seq.push_back(e.seq);
    time_ns.push_back(e.time_ns);
    thread.push_back(e.thread);
    api.push_back(e.api);
    address.push_back(e.address);
    size.push_back(e.size);
    alignment.push_back(e.alignment);
    old_address.push_back(e.old_address);
    stack.push_back(e.stack);
    block.push_back(e.block);
    old_block.push_back(e.old_block);
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
    add(&address, s.address);
    add(&size, s.size);
    add(&alignment, s.alignment);
    add(&old_address, s.old_address);
    add(&stack, s.stack);
    add(&block, s.block);
    add(&old_block, s.old_block);
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
    s.address = address.data() + begin;
    s.size = size.data() + begin;
    s.alignment = alignment.data() + begin;
    s.old_address = old_address.data() + begin;
    s.stack = stack.data() + begin;
    s.block = block.data() + begin;
    s.old_block = old_block.data() + begin;
    s.weight = weighted_ ? weight.data() + begin : nullptr;
    return s;
  }

  Column<uint64_t> seq, time_ns, address, size, alignment, old_address, block, old_block;
  Column<uint32_t> thread, stack;
  Column<Api> api;
  Column<double> weight;  // empty unless weighted()

 private:
  void Weigh() {
    weighted_ = true;
    weight.assign(count(), 1.0);
  }
  bool weighted_ = false;
};

}  // namespace heaprec::format

#endif  // HEAPREC_FORMAT_EVENT_BATCH_H_

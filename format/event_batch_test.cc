// EventBatch and EventSpan: events appended one at a time or as spans come
// back out of At() unchanged, in order, weights included.
#include "format/event_batch.h"

#include <gtest/gtest.h>

#include <vector>

namespace heaprec::format {
namespace {

Event Made(uint64_t seq) {
  Event e;
  e.seq = seq;
  e.time_ns = seq * 1000;
  e.thread = static_cast<uint32_t>(seq % 3 + 1);
  e.api = seq % 2 == 0 ? Api::kMalloc : Api::kFree;
  e.address = seq * 16;
  e.size = seq % 2 == 0 ? seq * 8 : 0;
  e.alignment = seq % 5 == 0 ? 64 : 0;
  e.old_address = seq % 7;
  e.stack = static_cast<uint32_t>(seq % 11);
  e.block = seq / 2 + 1;
  e.old_block = seq % 13;
  return e;
}

TEST(EventBatchTest, EventsComeBackAsAppended) {
  EventBatch b;
  std::vector<Event> want;
  for (uint64_t s = 1; s <= 100; ++s) {
    want.push_back(Made(s));
    b.Append(want.back());
  }
  ASSERT_EQ(b.count(), 100u);
  EXPECT_FALSE(b.weighted());
  const EventSpan all = b.Span();
  EXPECT_EQ(all.weight, nullptr);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(all.At(i), want[i]) << i;
  const EventSpan mid = all.Sub(10, 30);
  ASSERT_EQ(mid.count, 20u);
  for (size_t i = 0; i < mid.count; ++i) EXPECT_EQ(mid.At(i), want[10 + i]) << i;

  // Spans appended to another batch, in pieces.
  EventBatch c;
  c.Append(all.Sub(0, 40));
  c.Append(b.Span(40, 100));
  ASSERT_EQ(c.count(), 100u);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(c.Span().At(i), want[i]) << i;
  c.Clear();
  EXPECT_EQ(c.count(), 0u);
}

TEST(EventBatchTest, AWeightStartsTheWeightColumn) {
  EventBatch b;
  b.Append(Made(1));
  Event w = Made(2);
  w.weight = 3.5;
  b.Append(w);
  b.Append(Made(3));
  ASSERT_TRUE(b.weighted());
  EXPECT_EQ(b.Span().At(0).weight, 1.0);
  EXPECT_EQ(b.Span().At(1).weight, 3.5);
  EXPECT_EQ(b.Span().At(2).weight, 1.0);
  // Unweighted events appended to a weighted batch weigh 1.
  EventBatch plain;
  plain.Append(Made(4));
  b.Append(plain.Span());
  EXPECT_EQ(b.Span().At(3).weight, 1.0);
  // A weighted span makes an unweighted batch weighted.
  EventBatch other;
  other.Append(Made(5));
  other.Append(b.Span(1, 2));
  ASSERT_TRUE(other.weighted());
  EXPECT_EQ(other.Span().At(0).weight, 1.0);
  EXPECT_EQ(other.Span().At(1).weight, 3.5);
  EXPECT_EQ(other.Span().At(1), w);
}

TEST(EventBatchTest, RareColumnsAreHeldOnlyOnceAValueIsNotZero) {
  EventBatch b;
  std::vector<Event> want;
  for (uint64_t s = 1; s <= 20; ++s) {
    Event e = Made(s);
    e.address = e.old_address = e.alignment = 0;
    if (s == 12) e.address = 0xdead0;  // a block never made
    if (s == 15) e.alignment = 64;
    want.push_back(e);
    b.Append(e);
  }
  EXPECT_TRUE(b.has(EventBatch::kAddress));
  EXPECT_TRUE(b.has(EventBatch::kAlignment));
  EXPECT_FALSE(b.has(EventBatch::kOldAddress));
  EXPECT_EQ(b.Span().old_address, nullptr);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(b.Span().At(i), want[i]) << i;
  // A run before the first value has none.
  const EventSpan before = b.Span(0, 5);
  EXPECT_NE(before.address, nullptr);  // the batch's column, its zeros
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(before.At(i).address, 0u);
  // Written in place (as the reader writes a piece).
  EventBatch p;
  p.Resize(want.size(), false);
  EXPECT_FALSE(p.has(EventBatch::kAddress));
  for (size_t i = 0; i < want.size(); ++i) p.Set(i, want[i]);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(p.Span().At(i), want[i]) << i;
  // Spans with and without the columns, appended in any order.
  EventBatch none;
  for (size_t i = 0; i < 10; ++i) none.Append(want[i]);
  EXPECT_EQ(none.Span().address, nullptr);
  EventBatch c;
  c.Append(none.Span());  // no rare values: no columns
  EXPECT_FALSE(c.has(EventBatch::kAddress));
  EXPECT_EQ(c.Span().Sub(2, 4).address, nullptr);
  c.Append(p.Span(10, 20));
  EXPECT_TRUE(c.has(EventBatch::kAddress));
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(c.Span().At(i), want[i]) << i;
  c.Append(p.Span(0, 3));
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(c.Span().At(20 + i), want[i]) << i;
  c.Clear();
  EXPECT_FALSE(c.has(EventBatch::kAddress));
}

// EventBatch::Writer writes a piece as Set does, rare columns held only
// once a value is not zero, also when the batch held one already.
TEST(EventBatchTest, AWriterWritesWhatSetWrites) {
  std::vector<Event> want;
  for (uint64_t s = 1; s <= 30; ++s) {
    Event e = Made(s);
    e.address = s >= 9 ? e.address : 0;  // held from event 8 on
    e.old_address = 0;                   // never held
    e.alignment = s == 29 ? 64 : 0;      // held near the end (index 28)
    want.push_back(e);
  }
  EventBatch set, written;
  set.Resize(want.size(), false);
  written.Resize(want.size(), false);
  for (size_t i = 0; i < want.size(); ++i) set.Set(i, want[i]);
  EventBatch::Writer w(&written);
  for (size_t i = 0; i < want.size(); ++i) {
    const Event& e = want[i];
    w.api[i] = e.api;
    w.seq[i] = e.seq;
    w.time_ns[i] = e.time_ns;
    w.thread[i] = e.thread;
    w.size[i] = e.size;
    w.stack[i] = e.stack;
    w.block[i] = e.block;
    w.old_block[i] = e.old_block;
    w.SetRare(EventBatch::kAddress, i, e.address);
    w.SetRare(EventBatch::kOldAddress, i, e.old_address);
    w.SetRare(EventBatch::kAlignment, i, e.alignment);
  }
  for (EventBatch::Rare c :
       {EventBatch::kAddress, EventBatch::kOldAddress, EventBatch::kAlignment}) {
    EXPECT_EQ(written.has(c), set.has(c)) << c;
  }
  EXPECT_FALSE(written.has(EventBatch::kOldAddress));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(written.Span().At(i), want[i]) << i;
    EXPECT_EQ(written.Span().At(i), set.Span().At(i)) << i;
  }
  // A writer made after a column is held writes into it.
  EventBatch::Writer again(&written);
  again.SetRare(EventBatch::kAlignment, 3, 128);
  again.SetRare(EventBatch::kAddress, 0, 0);
  EXPECT_EQ(written.Span().At(3).alignment, 128u);
  EXPECT_EQ(written.Span().At(0).address, 0u);
  EXPECT_EQ(written.Span().At(28).alignment, 64u);  // seq 29
}

}  // namespace
}  // namespace heaprec::format

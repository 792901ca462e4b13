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

}  // namespace
}  // namespace heaprec::format

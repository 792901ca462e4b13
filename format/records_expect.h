// ExpectSameRecords: every record a reader delivered equals what was
// written, field for field and in delivery order (gtest assertions; for the
// format tests).
#ifndef HEAPREC_FORMAT_RECORDS_EXPECT_H_
#define HEAPREC_FORMAT_RECORDS_EXPECT_H_

#include <gtest/gtest.h>

#include <cstddef>

#include "format/test_traces.h"

namespace heaprec::format::testing {

inline void ExpectSameRecords(const Records& want, const Records& got) {
  EXPECT_EQ(got.processes, want.processes);
  EXPECT_EQ(got.modules, want.modules);
  EXPECT_EQ(got.unloads, want.unloads);
  EXPECT_EQ(got.threads, want.threads);
  EXPECT_EQ(got.stack_nodes, want.stack_nodes);
  EXPECT_EQ(got.symbols, want.symbols);
  EXPECT_EQ(got.markers, want.markers);
  ASSERT_EQ(got.events.size(), want.events.size());
  for (size_t i = 0; i < want.events.size(); ++i) {
    ASSERT_EQ(got.events[i], want.events[i]) << "event " << i;
  }
  EXPECT_EQ(got.order, want.order);
  EXPECT_EQ(got.ends, want.ends);
}

}  // namespace heaprec::format::testing

#endif  // HEAPREC_FORMAT_RECORDS_EXPECT_H_

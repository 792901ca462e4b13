// ProgressLine's words and numbers; the meter itself draws only on a
// terminal (tests/heapreplay_test drives it through a pseudo-terminal).
#include "heapreplay/progress_meter.h"

#include <gtest/gtest.h>

namespace heaprec::heapreplay {
namespace {

TEST(ProgressMeterTest, LineSaysBytesShareRateAndTimeLeft) {
  EXPECT_EQ(ProgressLine("/tmp/traces/big.zst", 256 << 20, 1024 << 20, 40000000, 2.0),
            "heapreplay: reading big.zst: 256.0 MiB of 1.00 GiB (25%), 20.0 M events/s, 6 s left");
}

TEST(ProgressMeterTest, UnknownTotalLeavesOutShareAndTimeLeft) {
  EXPECT_EQ(ProgressLine("t.zst", 2048, 0, 1000000, 1.0),
            "heapreplay: reading t.zst: 2.0 KiB, 1.0 M events/s");
}

}  // namespace
}  // namespace heaprec::heapreplay

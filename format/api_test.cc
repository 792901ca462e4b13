// The Api ranges (api.h) are part of the format: kinds and sparse columns must
// follow from the numeric value alone.
#include "format/api.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace heaprec::format {
namespace {

TEST(ApiTest, KindsFollowTheRanges) {
  EXPECT_EQ(KindOf(Api::kMalloc), EventKind::kAlloc);
  EXPECT_EQ(KindOf(Api::kNewArrayAlignedNothrow), EventKind::kAlloc);
  EXPECT_EQ(KindOf(Api::kRealloc), EventKind::kRealloc);
  EXPECT_EQ(KindOf(Api::kReallocarray), EventKind::kRealloc);
  EXPECT_EQ(KindOf(Api::kFree), EventKind::kFree);
  EXPECT_EQ(KindOf(Api::kDeleteArraySizedAligned), EventKind::kFree);
  EXPECT_EQ(KindOf(static_cast<Api>(0)), EventKind::kInvalid);
  EXPECT_EQ(KindOf(static_cast<Api>(80)), EventKind::kInvalid);
  EXPECT_EQ(KindOf(static_cast<Api>(128)), EventKind::kInvalid);
  // A value a newer recorder might add still has a kind.
  EXPECT_EQ(KindOf(static_cast<Api>(20)), EventKind::kAlloc);
  EXPECT_STREQ(ApiName(static_cast<Api>(20)), "unknown");
}

TEST(ApiTest, AlignedApisHaveAlignment) {
  EXPECT_TRUE(HasAlignment(Api::kPosixMemalign));
  EXPECT_TRUE(HasAlignment(Api::kAlignedAlloc));
  EXPECT_TRUE(HasAlignment(Api::kMemalign));
  EXPECT_TRUE(HasAlignment(Api::kNewAligned));
  EXPECT_TRUE(HasAlignment(Api::kDeleteSizedAligned));
  EXPECT_FALSE(HasAlignment(Api::kMalloc));
  EXPECT_FALSE(HasAlignment(Api::kDeleteSized));
  EXPECT_FALSE(HasAlignment(Api::kRealloc));
  EXPECT_TRUE(HasOldAddress(Api::kRealloc));
  EXPECT_FALSE(HasOldAddress(Api::kFree));
}

TEST(ApiTest, FamiliesPairAllocationsWithTheirFrees) {
  EXPECT_EQ(FamilyOf(Api::kMalloc), FamilyOf(Api::kFree));
  EXPECT_EQ(FamilyOf(Api::kNew), FamilyOf(Api::kDelete));
  EXPECT_EQ(FamilyOf(Api::kNewArray), FamilyOf(Api::kDeleteArray));
  EXPECT_EQ(FamilyOf(Api::kNewArrayAligned), FamilyOf(Api::kDeleteArraySizedAligned));
  EXPECT_NE(FamilyOf(Api::kNew), FamilyOf(Api::kNewArray));
  EXPECT_NE(FamilyOf(Api::kMalloc), FamilyOf(Api::kDelete));
}

TEST(ApiTest, EveryKnownValueHasADistinctName) {
  std::set<std::string> names;
  int known = 0;
  for (int v = 0; v < 256; ++v) {
    const Api api = static_cast<Api>(v);
    const std::string name = ApiName(api);
    if (name == "unknown") continue;
    ++known;
    EXPECT_TRUE(IsValid(api)) << name;
    EXPECT_NE(FamilyOf(api), Family::kUnknown) << name;
    EXPECT_TRUE(names.insert(name).second) << name;
  }
  EXPECT_EQ(known, 32);
}

}  // namespace
}  // namespace heaprec::format

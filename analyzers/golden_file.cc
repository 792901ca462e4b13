// Golden files for the report tests (golden_file.h).
#include "analyzers/golden_file.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace heaprec::analyzers {

void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = "analyzers/testdata/" + name;
  const char* update = std::getenv("HEAPREC_UPDATE_GOLDEN");
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (update != nullptr && *update == '1' && workspace != nullptr) {
    std::ofstream(std::string(workspace) + "/" + path, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "cannot read golden file " << path;
  std::ostringstream want;
  want << in.rdbuf();
  EXPECT_EQ(actual, want.str()) << "golden file " << path
                                << " differs; regenerate with HEAPREC_UPDATE_GOLDEN=1 bazel run";
}

}  // namespace heaprec::analyzers

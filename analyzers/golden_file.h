// ExpectGolden: compares a test's output with analyzers/testdata/<name>, or,
// under `HEAPREC_UPDATE_GOLDEN=1 bazel run //analyzers:<test>`, rewrites the
// file in the workspace (review with `git diff analyzers/testdata/`).
// Test-only; reads and writes files.
#ifndef HEAPREC_ANALYZERS_GOLDEN_FILE_H_
#define HEAPREC_ANALYZERS_GOLDEN_FILE_H_

#include <string>

namespace heaprec::analyzers {

void ExpectGolden(const std::string& name, const std::string& actual);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_GOLDEN_FILE_H_

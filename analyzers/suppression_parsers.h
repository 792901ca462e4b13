// The two suppression file formats' parsers, internal to Suppressions
// (suppressions.h): valgrind's brace blocks, as coregrind/m_errormgr.c's
// load_one_suppressions_file and memcheck's read_extra_suppression_info
// read them, and LeakSanitizer's "leak:" lines, as sanitizer_suppressions.cpp
// reads them. Errors are one line, "NAME:LINE: what is wrong".
// Pure functions; they allocate.
#ifndef HEAPREC_ANALYZERS_SUPPRESSION_PARSERS_H_
#define HEAPREC_ANALYZERS_SUPPRESSION_PARSERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "analyzers/suppressions.h"

namespace heaprec::analyzers::internal {

// Which parser a file needs: LeakSanitizer if its first line that is
// neither blank nor a comment starts with "leak:", else valgrind (whose
// parser names both formats when that line is not "{" either).
SuppressionFormat DetectFormat(std::string_view text);

// Appends the file's Memcheck:Leak entries to *out; false and *error on the
// first error (valgrind stops there too).
bool ParseValgrind(std::string_view text, const std::string& name, uint32_t num_callers,
                   std::vector<Suppression>* out, std::string* error);

// Appends one entry per "leak:" line to *out; false and *error on a line of
// any other form.
bool ParseLeakSanitizer(std::string_view text, const std::string& name,
                        std::vector<Suppression>* out, std::string* error);

}  // namespace heaprec::analyzers::internal

#endif  // HEAPREC_ANALYZERS_SUPPRESSION_PARSERS_H_

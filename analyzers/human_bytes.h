// Numbers as people read them: HumanBytes gives byte counts ("640 B",
// "1.5 KiB", "17.1 MiB"), Hex addresses ("0x4011d6"), HexBytes raw bytes
// such as a build-id ("5221b80b…", lower case, no prefix). Pure functions; used by
// heapreplay's reports, heaprec's summary line and the tests' summaries.
#ifndef HEAPREC_ANALYZERS_HUMAN_BYTES_H_
#define HEAPREC_ANALYZERS_HUMAN_BYTES_H_

#include <cstdint>
#include <string>

namespace heaprec::analyzers {

std::string HumanBytes(uint64_t bytes);
std::string Hex(uint64_t value);
std::string HexBytes(const std::string& bytes);
// 1234567 -> "1,234,567", as valgrind prints its counts.
std::string Commas(uint64_t value);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_HUMAN_BYTES_H_

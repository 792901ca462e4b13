// HumanBytes: byte counts as people read them ("640 B", "1.5 KiB", "17.1 MiB").
// Pure function; used by heapreplay's reports and heaprec's summary line.
#ifndef HEAPREC_ANALYZERS_HUMAN_BYTES_H_
#define HEAPREC_ANALYZERS_HUMAN_BYTES_H_

#include <cstdint>
#include <string>

namespace heaprec::analyzers {

std::string HumanBytes(uint64_t bytes);

}  // namespace heaprec::analyzers

#endif  // HEAPREC_ANALYZERS_HUMAN_BYTES_H_

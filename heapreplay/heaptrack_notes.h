// What heapreplay says under the header of a report on a heaptrack recording
// (format/heaptrack_reader.h), beyond the warning of what such a recording
// lacks: where heaptrack_print's own numbers on the same file differ and why
// (its temporaries' extra count; the leaks its built-in and the program's
// embedded suppressions leave out, matched here as heaptrack_print matches
// them: LeakSanitizer patterns against every frame's function, file and
// module), and the peak RSS heaptrack sampled. Allocates; main thread only.
#ifndef HEAPREC_HEAPREPLAY_HEAPTRACK_NOTES_H_
#define HEAPREC_HEAPREPLAY_HEAPTRACK_NOTES_H_

#include <string>
#include <vector>

#include "analyzers/analysis.h"
#include "format/heaptrack_reader.h"

namespace heaprec::heapreplay {

// `temporaries`: heapreplay's count over the same span as heaptrack_print's
// (the whole recording); `a`: the pass, its live heap at the end.
std::vector<std::string> HeaptrackNotes(const format::HeaptrackFacts& h, uint64_t temporaries,
                                        const analyzers::Analysis& a);

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_HEAPTRACK_NOTES_H_

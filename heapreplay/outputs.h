// heapreplay's drawn outputs: which sites --folded, --flamegraph and --pprof
// show, and writing the files. The profile drawn is the first named of
// --leaks, --peak, --temporaries, --hot (default --hot: every allocation),
// weighed by --metric; with --at and none of them (or --hot) named, every
// block live at that moment. Blocks not freed before the end are "live at T",
// never "leaked". --pprof holds allocations (alloc_*) and what is live
// (inuse_*): the peak's live set with --peak, else what is live at the end or
// at --at, whatever leak kinds are shown.
// Allocates; writes only the files named on the command line.
#ifndef HEAPREC_HEAPREPLAY_OUTPUTS_H_
#define HEAPREC_HEAPREPLAY_OUTPUTS_H_

#include <string>
#include <vector>

#include "analyzers/report.h"
#include "analyzers/site.h"
#include "heapreplay/options.h"

namespace heaprec::heapreplay {

// The sites --folded and --flamegraph draw, and a title for them.
std::vector<analyzers::Site> DrawnSites(const Options& o, const analyzers::Report& r,
                                        std::string* title);

// The collapsed stacks for --folded.
std::string Folded(const Options& o, const analyzers::Report& r);

// Writes `text` to `path` (replacing it); false + one line in *error.
bool WriteTextFile(const std::string& path, const std::string& text, std::string* error);

// Writes the --pprof file (or --export pprof's) at path; false + one line
// in *error.
bool WritePprofFile(const Options& o, const analyzers::Report& r, const std::string& path,
                    std::string* error);

// Writes --flamegraph and --pprof files if asked; false + one line in *error.
bool WriteFiles(const Options& o, const analyzers::Report& r, std::string* error);

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_OUTPUTS_H_

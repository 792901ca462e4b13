// heapreplay --html PAGE with several traces or a folder (the traces of one
// run: heaprec writes one per process): each trace analysed as for a page of
// its own, one after the other (only each one's page data is kept), and one
// page holding the process table, largest peak first as heapreplay T1 T2 ...
// prints it, with each process's data (analyzers/html/DATA.md, "processes").
// Reads the traces; writes only the page; allocates; main thread only.
#ifndef HEAPREC_HEAPREPLAY_PROCESS_PAGES_H_
#define HEAPREC_HEAPREPLAY_PROCESS_PAGES_H_

#include "heapreplay/options.h"

namespace heaprec::heapreplay {

// Writes the page; returns heapreplay's exit status (2, with one line, for
// an option that takes one trace: an analysis, another output, --base,
// --bench, the leak check; 1 with one line naming the file for an
// unreadable trace or a folder without traces).
int RunProcessPages(const Options& o);

}  // namespace heaprec::heapreplay

#endif  // HEAPREC_HEAPREPLAY_PROCESS_PAGES_H_

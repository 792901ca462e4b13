// Real multi-threaded runtimes under heaprec run as they do bare: node with
// worker threads (its runtime starts watchdog and signal threads with small
// stacks: under heaprec's former 28 KiB of static TLS it printed
// "pthread_create: Invalid argument" on every run), and python3 with eight
// threads started with threading.stack_size(32768) (which could not start
// at all). The same standard output as bare, no line on standard error that
// the bare run does not print (heaprec -q adds none of its own), the same
// exit status, and one complete trace with every thread in it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e_util.h"
#include "tests/trace_summary.h"

namespace heaprec::tests {
namespace {

constexpr char kNode[] = "/usr/bin/node";
constexpr char kPython[] = "/usr/bin/python3";

// Four workers each build 20000 small objects and post a checksum.
constexpr char kNodeScript[] = R"(
const { Worker } = require('worker_threads');
const n = 4;
let done = 0;
const results = [];
for (let i = 0; i < n; i++) {
  const w = new Worker(`
    const { parentPort, workerData } = require('worker_threads');
    const a = [];
    let s = 0;
    for (let k = 0; k < 20000; k++) { a.push({ k, v: 'x'.repeat(k % 50) }); s += a[k].v.length; }
    parentPort.postMessage(workerData * 1000000 + s);`, { eval: true, workerData: i });
  w.on('message', (m) => { results[i] = m; });
  w.on('exit', () => { if (++done === n) console.log('workers: ' + results.join(',')); });
}
)";

// Eight threads on 32 KiB stacks (Python's smallest) each keep 1000 bytes
// objects of 4000 to 4015 bytes: past pymalloc's 512-byte limit, so each is
// one malloc or calloc of its own (smaller objects come from pymalloc's
// arenas, a few calls for thousands of objects).
constexpr char kPythonScript[] = R"(
import threading
out = [None] * 8
def work(i):
    keep = [bytes(4000 + k % 16) for k in range(1000)]
    out[i] = sum(len(b) for b in keep) + i
threading.stack_size(32768)
ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
for t in ts: t.start()
for t in ts: t.join()
print("threads:", out)
)";

// The lines of text that do not start with "heaprec" (heaprec's own).
std::string WithoutHeaprecLines(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("heaprec", 0) != 0) out += line + "\n";
  }
  return out;
}

// Runs argv bare and under heaprec; EXPECTs the same output, status and
// standard error; returns the trace's summary (one trace expected).
TraceSummary ExpectUnchanged(const std::string& name, const std::vector<std::string>& argv) {
  const ProcessResult bare = RunProgram(argv);
  EXPECT_EQ(bare.exit_code, 0) << bare.err;
  EXPECT_FALSE(bare.out.empty());
  const Recording r = Record(name, argv);
  EXPECT_EQ(r.run.exit_code, bare.exit_code) << r.run.err;
  EXPECT_EQ(r.run.out, bare.out);
  EXPECT_EQ(WithoutHeaprecLines(r.run.err), WithoutHeaprecLines(bare.err));
  EXPECT_EQ(r.run.err, bare.err) << "heaprec -q printed something";
  EXPECT_EQ(r.traces.size(), 1u) << Join(r.traces);
  if (r.traces.size() != 1) return {};
  TraceSummary s = SummarizeTrace(r.traces[0]);
  ExpectConsistent(s);
  return s;
}

TEST(RuntimesTest, NodeWithWorkerThreads) {
  if (access(kNode, X_OK) != 0) GTEST_SKIP() << kNode << " is not installed: node not tested";
  const TraceSummary s = ExpectUnchanged("node", {kNode, "-e", kNodeScript});
  // The main thread, the four workers and node's own threads.
  EXPECT_GE(s.total.threads.size(), 5u) << s.ToString();
  EXPECT_GT(s.total.allocations, 1000u);
}

TEST(RuntimesTest, PythonThreadsOnSmallStacks) {
  if (access(kPython, X_OK) != 0) GTEST_SKIP() << kPython << " is not installed";
  const TraceSummary s = ExpectUnchanged("python", {kPython, "-c", kPythonScript});
  // The main thread and the eight allocated; the eight's 8000 objects of
  // 4000+ bytes are all there.
  EXPECT_GE(s.total.threads.size(), 9u) << s.ToString();
  EXPECT_GE(s.total.allocations, 8000u);
  EXPECT_GE(s.total.bytes, 8000u * 4000u);
}

}  // namespace
}  // namespace heaprec::tests

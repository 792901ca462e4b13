// Process trees: heaprec on a shell script whose children exit 11, die of
// SIGSEGV and return 0 (tests/programs/tree_child.c, N blocks of 10000
// bytes each, one left live): every trace names its parent pid and trace
// and how it ended (heapreplay --json's "trace"); heaprec's closing lines
// list one process a line, largest peak first, and name the largest in
// next:; heapreplay on the folder and on several traces prints the same
// table (text and --json), and --html writes it with each process's page
// data; --no-follow=sh leaves the shell untraced and
// still traces its children; gcc -c gives traces of cc1 and as that lead
// back to gcc's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/e2e_util.h"

namespace heaprec::tests {
namespace {

using nlohmann::json;

std::string BaseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

json HeapreplayJson(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {Runfile("replay/heapreplay"), "--json"};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessResult r = RunProgram(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out, nullptr, /*allow_exceptions=*/false);
}

// Every trace of the folder's "trace" object, by path.
std::map<std::string, json> TraceObjects(const std::vector<std::string>& traces) {
  std::map<std::string, json> by_path;
  for (const std::string& t : traces) {
    const json j = HeapreplayJson({t});
    by_path[t] = j["trace"];
    by_path[t]["summary"] = j["summary"];
  }
  return by_path;
}

struct Tree {
  ProcessResult run;
  std::string dir;
  std::vector<std::string> traces;
  std::map<std::string, json> objects;       // by path
  std::map<std::string, std::string> child;  // "exit11" -> its trace
};

std::string Script() {
  const std::string child = Runfile("tests/tree_child");
  return child + " exit11 3; " + child + " segv 2; " + child + " ok 5; exit 7";
}

Tree RunTree(const std::string& name, const std::vector<std::string>& options) {
  Tree t;
  t.dir = MakeTempDir(name);
  std::vector<std::string> argv = {Runfile("recorder/heaprec"), "-o", t.dir + "/%n.%p.zst"};
  argv.insert(argv.end(), options.begin(), options.end());
  for (const std::string& a : {std::string("/bin/sh"), std::string("-c"), Script()}) {
    argv.push_back(a);
  }
  t.run = RunProgram(argv);
  t.traces = ListFiles(t.dir, ".zst");
  t.objects = TraceObjects(t.traces);
  for (const std::string& path : t.traces) {
    // The trace's own command line: heapreplay's text header has it, the
    // JSON has the program; the file name has %n.
    if (BaseName(path).rfind("tree_child.", 0) != 0) continue;
    const ProcessResult text = RunProgram({Runfile("replay/heapreplay"), path});
    for (const char* how : {"exit11", "segv", "ok"}) {
      if (text.out.find("tree_child " + std::string(how) + " ") != std::string::npos) {
        t.child[how] = path;
      }
    }
  }
  return t;
}

TEST(ProcessTreeTest, ShellChildrenNameTheirParentsAndEnds) {
  const Tree t = RunTree("tree", {});
  EXPECT_EQ(t.run.exit_code, 7) << t.run.err;
  ASSERT_EQ(t.child.size(), 3u) << Join(t.traces) << "\n" << t.run.err;
  // The shell: the one trace without a parent trace.
  std::string shell;
  for (const auto& [path, o] : t.objects) {
    if (o["parent"].is_null()) {
      EXPECT_TRUE(shell.empty()) << "two traces without a parent: " << shell << ", " << path;
      shell = path;
    }
  }
  ASSERT_FALSE(shell.empty());
  const json& sh = t.objects.at(shell);
  EXPECT_EQ(sh["exit_code"], 7);
  EXPECT_EQ(sh["signal"], nullptr);
  const std::map<std::string, std::pair<json, json>> ends = {
      {"exit11", {11, nullptr}}, {"segv", {nullptr, "SIGSEGV"}}, {"ok", {0, nullptr}}};
  const std::map<std::string, uint64_t> blocks = {{"exit11", 3}, {"segv", 2}, {"ok", 5}};
  for (const auto& [how, path] : t.child) {
    SCOPED_TRACE(how + ": " + path);
    const json& c = t.objects.at(path);
    EXPECT_EQ(c["exit_code"], ends.at(how).first);
    EXPECT_EQ(c["signal"], ends.at(how).second);
    EXPECT_EQ(c["replaced_by_exec"], false);
    EXPECT_EQ(c["ppid"], sh["pid"]);
    EXPECT_EQ(c["summary"]["peak_bytes"], blocks.at(how) * 10000);
    EXPECT_EQ(c["summary"]["leaked_bytes"], 10000);
    // The parent trace is the shell's fork that exec'd the child (same
    // pid), whose own parent is the shell; or the shell itself.
    ASSERT_TRUE(c["parent"].is_string());
    const std::string parent = c["parent"];
    ASSERT_EQ(t.objects.count(parent), 1u) << parent << " is not among " << Join(t.traces);
    const json& p = t.objects.at(parent);
    if (parent != shell) {
      EXPECT_EQ(p["pid"], c["pid"]);
      EXPECT_EQ(p["replaced_by_exec"], true);
      EXPECT_EQ(p["exit_code"], nullptr);
      EXPECT_EQ(p["parent"], shell);
    }
  }

  // The closing lines: one a process, the largest (ok: 50 KB) first and in next:.
  const std::string& err = t.run.err;
  EXPECT_NE(err.find("heaprec: wrote " + std::to_string(t.traces.size()) + " traces"),
            std::string::npos)
      << err;
  const size_t pid_column = err.find("pid  ppid  exit");
  ASSERT_NE(pid_column, std::string::npos) << err;
  const size_t header = err.rfind('\n', pid_column) + 1;
  const size_t first_row = err.find('\n', header) + 1;
  const std::string row = err.substr(first_row, err.find('\n', first_row) - first_row);
  EXPECT_NE(row.find(t.child.at("ok")), std::string::npos) << err;
  EXPECT_NE(row.find("exited 0"), std::string::npos) << row;
  EXPECT_NE(err.find("exited 11"), std::string::npos) << err;
  EXPECT_NE(err.find("killed by SIGSEGV"), std::string::npos) << err;
  EXPECT_NE(err.find("next: heapreplay --leaks " + t.child.at("ok") + " "), std::string::npos)
      << err;
  size_t lines = 0;  // heaprec's (the shell reports the SIGSEGV on stderr too)
  for (size_t at = 0; at < err.size(); at = err.find('\n', at) + 1) {
    lines += err.compare(at, 2, "  ") == 0 || err.compare(at, 8, "heaprec:") == 0;
    if (err.find('\n', at) == std::string::npos) break;
  }
  EXPECT_EQ(lines, t.traces.size() + 3) << err;  // wrote, header, rows, next

  // heapreplay on the folder: the same rows.
  const ProcessResult text = RunProgram({Runfile("replay/heapreplay"), t.dir});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  std::string closing_rows;  // the closing table without its indent
  for (size_t at = header; at < err.find("heaprec: next:"); at = err.find('\n', at) + 1) {
    closing_rows += err.substr(at + 2, err.find('\n', at) + 1 - (at + 2));
  }
  EXPECT_EQ(text.out,
            std::to_string(t.traces.size()) + " traces, largest peak first:\n" + closing_rows);
  for (const auto& [how, path] : t.child) {
    EXPECT_NE(text.out.find(path), std::string::npos) << text.out;
  }
  EXPECT_NE(text.out.find("killed by SIGSEGV"), std::string::npos) << text.out;
  const json folder = HeapreplayJson({t.dir});
  ASSERT_EQ(folder["processes"].size(), t.traces.size()) << folder.dump(1);
  EXPECT_EQ(folder["processes"][0]["path"], t.child.at("ok"));
  for (const json& p : folder["processes"]) {
    const json& o = t.objects.at(p["path"]);
    EXPECT_EQ(p["pid"], o["pid"]);
    EXPECT_EQ(p["ppid"], o["ppid"]);
    EXPECT_EQ(p["parent"], o["parent"]);
    EXPECT_EQ(p["exit_code"], o["exit_code"]);
    EXPECT_EQ(p["signal"], o["signal"]);
    EXPECT_EQ(p["peak_bytes"], o["summary"]["peak_bytes"]);
    EXPECT_EQ(p["leaked_bytes"], o["summary"]["leaked_bytes"]);
    EXPECT_EQ(p["allocations"], o["summary"]["allocations"]);
  }

  // Several traces: the three children, largest peak first.
  const json three = HeapreplayJson({t.child.at("segv"), t.child.at("exit11"), t.child.at("ok")});
  ASSERT_EQ(three["processes"].size(), 3u) << three.dump(1);
  EXPECT_EQ(three["processes"][0]["path"], t.child.at("ok"));
  EXPECT_EQ(three["processes"][1]["path"], t.child.at("exit11"));
  EXPECT_EQ(three["processes"][1]["exit_code"], 11);
  EXPECT_EQ(three["processes"][2]["path"], t.child.at("segv"));
  EXPECT_EQ(three["processes"][2]["signal"], "SIGSEGV");
  const ProcessResult three_text =
      RunProgram({Runfile("replay/heapreplay"), t.child.at("ok"), t.child.at("segv")});
  EXPECT_EQ(three_text.exit_code, 0) << three_text.err;
  EXPECT_EQ(three_text.out.rfind("2 traces, largest peak first:\n", 0), 0u) << three_text.out;
  EXPECT_LT(three_text.out.find(t.child.at("ok")), three_text.out.find(t.child.at("segv")));
  // An analysis takes one trace.
  const ProcessResult leaks =
      RunProgram({Runfile("replay/heapreplay"), "--leaks", t.child.at("ok"), t.dir});
  EXPECT_EQ(leaks.exit_code, 2);
  EXPECT_NE(leaks.err.find("takes one trace"), std::string::npos) << leaks.err;

  // --html on the folder: one page with the table's rows, in its order, each
  // with that process's page data (analyzers/html/DATA.md "processes").
  const std::string page = MakeTempDir("tree_html") + "/tree.html";
  const ProcessResult html = RunProgram({Runfile("replay/heapreplay"), "--html", page, t.dir});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  EXPECT_EQ(html.out, "");
  std::ifstream in(page);
  const std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = body.find("id=\"heaprec-data\">");
  ASSERT_NE(at, std::string::npos);
  const size_t from = at + std::string("id=\"heaprec-data\">").size();
  const json data = json::parse(body.substr(from, body.find("</script>", from) - from), nullptr,
                                /*allow_exceptions=*/false);
  ASSERT_TRUE(data.is_object()) << "the page's data is not JSON (or is compressed)";
  ASSERT_EQ(data["processes"].size(), folder["processes"].size());
  for (size_t i = 0; i < data["processes"].size(); ++i) {
    json row = data["processes"][i];
    const json page_data = row["page"];
    row.erase("page");
    EXPECT_EQ(row, folder["processes"][i]);
    const json& o = t.objects.at(row["path"]);
    EXPECT_EQ(page_data["trace"]["pid"], o["pid"]);
    EXPECT_EQ(page_data["summary"], o["summary"]);
  }
  // Options that take one trace still say so.
  const ProcessResult base =
      RunProgram({Runfile("replay/heapreplay"), "--html", page, "--base", t.child.at("ok"), t.dir});
  EXPECT_EQ(base.exit_code, 2);
  EXPECT_NE(base.err.find("--base takes one trace"), std::string::npos) << base.err;

  // A single trace keeps its report: the header says how it ended.
  const ProcessResult one = RunProgram({Runfile("replay/heapreplay"), t.child.at("segv")});
  EXPECT_NE(one.out.find("killed by SIGSEGV; started by pid " + sh["pid"].dump()),
            std::string::npos)
      << one.out;
}

TEST(ProcessTreeTest, NoFollowShellTracesItsChildrenOnly) {
  const Tree t = RunTree("no_sh", {"--no-follow=sh"});
  EXPECT_EQ(t.run.exit_code, 7) << t.run.err;
  EXPECT_EQ(t.traces.size(), 3u) << Join(t.traces) << "\n" << t.run.err;
  ASSERT_EQ(t.child.size(), 3u) << Join(t.traces);
  json ppid;
  for (const auto& [how, path] : t.child) {
    const json& c = t.objects.at(path);
    EXPECT_EQ(c["parent"], nullptr) << path;  // the shell has no trace
    if (ppid.is_null()) ppid = c["ppid"];
    EXPECT_EQ(c["ppid"], ppid) << path;  // the one shell
  }
  EXPECT_EQ(t.objects.at(t.child.at("exit11"))["exit_code"], 11);
  EXPECT_EQ(t.objects.at(t.child.at("segv"))["signal"], "SIGSEGV");
  EXPECT_EQ(t.objects.at(t.child.at("ok"))["exit_code"], 0);
}

// One -o name for every process: the shell's trace takes it, its children
// the lowest free alternatives (t.1.zst, ...), in turn; a file already there
// is skipped and left as it was, and no name is skipped otherwise (the
// launcher resumes each search where the last one ended).
TEST(ProcessTreeTest, OneNameForAllTakesTheFreeAlternativesInTurn) {
  const std::string dir = MakeTempDir("one_name");
  { std::ofstream(dir + "/t.2.zst") << "not a trace"; }
  const std::string child = Runfile("tests/tree_child");
  std::string script;
  for (int i = 0; i < 5; ++i) script += child + " ok 1; ";
  script += "exit 0";
  const ProcessResult run = RunProgram(
      {Runfile("recorder/heaprec"), "-q", "-o", dir + "/t.zst", "/bin/sh", "-c", script});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> files = ListFiles(dir, ".zst");
  // The shell and its five children (dash may exec the last command: 5 or 6).
  ASSERT_GE(files.size(), 6u) << Join(files);
  std::vector<std::string> want = {dir + "/t.zst"};
  for (size_t n = 1; want.size() < files.size(); ++n)
    want.push_back(dir + "/t." + std::to_string(n) + ".zst");
  std::vector<std::string> got = files;
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  std::ifstream kept(dir + "/t.2.zst");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "not a trace");
  for (const std::string& f : files) {
    if (f == dir + "/t.2.zst") continue;
    const ProcessResult r = RunProgram({Runfile("replay/heapreplay"), f});
    EXPECT_EQ(r.exit_code, 0) << f << ": " << r.err;
  }
}

// gcc starts cc1 and as (vfork and exec): each has a trace whose parent
// chain leads to gcc's, and every one exited 0.
TEST(ProcessTreeTest, GccCompileNamesItsParents) {
  if (access("/usr/bin/gcc", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/gcc";
  const std::string dir = MakeTempDir("gcc");
  { std::ofstream(dir + "/x.c") << "int twice(int x) { return 2 * x; }\n"; }
  const ProcessResult run = RunProgram({Runfile("recorder/heaprec"), "-q", "-o", dir + "/%n.%p.zst",
                                        "/usr/bin/gcc", "-c", dir + "/x.c", "-o", dir + "/x.o"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(access((dir + "/x.o").c_str(), F_OK), 0);
  const std::vector<std::string> traces = ListFiles(dir, ".zst");
  const std::map<std::string, json> objects = TraceObjects(traces);
  std::map<std::string, std::string> by_program;  // %n (cc1, as, gcc) -> trace
  for (const auto& [path, o] : objects) {
    EXPECT_EQ(o["exit_code"], o["replaced_by_exec"] == true ? json(nullptr) : json(0)) << path;
    by_program[BaseName(path).substr(0, BaseName(path).find('.'))] = path;
  }
  ASSERT_EQ(by_program.count("cc1"), 1u) << Join(traces);
  ASSERT_EQ(by_program.count("as"), 1u) << Join(traces);
  for (const char* tool : {"cc1", "as"}) {
    SCOPED_TRACE(tool);
    const json& o = objects.at(by_program.at(tool));
    ASSERT_TRUE(o["parent"].is_string()) << o.dump();
    EXPECT_EQ(o["parent"], by_program["gcc"]) << o.dump();
    const json& parent = objects.at(o["parent"]);
    EXPECT_EQ(o["ppid"], parent["pid"]);
  }
}

}  // namespace
}  // namespace heaprec::tests

// The formats of --export (export_formats.h).
#include "heapreplay/export_formats.h"

#include <fstream>

#include "analyzers/dhat_json.h"
#include "analyzers/massif_text.h"
#include "analyzers/sampling_notice.h"

namespace heaprec::heapreplay {
namespace {

bool WriteText(const std::string& file, const std::string& text, std::string* error) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    *error = file + ": cannot write the file";
    return false;
  }
  return true;
}

bool WriteMassif(const ExportJob& job, const std::string& file, std::string* error) {
  const analyzers::Analysis& a = *job.report->analysis;
  analyzers::MassifHeader h;
  h.desc = "heapreplay --export massif " + file + " " + job.trace;
  if (a.heap().sampled()) h.desc += " (" + analyzers::SamplingNotice(a.heap().sample_rate()) + ")";
  h.desc += "; " + analyzers::MassifExtraNote(job.analyzers->massif.resident());
  h.cmd = a.CommandLine();
  return WriteText(file, analyzers::MassifText(h, job.analyzers->massif.Snapshots(), a.symbols()),
                   error);
}

bool WriteDhat(const ExportJob& job, const std::string& file, std::string* error) {
  const analyzers::Analysis& a = *job.report->analysis;
  analyzers::DhatHeader h;
  h.cmd = a.CommandLine();
  if (a.process()) h.pid = a.process()->pid;
  h.end_ns = job.analyzers->dhat.end_ns();
  h.peak_ns = job.analyzers->dhat.peak_ns();
  return WriteText(file, analyzers::DhatJson(h, job.analyzers->dhat.Sites(), a.symbols()), error);
}

bool WriteHeaptrack(const ExportJob& job, const std::string& file, std::string* error) {
  return job.analyzers->heaptrack->Write(file, error);
}

bool WritePprof(const ExportJob& job, const std::string& file, std::string* error) {
  return job.write_pprof(file, error);
}

bool WriteFolded(const ExportJob& job, const std::string& file, std::string* error) {
  return WriteText(file, job.folded(), error);
}

}  // namespace

const std::vector<ExportFormat>& ExportFormats() {
  static const std::vector<ExportFormat> formats = {
      {"massif",
       "valgrind massif's out file (ms_print, massif-visualizer)",
       {.peak = true, .massif = true},
       WriteMassif},
      {"dhat", "DHAT's JSON (valgrind's dh_view.html)", {.peak = true, .dhat = true}, WriteDhat},
      {"heaptrack",
       "heaptrack's recording (heaptrack_print, heaptrack_gui)",
       {.heaptrack = true},
       WriteHeaptrack},
      {"pprof", "gzipped pprof profile (as --pprof)", {.hot = true}, WritePprof},
      {"folded", "collapsed stacks (as --folded)", {}, WriteFolded},
  };
  return formats;
}

const ExportFormat* FindExportFormat(std::string_view name) {
  for (const ExportFormat& f : ExportFormats()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::string ExportFormatNames() {
  std::string out;
  for (const ExportFormat& f : ExportFormats())
    out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

std::string ExportFormatsHelp() {
  std::string out;
  for (const ExportFormat& f : ExportFormats()) {
    std::string name = f.name;
    name.resize(std::max<size_t>(name.size() + 2, 10), ' ');
    out += (out.empty() ? "" : "\n") + name + f.help;
  }
  return out;
}

}  // namespace heaprec::heapreplay

// heaprec's option parsing (options.h).
#include "recorder/launcher/options.h"

#include <cstdlib>
#include <cstring>

namespace heaprec::recorder::launcher {
namespace {

bool ParseNumber(const std::string& text, unsigned min, unsigned max, unsigned* out) {
  if (text.empty() || text.size() > 9) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  const unsigned v = static_cast<unsigned>(std::strtoul(text.c_str(), nullptr, 10));
  if (v < min || v > max) return false;
  *out = v;
  return true;
}

}  // namespace

const char* UsageText() {
  return "usage: heaprec [options] [--] PROGRAM [ARGS...]\n"
         "\n"
         "Runs PROGRAM and records every allocation and free with its call stack.\n"
         "Each traced process (fork children, exec'd programs) writes its own trace.\n"
         "\n"
         "options:\n"
         "  -o, --output PATH    trace file; %p = pid, %n = program name\n"
         "                       (default heaprec.%n.%p.zst; never overwrites: a\n"
         "                       numeric suffix is added when the name exists)\n"
         "  -d, --depth N        frames per stack, 1..256 (default 64)\n"
         "      --no-follow      do not trace child processes or exec'd programs\n"
         "      --mark-signal N  signal that records a marker (default 12, SIGUSR2;\n"
         "                       0 = none); programs can call heaprec_mark(\"label\")\n"
         "      --addresses      also keep every block's address (larger traces;\n"
         "                       frees are matched to allocations either way)\n"
         "      --free-stacks    also record the call stack of every free (for\n"
         "                       heapreplay --mismatches; slower)\n"
         "  -q, --quiet          no summary line at the end\n"
         "  -h, --help           this text\n"
         "      --version        heaprec's version\n"
         "\n"
         "Then: heapreplay --leaks TRACE (see heapreplay --help).\n";
}

bool ParseOptions(int argc, char** argv, Options* o, std::string* error) {
  int i = 1;
  auto value = [&](const std::string& name, std::string* out) {
    if (i + 1 >= argc) {
      *error = "option " + name + " needs a value (see heaprec --help)";
      return false;
    }
    *out = argv[++i];
    return true;
  };
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-' || arg == "-") break;  // the program
    std::string name = arg, inline_value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
      name = arg.substr(0, arg.find('='));
      inline_value = arg.substr(arg.find('=') + 1);
      has_inline = true;
    }
    std::string v;
    auto take = [&](std::string* out) {
      if (has_inline) {
        *out = inline_value;
        return true;
      }
      return value(name, out);
    };
    if (name == "-o" || name == "--output") {
      if (!take(&o->output)) return false;
      if (o->output.empty()) {
        *error = "option " + name + " needs a non-empty path";
        return false;
      }
    } else if (name == "-d" || name == "--depth") {
      if (!take(&v)) return false;
      if (!ParseNumber(v, 1, 256, &o->depth)) {
        *error = "--depth takes a number from 1 to 256, not '" + v + "'";
        return false;
      }
    } else if (name == "--mark-signal") {
      if (!take(&v)) return false;
      unsigned sig = 0;
      if (!ParseNumber(v, 0, 64, &sig)) {
        *error = "--mark-signal takes a signal number from 0 to 64, not '" + v + "'";
        return false;
      }
      o->mark_signal = static_cast<int>(sig);
    } else if (name == "--no-follow") {
      o->follow = false;
    } else if (name == "--addresses") {
      o->addresses = true;
    } else if (name == "--free-stacks") {
      o->free_stacks = true;
    } else if (name == "-q" || name == "--quiet") {
      o->quiet = true;
    } else if (name == "-h" || name == "--help") {
      o->help = true;
      return true;
    } else if (name == "--version") {
      o->version = true;
      return true;
    } else {
      *error = "unknown option '" + arg + "' (see heaprec --help)";
      return false;
    }
  }
  for (; i < argc; ++i) o->command.emplace_back(argv[i]);
  if (o->command.empty()) {
    *error = "no program to run (usage: heaprec [options] [--] PROGRAM [ARGS...])";
    return false;
  }
  return true;
}

}  // namespace heaprec::recorder::launcher

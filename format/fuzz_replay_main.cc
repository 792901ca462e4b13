// A main() for fuzz targets built without libFuzzer: runs
// LLVMFuzzerTestOneInput over every file named on the command line, or every
// file in a named folder, and prints how many. Used by the corpus tests.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int RunFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "%s: cannot open\n", path.c_str());
    return 1;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int files = 0, failures = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    struct stat st;
    if (stat(arg.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      DIR* dir = opendir(arg.c_str());
      while (dir != nullptr) {
        const dirent* entry = readdir(dir);
        if (entry == nullptr) break;
        const std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        failures += RunFile(arg + "/" + name);
        ++files;
      }
      if (dir != nullptr) closedir(dir);
    } else {
      failures += RunFile(arg);
      ++files;
    }
  }
  std::printf("replayed %d inputs, %d unreadable\n", files, failures);
  return failures == 0 && files > 0 ? 0 : 1;
}

// heaprec's checks before running: the traces' folder missing, not a
// folder, not writable, or named instead of a file; a file system without
// room for a session; the session folder made where there is room.
#include "recorder/launcher/preflight.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace heaprec::recorder::launcher {
namespace {

std::string TempDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  mkdir(dir.c_str(), 0755);
  return dir;
}

// Files in dir other than "." and "..".
size_t Entries(const std::string& dir) {
  size_t n = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      n += name != "." && name != "..";
    }
    closedir(d);
  }
  return n;
}

TEST(PreflightTest, AWritableFolderPasses) {
  const std::string dir = TempDir("ok");
  EXPECT_EQ(OutputProblem(dir + "/t.zst", "prog"), "");
  EXPECT_EQ(OutputProblem(dir + "/%n.%p.zst", "/usr/bin/prog"), "");
  EXPECT_EQ(Entries(dir), 0u);  // the probe file is gone
  // %n in the folder is the program's name.
  TempDir("ok/prog");
  EXPECT_EQ(OutputProblem(dir + "/%n/t.zst", "/usr/bin/prog"), "");
  // %p in the folder is only known when the process starts.
  EXPECT_EQ(OutputProblem(dir + "/%p/t.zst", "prog"), "");
}

TEST(PreflightTest, EachProblemIsOneLineNamingThePath) {
  const std::string dir = TempDir("bad");
  std::ofstream(dir + "/file") << "x";
  const struct {
    std::string pattern, says;
  } cases[] = {
      {dir + "/missing/t.zst",
       "cannot write " + dir + "/missing/t.zst: folder " + dir + "/missing does not exist"},
      {dir + "/file/t.zst",
       "cannot write " + dir + "/file/t.zst: " + dir + "/file is not a folder"},
      {dir, "cannot write " + dir + ": it names a folder; name a file in it, e.g. -o " + dir +
                "/%n.%p.zst"},
      {dir + "/", "cannot write " + dir + "/: it names a folder; name a file in it, e.g. -o " +
                      dir + "/%n.%p.zst"},
      // sysfs takes no new file, not even from root.
      {"/sys/t.zst", "cannot write /sys/t.zst: cannot create a file in /sys: "},
  };
  for (const auto& c : cases) {
    const std::string problem = OutputProblem(c.pattern, "prog");
    EXPECT_EQ(problem.rfind(c.says, 0), 0u) << problem;
    EXPECT_EQ(problem.find('\n'), std::string::npos);
  }
}

TEST(PreflightTest, RoomForASession) {
  struct statvfs fs = {};
  fs.f_frsize = 4096;
  fs.f_bavail = kSessionMinFreeBytes / 4096;
  EXPECT_EQ(RoomProblem(fs, kSessionMinFreeBytes), "");
  fs.f_bavail = 3 * 256;  // 3 MiB
  EXPECT_EQ(RoomProblem(fs, kSessionMinFreeBytes), "3.0 MiB free, heaprec needs 64.0 MiB");
  fs.f_bavail = 0;
  EXPECT_EQ(RoomProblem(fs, kOutputMinFreeBytes), "0 B free, heaprec needs 1.0 MiB");
}

TEST(PreflightTest, SessionFolderWhereItCanBeMade) {
  const std::string base = TempDir("bases");
  std::string error;
  const std::string dir = MakeSessionDir({base + "/missing", "/sys", base}, &error);
  ASSERT_EQ(dir.rfind(base + "/heaprec.", 0), 0u) << error;
  struct stat st;
  EXPECT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  rmdir(dir.c_str());
  EXPECT_EQ(MakeSessionDir({base + "/missing", "/sys"}, &error), "");
  // sysfs refuses as read-only or without permission, as the host mounts it.
  EXPECT_EQ(error.rfind("cannot make a session folder (" + base +
                            "/missing: No such file or directory; /sys: ",
                        0),
            0u)
      << error;
}

}  // namespace
}  // namespace heaprec::recorder::launcher

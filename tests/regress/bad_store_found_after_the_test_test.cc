// Bug (issue 27, item 14): a store that cannot take the run (a directory, a file that is not a
// nicbench store) was found only after the test had run: the whole test ran, then "the run was
// not stored". It is now checked before the test, as --html is: exit 4, no test run, the reason.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

std::filesystem::path TempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("nb-badstore-" + std::to_string(getpid()) + "-" + name);
}

// `nicbench run` (the loopback main job, one short test) against `store`.
void ExpectRefusedBeforeTheTest(const std::filesystem::path& store) {
  testing::ProcessResult r = testing::RunNicbench({"run", "-t", "1", "--store", store.string()});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  EXPECT_EQ(r.out.find("sender"), std::string::npos) << "the test ran:\n" << r.out;
  EXPECT_NE(r.err.find("the test was not run"), std::string::npos) << r.err;
}

TEST(BadStoreFoundAfterTheTest, ADirectoryIsRefusedFirst) {
  const auto dir = TempPath("dir");
  std::filesystem::create_directories(dir);
  ExpectRefusedBeforeTheTest(dir);
  std::filesystem::remove_all(dir);
}

TEST(BadStoreFoundAfterTheTest, AFileThatIsNotAStoreIsRefusedFirst) {
  const auto file = TempPath("random.db");
  {
    std::ofstream out(file, std::ios::binary);
    for (int i = 0; i < 8192; ++i) out.put(static_cast<char>((i * 7919 + 13) & 0xff));
  }
  ExpectRefusedBeforeTheTest(file);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace nicbench::regress

// Bug: a store that could not take the run (a directory, a file that is not a store, a
// truncated store) was found only after the test had run, so the test's time was lost and the
// run with it. It is now opened before the test, as --html's file is: exit 4 and "the test was
// not run", with no test output.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support/run_binary.h"

namespace nicbench::regress {
namespace {

constexpr int kStore = 4;

class TempDir {
 public:
  TempDir() {
    std::string t = "/tmp/nicbench-badstore-XXXXXX";
    path_ = mkdtemp(t.data()) ? t : "";
  }
  ~TempDir() {
    if (!path_.empty()) (void)std::system(("rm -rf '" + path_ + "'").c_str());
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

testing::ProcessResult RunWithStore(const std::string& store) {
  return testing::RunNicbench({"run", "-t", "0.2", "-i", "0", "--store", store});
}

void ExpectNotRun(const testing::ProcessResult& r, const std::string& what) {
  EXPECT_EQ(r.exit_code, kStore) << what << ": " << r.err;
  EXPECT_NE(r.err.find("the test was not run"), std::string::npos) << what << ": " << r.err;
  EXPECT_EQ(r.out.find("receiver"), std::string::npos) << what << ": the test ran\n" << r.out;
}

TEST(BadStoreFoundBeforeTheTest, ADirectoryARandomFileAndATruncatedStore) {
  TempDir dir;
  ExpectNotRun(RunWithStore(dir.path()), "a directory");

  const std::string random = dir.path() + "/random.db";
  {
    std::ofstream out(random, std::ios::binary);
    for (int i = 0; i < 8192; ++i) out.put(static_cast<char>((i * 7919 + 13) % 251));
  }
  ExpectNotRun(RunWithStore(random), "a random file");

  const std::string truncated = dir.path() + "/truncated.db";
  ASSERT_EQ(testing::RunNicbench({"run", "-t", "0.2", "-i", "0", "--store", truncated}).exit_code,
            0);
  std::filesystem::resize_file(truncated, std::filesystem::file_size(truncated) / 3);
  ExpectNotRun(RunWithStore(truncated), "a truncated store");
}

}  // namespace
}  // namespace nicbench::regress

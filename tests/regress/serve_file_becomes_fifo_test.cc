// `serve -F PATH` hung in open(2) when PATH was, or became, a FIFO: the open for writing waited
// for a reader that never came, the stock client hung, the next test failed, and SIGTERM no
// longer stopped the server. A link swapped in at PATH was followed. Now the open neither blocks
// nor follows a link, the type is checked on the open descriptor, and the test is refused with
// words that say why; the server keeps serving and stops on SIGTERM.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "regress/server_test_util.h"

namespace nicbench::regress {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string t = "/tmp/nicbench-fifo-XXXXXX";
    path_ = mkdtemp(t.data()) ? t : "";
  }
  ~TempDir() {
    if (!path_.empty()) (void)std::system(("rm -rf '" + path_ + "'").c_str());
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A test against the server, killed after 30 s (on the old code it hung there).
testing::ProcessResult RunAgainst(int port, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {testing::NicbenchPath(), "run", "127.0.0.1", "-p",
                                   std::to_string(port),    "-t",  "1"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return testing::RunProcess(argv, "", std::chrono::seconds(30));
}

TEST(ServeFileBecomesFifo, TheTestIsRefusedAtOnceAndTheServerKeepsServingAndStops) {
  TempDir dir;
  const std::string path = dir.File("out");
  // PATH does not exist when the server starts (each test creates it), then becomes a FIFO.
  ServeChild server = StartServe({"-F", path});
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);

  // The server writes what arrives (open for writing) and, with -R, reads what it sends.
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{{}, {"-R"}}) {
    testing::ProcessResult r = RunAgainst(server.port, extra);
    EXPECT_EQ(r.signal, 0) << "the test hung (killed after 30 s)";
    EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  }
  const std::string log = server.process->StderrSoFar();
  EXPECT_NE(log.find("not a regular file or a device"), std::string::npos) << log;

  // A link swapped in for the file is not followed either.
  const std::string elsewhere = dir.File("elsewhere");
  std::ofstream(elsewhere) << "precious";
  ASSERT_EQ(unlink(path.c_str()), 0);
  ASSERT_EQ(symlink(elsewhere.c_str(), path.c_str()), 0);
  testing::ProcessResult linked = RunAgainst(server.port, {});
  EXPECT_NE(linked.exit_code, 0) << linked.out << linked.err;
  std::ifstream kept(elsewhere);
  std::string word;
  kept >> word;
  EXPECT_EQ(word, "precious") << "the server wrote through a link swapped in at -F's path";

  // Back to a path the server can create: a normal test completes.
  ASSERT_EQ(unlink(path.c_str()), 0);
  auto doc = NormalTest(server.port);
  EXPECT_EQ(SumBytes(doc, "sum_received"), 1048576u);

  testing::ProcessResult stopped = server.process->Stop();
  EXPECT_EQ(stopped.signal, 0) << "SIGTERM did not stop the server; it was killed";
  std::printf("server log:\n%s", stopped.err.substr(0, 3000).c_str());
}

}  // namespace
}  // namespace nicbench::regress

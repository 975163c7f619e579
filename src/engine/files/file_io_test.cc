// TimedFile and FileTransfer on real files: what the file calls count, a file that shrinks
// while it is read, sparse files larger than memory, O_DIRECT refused (tmpfs) and staged (a
// filesystem that has it), a full device, and the checks made before a test.
#include "engine/files/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace nicbench::engine {
namespace {

class TempDir {
 public:
  explicit TempDir(const char* base = "/tmp") {
    std::string t = std::string(base) + "/nicbench-file-io-XXXXXX";
    path_ = mkdtemp(t.data()) ? t : "";
  }
  ~TempDir() {
    if (!path_.empty()) (void)std::system(("rm -rf '" + path_ + "'").c_str());
  }
  const std::string& path() const { return path_; }
  std::string File(const char* name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void WriteBytes(const std::string& path, size_t n) {
  std::ofstream out(path, std::ios::binary);
  std::string data(n, 'x');
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<char>(i * 7);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

uint64_t ReadAll(TimedFile& f, size_t chunk = 65536) {
  std::vector<uint8_t> buf(chunk);
  uint64_t total = 0;
  for (;;) {
    auto n = f.Read(buf.data(), buf.size());
    EXPECT_TRUE(n.has_value());
    if (!n || *n == 0) return total;
    total += *n;
  }
}

TEST(TimedFile, ReadCountsBytesAndTimeOfTheCalls) {
  TempDir dir;
  const std::string path = dir.File("src");
  WriteBytes(path, 1 << 20);
  auto f = TimedFile::Open(path, false, false);
  ASSERT_TRUE(f) << f.error().ToString();
  EXPECT_EQ(ReadAll(*f), 1u << 20);
  record::FileRecord r = f->Record();
  EXPECT_EQ(r.bytes, 1u << 20);
  EXPECT_EQ(r.size_at_open, 1u << 20);
  EXPECT_FALSE(r.write);
  EXPECT_FALSE(r.shrank);
  EXPECT_GT(r.call_seconds, 0.0);
  EXPECT_GT(r.BytesPerSecond(), 0.0);
  EXPECT_FALSE(r.filesystem.empty());
}

// Load brings pages in for sendfile(2) and counts as a file call: the rate stays measured.
TEST(TimedFile, LoadTimesBringingThePagesInAndCountsWhatIsSentFromThem) {
  TempDir dir("/var/tmp");  // a disk's filesystem: a tmpfs file is memory (below)
  const std::string path = dir.File("src");
  WriteBytes(path, (1 << 20) + 1000);
  auto f = TimedFile::Open(path, false, false);
  ASSERT_TRUE(f) << f.error().ToString();
  ASSERT_TRUE(f->Load(1 << 20));
  f->CountLoaded(1 << 20);
  ASSERT_TRUE(f->Load(1 << 20)) << "past the end: loads what there is";
  f->CountLoaded(1000);
  record::FileRecord r = f->Record();
  EXPECT_TRUE(r.rate_measured);
  EXPECT_EQ(r.bytes, (1u << 20) + 1000);
  EXPECT_GT(r.call_seconds, 0.0);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("MADV_POPULATE_READ"), std::string::npos) << r.notes.back();
}

// A tmpfs file is memory: Load has nothing to do and says the rate is not a disk's.
TEST(TimedFile, LoadOfATmpfsFileLoadsNothingAndMeasuresNoDisk) {
  TempDir dir("/dev/shm");
  const std::string path = dir.File("src");
  WriteBytes(path, 1 << 20);
  auto f = TimedFile::Open(path, false, false);
  ASSERT_TRUE(f) << f.error().ToString();
  if (f->Record().filesystem != "tmpfs") GTEST_SKIP() << "/dev/shm is not a tmpfs here";
  ASSERT_TRUE(f->Load(1 << 20));
  f->CountLoaded(1 << 20);
  record::FileRecord r = f->Record();
  EXPECT_FALSE(r.rate_measured);
  EXPECT_EQ(r.bytes, 1u << 20);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.front().find("is memory"), std::string::npos) << r.notes.front();
}

// What cannot be loaded so says false, and the caller moves the file another way.
TEST(TimedFile, LoadRefusesADeviceAndAFileOpenedForWriting) {
  auto device = TimedFile::Open("/dev/zero", false, false);
  ASSERT_TRUE(device) << device.error().ToString();
  EXPECT_FALSE(device->Load(1 << 20));
  TempDir dir;
  auto written = TimedFile::Open(dir.File("out"), true, false);
  ASSERT_TRUE(written);
  EXPECT_FALSE(written->Load(1 << 20));
}

TEST(TimedFile, AFileThatShrinksWhileReadEndsThereAndSaysSo) {
  TempDir dir;
  const std::string path = dir.File("src");
  WriteBytes(path, 1 << 20);
  auto f = TimedFile::Open(path, false, false);
  ASSERT_TRUE(f);
  std::vector<uint8_t> buf(65536);
  ASSERT_EQ(*f->Read(buf.data(), buf.size()), 65536u);
  ASSERT_EQ(truncate(path.c_str(), 131072), 0);
  EXPECT_EQ(ReadAll(*f), 65536u);
  record::FileRecord r = f->Record();
  EXPECT_EQ(r.bytes, 131072u);
  EXPECT_TRUE(r.shrank);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("shrank"), std::string::npos) << r.notes.back();
}

TEST(TimedFile, ASparseFileLargerThanMemoryIsReadInBlocksAndNamedSparse) {
  TempDir dir;
  const std::string path = dir.File("sparse");
  const off_t size = off_t{1} << 40;  // 1 TiB apparent, no blocks allocated
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, size), 0);
  ::close(fd);
  auto f = TimedFile::Open(path, false, false);
  ASSERT_TRUE(f);
  std::vector<uint8_t> buf(1 << 20, 0xff);
  ASSERT_EQ(*f->Read(buf.data(), buf.size()), buf.size());
  EXPECT_EQ(buf.front(), 0);
  EXPECT_EQ(buf.back(), 0);
  record::FileRecord r = f->Record();
  EXPECT_EQ(r.size_at_open, static_cast<uint64_t>(size));
  EXPECT_LT(r.allocated_bytes, uint64_t{1} << 20);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.front().find("sparse"), std::string::npos) << r.notes.front();
}

TEST(TimedFile, DirectWhereTheFilesystemRefusesItFallsBackAndSaysSo) {
  // procfs has no O_DIRECT (open fails with EINVAL), as tmpfs before Linux 6.6.
  auto f = TimedFile::Open("/proc/version", false, /*direct=*/true);
  ASSERT_TRUE(f) << f.error().ToString();
  record::FileRecord r = f->Record();
  EXPECT_TRUE(r.direct_requested);
  EXPECT_FALSE(r.direct_used);
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(
      r.notes.front().find("--direct: proc does not support O_DIRECT; the page cache was used"),
      std::string::npos)
      << r.notes.front();
}

TEST(TimedFile, DirectOnTmpfsIsNamedMemoryEitherWay) {
  struct stat st {};
  if (::stat("/dev/shm", &st) != 0) GTEST_SKIP() << "no /dev/shm";
  TempDir dir("/dev/shm");
  ASSERT_FALSE(dir.path().empty());
  const std::string path = dir.File("f");
  WriteBytes(path, 8192);
  auto f = TimedFile::Open(path, false, /*direct=*/true);
  ASSERT_TRUE(f);
  record::FileRecord r = f->Record();
  if (r.filesystem != "tmpfs") GTEST_SKIP() << "/dev/shm is " << r.filesystem;
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.front().find(r.direct_used ? "accepts O_DIRECT, but the file is memory"
                                               : "tmpfs does not support O_DIRECT"),
            std::string::npos)
      << r.notes.front();
}

TEST(TimedFile, DirectWritesStageAlignedChunksAndTheTailAndSync) {
  TempDir dir("/var/tmp");  // a disk filesystem, which has O_DIRECT
  const std::string path = dir.File("out");
  auto f = TimedFile::Open(path, true, /*direct=*/true);
  ASSERT_TRUE(f) << f.error().ToString();
  if (!f->direct_used()) GTEST_SKIP() << "no O_DIRECT on /var/tmp";
  std::vector<uint8_t> buf(100000, 0x5a);  // not a multiple of 4096
  for (int i = 0; i < 25; ++i) ASSERT_TRUE(f->Write(buf.data(), buf.size()));
  ASSERT_TRUE(f->Finish());
  record::FileRecord r = f->Record();
  EXPECT_EQ(r.bytes, 2500000u);
  EXPECT_TRUE(r.write);
  EXPECT_GT(r.sync_seconds, 0.0);
  EXPECT_GE(r.call_seconds, r.sync_seconds);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 2500000);
}

TEST(TimedFile, AFullDeviceIsAWriteErrorNamingTheFile) {
  auto f = TimedFile::Open("/dev/full", true, false);
  ASSERT_TRUE(f) << f.error().ToString();
  std::vector<uint8_t> buf(4096);
  Status s = f->Write(buf.data(), buf.size());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().sys_errno, ENOSPC);
  EXPECT_NE(s.error().ToString().find("/dev/full: write after 0 bytes: No space left on device"),
            std::string::npos)
      << s.error().ToString();
}

TEST(CheckFileTarget, TellsUsageFromEnvironmentProblems) {
  TempDir dir;
  EXPECT_EQ(CheckFileTarget({dir.path(), false}, false).problem, FileProblem::kUsage);
  EXPECT_EQ(CheckFileTarget({dir.path(), false}, true).problem, FileProblem::kUsage);
  EXPECT_EQ(CheckFileTarget({dir.File("missing"), false}, false).problem,
            FileProblem::kEnvironment);
  EXPECT_EQ(CheckFileTarget({dir.File("new"), false}, true).problem, FileProblem::kNone);
  const std::string fifo = dir.File("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(CheckFileTarget({fifo, false}, false).problem, FileProblem::kUsage);
  EXPECT_EQ(CheckFileTarget({dir.File("no/such/dir"), false}, true).problem,
            FileProblem::kEnvironment);
}

TEST(FileTransfer, SumsItsStreamsAndKeepsTheFirstError) {
  FileTransfer t({"/x", false});
  record::FileRecord a;
  a.path = "/x";
  a.bytes = 100;
  a.call_seconds = 1;
  a.notes = {"n"};
  record::FileRecord b = a;
  b.bytes = 300;
  t.Add(a);
  t.Add(b);
  t.AddError("write: disk full");
  record::FileRecord r = t.Record();
  EXPECT_EQ(r.streams, 2);
  EXPECT_EQ(r.bytes, 400u);
  EXPECT_DOUBLE_EQ(r.call_seconds, 2.0);
  EXPECT_DOUBLE_EQ(r.BytesPerSecond(), 200.0);
  EXPECT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.error, "write: disk full");
}

TEST(RefuseForFile, UdpAndBidirCannotUseAFile) {
  record::TestSpec spec;
  EXPECT_FALSE(RefuseForFile({"/x", false}, spec));
  spec.transport = record::Transport::kUdp;
  EXPECT_TRUE(RefuseForFile({"/x", false}, spec));
  spec.transport = record::Transport::kTcp;
  spec.direction = record::Direction::kBidirectional;
  EXPECT_TRUE(RefuseForFile({"/x", false}, spec));
  EXPECT_FALSE(RefuseForFile({}, spec));
}

}  // namespace
}  // namespace nicbench::engine

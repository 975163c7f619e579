#include "engine/datapath/flow_payload.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace nicbench::engine {
namespace {

std::vector<uint8_t> Block(size_t n) {
  std::vector<uint8_t> block(n);
  EXPECT_TRUE(FillPayload(block, /*repeating=*/false));
  return block;
}

// The file's bytes from offset 0, read without moving its offset (sendfile passes its own).
std::vector<uint8_t> Contents(int fd, size_t n) {
  std::vector<uint8_t> out(n);
  EXPECT_EQ(::pread(fd, out.data(), n, 0), static_cast<ssize_t>(n));
  return out;
}

bool PageAligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kBufferAlignment == 0; }

// The buffers the kernel copies a flow's bytes to and from start on a page (aligned_buffer.h:
// 16 bytes off, as malloc places a large block, the copy ran at half speed). Sizes cover
// malloc's two placements: from its heap (below 128 KiB) and a mapping of its own (above).
TEST(WorkerBuffers, SendAndReceiveBuffersStartOnAPage) {
  for (const uint32_t bytes : {1400u, 8192u, 131072u, 1u << 20}) {
    PayloadCache cache;
    WorkerBuffers worker(1, &cache);
    ASSERT_TRUE(worker.ReserveReceive(bytes));
    EXPECT_TRUE(PageAligned(worker.receive_buffer())) << bytes;
    auto copied = worker.ZeroCopyPayload(bytes, /*repeating=*/false, /*with_memfd=*/false);
    ASSERT_TRUE(copied) << copied.error().message;
    EXPECT_TRUE(PageAligned((*copied)->block.data())) << bytes;
    auto payload = cache.Get(bytes, /*repeating=*/true, /*with_memfd=*/false);
    ASSERT_TRUE(payload) << payload.error().message;
    EXPECT_TRUE(PageAligned((*payload)->block.data())) << bytes;
    EXPECT_EQ((*payload)->block.size(), bytes);
  }
}

TEST(MakeAlignedBuffer, RoundsUpToWholePages) {
  EXPECT_EQ(RoundUpAligned(1), kBufferAlignment);
  EXPECT_EQ(RoundUpAligned(kBufferAlignment), kBufferAlignment);
  EXPECT_EQ(RoundUpAligned(kBufferAlignment + 1), 2 * kBufferAlignment);
  auto buffer = MakeAlignedBuffer(100);
  ASSERT_TRUE(buffer);
  EXPECT_TRUE(PageAligned(buffer->get()));
}

TEST(MakeBlockFile, HoldsTheBlockInAPageCacheFileWhereADirectoryHasOne) {
  // The test's working directory (the build tree) is on the machine's disk filesystem; a
  // machine whose every directory is in memory has nothing here to check.
  net::UniqueFd probe(::open(".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (!probe || !OnPageCacheFs(probe.get())) GTEST_SKIP() << "no page-cache filesystem here";
  const std::vector<uint8_t> block = Block(128 * 1024 + 5);
  auto fd = MakeBlockFile(block, {"", "/nonexistent-nicbench-dir", "."});
  ASSERT_TRUE(fd) << fd.error().message;
  EXPECT_TRUE(OnPageCacheFs(fd->get()));
  EXPECT_EQ(Contents(fd->get(), block.size()), block);
  EXPECT_EQ(::lseek(fd->get(), 0, SEEK_END), static_cast<off_t>(block.size()));
}

TEST(MakeBlockFile, FallsBackToAMemfdWithoutAPageCacheDirectory) {
  const std::vector<uint8_t> block = Block(4096);
  // /dev/shm is tmpfs: sending from it costs what a memfd costs, so it is passed over too.
  auto fd = MakeBlockFile(block, {"/nonexistent-nicbench-dir", "/dev/shm"});
  ASSERT_TRUE(fd) << fd.error().message;
  EXPECT_FALSE(OnPageCacheFs(fd->get()));
  EXPECT_EQ(Contents(fd->get(), block.size()), block);
}

TEST(PayloadFileDirs, TmpdirComesFirstAsForIperf3) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TMPDIR", "/some/where", 1);
  const std::vector<std::string> dirs = PayloadFileDirs();
  if (old != nullptr) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  ASSERT_EQ(dirs.size(), 3u);
  EXPECT_EQ(dirs[0], "/some/where");
  EXPECT_EQ(dirs[1], "/var/tmp");
  EXPECT_EQ(dirs[2], "/tmp");
}

}  // namespace
}  // namespace nicbench::engine

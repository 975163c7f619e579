#include "engine/datapath/flow_payload.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <new>
#include <string>

namespace nicbench::engine {

namespace {

Status WriteAll(int fd, std::span<const uint8_t> block) {
  size_t done = 0;
  while (done < block.size()) {
    ssize_t n = ::write(fd, block.data() + done, block.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return FailErrno("write(payload file)");
    }
    done += static_cast<size_t>(n);
  }
  return Ok();
}

bool InMemoryFs(int fd) {
  struct statfs fs {};
  if (fstatfs(fd, &fs) != 0) return true;
  return fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC;
}

// An unnamed file (O_TMPFILE: nothing to clean up) in the first of `dirs` on a page-cache
// filesystem; an empty fd where there is none. O_NOATIME: sendfile would otherwise check the
// access time on every call (touch_atime).
net::UniqueFd OpenPageCacheFile(const std::vector<std::string>& dirs) {
  for (const std::string& dir : dirs) {
    if (dir.empty()) continue;
    net::UniqueFd fd(::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC | O_NOATIME, 0600));
    if (!fd && errno == EPERM) fd.Reset(::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (fd && !InMemoryFs(fd.get())) return fd;
  }
  return net::UniqueFd();
}

}  // namespace

std::vector<std::string> PayloadFileDirs() {
  std::vector<std::string> dirs;
  if (const char* tmpdir = std::getenv("TMPDIR")) dirs.emplace_back(tmpdir);
  dirs.emplace_back("/var/tmp");
  dirs.emplace_back("/tmp");
  return dirs;
}

Result<net::UniqueFd> MakeBlockFile(std::span<const uint8_t> block,
                                    const std::vector<std::string>& dirs) {
  net::UniqueFd fd = OpenPageCacheFile(dirs);
  if (!fd) fd.Reset(memfd_create("nicbench-block", MFD_CLOEXEC));
  if (!fd) return FailErrno("memfd_create");
  if (auto s = WriteAll(fd.get(), block); !s) return tl::unexpected(s.error());
  return fd;
}

bool OnPageCacheFs(int fd) { return !InMemoryFs(fd); }

Result<std::shared_ptr<const Payload>> PayloadCache::Get(uint32_t bytes, bool repeating,
                                                         bool with_memfd) {
  auto key = std::make_tuple(bytes, repeating, with_memfd);
  auto it = payloads_.find(key);
  if (it != payloads_.end()) return it->second;
  auto payload = std::make_shared<Payload>();
  payload->block.resize(bytes);
  if (auto s = FillPayload(payload->block, repeating); !s) return tl::unexpected(s.error());
  if (with_memfd) {
    auto made = MakeBlockFile(payload->block, PayloadFileDirs());
    if (!made) return tl::unexpected(made.error());
    payload->memfd = std::move(*made);
  }
  std::shared_ptr<const Payload> shared = std::move(payload);
  payloads_.emplace(key, shared);
  return shared;
}

Status WorkerBuffers::ReserveReceive(size_t bytes) {
  if (bytes <= receive_bytes_) return Ok();
  // Receivers read into it, never from it: no need to initialise it.
  auto buffer = MakeAlignedBuffer(bytes);
  if (!buffer) {
    receive_.reset();
    receive_bytes_ = 0;
    return Fail("receive buffer of " + std::to_string(bytes) + " bytes", ENOMEM);
  }
  receive_ = std::move(*buffer);
  receive_bytes_ = bytes;
  return Ok();
}

Result<std::shared_ptr<const Payload>> WorkerBuffers::ZeroCopyPayload(uint32_t bytes,
                                                                      bool repeating,
                                                                      bool with_memfd) {
  PayloadCache& cache = own_payloads_ || test_payloads_ == nullptr ? payloads_ : *test_payloads_;
  return cache.Get(bytes, repeating, with_memfd);
}

}  // namespace nicbench::engine

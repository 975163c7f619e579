#include "engine/files/disk_measure.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "engine/files/file_io.h"
#include "engine/files/payload_bytes.h"

namespace nicbench::engine {
namespace {

// Where the test writes: PATH itself, or a new temporary file inside a directory PATH.
struct Target {
  std::string file;
  bool existing = false;  // a file that was there before: read only
  bool created = false;   // this test made it: removed afterwards unless --keep
};

Result<Target> PickTarget(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return FailErrno(path);
    return Target{path, false, true};
  }
  if (!S_ISDIR(st.st_mode)) return Target{path, true, false};
  std::string name = path + (path.ends_with('/') ? "" : "/") + ".nicbench-disk-XXXXXX";
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return FailErrno("cannot create a file in " + path);
  ::close(fd);
  return Target{name, false, true};
}

Status WritePass(const DiskTestSpec& spec, const std::string& file, DiskTestResult& out) {
  auto opened = TimedFile::Open(file, /*write=*/true, spec.direct);
  if (!opened) return tl::unexpected(opened.error());
  auto buffer = MakeAlignedBuffer(spec.block_bytes);
  if (!buffer) return tl::unexpected(buffer.error());
  // Random bytes: a compressing or deduplicating filesystem must not make zeros look fast.
  std::span<uint8_t> block(buffer->get(), spec.block_bytes);
  if (auto s = FillPayload(block, false); !s) return s;
  Status status = Ok();
  uint64_t left = spec.size;
  while (left > 0 && status) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, spec.block_bytes));
    status = opened->Write(buffer->get(), n);
    left -= n;
  }
  if (status) status = opened->Finish();
  out.write = opened->Record();
  if (!status) {
    out.write->error = status.error().ToString();
    out.error = out.write->error;
  }
  return Ok();
}

Status ReadPass(const DiskTestSpec& spec, const std::string& file, DiskTestResult& out) {
  auto opened = TimedFile::Open(file, /*write=*/false, spec.direct);
  if (!opened) return tl::unexpected(opened.error());
  // What the write left in the page cache is clean after the sync: drop it, so the read comes
  // from the disk as a cold `dd` would (tmpfs keeps it: there the file is memory).
  if (!opened->direct_used()) {
    (void)::posix_fadvise(opened->fd(), 0, 0, POSIX_FADV_DONTNEED);
  }
  const size_t chunk = RoundUpAligned(spec.block_bytes);
  auto buffer = MakeAlignedBuffer(chunk);
  if (!buffer) return tl::unexpected(buffer.error());
  uint64_t left = spec.size;
  while (left > 0) {
    const size_t ask = opened->direct_used() ? chunk : std::min<uint64_t>(left, chunk);
    auto n = opened->Read(buffer->get(), ask);
    if (!n) {
      out.error = n.error().ToString();
      break;
    }
    if (*n == 0) break;
    left -= std::min<uint64_t>(left, *n);
  }
  out.read = opened->Record();
  if (!out.error.empty() && out.read->error.empty()) out.read->error = out.error;
  return Ok();
}

}  // namespace

Result<DiskTestResult> RunDiskTest(const DiskTestSpec& spec) {
  auto target = PickTarget(spec.path);
  if (!target) return tl::unexpected(target.error());
  DiskTestResult out;
  out.file = target->file;
  if (target->existing) {
    out.notes.push_back(
        fmt::format("{} exists: only read, never overwritten (name a new file "
                    "or a directory to measure writes)",
                    target->file));
  } else {
    if (auto s = WritePass(spec, target->file, out); !s) {
      if (target->created) ::unlink(target->file.c_str());
      return tl::unexpected(s.error());
    }
  }
  Status read = out.error.empty() ? ReadPass(spec, target->file, out) : Status(Ok());
  if (target->created && !spec.keep) ::unlink(target->file.c_str());
  if (!read) return tl::unexpected(read.error());
  if (out.read && !out.read->direct_used && out.read->filesystem != "tmpfs" && !target->existing) {
    out.notes.emplace_back(
        "the read follows posix_fadvise(DONTNEED) on the written file, so it "
        "comes from the disk, not the page cache");
  }
  return out;
}

}  // namespace nicbench::engine

#include "engine/files/file_io.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "base/units.h"

namespace nicbench::engine {
namespace {

uint64_t NowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

// Direct writes are staged and written in chunks this large (or the block, if larger).
constexpr size_t kDirectStageBytes = 1u << 20;

struct FsName {
  int64_t magic;
  const char* name;
};

constexpr FsName kFilesystems[] = {
    {EXT4_SUPER_MAGIC, "ext2/3/4"},
    {TMPFS_MAGIC, "tmpfs"},
    {XFS_SUPER_MAGIC, "xfs"},
    {BTRFS_SUPER_MAGIC, "btrfs"},
    {OVERLAYFS_SUPER_MAGIC, "overlay"},
    {NFS_SUPER_MAGIC, "nfs"},
    {0xFF534D42, "cifs"},
    {0x65735546, "fuse"},
    {0x2011BAB0, "exfat"},
    {MSDOS_SUPER_MAGIC, "vfat"},
    {0x5346544e, "ntfs"},
    {0x2fc12fc1, "zfs"},
    {RAMFS_MAGIC, "ramfs"},
    {PROC_SUPER_MAGIC, "proc"},
    {SYSFS_MAGIC, "sysfs"},
};

std::string OpenError(const std::string& path, bool write, int err) {
  return fmt::format("{}: cannot open for {}: {}", path, write ? "writing" : "reading",
                     std::strerror(err));
}

constexpr char kNotAFile[] = "not a regular file or a device (a FIFO or socket would block)";

// A file, or a character or block device (-F /dev/zero, /dev/null): what -F can time.
bool UsableType(mode_t mode) { return S_ISREG(mode) || S_ISCHR(mode) || S_ISBLK(mode); }

// Why open(2) failed: O_NOFOLLOW reports a link as ELOOP, and a FIFO without a reader refuses a
// non-blocking writer with ENXIO. Those two are the path's kind (no errno kept: a usage
// problem); anything else keeps its errno (an environment problem).
tl::unexpected<Error> OpenFailure(const std::string& path, bool write, int err) {
  struct stat st {};
  if (err == ELOOP && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return Fail(path + ": is a symbolic link (-F does not follow links; give the file's own path)");
  }
  if (::lstat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode) && !UsableType(st.st_mode)) {
    return Fail(path + ": " + kNotAFile);
  }
  return Fail(fmt::format("{}: cannot open for {}", path, write ? "writing" : "reading"), err);
}

// open(2) that can neither block nor be redirected: O_NONBLOCK so a FIFO (or a path swapped for
// one after the checks) returns at once instead of waiting for a peer, O_NOFOLLOW so a link
// swapped in is not followed. The type is checked on the open descriptor, so what is checked is
// what is used; O_NONBLOCK is cleared again for the file or device that passes.
Result<int> OpenTarget(const std::string& path, bool write, int flags) {
  const int fd = ::open(path.c_str(), flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int err = errno;
    return OpenFailure(path, write, err);
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Fail(path + ": fstat", err);
  }
  if (S_ISDIR(st.st_mode) || !UsableType(st.st_mode)) {
    ::close(fd);
    return Fail(path + ": " + (S_ISDIR(st.st_mode) ? "is a directory" : kNotAFile));
  }
  const int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    const int err = errno;
    ::close(fd);
    return Fail(path + ": fcntl(clear O_NONBLOCK)", err);
  }
  return fd;
}

}  // namespace

std::string FilesystemName(int fd) {
  struct statfs fs {};
  if (fstatfs(fd, &fs) != 0) return "";
  for (const FsName& f : kFilesystems) {
    if (static_cast<int64_t>(fs.f_type) == f.magic) return f.name;
  }
  return fmt::format("0x{:x}", static_cast<uint64_t>(fs.f_type));
}

std::optional<std::string> RefuseForFile(const FileOptions& options, const record::TestSpec& spec) {
  if (!options.enabled()) return std::nullopt;
  if (spec.transport != record::Transport::kTcp) {
    return "-F " + options.path + ": the file works with TCP tests only";
  }
  if (spec.direction == record::Direction::kBidirectional) {
    return "-F " + options.path + ": --bidir would read and write the same file at once";
  }
  return std::nullopt;
}

FileCheck CheckFileTarget(const FileOptions& options, bool write) {
  const std::string& path = options.path;
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    return {FileProblem::kUsage, fmt::format("-F {}: is a directory (-F takes a file)", path)};
  }
  if (exists && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) {
    return {
        FileProblem::kUsage,
        fmt::format("-F {}: not a regular file or a device (a FIFO or socket would block)", path)};
  }
  if (!write && !exists) {
    const int err = errno;
    return {FileProblem::kEnvironment, "-F " + OpenError(path, false, err)};
  }
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    return {FileProblem::kUsage,
            fmt::format("-F {}: is a symbolic link (-F does not follow links; give the file's "
                        "own path)",
                        path)};
  }
  auto fd = OpenTarget(path, write, write ? (O_WRONLY | O_CREAT) : O_RDONLY);
  if (!fd) {
    const int err = fd.error().sys_errno;
    if (err == EISDIR) return {FileProblem::kUsage, fmt::format("-F {}: is a directory", path)};
    return {err == 0 ? FileProblem::kUsage : FileProblem::kEnvironment,
            "-F " + fd.error().ToString()};
  }
  ::close(*fd);
  return {};
}

Result<TimedFile> TimedFile::Open(const std::string& path, bool write, bool direct) {
  TimedFile f;
  f.write_ = write;
  const int flags = write ? (O_WRONLY | O_CREAT | O_TRUNC) : O_RDONLY;
  Result<int> opened = Fail("");
  if (direct) {
    opened = OpenTarget(path, write, flags | O_DIRECT);
    f.direct_ = opened.has_value();
    if (!opened && opened.error().sys_errno != EINVAL) return tl::unexpected(opened.error());
  }
  if (!opened) opened = OpenTarget(path, write, flags);
  if (!opened) return tl::unexpected(opened.error());
  const int fd = *opened;
  f.fd_.Reset(fd);
  struct stat st {};
  if (fstat(fd, &st) != 0) return FailErrno(path + ": fstat");
  record::FileRecord& info = f.info_;
  info.path = path;
  info.write = write;
  info.streams = 1;
  info.filesystem = FilesystemName(fd);
  info.direct_requested = direct;
  info.direct_used = f.direct_;
  if (direct && !f.direct_) {
    info.notes.push_back(
        fmt::format("--direct: {} does not support O_DIRECT; the page cache was used",
                    info.filesystem.empty() ? "the filesystem" : info.filesystem));
  } else if (f.direct_ && (info.filesystem == "tmpfs" || info.filesystem == "ramfs")) {
    // Linux 6.6 and later accept O_DIRECT on tmpfs; the file is memory all the same.
    info.notes.push_back("--direct: " + info.filesystem +
                         " accepts O_DIRECT, but the file is "
                         "memory: the rate is memory's, not a disk's");
  }
  if (S_ISCHR(st.st_mode)) {
    info.notes.push_back("a character device (" + path + "): no disk behind it");
  }
  f.regular_ = S_ISREG(st.st_mode);
  if (!write && S_ISREG(st.st_mode)) {
    info.size_at_open = static_cast<uint64_t>(st.st_size);
    info.allocated_bytes = static_cast<uint64_t>(st.st_blocks) * 512;
    if (info.allocated_bytes + kDirectAlignment < info.size_at_open) {
      info.notes.push_back(fmt::format(
          "sparse: {} of its {} are allocated; holes read as zeros without touching the disk",
          FormatBytes(static_cast<double>(info.allocated_bytes)),
          FormatBytes(static_cast<double>(info.size_at_open))));
    }
  }
  if (write && f.direct_) {
    auto stage = MakeAlignedBuffer(kDirectStageBytes);
    if (!stage) return tl::unexpected(stage.error());
    f.stage_ = std::move(*stage);
  }
  return f;
}

Result<size_t> TimedFile::Read(uint8_t* buf, size_t len) {
  for (;;) {
    const uint64_t t0 = NowNs();
    const ssize_t n = ::read(fd_.get(), buf, len);
    call_ns_ += NowNs() - t0;
    if (n == 0) AtEnd();
    if (n >= 0) {
      bytes_ += static_cast<uint64_t>(n);
      offset_ += static_cast<uint64_t>(n);
      return static_cast<size_t>(n);
    }
    const int err = errno;
    if (err == EINTR) continue;
    return Fail(fmt::format("{}: read after {} bytes", info_.path, offset_), err);
  }
}

bool TimedFile::Load(size_t len) {
  if (write_ || direct_ || !regular_ || len == 0) return false;
  // A tmpfs or ramfs file is memory: there is no disk to wait for, and populating mappings of
  // its pages only to drop them cost more than sending them (2 GiB from tmpfs: 0.29 s of
  // populate in a 1.15 s transfer).
  if (info_.filesystem == "tmpfs" || info_.filesystem == "ramfs") {
    in_memory_ = true;
    return true;
  }
  const auto page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t start = offset_ / page * page;
  const size_t span = static_cast<size_t>(offset_ + len - start);
  const uint64_t t0 = NowNs();
  void* map = ::mmap(nullptr, span, PROT_READ, MAP_SHARED, fd_.get(), static_cast<off_t>(start));
  int err = 0;
  if (map == MAP_FAILED) {
    err = errno;
  } else {
    // Past the file's end (it shrank, or this is its last chunk) the call stops with EFAULT
    // after loading what there is.
    if (::madvise(map, span, MADV_POPULATE_READ) != 0 && errno != EFAULT) err = errno;
    ::munmap(map, span);
  }
  call_ns_ += NowNs() - t0;
  if (err == 0) loaded_ = true;
  return loaded_;
}

Status TimedFile::WriteRaw(const uint8_t* buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    const uint64_t t0 = NowNs();
    const ssize_t n = ::write(fd_.get(), buf + done, len - done);
    call_ns_ += NowNs() - t0;
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      return Fail(fmt::format("{}: write after {} bytes", info_.path, offset_), err);
    }
    done += static_cast<size_t>(n);
    bytes_ += static_cast<uint64_t>(n);
    offset_ += static_cast<uint64_t>(n);
  }
  return Ok();
}

Status TimedFile::FlushStage(bool all) {
  const size_t aligned = stage_used_ / kDirectAlignment * kDirectAlignment;
  if (aligned > 0) {
    if (auto s = WriteRaw(stage_.get(), aligned); !s) return s;
    std::memmove(stage_.get(), stage_.get() + aligned, stage_used_ - aligned);
    stage_used_ -= aligned;
  }
  if (!all || stage_used_ == 0) return Ok();
  // The unaligned tail cannot go out with O_DIRECT: clear it for the last write.
  const int flags = fcntl(fd_.get(), F_GETFL);
  if (flags < 0 || fcntl(fd_.get(), F_SETFL, flags & ~O_DIRECT) != 0) {
    return FailErrno(info_.path + ": fcntl(clear O_DIRECT)");
  }
  auto s = WriteRaw(stage_.get(), stage_used_);
  stage_used_ = 0;
  return s;
}

Status TimedFile::Write(const uint8_t* buf, size_t len) {
  if (!direct_) return WriteRaw(buf, len);
  while (len > 0) {
    const size_t room = kDirectStageBytes - stage_used_;
    const size_t take = std::min(room, len);
    std::memcpy(stage_.get() + stage_used_, buf, take);
    stage_used_ += take;
    buf += take;
    len -= take;
    if (stage_used_ == kDirectStageBytes) {
      if (auto s = FlushStage(false); !s) return s;
    }
  }
  return Ok();
}

Status TimedFile::Finish() {
  if (!write_ || finished_) return Ok();
  finished_ = true;
  if (direct_) {
    if (auto s = FlushStage(true); !s) return s;
  }
  const uint64_t t0 = NowNs();
  const int r = ::fdatasync(fd_.get());
  const int err = errno;
  const uint64_t took = NowNs() - t0;
  call_ns_ += took;
  sync_ns_ += took;
  // A character device (-F /dev/null) has nothing to sync (EINVAL): not an error.
  if (r != 0 && err != EINVAL && err != EROFS) {
    return Fail(fmt::format("{}: fdatasync after {} bytes", info_.path, offset_), err);
  }
  return Ok();
}

void TimedFile::AtEnd() {
  if (write_ || info_.shrank || offset_ >= info_.size_at_open) return;
  info_.shrank = true;
  info_.notes.push_back(
      fmt::format("the file shrank while it was read: it ended after {} of the {} it had at open",
                  FormatBytes(static_cast<double>(offset_)),
                  FormatBytes(static_cast<double>(info_.size_at_open))));
}

record::FileRecord TimedFile::Record() const {
  record::FileRecord r = info_;
  r.bytes = bytes_;
  r.rate_measured = !untimed_ && !in_memory_;
  r.call_seconds = r.rate_measured ? static_cast<double>(call_ns_) / 1e9 : 0.0;
  r.sync_seconds = static_cast<double>(sync_ns_) / 1e9;
  if (in_memory_) {
    r.notes.emplace_back("sendfile(2) moved the pages of a " + info_.filesystem +
                         " file, which is memory: there is no disk time to measure");
  }
  if (loaded_ && !untimed_) {
    r.notes.emplace_back(
        "sendfile(2) moved the file's pages to the socket; the disk's time is that of bringing "
        "them into the page cache (MADV_POPULATE_READ)");
  }
  if (untimed_) {
    r.notes.emplace_back(
        "sendfile(2) moved the file's pages to the socket; the disk's own "
        "time is not separable from the network's");
  }
  return r;
}

void FileTransfer::Add(const record::FileRecord& stream) {
  std::lock_guard<std::mutex> lock(mu_);
  streams_.push_back(stream);
}

void FileTransfer::AddError(const std::string& error) {
  std::lock_guard<std::mutex> lock(mu_);
  errors_.push_back(error);
}

record::FileRecord FileTransfer::Record() const {
  std::lock_guard<std::mutex> lock(mu_);
  record::FileRecord out;
  out.path = options_.path;
  out.direct_requested = options_.direct;
  if (streams_.empty()) out.rate_measured = false;
  for (size_t i = 0; i < streams_.size(); ++i) {
    const record::FileRecord& s = streams_[i];
    if (i == 0) {
      out = s;
      out.streams = 0;
      out.bytes = 0;
      out.call_seconds = out.sync_seconds = 0;
      out.notes.clear();
    }
    out.streams += 1;
    out.bytes += s.bytes;
    out.call_seconds += s.call_seconds;
    out.sync_seconds += s.sync_seconds;
    out.rate_measured = out.rate_measured && s.rate_measured;
    out.shrank = out.shrank || s.shrank;
    out.direct_used = i == 0 ? s.direct_used : out.direct_used && s.direct_used;
    for (const std::string& note : s.notes) {
      if (std::find(out.notes.begin(), out.notes.end(), note) == out.notes.end())
        out.notes.push_back(note);
    }
  }
  if (!errors_.empty()) out.error = errors_.front();
  return out;
}

}  // namespace nicbench::engine

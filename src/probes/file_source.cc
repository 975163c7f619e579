#include "probes/file_source.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nicbench::probes {

Result<std::string> FileSource::ReadTrimmed(std::string_view path) {
  std::string text;
  if (auto status = ReadInto(path, text); !status) return tl::unexpected(status.error());
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

DirFileSource::DirFileSource(std::string root) : root_(std::move(root)) {
  while (!root_.empty() && root_.back() == '/') root_.pop_back();
  live_ = root_.empty();
}

std::string DirFileSource::Full(std::string_view path) const {
  std::string full = root_;
  full.append(path);
  return full;
}

Status DirFileSource::ReadInto(std::string_view path, std::string& out) {
  std::string full = Full(path);
  int fd = ::open(full.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return FailErrno("open " + full);
  // /proc files report size 0, so read until EOF. A seq_file fills the whole user buffer in
  // one read(), so with a warm buffer a file takes one read plus the EOF read.
  if (out.capacity() < 4096) out.reserve(4096);
  out.resize(out.capacity());
  size_t used = 0;
  while (true) {
    if (used == out.size()) out.resize(out.size() * 2);
    ssize_t n = ::read(fd, out.data() + used, out.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      auto failure = FailErrno("read " + full);
      ::close(fd);
      out.clear();
      return failure;
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(used);
  return Ok();
}

Result<std::vector<std::string>> DirFileSource::ListDir(std::string_view path) {
  std::string full = Full(path);
  DIR* dir = ::opendir(full.c_str());
  if (dir == nullptr) return FailErrno("opendir " + full);
  std::vector<std::string> names;
  while (struct dirent* entry = ::readdir(dir)) {
    if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
    names.emplace_back(entry->d_name);
  }
  ::closedir(dir);
  return names;
}

Result<std::string> DirFileSource::ReadLink(std::string_view path) {
  std::string full = Full(path);
  char buffer[PATH_MAX];
  ssize_t n = ::readlink(full.c_str(), buffer, sizeof buffer);
  if (n < 0) return FailErrno("readlink " + full);
  return std::string(buffer, static_cast<size_t>(n));
}

record::Missing MissingFromErrno(int sys_errno) {
  switch (sys_errno) {
    case EACCES:
    case EPERM: return record::Missing::kPermissionDenied;
    case ENOENT:
    case ENOTDIR:
    case ENODEV:
    case EOPNOTSUPP: return record::Missing::kNotSupported;
    default: return record::Missing::kError;
  }
}

}  // namespace nicbench::probes

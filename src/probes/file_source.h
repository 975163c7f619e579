// FileSource: the seam through which the probes read /proc and /sys. The live source reads the
// running machine ("/"); a source rooted at a directory reads a captured tree (a snapshot a user
// sent, or a test fixture) through the same parsers. Paths are always given as on a live system
// ("/proc/stat"); the source prefixes its root.
// Thread safety: a FileSource is not shared between threads; each reader holds its own.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "record/measured.h"

namespace nicbench::probes {

class FileSource {
 public:
  virtual ~FileSource() = default;

  // Replaces `out` with the whole content of `path`, reusing its capacity (the sampler calls
  // this for every file at every interval boundary, so it must not allocate once warm).
  virtual Status ReadInto(std::string_view path, std::string& out) = 0;

  // Names in a directory, without "." and "..", in no particular order.
  virtual Result<std::vector<std::string>> ListDir(std::string_view path) = 0;

  // Target of a symbolic link, as stored (often relative, e.g. "../../../virtio2").
  virtual Result<std::string> ReadLink(std::string_view path) = 0;

  // True when this source is the running machine, so ioctls and netlink describe the same
  // host as the files. False for a captured tree: only what the files hold is known.
  virtual bool IsLive() const = 0;

  // The directory the paths are read under ("/" live, DIR for --root DIR), for a library that
  // reads the tree itself (libpci); nullopt for a source that is not a directory tree.
  virtual std::optional<std::string> DirectoryRoot() const { return std::nullopt; }

  // Convenience: the content of a small file with trailing newlines removed.
  Result<std::string> ReadTrimmed(std::string_view path);
};

// Reads files under `root` ("/" for the live machine) with open/read/close.
class DirFileSource final : public FileSource {
 public:
  explicit DirFileSource(std::string root = "/");
  Status ReadInto(std::string_view path, std::string& out) override;
  Result<std::vector<std::string>> ListDir(std::string_view path) override;
  Result<std::string> ReadLink(std::string_view path) override;
  bool IsLive() const override { return live_; }
  std::optional<std::string> DirectoryRoot() const override {
    return root_.empty() ? std::string("/") : root_;
  }

 private:
  std::string Full(std::string_view path) const;

  std::string root_;  // without trailing slash; empty for the live machine
  bool live_ = true;
};

// Maps an error of a read to the reason a value is unknown: EACCES/EPERM -> kPermissionDenied,
// ENOENT/ENOTDIR/EOPNOTSUPP -> kNotSupported, anything else -> kError; detail is the message.
record::Missing MissingFromErrno(int sys_errno);

template <typename T>
record::Measured<T> UnknownFrom(const Error& error) {
  return record::Measured<T>::Unknown(MissingFromErrno(error.sys_errno), error.ToString());
}

}  // namespace nicbench::probes

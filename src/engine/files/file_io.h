// File I/O for -F (iperf3's --file) and `nicbench disk`: a file opened for sequential reading or
// writing whose calls are timed, so the bytes they moved divided by the time spent in them is
// the disk's own rate (through the page cache, or without it with O_DIRECT). Writes end with a
// fdatasync(2) that counts in the time, as `dd conv=fdatasync` counts it.
//
// Thread safety: a TimedFile belongs to one thread (a flow's worker, or the disk command).
// FileTransfer (one per test end, shared by its flows) takes reports from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/files/aligned_buffer.h"
#include "net/unique_fd.h"
#include "record/file_record.h"
#include "record/test_spec.h"

namespace nicbench::engine {

// What -F and --direct asked for on one end.
struct FileOptions {
  std::string path;     // empty = no file
  bool direct = false;  // O_DIRECT where the filesystem supports it
  bool enabled() const { return !path.empty(); }
};

// O_DIRECT wants buffers, lengths and offsets aligned to the logical block size; a page
// (kBufferAlignment, 4096) covers every common device.
inline constexpr size_t kDirectAlignment = kBufferAlignment;

// Checks a -F target before any test: a directory or a FIFO is a usage problem (exit 2), a file
// that cannot be opened (missing, no permission, read-only filesystem) an environment problem
// (exit 3). A write check creates the file (the test would), never truncates it.
enum class FileProblem { kNone, kUsage, kEnvironment };
struct FileCheck {
  FileProblem problem = FileProblem::kNone;
  std::string message;  // "-F /tmp: is a directory"
};
FileCheck CheckFileTarget(const FileOptions& options, bool write);

// Why a test cannot use -F at all (UDP; --bidir, which would read and write one file
// at once), or nullopt.
std::optional<std::string> RefuseForFile(const FileOptions& options, const record::TestSpec& spec);

// The filesystem's name from statfs(2) f_type ("ext4", "tmpfs", "xfs", ...), or "" if unknown.
std::string FilesystemName(int fd);

class TimedFile {
 public:
  // Opens for reading (O_RDONLY) or writing (O_WRONLY|O_CREAT|O_TRUNC, mode 0600, as iperf3).
  // With `direct`, O_DIRECT is tried first; a filesystem that refuses it (tmpfs) is opened
  // without, with a note saying so.
  static Result<TimedFile> Open(const std::string& path, bool write, bool direct);

  // read(2) of up to `len` bytes; 0 = end of file. Direct: `buf` and `len` must be aligned.
  Result<size_t> Read(uint8_t* buf, size_t len);
  // Writes all of it (repeats short writes). Direct mode stages into an aligned buffer and
  // writes whole aligned chunks; Finish writes the rest.
  Status Write(const uint8_t* buf, size_t len);
  // Writes what direct mode still holds (O_DIRECT cleared for the unaligned tail), then
  // fdatasync(2); both timed. Idempotent.
  Status Finish();

  int fd() const { return fd_.get(); }
  uint64_t bytes() const { return bytes_; }
  uint64_t offset() const { return offset_; }
  uint64_t call_ns() const { return call_ns_; }
  uint64_t sync_ns() const { return sync_ns_; }
  bool direct_used() const { return direct_; }
  // The record of this file alone (one stream); FileTransfer sums several.
  record::FileRecord Record() const;
  // The end of the file was reached (a read returned 0, or sendfile did): notes a file that
  // ended before the size it had at open.
  void AtEnd();
  // Brings the `len` bytes from offset() into the page cache, mapped nowhere: mmap(2),
  // MADV_POPULATE_READ (which waits for the disk as read(2) would), munmap(2), timed as a file
  // call. sendfile(2) then moves those pages to the socket without a copy, and the disk's rate
  // is still the bytes over the time in file calls. False when this file cannot be loaded so
  // (not a regular file, O_DIRECT, a kernel before 5.14) and nothing was loaded yet: the
  // caller reads instead. Past the first load a failure is left to sendfile(2) to report (a
  // file that shrank, an I/O error). A tmpfs or ramfs file is memory: nothing is loaded, and
  // the rate is reported as not measured.
  bool Load(size_t len);
  // Counts bytes sendfile(2) moved from pages Load brought in.
  void CountLoaded(uint64_t n) {
    bytes_ += n;
    offset_ += n;
  }
  // Counts bytes moved by sendfile(2) without Load (-Z where Load cannot): the file's own
  // time is not measurable then.
  void CountUntimed(uint64_t n) {
    bytes_ += n;
    offset_ += n;
    untimed_ = true;
  }

 private:
  TimedFile() = default;
  Status WriteRaw(const uint8_t* buf, size_t len);
  Status FlushStage(bool all);

  net::UniqueFd fd_;
  record::FileRecord info_;  // facts at open: path, size, allocation, filesystem, notes
  bool write_ = false;
  bool direct_ = false;
  bool finished_ = false;
  bool untimed_ = false;
  bool regular_ = false;    // a regular file (Load needs one)
  bool loaded_ = false;     // Load has worked on this file
  bool in_memory_ = false;  // Load found a tmpfs or ramfs file: nothing to load
  uint64_t bytes_ = 0, offset_ = 0, call_ns_ = 0, sync_ns_ = 0;
  AlignedBuffer stage_;  // direct writes only
  size_t stage_used_ = 0;
};

// The flows of one test end report their files here at the end; Record() sums them.
class FileTransfer {
 public:
  explicit FileTransfer(FileOptions options) : options_(std::move(options)) {}
  const FileOptions& options() const { return options_; }
  void Add(const record::FileRecord& stream);
  // Adds an error that ended a stream ("write: No space left on device").
  void AddError(const std::string& error);
  record::FileRecord Record() const;

 private:
  const FileOptions options_;
  mutable std::mutex mu_;
  std::vector<record::FileRecord> streams_;
  std::vector<std::string> errors_;
};

}  // namespace nicbench::engine

// FileRecord: what one end's -F file did during a test (iperf3's --file): how many bytes the
// file calls moved and how long those calls took, so a report can set the disk's own rate
// beside the network's. Plain value; the engine fills it, diagnosis and report read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nicbench::record {

struct FileRecord {
  std::string path;
  bool write = false;  // false: the file was read (this end sent); true: written
  int streams = 0;     // flows that used the file (each opens it, as iperf3 does)
  uint64_t bytes = 0;  // read from or written to the file, all streams
  // Seconds spent inside read(2)/write(2) on the file, summed over the streams, plus (writes)
  // the fdatasync(2) at the end, which is also in sync_seconds. 0 when not measured (-Z).
  double call_seconds = 0;
  double sync_seconds = 0;
  bool rate_measured = true;       // false with -Z: sendfile(2) moves file and network together
  uint64_t size_at_open = 0;       // st_size when the first stream opened it (a read)
  uint64_t allocated_bytes = 0;    // st_blocks * 512 at open: less than the size = sparse
  bool direct_requested = false;   // --direct
  bool direct_used = false;        // O_DIRECT was accepted by the filesystem
  std::string filesystem;          // "ext4", "tmpfs", ... from statfs(2), "" = unknown
  bool shrank = false;             // a read ended before size_at_open: the file was cut meanwhile
  std::vector<std::string> notes;  // one line each: sparse, O_DIRECT refused, shrank, ...
  std::string error;               // a failed file call (disk full, I/O error, sync), "" = none

  // Bytes per second of file calls, 0 when unknown.
  double BytesPerSecond() const {
    return rate_measured && call_seconds > 0 ? static_cast<double>(bytes) / call_seconds : 0.0;
  }
};

}  // namespace nicbench::record

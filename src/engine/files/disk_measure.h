// `nicbench disk`: a file's sequential write and read rate alone, as `dd` measures it, with the
// same definitions as -F (engine/file_io.h): bytes over the time inside the file calls, a
// fdatasync at the end of the write counted in, O_DIRECT with --direct where the filesystem
// has it. Runs on the calling thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "record/file_record.h"

namespace nicbench::engine {

struct DiskTestSpec {
  std::string path;  // a file (new: written then read; existing: only read) or a directory
  uint64_t size = 256u << 20;  // bytes to write (and at most to read)
  uint32_t block_bytes = 1u << 20;
  bool direct = false;
  bool keep = false;  // keep a file this test created
};

struct DiskTestResult {
  std::string file;                         // the file measured (a temporary one in a directory)
  std::optional<record::FileRecord> write;  // absent: an existing file is never overwritten
  std::optional<record::FileRecord> read;
  std::vector<std::string> notes;
  std::string error;  // a file call failed mid-test (disk full, I/O error): exit 1
};

// Fails (exit 3 for the cli) when the target cannot be opened or created at all; a failure
// after data moved is in DiskTestResult::error with the figures up to it.
Result<DiskTestResult> RunDiskTest(const DiskTestSpec& spec);

}  // namespace nicbench::engine

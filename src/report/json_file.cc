// iperf3's end.streams[].diskfile member for -F (what iperf3 -J writes when it used a file),
// from the local end's file record. The file's own timing is beside it, in local.file.
#include <algorithm>

#include "report/json_parts.h"

namespace nicbench::report::json_parts {

void PutDiskfile(Json& stream, const record::RunRecord& run, const record::StreamTotals& s) {
  if (!run.local.file) return;
  const record::FileRecord& f = *run.local.file;
  // iperf3's size: the file's length (a written file: what this stream wrote into it).
  const uint64_t size = f.write ? f.bytes / std::max(f.streams, 1) : f.size_at_open;
  auto percent = [size](uint64_t bytes) {
    return size == 0 ? 0 : static_cast<int>(bytes * 100 / size);
  };
  stream["diskfile"] = Json{{"sent", s.bytes_sent},
                            {"received", s.bytes_received},
                            {"size", size},
                            {"percent_sent", percent(s.bytes_sent)},
                            {"percent_received", percent(s.bytes_received)},
                            {"filename", f.path}};
}

}  // namespace nicbench::report::json_parts

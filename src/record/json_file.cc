// JSON form of the -F file record (file_record.h). Member names are the field names; rates are
// derived (bytes_per_second) and written for readers, never read back.
#include <nlohmann/json.hpp>

#include "record/json.h"
#include "record/json_internal.h"

namespace nicbench::record {

using json_detail::Num;
using json_detail::ReadRequired;
using json_detail::RequireObject;
using nlohmann::json;

void to_json(json& j, const FileRecord& v) {
  j = json{{"path", v.path},
           {"mode", v.write ? "write" : "read"},
           {"streams", v.streams},
           {"bytes", v.bytes},
           {"call_seconds", Num(v.call_seconds)},
           {"sync_seconds", Num(v.sync_seconds)},
           {"rate_measured", v.rate_measured},
           {"bytes_per_second", v.rate_measured ? Num(v.BytesPerSecond()) : json(nullptr)},
           {"size_at_open", v.size_at_open},
           {"allocated_bytes", v.allocated_bytes},
           {"direct_requested", v.direct_requested},
           {"direct_used", v.direct_used},
           {"filesystem", v.filesystem},
           {"shrank", v.shrank},
           {"notes", v.notes},
           {"error", v.error}};
}

void from_json(const json& j, FileRecord& v) {
  RequireObject(j);
  ReadRequired(j, "path", v.path);
  std::string mode;
  ReadRequired(j, "mode", mode);
  if (mode != "read" && mode != "write") {
    throw json_detail::ShapeError("mode", "expected \"read\" or \"write\"");
  }
  v.write = mode == "write";
  ReadRequired(j, "streams", v.streams);
  ReadRequired(j, "bytes", v.bytes);
  ReadRequired(j, "call_seconds", v.call_seconds);
  ReadRequired(j, "sync_seconds", v.sync_seconds);
  ReadRequired(j, "rate_measured", v.rate_measured);
  ReadRequired(j, "size_at_open", v.size_at_open);
  ReadRequired(j, "allocated_bytes", v.allocated_bytes);
  ReadRequired(j, "direct_requested", v.direct_requested);
  ReadRequired(j, "direct_used", v.direct_used);
  ReadRequired(j, "filesystem", v.filesystem);
  ReadRequired(j, "shrank", v.shrank);
  ReadRequired(j, "notes", v.notes);
  ReadRequired(j, "error", v.error);
}

}  // namespace nicbench::record

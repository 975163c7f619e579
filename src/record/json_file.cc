// JSON form of the -F file record (file_record.h). Member names are the field names; rates are
// derived (bytes_per_second) and written for readers, never read back.
#include <nlohmann/json.hpp>

#include "record/json.h"
#include "record/json_internal.h"

namespace nicbench::record {

using json_detail::Field;
using json_detail::Num;
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
  Field(j, "path", v.path);
  std::string mode;
  Field(j, "mode", mode);
  if (mode != "read" && mode != "write") {
    throw json_detail::ShapeError("mode", "expected \"read\" or \"write\"");
  }
  v.write = mode == "write";
  Field(j, "streams", v.streams);
  Field(j, "bytes", v.bytes);
  Field(j, "call_seconds", v.call_seconds);
  Field(j, "sync_seconds", v.sync_seconds);
  Field(j, "rate_measured", v.rate_measured);
  Field(j, "size_at_open", v.size_at_open);
  Field(j, "allocated_bytes", v.allocated_bytes);
  Field(j, "direct_requested", v.direct_requested);
  Field(j, "direct_used", v.direct_used);
  Field(j, "filesystem", v.filesystem);
  Field(j, "shrank", v.shrank);
  Field(j, "notes", v.notes);
  Field(j, "error", v.error);
}

}  // namespace nicbench::record

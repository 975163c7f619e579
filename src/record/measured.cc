#include "record/measured.h"

namespace nicbench::record {

const char* MissingName(Missing why) {
  switch (why) {
    case Missing::kNotSupported: return "not supported";
    case Missing::kPermissionDenied: return "permission denied";
    case Missing::kAbsent: return "not present";
    case Missing::kNotReported: return "not reported by peer";
    case Missing::kError: return "read error";
  }
  return "unknown";
}

}  // namespace nicbench::record

// The bytes a sender repeats or a disk test writes (engine/datapath/flow_payload.h,
// engine/files/disk_measure.h). A free function; thread-safe.
#pragma once

#include <cstdint>
#include <span>

#include "base/result.h"

namespace nicbench::engine {

// Random bytes from getrandom(2), or "0123456789" repeated when `repeating` (iperf3's
// --repeating-payload, which compresses well on links that compress).
Status FillPayload(std::span<uint8_t> buffer, bool repeating);

}  // namespace nicbench::engine

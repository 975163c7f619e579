// The payload a sender repeats: filled once at flow creation, as iperf3 does (spec section 8),
// so the hot loop never touches it. Free functions; thread-safe.
#pragma once

#include <cstdint>
#include <span>

#include "base/result.h"
#include "net/unique_fd.h"

namespace nicbench::engine {

// Random bytes from getrandom(2), or "0123456789" repeated when `repeating` (iperf3's
// --repeating-payload, which compresses well on links that compress).
Status FillPayload(std::span<uint8_t> buffer, bool repeating);

// A memfd holding `block`, for sendfile(2): the zero-copy source iperf3 -Z gets from a temp file.
Result<net::UniqueFd> MakeBlockMemfd(std::span<const uint8_t> block);

}  // namespace nicbench::engine

// The payload a sender repeats: filled once at flow creation, as iperf3 does (spec section 8),
// so the hot loop never touches it. Free functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <vector>

#include "base/result.h"
#include "net/unique_fd.h"

namespace nicbench::engine {

// Random bytes from getrandom(2), or "0123456789" repeated when `repeating` (iperf3's
// --repeating-payload, which compresses well on links that compress).
Status FillPayload(std::span<uint8_t> buffer, bool repeating);

// A memfd holding `block`, for sendfile(2): the zero-copy source iperf3 -Z gets from a temp file.
Result<net::UniqueFd> MakeBlockMemfd(std::span<const uint8_t> block);

// What a TCP sender repeats. Read-only once made, so every sending stream of a test shares one:
// 128 streams of 16 MiB blocks cost 16 MiB, not 2 GiB (a hostile `-R -P 128 -l 16M` that never
// reads made a server hold one block per stream).
struct Payload {
  std::vector<uint8_t> block;
  net::UniqueFd memfd;  // a copy of `block` for sendfile(2) (ZeroCopy::kSendfile), else empty
};

// The payloads of one test (owned by its DataPath), one per (length, fill, memfd) asked for.
// Thread safety: Get from the controller thread only (flows are made before the workers start).
class PayloadCache {
 public:
  Result<std::shared_ptr<const Payload>> Get(uint32_t bytes, bool repeating, bool with_memfd);

 private:
  std::map<std::tuple<uint32_t, bool, bool>, std::shared_ptr<const Payload>> payloads_;
};

}  // namespace nicbench::engine

// The EXCHANGE_RESULTS document either end receives (protocol/results.h), as text. What decodes
// must encode and decode again with the same streams, as the 3.12 reader on the other end would
// read what we send.
#include "fuzz_input.h"
#include "protocol/results.h"

namespace wire = nicbench::protocol;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto decoded = wire::DecodeResults(nicbench::fuzz::Text(data, size));
  if (!decoded) return 0;
  auto again = wire::DecodeResults(wire::EncodeResults(*decoded).dump());
  NICBENCH_FUZZ_CHECK(again.has_value());
  NICBENCH_FUZZ_CHECK(again->streams.size() == decoded->streams.size());
  for (size_t i = 0; i < again->streams.size(); ++i) {
    NICBENCH_FUZZ_CHECK(again->streams[i].id == decoded->streams[i].id);
    NICBENCH_FUZZ_CHECK(again->streams[i].bytes == decoded->streams[i].bytes);
  }
  return 0;
}

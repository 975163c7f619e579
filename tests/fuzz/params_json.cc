// The parameter JSON a client sends (protocol/params.h), as text. A document that decodes and
// passes Validate is what a server would run: encoding its spec again must give a document that
// decodes to the same numbers, or client and server would disagree about the test.
#include "fuzz_input.h"
#include "protocol/params.h"
#include "record/test_spec.h"

namespace wire = nicbench::protocol;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto decoded = wire::DecodeParams(nicbench::fuzz::Text(data, size));
  if (!decoded || nicbench::record::Validate(decoded->spec)) return 0;
  const std::string again = wire::EncodeParams(decoded->spec, decoded->ext).dump();
  auto redecoded = wire::DecodeParams(again);
  NICBENCH_FUZZ_CHECK(redecoded.has_value());
  NICBENCH_FUZZ_CHECK(redecoded->spec.parallel == decoded->spec.parallel);
  NICBENCH_FUZZ_CHECK(redecoded->spec.transport == decoded->spec.transport);
  NICBENCH_FUZZ_CHECK(redecoded->spec.direction == decoded->spec.direction);
  return 0;
}

// The record JSON reader (record/json.h): the store's run records (a shared PostgreSQL store, or
// an SQLite file someone sent), the EndpointRecord a peer sends in its results, the live
// samples, the facts. The text is parsed as the store parses it (nlohmann::json::parse without
// exceptions), then read by each trust-boundary reader; what reads must write and read back to
// the same document, or a record would change on its way through the store.
#include <nlohmann/json.hpp>

#include "fuzz_input.h"
#include "record/json.h"

namespace record = nicbench::record;
using nlohmann::json;

namespace {

template <typename T, typename Reader>
void RoundTrip(const json& doc, Reader read) {
  auto first = read(doc);
  if (!first) {
    NICBENCH_FUZZ_CHECK(!first.error().message.empty());
    return;
  }
  const json written = *first;
  auto second = read(written);
  NICBENCH_FUZZ_CHECK(second.has_value());
  NICBENCH_FUZZ_CHECK(json(*second) == written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const json doc = json::parse(nicbench::fuzz::Text(data, size), nullptr, false);
  if (doc.is_discarded()) return 0;
  RoundTrip<record::RunRecord>(doc, record::RunRecordFromJson);
  RoundTrip<record::EndpointRecord>(doc, record::EndpointFromJson);
  RoundTrip<record::NicFacts>(doc, record::NicFactsFromJson);
  RoundTrip<record::HostInterval>(doc, record::HostIntervalFromJson);
  return 0;
}

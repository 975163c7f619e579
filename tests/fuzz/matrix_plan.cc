// The matrix plan (cli/matrix_plan.h). A JSON input is an experiment's stored definition, which
// `nicbench matrix --resume` reads back from the store (shared, so outside bytes): whatever
// DefinitionFromJson accepts must plan without reaching past its variants. Any other input is
// a list of --vary arguments, one a line, planned as the command plans them.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/matrix_plan.h"
#include "fuzz_input.h"

namespace cli = nicbench::cli;

namespace {

// What `nicbench matrix` does with a plan: every scheduled run's arguments, labels and the
// setup command with its placeholders filled.
void Plan(const cli::MatrixDefinition& d) {
  auto roles = cli::Classify(d.varies, false, d.setup, d.teardown);
  if (!roles) return;
  const std::vector<cli::Variant> variants = cli::CrossProduct(d.varies);
  const auto schedule = d.schedule.empty()
                            ? cli::Schedule(static_cast<int>(variants.size()), d.repeat, d.seed)
                            : d.schedule;
  for (size_t round = 0; round < schedule.size(); ++round) {
    for (const int v : schedule[round]) {
      NICBENCH_FUZZ_CHECK(v >= 0 && static_cast<size_t>(v) < variants.size());
      const cli::Variant& variant = variants[static_cast<size_t>(v)];
      (void)cli::RunArguments(d.host, d.run_options, variant, *roles);
      (void)cli::RunLabels(1, static_cast<int>(round) + 1, v + 1, variant);
      (void)cli::Substitute(d.setup, variant);
      (void)cli::VariantName(variant);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = nicbench::fuzz::Text(data, size);
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_discarded()) {
    if (auto d = cli::DefinitionFromJson(doc)) Plan(*d);
    return 0;
  }
  cli::MatrixDefinition d;
  d.repeat = 2;
  d.setup = "echo {tso} {mtu}";
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto vary = cli::ParseVary(text.substr(start, end - start));
    if (!vary) return 0;
    d.varies.push_back(std::move(*vary));
    start = end + 1;
  }
  Plan(d);
  return 0;
}

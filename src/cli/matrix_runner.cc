#include "cli/matrix_runner.h"

#include <cstdio>

#include <fmt/format.h>

#include "cli/child_process.h"
#include "cli/selector.h"

namespace nicbench::cli {
namespace {

Result<std::vector<store::RunSummary>> ExperimentRuns(const MatrixContext& ctx) {
  store::RunQuery query;
  query.experiment = ctx.experiment;
  return ctx.store->Find(query);
}

// The stand spec a variant asks for: the stand's own, with the variant's toggles.
stand::StandSpec WantedSpec(const MatrixContext& ctx, const Variant& variant) {
  stand::StandSpec spec = ctx.stand->spec;
  for (size_t i = 0; i < variant.size(); ++i) {
    if (ctx.roles[i].kind != VaryKind::kStand) continue;
    const auto& [name, value] = variant[i];
    const stand::Toggle toggle = value == "on" ? stand::Toggle::kOn : stand::Toggle::kOff;
    if (name == "tso") spec.offloads.tso = toggle;
    if (name == "gso") spec.offloads.gso = toggle;
    if (name == "gro") spec.offloads.gro = toggle;
    if (name == "mtu") spec.mtu = std::stoi(value);
    if (name == "profile") spec.profile = *stand::ParseProfile(value);
    if (name == "queue") {
      auto kind = stand::ParseQueueKind(value);  // "fifo" is the shaper's own queue: none
      spec.queue = kind ? std::optional(*kind) : std::nullopt;
      if (kind) spec.queue_limit.reset();  // the kind replaces the FIFO it sizes
    }
  }
  return spec;
}

// Runs a --setup/--teardown command with the variant's values; "" when it succeeded.
std::string RunUserCommand(const char* which, const std::string& command, const Variant& v) {
  if (command.empty()) return "";
  const std::string text = Substitute(command, v);
  auto status = RunChild({"/bin/sh", "-c", text}, ChildStdout::kToStderr);
  if (!status) return fmt::format("{} could not run: {}", which, status.error().ToString());
  if (*status != 0) return fmt::format("{} exited with status {}: {}", which, *status, text);
  return "";
}

std::vector<std::string> ChildArgv(const MatrixContext& ctx, int round, int v) {
  std::vector<std::string> argv = {SelfPath(), "run"};
  for (std::string& a :
       RunArguments(ctx.definition.host, ctx.definition.run_options, ctx.variants[v], ctx.roles)) {
    argv.push_back(std::move(a));
  }
  argv.insert(argv.end(), {"--store", ctx.location});
  for (const auto& [key, value] : RunLabels(ctx.experiment, round, v + 1, ctx.variants[v])) {
    argv.insert(argv.end(), {"--label", key + "=" + value});
  }
  return argv;
}

// The matrix job's steps as `nicbench matrix` takes them: child processes, the interrupt that
// BlockInterrupts holds back, stderr for progress.
class ChildSteps final : public job::MatrixSteps {
 public:
  explicit ChildSteps(const MatrixContext& ctx) : ctx_(ctx) {}

  std::string Setup(int v) override {
    return RunUserCommand("--setup", ctx_.definition.setup, ctx_.variants[v]);
  }
  std::string Teardown(int v) override {
    return RunUserCommand("--teardown", ctx_.definition.teardown, ctx_.variants[v]);
  }
  Result<int> Test(int round, int v) override {
    return RunChild(ChildArgv(ctx_, round, v), ChildStdout::kDiscard);
  }
  bool Interrupted() override { return TakeInterrupt(); }
  void Starting(int count, int total, int round, int v) override {
    std::fprintf(stderr, "nicbench matrix %lld: run %d/%d: variant %d (%s), round %d\n",
                 static_cast<long long>(ctx_.experiment), count, total, v + 1,
                 VariantName(ctx_.variants[v]).c_str(), round);
  }
  void Note(const std::string& text) override {
    std::fprintf(stderr, "nicbench matrix: %s\n", text.c_str());
  }

 private:
  const MatrixContext& ctx_;
};

bool VariesShape(const MatrixContext& ctx) {
  for (const Vary& v : ctx.definition.varies) {
    if (v.name == "mtu" || v.name == "profile" || v.name == "queue") return true;
  }
  return false;
}

}  // namespace

MatrixOutcome RunRemaining(const MatrixContext& ctx) {
  job::MatrixJobSpec spec;
  spec.experiment = ctx.experiment;
  spec.schedule = ctx.definition.schedule;
  spec.stand = ctx.stand;
  spec.varies_shape = VariesShape(ctx);
  spec.store = ctx.store;
  for (const Variant& variant : ctx.variants) {
    job::MatrixVariant v{VariantName(variant), std::nullopt};
    if (ctx.stand) v.stand = WantedSpec(ctx, variant);
    spec.variants.push_back(std::move(v));
  }
  ChildSteps steps(ctx);
  return job::RunMatrix(spec, steps);
}

Result<report::MatrixTable> BuildTable(const MatrixContext& ctx) {
  auto runs = ExperimentRuns(ctx);
  if (!runs) return tl::unexpected(runs.error());
  auto inputs = LoadInputs(*ctx.store, *runs);
  if (!inputs) return tl::unexpected(inputs.error());
  std::vector<std::vector<const analysis::RunInput*>> by_variant(ctx.variants.size());
  for (size_t i = 0; i < runs->size(); ++i) {
    const int v = job::LabelNumber((*runs)[i].labels, "variant");
    if (v >= 1 && v <= static_cast<int>(by_variant.size())) {
      by_variant[v - 1].push_back(&(*inputs)[i]);
    }
  }
  report::MatrixTable table;
  table.experiment = ctx.experiment;
  table.seed = ctx.definition.seed;
  for (size_t v = 0; v < ctx.variants.size(); ++v) {
    table.variants.push_back(VariantName(ctx.variants[v]));
    table.versus_first.push_back(analysis::CompareInputs(by_variant[0], by_variant[v]));
  }
  return table;
}

Result<std::optional<report::MatrixTable>> StoredExperimentTable(store::Store& store, int64_t id) {
  auto found = store.GetExperiment(id);
  if (!found) return tl::unexpected(found.error());
  if (!*found) return std::optional<report::MatrixTable>();
  auto definition = DefinitionFromJson((*found)->definition);
  if (!definition) {
    return Fail(fmt::format("experiment {}: {}", id, definition.error().message));
  }
  MatrixContext ctx;
  ctx.store = &store;
  ctx.experiment = id;
  ctx.variants = CrossProduct(definition->varies);
  ctx.definition = std::move(*definition);
  auto table = BuildTable(ctx);
  if (!table) return tl::unexpected(table.error());
  return std::optional<report::MatrixTable>(std::move(*table));
}

}  // namespace nicbench::cli

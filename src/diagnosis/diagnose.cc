#include "diagnosis/diagnose.h"

#include <algorithm>

#include "diagnosis/rules.h"

namespace nicbench::diagnosis {
namespace {

using record::Severity;

// The rule table, in the order findings of equal severity are listed: what limits the
// transfer first, then causes, then configuration, then the measurement itself.
constexpr RuleFn kRules[] = {
    LinkRateLimited,
    UdpOfferedAboveLink,
    FileTransferLimit,
    CpuBound,
    IrqConcentration,
    IrqCoreSharedWithApp,
    IrqHandlerLivelock,
    QueueImbalance,
    PcieLinkDegraded,
    WindowLimited,
    Bufferbloat,
    Retransmissions,
    UdpLoss,
    Drops,
    NicDrops,
    NicRings,
    PauseFrames,
    DropLadder,
    HalfDuplex,
    MtuMismatch,
    OffloadsOff,
    LinkBelowCapability,
    LegacyIrqMode,
    ToolCpuBound,
    TestTooShort,
    IntervalsVary,
    RemoteNotReported,
    NicInterruptCost,
    NumaPlacement,
    CpuFrequencyLow,
    CostPerEnd,
};

// A request/response test moves a few bytes per transaction: the bulk rules about rates and
// windows do not apply; the configuration and measurement rules do.
constexpr RuleFn kRrRules[] = {
    RrCoreSaturated, RrSpinBackfires, RrInterruptCoalescing, RrLossAndCounts,
    HalfDuplex,      MtuMismatch,     LegacyIrqMode,         RemoteNotReported,
};

bool AnyWarning(const Findings& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const auto& f) { return f.severity >= Severity::kWarning; });
}

record::Finding Healthy(const RunView& view, const Findings& findings) {
  bool at_link = std::any_of(findings.begin(), findings.end(),
                             [](const auto& f) { return f.id == "link-rate-limited"; });
  record::Finding f = MakeFinding(
      "no-problem-found", Severity::kInfo,
      at_link ? "Healthy: the transfer runs at the link's rate and nothing else limits it"
              : "Healthy: no rule found a problem in this run");
  for (const Flow& flow : view.flows()) {
    f.evidence.push_back(FlowName(flow) + ": no warning from any rule");
  }
  f.meaning = "Both ends' measurements look as they should for this path.";
  f.next_step = "Keep this run (--json) as a baseline to compare later changes against.";
  return f;
}

// Most severe first; equal severities keep their order.
void SortBySeverity(Findings& findings) {
  std::stable_sort(findings.begin(), findings.end(),
                   [](const auto& a, const auto& b) { return a.severity > b.severity; });
}

}  // namespace

record::Finding MakeFinding(std::string id, Severity severity, std::string title) {
  record::Finding f;
  f.id = std::move(id);
  f.severity = severity;
  f.title = std::move(title);
  return f;
}

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kInfo: return "info";
    case Severity::kNotice: return "notice";
    case Severity::kWarning: return "warning";
    case Severity::kCritical: return "critical";
  }
  return "unknown";
}

std::vector<record::Finding> Diagnose(const record::RunRecord& run, const Thresholds& thresholds) {
  RunView view(run);
  Findings findings;
  const bool rr = run.spec.rr.enabled();
  auto run_rules = [&](const auto& table) {
    for (RuleFn rule : table) {
      Findings found = rule(view, thresholds);
      findings.insert(findings.end(), std::make_move_iterator(found.begin()),
                      std::make_move_iterator(found.end()));
    }
  };
  if (rr) {
    run_rules(kRrRules);
  } else {
    run_rules(kRules);
    Findings far = FarBelowLinkRate(view, thresholds, findings);
    findings.insert(findings.end(), far.begin(), far.end());
  }
  if (!AnyWarning(findings) && !run.error) findings.push_back(Healthy(view, findings));
  SortBySeverity(findings);
  return findings;
}

void AddFindings(Findings& findings, Findings more) {
  if (more.empty()) return;
  std::erase_if(findings, [](const record::Finding& f) { return f.id == "no-problem-found"; });
  findings.insert(findings.end(), std::make_move_iterator(more.begin()),
                  std::make_move_iterator(more.end()));
  SortBySeverity(findings);
}

}  // namespace nicbench::diagnosis

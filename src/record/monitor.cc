#include "record/monitor.h"

namespace nicbench::record {

std::string_view EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kDegraded: return "degraded";
    case EventKind::kLatencyUp: return "latency-up";
    case EventKind::kLoss: return "loss";
    case EventKind::kCoreSaturated: return "core-saturated";
    case EventKind::kSoftnetDrops: return "softnet-drops";
    case EventKind::kNicErrors: return "nic-errors";
    case EventKind::kCarrierLost: return "carrier-lost";
    case EventKind::kSpeedChanged: return "speed-changed";
    case EventKind::kPeerUnreachable: return "peer-unreachable";
    case EventKind::kStoreUnavailable: return "store-unavailable";
  }
  return "unknown";
}

}  // namespace nicbench::record

#include "engine/measure/host_observer.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "probes/collect_facts.h"
#include "probes/queue_sample.h"
#include "record/json.h"
#include "record/merge.h"

namespace nicbench::engine {

namespace {

// An IPv4 peer seen through a dual-stack socket reads "::ffff:a.b.c.d"; the route lookup wants
// the plain IPv4 form.
std::string PlainAddress(const std::string& address) {
  constexpr std::string_view kMapped = "::ffff:";
  if (address.rfind(kMapped, 0) == 0 && address.find('.') != std::string::npos) {
    return address.substr(kMapped.size());
  }
  return address;
}

// The interface that routes to the peer (the live machine's routing table).
Result<std::string> InterfaceToPeer(const std::string& peer_address) {
  if (peer_address.empty()) return Fail("no peer address");
  return probes::InterfaceForPeer(PlainAddress(peer_address));
}

}  // namespace

HostObserver::HostObserver(const std::string& peer_address, bool sample,
                           std::shared_ptr<const probes::OwnThreads> threads)
    : HostObserver(std::make_unique<probes::DirFileSource>("/"), InterfaceToPeer(peer_address),
                   sample, std::move(threads)) {}

HostObserver::HostObserver(std::unique_ptr<probes::FileSource> files,
                           const Result<std::string>& iface, bool sample,
                           std::shared_ptr<const probes::OwnThreads> threads)
    : files_(std::move(files)), threads_(std::move(threads)), sample_(sample) {
  if (iface) {
    interface_ = *iface;
    Result<record::NicFacts> facts = probes::CollectNicFacts(interface_, *files_);
    if (facts) {
      nic_ = std::move(*facts);
    } else {
      nic_.interface = interface_;
      nic_.driver =
          record::Measured<std::string>::Unknown(record::Missing::kError, facts.error().ToString());
    }
  } else {
    nic_.driver = record::Measured<std::string>::Unknown(
        record::Missing::kError, "no route to the peer: " + iface.error().ToString());
  }
  sampler_ = std::make_unique<probes::HostDeltaReader>(probes::HostDeltaReader::Create(
      *files_, probes::HostDeltaOptions{interface_, threads_.get(), true}));
}

void HostObserver::Begin() {
  if (!sample_) return;
  sampler_->Begin();
  // The facts were read when the test was set up; the driver's counters are read again now and
  // at Finish, so their difference covers the data and little else.
  if (!nic_.loopback && nic_.driver_stats.known()) {
    nic_.driver_stats = probes::ReadDriverStats(interface_, *files_);
    began_ = true;
  }
}

void HostObserver::OnBoundary(const record::IntervalRecord* closed) {
  if (!sample_) return;
  record::HostInterval sample =
      sampler_->Sample(closed ? closed->start : 0.0, closed ? closed->end : 0.0);
  if (!closed) return;
  sample.queues = interface_.empty() ? record::Measured<record::QueueSample>::Unknown(
                                           record::Missing::kAbsent,
                                           "the interface that carries the test is unknown")
                                     : probes::ReadQueueSample(*files_, interface_);
  if (keep_limit_ > 0 && samples_.size() >= keep_limit_) {
    record::HalveFrom(samples_, omitted_kept_, record::MergeSamples);
  }
  if (closed->omitted) ++omitted_kept_;
  samples_.push_back(std::move(sample));
}

void BoundRecordOnce(IntervalSampler& sampler, HostObserver& host,
                     const record::IntervalRecord* closed) {
  if (closed == nullptr || host.keep_limit() != 0) return;
  const size_t limit = KeepLimitFor(*closed, host.last());
  sampler.SetKeepLimit(limit);
  host.SetKeepLimit(limit);
}

size_t KeepLimitFor(const record::IntervalRecord& first, const record::HostInterval* sample) {
  // Half the exchange's cap for the server's intervals and samples together, and room for
  // intervals that come out larger than the first (more IRQ lines fire, say).
  constexpr size_t kBudgetBytes = 8u << 20;
  constexpr double kGrowth = 1.5;
  size_t bytes = nlohmann::json(first).dump().size();
  if (sample != nullptr) bytes += nlohmann::json(*sample).dump().size();
  const size_t limit = static_cast<size_t>(kBudgetBytes / (kGrowth * static_cast<double>(bytes)));
  return std::max<size_t>(limit, 16);
}

void HostObserver::Finish(record::EndpointRecord& endpoint) {
  endpoint.host = probes::CollectHostFacts(*files_);
  if (began_) nic_.driver_stats_after = probes::ReadDriverStats(interface_, *files_);
  endpoint.nic = nic_;
  endpoint.samples = std::move(samples_);
  samples_.clear();
}

}  // namespace nicbench::engine

#include "engine/host_observer.h"

#include <utility>

#include "probes/facts.h"

namespace nicbench::engine {

HostObserver::HostObserver(const std::string& peer_address) : files_("/") {
  Result<std::string> iface = peer_address.empty()
                                  ? Result<std::string>(Fail("no peer address"))
                                  : probes::InterfaceForPeer(peer_address);
  if (iface) {
    interface_ = *iface;
    Result<record::NicFacts> facts = probes::CollectNicFacts(interface_, files_);
    if (facts) {
      nic_ = std::move(*facts);
    } else {
      nic_.interface = interface_;
      nic_.driver = record::Measured<std::string>::Unknown(record::Missing::kError,
                                                           facts.error().ToString());
    }
  } else {
    nic_.driver = record::Measured<std::string>::Unknown(
        record::Missing::kError, "no route to the peer: " + iface.error().ToString());
  }
  sampler_ = std::make_unique<probes::HostSampler>(
      probes::HostSampler::Create(files_, probes::SamplerOptions{interface_}));
}

void HostObserver::Begin() { sampler_->Begin(); }

void HostObserver::OnBoundary(double start, double end) {
  samples_.push_back(sampler_->Sample(start, end));
}

void HostObserver::Finish(record::EndpointRecord& endpoint) {
  endpoint.host = probes::CollectHostFacts(files_);
  endpoint.nic = nic_;
  endpoint.samples = std::move(samples_);
  samples_.clear();
}

}  // namespace nicbench::engine

#include "engine/datapath/data_path.h"

#include <sys/eventfd.h>

#include <algorithm>
#include <string>
#include <thread>

#include "base/check.h"
#include "engine/datapath/flow.h"
#include "engine/datapath/worker.h"
#include "net/socket.h"
#include "net/sys_calls.h"
#include "net/unique_fd.h"

namespace nicbench::engine {
namespace {

class DataPathImpl final : public DataPath {
 public:
  DataPathImpl(int threads, net::SysCalls* sys) : threads_(threads), run_(sys) {}
  ~DataPathImpl() override {
    Stop();
    (void)Join();
  }

  Status AddFlow(const FlowConfig& config) override;
  void SetBudget(const SendBudget& budget) override {
    NB_CHECK(!started_);
    run_.budget().SetLimits(budget);
  }
  void SetReceiveBudget(const SendBudget& budget) override {
    NB_CHECK(!started_);
    receive_budget_ = budget;
  }
  void AccountThreads(std::shared_ptr<probes::OwnThreads> threads) override {
    NB_CHECK(!started_);
    run_.set_threads(std::move(threads));
  }
  Status Start() override;
  int DoneFd() const override { return done_.get(); }
  std::vector<FlowCounters> Snapshot() const override;
  bool Failed() const override { return run_.failed(); }
  void Stop() override;
  Status Join() override;
  int FlowFd(int id) const override;

 private:
  int ThreadCount() const;

  const int threads_;
  RunContext run_;
  // Declared before workers_ so the flows outlive the threads that use them.
  std::vector<std::unique_ptr<Flow>> flows_;
  std::vector<std::unique_ptr<Worker>> workers_;
  net::UniqueFd done_;
  SendBudget receive_budget_;
  bool started_ = false;
  bool joined_ = false;
};

Status DataPathImpl::AddFlow(const FlowConfig& config) {
  NB_CHECK(!started_);
  net::UniqueFd fd(config.fd);
  if (!fd) return Fail("stream " + std::to_string(config.id) + ": no socket");
  if (auto s = net::SetNonBlocking(fd.get()); !s) return s;
  if (config.sender && config.fq_rate_bits_per_second != 0) {
    if (auto s = net::SetMaxPacingRate(fd.get(), config.fq_rate_bits_per_second / 8); !s) return s;
  }
  auto flow = MakeFlow(config, std::move(fd), run_.env());
  if (!flow) return tl::unexpected(flow.error());
  flows_.push_back(std::move(*flow));
  return Ok();
}

int DataPathImpl::ThreadCount() const { return WorkerThreadsFor(threads_, flows_.size()); }

Status DataPathImpl::Start() {
  NB_CHECK(!started_);
  started_ = true;
  done_.Reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!done_) return FailErrno("eventfd");
  const int senders = static_cast<int>(
      std::count_if(flows_.begin(), flows_.end(), [](const auto& f) { return f->sender(); }));
  run_.ArmDone(done_.get(), senders);
  run_.budget().SetReceiveLimits(receive_budget_, done_.get());
  const int threads = ThreadCount();
  for (int t = 0; t < threads; ++t) workers_.push_back(std::make_unique<Worker>(t, &run_));
  // Flow i runs on worker i mod T, as neper deals flows to threads: every worker gets within
  // one flow of the same number, and the flows of each direction are spread alike.
  for (size_t i = 0; i < flows_.size(); ++i) {
    if (auto s = workers_[i % workers_.size()]->Add(flows_[i].get()); !s) {
      workers_.clear();  // no thread started yet
      return s;
    }
  }
  for (auto& worker : workers_) {
    if (auto s = worker->Start(); !s) {
      Stop();
      return s;
    }
  }
  return Ok();
}

std::vector<FlowCounters> DataPathImpl::Snapshot() const {
  std::vector<FlowCounters> out;
  out.reserve(flows_.size());
  for (const auto& flow : flows_) out.push_back(flow->Snapshot());
  return out;
}

void DataPathImpl::Stop() {
  run_.MarkStopping();
  for (auto& worker : workers_) worker->Stop();
}

Status DataPathImpl::Join() {
  Stop();  // the loops run until stopped; Join is the end of the test either way
  if (!joined_ && started_) {
    for (auto& worker : workers_) worker->Join();
    joined_ = true;
    for (auto& flow : flows_) flow->Finish();
  }
  if (auto error = run_.first_error()) return tl::unexpected(*error);
  return Ok();
}

int DataPathImpl::FlowFd(int id) const {
  for (const auto& flow : flows_) {
    if (flow->id() == id) return flow->fd();
  }
  return -1;
}

}  // namespace

int WorkerThreadsFor(int requested, size_t flows) {
  const int count = static_cast<int>(std::min<size_t>(flows, 1u << 20));
  if (requested > 0) return std::min(requested, count);
  if (count <= kThreadPerFlowMax) return count;
  return std::min(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())), count);
}

std::unique_ptr<DataPath> DataPath::Create(int threads) {
  return Create(threads, &net::RealSysCalls::Instance());
}

std::unique_ptr<DataPath> DataPath::Create(int threads, net::SysCalls* sys) {
  return std::make_unique<DataPathImpl>(threads, sys);
}

}  // namespace nicbench::engine

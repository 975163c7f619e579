// TCP flows with a -F file (iperf3's --file): the sender reads the file into its block buffer
// and sends what it read, as iperf3's client does, or, with -Z or to a nicbench receiver
// (FlowConfig::peer_drains), sendfile(2)s straight from the file, a timed load bringing each
// 4 MiB into the page cache first (TimedFile::Load) so the disk's rate is still measured; it
// ends at the file's end. The receiver writes what it receives into the file and syncs it at
// the end. Each stream opens the file itself, as iperf3 does. The file calls are timed
// (engine/file_io.h); Finish() hands each stream's figures to the test's FileTransfer.
// Thread safety: as Flow.
#pragma once

#include <memory>
#include <string>

#include "engine/datapath/flow_sender.h"
#include "engine/files/file_io.h"

namespace nicbench::engine {

class FileTcpSender final : public SenderFlow {
 public:
  FileTcpSender(const FlowConfig& config, net::UniqueFd fd, FlowEnv env, TimedFile file,
                AlignedBuffer buffer, size_t capacity);
  void Finish() override;

 private:
  Result<SendOutcome> SendBlock() override;
  Result<SendOutcome> SendFromFile();  // sendfile(2), after Load or (-Z) without
  size_t Loaded();                     // bytes from the offset that sendfile may send
  Result<bool> Refill();               // false at the end of the file or the budget
  bool Reserve();
  bool Sent(uint32_t n);

  TimedFile file_;
  AlignedBuffer buffer_;
  const size_t capacity_;  // the block, rounded up for O_DIRECT
  enum class Source { kLoad, kSendfile, kRead };
  Source source_;
  uint64_t loaded_end_ = 0;     // kLoad: the file's offset up to which it was loaded
  size_t have_ = 0, pos_ = 0;   // bytes in the buffer, bytes of them sent
  uint32_t reserved_left_ = 0;  // budget reserved for the block in progress, not yet sent
  bool ended_ = false;
  std::string error_;  // a failed read, for the file's record
};

class FileTcpReceiver final : public Flow {
 public:
  FileTcpReceiver(const FlowConfig& config, net::UniqueFd fd, FlowEnv env, TimedFile file);

  void Begin(MonoTime now) override;
  Result<FlowState> OnEvents(uint32_t events) override;
  Result<FlowState> OnPacingTick(MonoTime) override { return FlowState::kActive; }
  void Finish() override;

 private:
  TimedFile file_;
  std::unique_ptr<uint8_t[]> buffer_;
  const uint32_t max_reads_per_wakeup_;
  std::string error_;  // a failed write or sync, for the file's record
};

// Makes the file flow for `config` (config.file set, TCP): opens the file for this stream.
Result<std::unique_ptr<Flow>> MakeFileFlow(const FlowConfig& config, net::UniqueFd fd, FlowEnv env);

}  // namespace nicbench::engine

#include "engine/datapath/flow_file.h"

#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace nicbench::engine {
namespace {

// A sender loads the file this much at a time: one mmap/populate/munmap per 4 MiB costs little
// beside sendfile(2)'s calls, and what it loaded is sent before the page cache lets it go.
constexpr size_t kLoadBytes = 4u << 20;

}  // namespace

FileTcpSender::FileTcpSender(const FlowConfig& config, net::UniqueFd fd, FlowEnv env,
                             TimedFile file, AlignedBuffer buffer, size_t capacity)
    : SenderFlow(config, std::move(fd), env),
      file_(std::move(file)),
      buffer_(std::move(buffer)),
      capacity_(capacity),
      source_((config.zero_copy == record::ZeroCopy::kSendfile || config.peer_drains) &&
                      !file_.direct_used()
                  ? Source::kLoad
                  : Source::kRead) {}

size_t FileTcpSender::Loaded() {
  if (source_ == Source::kSendfile) return reserved_left_;
  if (file_.offset() < loaded_end_) return static_cast<size_t>(loaded_end_ - file_.offset());
  if (!file_.Load(kLoadBytes)) {
    // A file that cannot be loaded (a device, a kernel before 5.14) is read into the block, so
    // its rate is measured, unless -Z asked for sendfile(2); the read starts where the file's
    // position is, so only at its start. Otherwise its pages still go without a copy, untimed.
    const bool zero_copy = config_.zero_copy == record::ZeroCopy::kSendfile;
    source_ = zero_copy || file_.offset() != 0 ? Source::kSendfile : Source::kRead;
    return reserved_left_;
  }
  loaded_end_ = file_.offset() + kLoadBytes;
  return kLoadBytes;
}

Result<bool> FileTcpSender::Refill() {
  if (ended_) return false;
  // O_DIRECT reads whole aligned chunks; what a chunk holds beyond the block goes out with the
  // next one, so the stream stays the file's bytes in order.
  const size_t ask = file_.direct_used() ? capacity_ : config_.block_bytes;
  auto n = file_.Read(buffer_.get(), ask);
  if (!n) {
    error_ = n.error().ToString();
    Error e = n.error();
    e.message = "stream " + std::to_string(config_.id) + ": -F " + e.message;
    return tl::unexpected(e);
  }
  if (*n == 0) {
    ended_ = true;
    return false;
  }
  have_ = *n;
  pos_ = 0;
  return true;
}

// A block of the budget (-n, the file's size) to send next; false when none is left.
bool FileTcpSender::Reserve() {
  if (reserved_left_ != 0) return true;
  if (ended_) return false;
  reserved_left_ = ReserveBlock(/*exact=*/true);
  return reserved_left_ != 0;
}

// Counts n bytes of the reserved block as sent; true when that completed the block.
bool FileTcpSender::Sent(uint32_t n) {
  local_bytes_ += n;
  reserved_left_ -= n;
  if (reserved_left_ == 0) ++local_blocks_;
  PublishBytes();
  return reserved_left_ == 0;
}

Result<SenderFlow::SendOutcome> FileTcpSender::SendFromFile() {
  if (!Reserve()) return SendOutcome::kBudgetSpent;
  for (;;) {
    const size_t loaded = Loaded();
    if (source_ == Source::kRead) return SendBlock();
    off_t offset = static_cast<off_t>(file_.offset());
    const size_t len = std::min<size_t>(reserved_left_, loaded);
    const net::SysResult r = env_.sys->SendFile(fd(), file_.fd(), &offset, len);
    if (r.failed()) {
      if (r.err == EINTR) continue;
      if (r.err == EAGAIN) return SendOutcome::kWouldBlock;
      auto state = Failure("sendfile", r.err);
      if (!state) return tl::unexpected(state.error());
      return SendOutcome::kBudgetSpent;
    }
    if (r.value == 0) {  // the end of the file
      file_.AtEnd();
      ended_ = true;
      reserved_left_ = 0;
      return SendOutcome::kBudgetSpent;
    }
    const auto n = static_cast<uint32_t>(r.value);
    if (source_ == Source::kLoad) {
      file_.CountLoaded(n);
    } else {
      file_.CountUntimed(n);
    }
    if (Sent(n)) return SendOutcome::kBlock;
  }
}

Result<SenderFlow::SendOutcome> FileTcpSender::SendBlock() {
  if (source_ != Source::kRead) return SendFromFile();
  if (!Reserve()) return SendOutcome::kBudgetSpent;
  for (;;) {
    if (pos_ == have_) {
      auto more = Refill();
      if (!more) return tl::unexpected(more.error());
      if (!*more) return SendOutcome::kBudgetSpent;
    }
    const size_t len = std::min<size_t>(have_ - pos_, reserved_left_);
    const net::SysResult r = env_.sys->Send(fd(), buffer_.get() + pos_, len, kSendFlags);
    if (r.failed()) {
      if (r.err == EINTR) continue;
      if (r.err == EAGAIN) return SendOutcome::kWouldBlock;
      auto state = Failure("send", r.err);
      if (!state) return tl::unexpected(state.error());
      return SendOutcome::kBudgetSpent;
    }
    const auto n = static_cast<uint32_t>(r.value);
    pos_ += n;
    if (Sent(n)) return SendOutcome::kBlock;
  }
}

void FileTcpSender::Finish() {
  if (!config_.file) return;
  record::FileRecord r = file_.Record();
  r.error = error_;
  config_.file->Add(r);
  if (!error_.empty()) config_.file->AddError(error_);
}

FileTcpReceiver::FileTcpReceiver(const FlowConfig& config, net::UniqueFd fd, FlowEnv env,
                                 TimedFile file)
    : Flow(config, std::move(fd), env),
      file_(std::move(file)),
      buffer_(new uint8_t[std::max<uint32_t>(config.block_bytes, 1)]),
      max_reads_per_wakeup_(
          std::max<uint32_t>(kMaxWakeupBytes / std::max<uint32_t>(config.block_bytes, 1), 1)) {}

void FileTcpReceiver::Begin(MonoTime) {
  interest_ = EPOLLIN;
  if (config_.receive_low_water > 1) {
    // As TcpReceiver: fewer wakeups; a failure only costs wakeups.
    const int low_water = static_cast<int>(config_.receive_low_water);
    (void)setsockopt(fd(), SOL_SOCKET, SO_RCVLOWAT, &low_water, sizeof(low_water));
  }
}

Result<FlowState> FileTcpReceiver::OnEvents(uint32_t) {
  const size_t len = std::max<uint32_t>(config_.block_bytes, 1);
  for (uint32_t i = 0; i < max_reads_per_wakeup_; ++i) {
    const net::SysResult r = env_.sys->Recv(fd(), buffer_.get(), len, MSG_DONTWAIT);
    if (r.value > 0) {
      local_bytes_ += static_cast<uint64_t>(r.value);
      ++local_blocks_;
      if (auto s = file_.Write(buffer_.get(), static_cast<size_t>(r.value)); !s) {
        PublishBytes();
        Error e = s.error();
        error_ = e.ToString();
        e.message = "stream " + std::to_string(config_.id) + ": -F " + e.message;
        return tl::unexpected(e);
      }
      continue;
    }
    if (auto end = EndOfReads(r)) return std::move(*end);
  }
  PublishBytes();
  return FlowState::kActive;
}

void FileTcpReceiver::Finish() {
  // A failed write leaves nothing worth a sync; the error is the result.
  if (error_.empty()) {
    if (auto s = file_.Finish(); !s) error_ = s.error().ToString();
  }
  if (!config_.file) return;
  record::FileRecord r = file_.Record();
  r.error = error_;
  config_.file->Add(r);
  if (!error_.empty()) config_.file->AddError(error_);
}

Result<std::unique_ptr<Flow>> MakeFileFlow(const FlowConfig& config, net::UniqueFd fd,
                                           FlowEnv env) {
  const FileOptions& options = config.file->options();
  if (config.transport != record::Transport::kTcp) {
    return Fail("-F works with TCP streams only");
  }
  auto file = TimedFile::Open(options.path, /*write=*/!config.sender, options.direct);
  if (!file) {
    Error e = file.error();
    e.message = "-F " + e.message;
    config.file->AddError(e.ToString());
    return tl::unexpected(e);
  }
  if (!config.sender) {
    return std::make_unique<FileTcpReceiver>(config, std::move(fd), env, std::move(*file));
  }
  const size_t capacity = RoundUpAligned(config.block_bytes);
  auto buffer = MakeAlignedBuffer(capacity);
  if (!buffer) return tl::unexpected(buffer.error());
  return std::make_unique<FileTcpSender>(config, std::move(fd), env, std::move(*file),
                                         std::move(*buffer), capacity);
}

}  // namespace nicbench::engine

// FakeSysCalls: real syscalls with injected failures, for tests. A rule makes the Nth call of
// one kind (counting from 1) fail with a chosen errno, once or from then on; every call is
// recorded. Thread safety: counters are atomics, rules are set before the calls start.
#pragma once

#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <optional>

#include "net/sys_calls.h"

namespace nicbench::net {

class FakeSysCalls final : public SysCalls {
 public:
  enum class Kind { kSend, kRecv, kSendFile, kRecvMsg, kSendMmsg, kRecvMmsg, kSetSockOpt, kCount };

  // Call number `nth` of `kind` (1-based) fails with `err`; with `sticky`, every later call too.
  void FailAt(Kind kind, uint64_t nth, int err, bool sticky = false) {
    Rule& r = rules_[static_cast<int>(kind)];
    r.nth = nth;
    r.err = err;
    r.sticky = sticky;
  }
  uint64_t calls(Kind kind) const { return counts_[static_cast<int>(kind)].load(); }
  // Recv calls made with MSG_DONTWAIT (a poll), among calls(kRecv).
  uint64_t polling_recvs() const { return polling_recvs_.load(); }
  uint64_t injected() const { return injected_.load(); }

  SysResult Send(int fd, const void* buf, size_t len, int flags) override {
    if (auto f = Inject(Kind::kSend)) return *f;
    return real_.Send(fd, buf, len, flags);
  }
  SysResult Recv(int fd, void* buf, size_t len, int flags) override {
    if (flags & MSG_DONTWAIT) polling_recvs_.fetch_add(1);
    if (auto f = Inject(Kind::kRecv)) return *f;
    return real_.Recv(fd, buf, len, flags);
  }
  SysResult SendFile(int out_fd, int in_fd, off_t* offset, size_t count) override {
    if (auto f = Inject(Kind::kSendFile)) return *f;
    return real_.SendFile(out_fd, in_fd, offset, count);
  }
  SysResult RecvMsg(int fd, msghdr* msg, int flags) override {
    if (auto f = Inject(Kind::kRecvMsg)) return *f;
    return real_.RecvMsg(fd, msg, flags);
  }
  SysResult SendMmsg(int fd, mmsghdr* msgs, unsigned int count, int flags) override {
    if (auto f = Inject(Kind::kSendMmsg)) return *f;
    return real_.SendMmsg(fd, msgs, count, flags);
  }
  SysResult RecvMmsg(int fd, mmsghdr* msgs, unsigned int count, int flags) override {
    if (auto f = Inject(Kind::kRecvMmsg)) return *f;
    return real_.RecvMmsg(fd, msgs, count, flags);
  }
  SysResult SetSockOpt(int fd, int level, int name, const void* value, socklen_t length) override {
    if (auto f = Inject(Kind::kSetSockOpt)) return *f;
    return real_.SetSockOpt(fd, level, name, value, length);
  }

 private:
  struct Rule {
    uint64_t nth = 0;  // 0 = never
    int err = 0;
    bool sticky = false;
  };
  // The failure to hand back instead of calling the kernel, if a rule matches this call.
  std::optional<SysResult> Inject(Kind kind) {
    const int k = static_cast<int>(kind);
    const uint64_t n = counts_[k].fetch_add(1) + 1;
    const Rule& r = rules_[k];
    if (r.nth == 0 || n < r.nth || (n > r.nth && !r.sticky)) return std::nullopt;
    injected_.fetch_add(1);
    return SysResult{-1, r.err};
  }

  RealSysCalls real_;
  Rule rules_[static_cast<int>(Kind::kCount)];
  std::atomic<uint64_t> counts_[static_cast<int>(Kind::kCount)] = {};
  std::atomic<uint64_t> injected_{0};
  std::atomic<uint64_t> polling_recvs_{0};
};

}  // namespace nicbench::net

// SysCalls: the data-path syscalls behind one interface, so a test can inject a failure the
// kernel will not produce on demand (ENOBUFS from sendto, EPIPE mid-stream). Each call returns
// the value and the errno captured at the call, never read later from the global.
// Only what the data path needs is here; setup code calls the kernel directly.
// Thread safety: RealSysCalls is stateless and thread-safe; fakes document their own.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <cstddef>

namespace nicbench::net {

struct SysResult {
  ssize_t value = 0;  // the syscall's return value; -1 on failure
  int err = 0;        // errno when value == -1, else 0
  bool failed() const { return value < 0; }
};

class SysCalls {
 public:
  virtual ~SysCalls() = default;
  virtual SysResult Send(int fd, const void* buf, size_t len, int flags) = 0;
  virtual SysResult Recv(int fd, void* buf, size_t len, int flags) = 0;
  // sendfile(2): *offset advances by the bytes sent.
  virtual SysResult SendFile(int out_fd, int in_fd, off_t* offset, size_t count) = 0;
  virtual SysResult RecvMsg(int fd, msghdr* msg, int flags) = 0;
  // sendmmsg(2)/recvmmsg(2): the number of messages moved, each one's length in msg_len. A
  // failure after the first message is not reported (the count says how far it got).
  virtual SysResult SendMmsg(int fd, mmsghdr* msgs, unsigned int count, int flags) = 0;
  virtual SysResult RecvMmsg(int fd, mmsghdr* msgs, unsigned int count, int flags) = 0;
  // setsockopt(2) for the options whose absence a test must be able to simulate (UDP_SEGMENT
  // and UDP_GRO on a kernel older than 4.18 / 5.0); value is the returned 0, never a length.
  virtual SysResult SetSockOpt(int fd, int level, int name, const void* value,
                               socklen_t length) = 0;
};

class RealSysCalls final : public SysCalls {
 public:
  SysResult Send(int fd, const void* buf, size_t len, int flags) override;
  SysResult Recv(int fd, void* buf, size_t len, int flags) override;
  SysResult SendFile(int out_fd, int in_fd, off_t* offset, size_t count) override;
  SysResult RecvMsg(int fd, msghdr* msg, int flags) override;
  SysResult SendMmsg(int fd, mmsghdr* msgs, unsigned int count, int flags) override;
  SysResult RecvMmsg(int fd, mmsghdr* msgs, unsigned int count, int flags) override;
  SysResult SetSockOpt(int fd, int level, int name, const void* value, socklen_t length) override;
  // One process-wide instance; stateless, so sharing it is safe.
  static RealSysCalls& Instance();
};

}  // namespace nicbench::net

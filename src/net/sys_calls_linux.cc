#include "net/sys_calls.h"

#include <sys/sendfile.h>

#include <cerrno>

namespace nicbench::net {
namespace {

SysResult Wrap(ssize_t rc) { return rc < 0 ? SysResult{rc, errno} : SysResult{rc, 0}; }

}  // namespace

SysResult RealSysCalls::Send(int fd, const void* buf, size_t len, int flags) {
  return Wrap(::send(fd, buf, len, flags));
}

SysResult RealSysCalls::Recv(int fd, void* buf, size_t len, int flags) {
  return Wrap(::recv(fd, buf, len, flags));
}

SysResult RealSysCalls::SendFile(int out_fd, int in_fd, off_t* offset, size_t count) {
  return Wrap(::sendfile(out_fd, in_fd, offset, count));
}

SysResult RealSysCalls::RecvMsg(int fd, msghdr* msg, int flags) {
  return Wrap(::recvmsg(fd, msg, flags));
}

SysResult RealSysCalls::SendMmsg(int fd, mmsghdr* msgs, unsigned int count, int flags) {
  return Wrap(::sendmmsg(fd, msgs, count, flags));
}

SysResult RealSysCalls::RecvMmsg(int fd, mmsghdr* msgs, unsigned int count, int flags) {
  return Wrap(::recvmmsg(fd, msgs, count, flags, nullptr));
}

SysResult RealSysCalls::SetSockOpt(int fd, int level, int name, const void* value,
                                   socklen_t length) {
  return Wrap(::setsockopt(fd, level, name, value, length));
}

RealSysCalls& RealSysCalls::Instance() {
  static RealSysCalls instance;
  return instance;
}

}  // namespace nicbench::net

#include "net/unique_fd.h"

#include <unistd.h>

namespace nicbench::net {

void UniqueFd::Reset(int fd) {
  int old = std::exchange(fd_, fd);
  // close() errors are not actionable here: on Linux the fd is released even when close
  // reports EINTR or EIO (fs/open.c), so retrying could close someone else's fd.
  if (old >= 0) ::close(old);
}

}  // namespace nicbench::net

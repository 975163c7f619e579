#include "base/result.h"

#include <cerrno>
#include <cstring>

namespace nicbench {

std::string Error::ToString() const {
  if (sys_errno == 0) return message;
  return message + ": " + std::strerror(sys_errno);
}

tl::unexpected<Error> FailErrno(std::string what) {
  int saved = errno;
  return Fail(std::move(what), saved);
}

}  // namespace nicbench

#include "engine/files/payload_bytes.h"

#include <sys/random.h>

#include <cerrno>

namespace nicbench::engine {

Status FillPayload(std::span<uint8_t> buffer, bool repeating) {
  if (repeating) {
    for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<uint8_t>('0' + i % 10);
    return Ok();
  }
  size_t done = 0;
  while (done < buffer.size()) {
    // Requests over 256 bytes may return short or fail with EINTR (getrandom(2)); loop.
    ssize_t n = getrandom(buffer.data() + done, buffer.size() - done, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return FailErrno("getrandom");
    }
    done += static_cast<size_t>(n);
  }
  return Ok();
}

}  // namespace nicbench::engine

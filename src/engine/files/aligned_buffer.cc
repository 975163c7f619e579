#include "engine/files/aligned_buffer.h"

#include <algorithm>
#include <cstdlib>

namespace nicbench::engine {

void AlignedFree::operator()(uint8_t* p) const { std::free(p); }

Result<AlignedBuffer> MakeAlignedBuffer(size_t bytes) {
  void* p = nullptr;
  const int err = posix_memalign(&p, kBufferAlignment, RoundUpAligned(std::max<size_t>(bytes, 1)));
  if (err != 0) return Fail("posix_memalign", err);
  return AlignedBuffer(static_cast<uint8_t*>(p));
}

}  // namespace nicbench::engine

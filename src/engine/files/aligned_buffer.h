// Page-aligned memory for the buffers the kernel copies a flow's bytes to and from.
//
// Why: malloc puts a block of 128 KiB in its own mapping 16 bytes into the first page, while
// the kernel's side of the copy (a page of the payload file under sendfile, an skb's page
// fragment) starts on a page. Source and destination then sit 16 bytes apart modulo 4 KiB,
// and the string copy in `_copy_to_iter` ran at about half its speed on this project's AMD
// EPYC (`-P 4 -Z` on loopback: 37-39 Gbit/s, 56% of the server's samples in the copy; page
// aligned, 65-73 Gbit/s; docs/engine.md, "Page-aligned buffers"). O_DIRECT needs the same
// alignment for its buffers, lengths and offsets (4096 covers every common device).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "base/result.h"

namespace nicbench::engine {

inline constexpr size_t kBufferAlignment = 4096;

inline size_t RoundUpAligned(size_t n) {
  return (n + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

// A buffer of `bytes` rounded up to kBufferAlignment, starting on a page.
struct AlignedFree {
  void operator()(uint8_t* p) const;
};
using AlignedBuffer = std::unique_ptr<uint8_t[], AlignedFree>;
Result<AlignedBuffer> MakeAlignedBuffer(size_t bytes);

// A std::vector whose storage starts on a page.
template <class T>
struct PageAlignedAllocator {
  using value_type = T;
  PageAlignedAllocator() = default;
  template <class U>
  explicit PageAlignedAllocator(const PageAlignedAllocator<U>&) {}
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{kBufferAlignment}));
  }
  void deallocate(T* p, size_t) { ::operator delete (p, std::align_val_t{kBufferAlignment}); }
  bool operator==(const PageAlignedAllocator&) const = default;
};
using AlignedBytes = std::vector<uint8_t, PageAlignedAllocator<uint8_t>>;

}  // namespace nicbench::engine

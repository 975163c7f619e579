// The decisions of a structure-aware fuzz target, read front to back from the fuzzer's bytes:
// a byte, a bounded number, a length-prefixed text. Past the end every read gives 0 (and an
// empty text), so a short input is still a whole script whose remaining choices are the first
// ones; `empty()` lets a target end there instead. Unlike FuzzedDataProvider, which takes
// numbers from the end, the order is the file's, so a seed can be written by hand or by a
// script (tests/fuzz/make_server_seeds.py writes the server_conversation seeds).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace nicbench::fuzz {

class Script {
 public:
  Script(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool empty() const { return pos_ >= size_; }
  uint8_t Byte() { return empty() ? 0 : data_[pos_++]; }
  // Little-endian, two bytes.
  uint16_t U16() { return static_cast<uint16_t>(Byte() | (Byte() << 8)); }
  uint32_t U32() { return U16() | (static_cast<uint32_t>(U16()) << 16); }
  // 0..n-1 from one byte (n <= 256).
  uint32_t Below(uint32_t n) { return n == 0 ? 0 : Byte() % n; }
  bool Bit() { return (Byte() & 1) != 0; }
  // A two-byte length, then that many bytes (fewer when the input ends first).
  std::string Text() {
    size_t n = U16();
    if (n > size_ - pos_) n = size_ - pos_;
    std::string s(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return s;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace nicbench::fuzz

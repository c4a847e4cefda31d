// CRC-32 as IEEE 802.3 / zlib / PNG define it: reflected polynomial 0xEDB88320, initial value and final
// xor 0xFFFFFFFF. crc32("123456789") == 0xCBF43926.
//
// Incremental: crc32(b, crc32(a)) == crc32(a followed by b), with 0 as the value of the empty input, so a
// checksum can be computed over pieces without copying them together.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bitwire {

// The CRC of `size` bytes at `data` appended to the input whose CRC is `crc` (0 for a fresh start).
// No alignment requirements. On x86-64, inputs of 128 bytes and more use carry-less multiplication
// (PCLMULQDQ; from 1024 bytes AVX-512 VPCLMULQDQ) when the CPU has it, checked once at run time;
// everything else is slice-by-8 table code.
uint32_t crc32(const void* data, size_t size, uint32_t crc = 0);

// The individual paths, for tests and benchmarks. Each falls back to the next simpler one when the CPU
// lacks the instructions or the input is too short for it (clmul: 64 bytes, wide: 256 bytes).
uint32_t crc32_wide_clmul(const void* data, size_t size, uint32_t crc = 0);
uint32_t crc32_clmul(const void* data, size_t size, uint32_t crc = 0);
// Always slice-by-8 (eight bytes per step through eight 256-entry tables).
uint32_t crc32_slice8(const void* data, size_t size, uint32_t crc = 0);

// The same with one table lookup per byte; the reference the fast paths are tested against.
uint32_t crc32_bytewise(const void* data, size_t size, uint32_t crc = 0);

// Accumulates a CRC-32 over several pieces.
class Crc32 {
 public:
  Crc32() = default;
  explicit Crc32(uint32_t start) : value_(start) {}
  Crc32& update(const void* data, size_t size) {
    value_ = crc32(data, size, value_);
    return *this;
  }
  uint32_t value() const { return value_; }

 private:
  uint32_t value_ = 0;
};

}  // namespace bitwire

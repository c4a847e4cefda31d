// A tiny reference bit packer for hand-derived wire vectors: fields in wire order, each `bits` bits of a
// value LSB first (wire-format.md section 1), raw byte runs aligned first, the last byte zero-padded.
// Independent of bitwire's BitWriter on purpose.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bitwire::test {

struct Field {
  enum Kind { kBits, kBytes } kind = kBits;
  uint64_t value = 0;
  int bits = 0;
  std::vector<uint8_t> bytes;
};
inline Field bits(uint64_t value, int width) { return Field{Field::kBits, value, width, {}}; }
inline Field raw(std::vector<uint8_t> bytes) { return Field{Field::kBytes, 0, 0, std::move(bytes)}; }

inline std::vector<uint8_t> pack(const std::vector<Field>& fields) {
  std::vector<int> stream;
  const auto align = [&] {
    while (stream.size() % 8 != 0) stream.push_back(0);
  };
  for (const Field& f : fields) {
    if (f.kind == Field::kBits) {
      for (int i = 0; i < f.bits; ++i) stream.push_back(static_cast<int>((f.value >> i) & 1));
    } else {
      align();
      for (uint8_t byte : f.bytes) {
        for (int i = 0; i < 8; ++i) stream.push_back((byte >> i) & 1);
      }
    }
  }
  align();
  std::vector<uint8_t> out(stream.size() / 8, 0);
  for (size_t i = 0; i < stream.size(); ++i) out[i / 8] |= static_cast<uint8_t>(stream[i] << (i % 8));
  return out;
}

inline std::span<const std::byte> as_bytes(const std::vector<uint8_t>& v) {
  return std::span<const std::byte>(reinterpret_cast<const std::byte*>(v.data()), v.size());
}

}  // namespace bitwire::test

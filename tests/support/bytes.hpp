// Test helpers between the packet path's byte type (std::span<const std::byte>) and the std::vector<uint8_t>
// and arrays tests build their datagrams in. No cast: std::as_bytes views any trivially copyable storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace bitwire::test {

// The bytes of a contiguous container or array (std::vector<uint8_t>, std::array, a C array).
template <typename Container>
std::span<const std::byte> view(const Container& container) {
  return std::as_bytes(std::span(container));
}
inline std::span<const std::byte> view(const uint8_t* data, size_t size) {
  return std::as_bytes(std::span<const uint8_t>(data, size));
}
// The bytes of a string's characters (no terminator).
inline std::span<const std::byte> view(std::string_view text) {
  return std::as_bytes(std::span<const char>(text.data(), text.size()));
}
template <typename Container>
std::span<std::byte> writable(Container& container) {
  return std::as_writable_bytes(std::span(container));
}

// A copy of `bytes` as the std::vector<uint8_t> tests compare and edit.
inline std::vector<uint8_t> to_vector(std::span<const std::byte> bytes) {
  std::vector<uint8_t> out(bytes.size());
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace bitwire::test

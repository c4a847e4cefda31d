// Private to the endpoint sources: the reliable 1.0 prefix bits and byte access.
#pragma once

#include <cstddef>
#include <cstdint>

namespace bitwire::endpoint_detail {

inline constexpr uint8_t kPrefixFragment = 0x01;
inline constexpr uint8_t kPrefixAckBitsMask = 0x1E;  // bits 1..4: ack_bits byte k present
inline constexpr uint8_t kPrefixShortAck = 0x20;     // bit 5: ack sent as a one-byte difference
inline constexpr uint8_t kPrefixAckDelay = 0x40;     // bit 6: ack delay extension byte (bitwire's)
inline constexpr uint8_t kPrefixReserved = 0x80;     // bit 7: zero

inline uint8_t load_u8(const std::byte* p) {
  return std::to_integer<uint8_t>(*p);
}
inline uint16_t load_le16(const std::byte* p) {
  return static_cast<uint16_t>(load_u8(p) | (load_u8(p + 1) << 8));
}
inline void store_le16(std::byte* p, uint16_t value) {
  p[0] = static_cast<std::byte>(value & 0xFFu);
  p[1] = static_cast<std::byte>(value >> 8);
}

}  // namespace bitwire::endpoint_detail

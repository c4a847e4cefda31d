// Private to the endpoint sources: the reliable 1.0 prefix bits and little-endian 16-bit access.
#pragma once

#include <cstdint>

namespace bitwire::endpoint_detail {

inline constexpr uint8_t kPrefixFragment = 0x01;
inline constexpr uint8_t kPrefixAckBitsMask = 0x1E;  // bits 1..4: ack_bits byte k present
inline constexpr uint8_t kPrefixShortAck = 0x20;     // bit 5: ack sent as a one-byte difference
inline constexpr uint8_t kPrefixAckDelay = 0x40;     // bit 6: ack delay extension byte (bitwire's)
inline constexpr uint8_t kPrefixReserved = 0x80;     // bit 7: zero

inline uint16_t load_le16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
inline void store_le16(uint8_t* p, uint16_t value) {
  p[0] = static_cast<uint8_t>(value);
  p[1] = static_cast<uint8_t>(value >> 8);
}

}  // namespace bitwire::endpoint_detail

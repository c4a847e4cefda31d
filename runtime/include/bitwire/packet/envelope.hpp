// The integrity envelope (wire-format.md section 4): every datagram is [crc32, 4 bytes
// little-endian][packet], where the crc32 (IEEE) is computed over the protocol id's 8 little-endian bytes
// followed by the packet. The protocol id itself is never sent. A receiver drops a datagram whose crc32 does
// not match before it parses a single byte of the packet: that catches corruption, and packets of another
// game or version.
//
// The CRC of the 8 protocol-id bytes is computed once, at construction; sealing and opening cost one CRC
// pass over the packet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "bitwire/core/crc32.hpp"
#include "bitwire/core/config.hpp"

namespace bitwire {

class Envelope {
 public:
  static constexpr size_t kBytes = 4;

  explicit Envelope(uint64_t protocol_id = 0) : protocol_id_(protocol_id) {
    uint8_t id[8];
    for (int i = 0; i < 8; ++i) id[i] = static_cast<uint8_t>(protocol_id >> (8 * i));
    prefix_crc_ = crc32(id, sizeof id);
  }

  uint64_t protocol_id() const { return protocol_id_; }

  // crc32(protocol id LE bytes ++ packet).
  uint32_t checksum(std::span<const std::byte> packet) const {
    return crc32(packet.data(), packet.size(), prefix_crc_);
  }

  // `datagram` holds the packet at offset kBytes (packet_size bytes); writes the crc into the first
  // kBytes. Returns the datagram size.
  size_t seal(std::span<std::byte> datagram, size_t packet_size) const {
    BITWIRE_ASSERT(datagram.size() >= kBytes + packet_size);
    const uint32_t crc = checksum(datagram.subspan(kBytes, packet_size));
    for (size_t i = 0; i < kBytes; ++i) datagram[i] = static_cast<std::byte>((crc >> (8 * i)) & 0xFFu);
    return packet_size + kBytes;
  }

  // True when the untrusted `datagram` is at least kBytes long and its crc matches; the packet is then
  // datagram.subspan(kBytes).
  bool open(std::span<const std::byte> datagram) const {
    if (datagram.size() < kBytes) return false;
    uint32_t stored = 0;
    for (size_t i = 0; i < kBytes; ++i) stored |= std::to_integer<uint32_t>(datagram[i]) << (8 * i);
    return stored == checksum(datagram.subspan(kBytes));
  }

 private:
  uint64_t protocol_id_;
  uint32_t prefix_crc_ = 0;
};

}  // namespace bitwire

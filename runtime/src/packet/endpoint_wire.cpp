// The reliable 1.0 packet header codec (wire-format.md section 2, docs/packets.md section 1).
#include <algorithm>
#include <bit>
#include <cmath>

#include "bitwire/packet/endpoint.hpp"
#include "endpoint_internal.hpp"

namespace bitwire {

using namespace endpoint_detail;

double ack_delay_ms(uint8_t code) {
  return code < 128 ? static_cast<double>(code) : 128.0 + 8.0 * static_cast<double>(code - 128);
}

double ack_delay_step_ms(uint8_t code) {
  return code < 128 ? 1.0 : 8.0;
}

int ack_delay_code(double delay_ms) {
  if (!(delay_ms >= -0.5) || !(delay_ms < kMaxAckDelayMs + 4.0)) return -1;  // NaN fails both
  if (delay_ms < 127.5) return static_cast<int>(std::lround(std::max(delay_ms, 0.0)));
  return 128 + static_cast<int>(std::lround((delay_ms - 128.0) / 8.0));
}

size_t write_packet_header(const PacketHeader& header, std::span<std::byte> out_span) {
  BITWIRE_ASSERT(out_span.size() >= kMaxPacketHeaderBytes + (header.has_ack_delay ? kAckDelayBytes : 0u));
  std::byte* out = out_span.data();
  uint8_t prefix = 0;
  for (int k = 0; k < 4; ++k) {
    if (((header.ack_bits >> (8 * k)) & 0xFFu) != 0xFFu) prefix |= static_cast<uint8_t>(2u << k);
  }
  const uint16_t difference = static_cast<uint16_t>(header.sequence - header.ack);
  if (difference <= 255) prefix |= kPrefixShortAck;
  if (header.has_ack_delay) prefix |= kPrefixAckDelay;
  out[0] = std::byte{prefix};
  store_le16(out + 1, header.sequence);
  size_t size = 3;
  if (difference <= 255) {
    out[size++] = static_cast<std::byte>(difference);
  } else {
    store_le16(out + size, header.ack);
    size += 2;
  }
  for (int k = 0; k < 4; ++k) {
    if (prefix & (2u << k)) out[size++] = static_cast<std::byte>((header.ack_bits >> (8 * k)) & 0xFFu);
  }
  if (header.has_ack_delay) {
    out[size++] = std::byte{header.ack_delay_offset};
    out[size++] = std::byte{header.ack_delay};
  }
  return size;
}

size_t read_packet_header(std::span<const std::byte> bytes, PacketHeader& header, const char** reason,
                          bool ack_delay) {
  const char* unused = nullptr;
  const char*& why = reason != nullptr ? *reason : unused;
  const std::byte* data = bytes.data();
  const size_t size = bytes.size();
  if (size < 1) {
    why = "empty packet";
    return 0;
  }
  const uint8_t prefix = load_u8(data);
  if (prefix & kPrefixFragment) {
    why = "prefix bit 0 marks a fragment, not a regular header";
    return 0;
  }
  if (prefix & kPrefixReserved) {
    why = "reserved prefix bit 7 is set";
    return 0;
  }
  const bool has_delay = (prefix & kPrefixAckDelay) != 0;
  if (has_delay && !ack_delay) {
    why = "prefix bit 6 (ack delay extension) is set but the extension is not enabled";
    return 0;
  }
  const size_t needed =
      3 + ((prefix & kPrefixShortAck) ? 1u : 2u) +
      static_cast<size_t>(std::popcount(static_cast<unsigned>(prefix & kPrefixAckBitsMask))) +
      (has_delay ? kAckDelayBytes : 0u);
  if (size < needed) {
    why = "truncated header";
    return 0;
  }
  PacketHeader read;
  read.sequence = load_le16(data + 1);
  size_t at = 3;
  if (prefix & kPrefixShortAck) {
    read.ack = static_cast<uint16_t>(read.sequence - load_u8(data + at));
    at += 1;
  } else {
    read.ack = load_le16(data + at);
    at += 2;
    if (static_cast<uint16_t>(read.sequence - read.ack) <= 255) {
      why = "non-canonical header: two-byte ack whose difference fits one byte";
      return 0;
    }
  }
  uint32_t ack_bits = 0xFFFFFFFFu;
  for (int k = 0; k < 4; ++k) {
    if (prefix & (2u << k)) {
      const uint8_t byte = load_u8(data + at++);
      if (byte == 0xFF) {
        why = "non-canonical header: ack_bits byte 0xFF sent although the prefix could omit it";
        return 0;
      }
      ack_bits = (ack_bits & ~(0xFFu << (8 * k))) | (static_cast<uint32_t>(byte) << (8 * k));
    }
  }
  read.ack_bits = ack_bits;
  if (has_delay) {
    read.has_ack_delay = true;
    read.ack_delay_offset = load_u8(data + at++);
    read.ack_delay = load_u8(data + at++);
  }
  header = read;
  return at;
}

void write_fragment_header(const FragmentHeader& header, std::span<std::byte> out) {
  BITWIRE_ASSERT(out.size() >= kFragmentHeaderBytes);
  BITWIRE_ASSERT(header.fragment_count >= 1 && header.fragment_count <= kMaxFragmentsLimit);
  BITWIRE_ASSERT(header.fragment_id < header.fragment_count);
  out[0] = std::byte{kPrefixFragment};
  store_le16(out.data() + 1, header.sequence);
  out[3] = std::byte{header.fragment_id};
  out[4] = static_cast<std::byte>(header.fragment_count - 1);
}

}  // namespace bitwire

// Little-endian byte writer and reader over a fixed std::byte span, for the netcode formats. The writer's
// bounds are the caller's contract (asserted); the reader never reads past its end and reports it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "bitwire/transport/address.hpp"
#include "bitwire/core/config.hpp"
#include "bitwire/netcode/token.hpp"

namespace bitwire::netcode::detail {

class ByteWriter {
 public:
  explicit ByteWriter(std::span<std::byte> out) : out_(out) {}
  void u8(uint8_t v) { uint_le(v, 1); }
  void u16(uint16_t v) { uint_le(v, 2); }
  void u32(uint32_t v) { uint_le(v, 4); }
  void u64(uint64_t v) { uint_le(v, 8); }
  void bytes(std::span<const std::byte> p) { put(p); }
  size_t size() const { return size_; }
  bool fits(size_t n) const { return out_.size() - size_ >= n; }

 private:
  void uint_le(uint64_t v, size_t n) {
    std::byte b[8];
    for (size_t i = 0; i < n; ++i) b[i] = static_cast<std::byte>((v >> (8 * i)) & 0xFFu);
    put({b, n});
  }
  void put(std::span<const std::byte> p) {
    BITWIRE_ASSERT(fits(p.size()));
    if (!fits(p.size())) return;
    if (!p.empty()) std::memcpy(out_.data() + size_, p.data(), p.size());
    size_ += p.size();
  }
  std::span<std::byte> out_;
  size_t size_ = 0;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}
  bool u8(uint8_t& v) { return uint_le(v, 1); }
  bool u16(uint16_t& v) { return uint_le(v, 2); }
  bool u32(uint32_t& v) { return uint_le(v, 4); }
  bool u64(uint64_t& v) { return uint_le(v, 8); }
  bool bytes(std::span<std::byte> out) {
    if (in_.size() - offset_ < out.size()) return false;
    if (!out.empty()) std::memcpy(out.data(), in_.data() + offset_, out.size());
    offset_ += out.size();
    return true;
  }
  size_t offset() const { return offset_; }

 private:
  template <typename T>
  bool uint_le(T& v, size_t n) {
    if (in_.size() - offset_ < n) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; ++i) x |= std::to_integer<uint64_t>(in_[offset_ + i]) << (8 * i);
    v = static_cast<T>(x);
    offset_ += n;
    return true;
  }
  std::span<const std::byte> in_;
  size_t offset_ = 0;
};

// The bytes of a fixed array (keys, nonces and user data are std::byte already; an address's octets are
// uint8_t), as the readers and writers take them.
template <typename T, size_t N>
std::span<const std::byte, N * sizeof(T)> view(const std::array<T, N>& a) {
  return std::as_bytes(std::span<const T, N>(a));
}
template <typename T, size_t N>
std::span<std::byte, N * sizeof(T)> writable(std::array<T, N>& a) {
  return std::as_writable_bytes(std::span<T, N>(a));
}

// The version info's 13 bytes (12 characters and the terminator).
inline std::span<const std::byte> version_info() {
  return std::as_bytes(std::span<const char>(kVersionInfo, kVersionInfoBytes));
}

// libsodium's AEAD functions take `unsigned char*`; the packet path holds std::byte. This is the one place
// the two meet: std::byte and unsigned char are both byte types that may alias any object, so viewing one
// as the other is exact (no bits change).
inline unsigned char* sodium_bytes(std::byte* p) {
  return reinterpret_cast<unsigned char*>(p);
}
inline const unsigned char* sodium_bytes(const std::byte* p) {
  return reinterpret_cast<const unsigned char*>(p);
}

// Address as netcode writes it: type 1 + a.b.c.d + port, or type 2 + eight u16 groups + port (all LE).
inline size_t address_bytes(const Address& address) {
  return address.is_ipv4() ? 1 + 4 + 2 : 1 + 16 + 2;
}

inline void write_address(ByteWriter& w, const Address& address) {
  if (address.is_ipv4()) {
    w.u8(1);
    w.bytes(view(address.bytes()).first(4));
  } else {
    w.u8(2);
    for (int i = 0; i < 8; ++i) w.u16(address.ipv6_group(i));
  }
  w.u16(address.port());
}

inline bool read_address(ByteReader& r, Address& address, const char** reason) {
  uint8_t type = 0;
  if (!r.u8(type)) {
    *reason = "truncated server address";
    return false;
  }
  if (type == 1) {
    std::array<uint8_t, 4> b{};
    uint16_t port = 0;
    if (!r.bytes(writable(b)) || !r.u16(port)) {
      *reason = "truncated server address";
      return false;
    }
    address = Address::ipv4(b, port);
    return true;
  }
  if (type == 2) {
    std::array<uint16_t, 8> groups{};
    for (auto& g : groups) {
      if (!r.u16(g)) {
        *reason = "truncated server address";
        return false;
      }
    }
    uint16_t port = 0;
    if (!r.u16(port)) {
      *reason = "truncated server address";
      return false;
    }
    address = Address::ipv6(groups, port);
    return true;
  }
  *reason = "server address type is neither 1 (IPv4) nor 2 (IPv6)";
  return false;
}

// The 12-byte packet and challenge nonce: four zero bytes, then the sequence as u64 LE.
inline std::array<std::byte, 12> sequence_nonce(uint64_t sequence) {
  std::array<std::byte, 12> nonce{};
  for (int i = 0; i < 8; ++i) nonce[4 + i] = static_cast<std::byte>((sequence >> (8 * i)) & 0xFFu);
  return nonce;
}

}  // namespace bitwire::netcode::detail

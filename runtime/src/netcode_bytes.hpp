// Little-endian byte writer and reader over a fixed buffer, for the netcode formats. The writer's bounds are
// the caller's contract (asserted); the reader never reads past its end and reports it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "bitwire/address.hpp"
#include "bitwire/config.hpp"

namespace bitwire::netcode::detail {

class ByteWriter {
 public:
  ByteWriter(uint8_t* data, size_t capacity) : data_(data), capacity_(capacity) {}
  void u8(uint8_t v) { put(&v, 1); }
  void u16(uint16_t v) { uint_le(v, 2); }
  void u32(uint32_t v) { uint_le(v, 4); }
  void u64(uint64_t v) { uint_le(v, 8); }
  void bytes(const uint8_t* p, size_t n) { put(p, n); }
  size_t size() const { return size_; }
  bool fits(size_t n) const { return capacity_ - size_ >= n; }

 private:
  void uint_le(uint64_t v, size_t n) {
    uint8_t b[8];
    for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
    put(b, n);
  }
  void put(const uint8_t* p, size_t n) {
    BITWIRE_ASSERT(fits(n));
    if (!fits(n)) return;
    std::memcpy(data_ + size_, p, n);
    size_ += n;
  }
  uint8_t* data_;
  size_t capacity_;
  size_t size_ = 0;
};

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool u8(uint8_t& v) { return uint_le(v, 1); }
  bool u16(uint16_t& v) { return uint_le(v, 2); }
  bool u32(uint32_t& v) { return uint_le(v, 4); }
  bool u64(uint64_t& v) { return uint_le(v, 8); }
  bool bytes(uint8_t* p, size_t n) {
    if (size_ - offset_ < n) return false;
    std::memcpy(p, data_ + offset_, n);
    offset_ += n;
    return true;
  }
  size_t offset() const { return offset_; }

 private:
  template <typename T>
  bool uint_le(T& v, size_t n) {
    if (size_ - offset_ < n) return false;
    uint64_t x = 0;
    for (size_t i = 0; i < n; ++i) x |= static_cast<uint64_t>(data_[offset_ + i]) << (8 * i);
    v = static_cast<T>(x);
    offset_ += n;
    return true;
  }
  const uint8_t* data_;
  size_t size_;
  size_t offset_ = 0;
};

// Address as netcode writes it: type 1 + a.b.c.d + port, or type 2 + eight u16 groups + port (all LE).
inline size_t address_bytes(const Address& address) {
  return address.is_ipv4() ? 1 + 4 + 2 : 1 + 16 + 2;
}

inline void write_address(ByteWriter& w, const Address& address) {
  if (address.is_ipv4()) {
    w.u8(1);
    w.bytes(address.bytes().data(), 4);
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
    if (!r.bytes(b.data(), 4) || !r.u16(port)) {
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
inline void sequence_nonce(uint64_t sequence, uint8_t* nonce) {
  std::memset(nonce, 0, 4);
  for (int i = 0; i < 8; ++i) nonce[4 + i] = static_cast<uint8_t>(sequence >> (8 * i));
}

}  // namespace bitwire::netcode::detail

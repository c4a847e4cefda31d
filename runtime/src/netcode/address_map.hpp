// AddressMap: a fixed-capacity hash map from Address to a small int (open addressing, linear probing,
// backward-shift deletion, so no tombstones build up). Allocated once; never allocates after.
//
// Its keys are the senders of datagrams, which an attacker chooses (spoofed sources, addresses of its own
// /64): a home slot an attacker could compute would let it build one long probe run that every lookup of
// a colliding sender walks. So the home slot is a keyed PRF of the address (SipHash-2-4, libsodium's
// crypto_shorthash) under a random key each map draws at construction: which addresses collide depends on
// a secret that never leaves the process, and differs between maps and between runs. libsodium must be
// initialised first (the netcode server does so before it builds its maps).
#pragma once

#include <sodium.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "bitwire/transport/address.hpp"

namespace bitwire::detail {

class AddressMap {
 public:
  explicit AddressMap(size_t max_entries) {
    size_t capacity = 16;
    while (capacity < 2 * max_entries) capacity *= 2;
    keys_.resize(capacity);
    values_.assign(capacity, -1);
    mask_ = capacity - 1;
    randombytes_buf(key_.data(), key_.size());
  }
  size_t memory_bytes() const { return keys_.size() * (sizeof(Address) + sizeof(int)); }

  // The home slot's hash of `address`: SipHash-2-4 under this map's key over the family, the port and the
  // 16 address bytes.
  uint64_t hash(const Address& address) const {
    std::array<unsigned char, 19> input{};
    input[0] = static_cast<unsigned char>(address.family());
    input[1] = static_cast<unsigned char>(address.port() & 0xFF);
    input[2] = static_cast<unsigned char>(address.port() >> 8);
    std::memcpy(input.data() + 3, address.bytes().data(), 16);
    unsigned char out[crypto_shorthash_siphash24_BYTES];
    crypto_shorthash_siphash24(out, input.data(), input.size(), key_.data());
    uint64_t h = 0;
    for (int i = 7; i >= 0; --i) h = h << 8 | out[i];
    return h;
  }

  int find(const Address& key) const {
    for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
      if (values_[i] < 0) return -1;
      if (keys_[i] == key) return values_[i];
    }
  }
  // The caller keeps the count under max_entries. Replaces the value of an existing key.
  void insert(const Address& key, int value) {
    for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
      if (values_[i] < 0 || keys_[i] == key) {
        keys_[i] = key;
        values_[i] = value;
        return;
      }
    }
  }
  void erase(const Address& key) {
    size_t i = hash(key) & mask_;
    while (true) {
      if (values_[i] < 0) return;
      if (keys_[i] == key) break;
      i = (i + 1) & mask_;
    }
    // Shift later members of the probe run back so every key stays reachable from its home slot.
    size_t hole = i;
    for (size_t j = (hole + 1) & mask_; values_[j] >= 0; j = (j + 1) & mask_) {
      const size_t home = hash(keys_[j]) & mask_;
      const bool movable = (j > hole) ? (home <= hole || home > j) : (home <= hole && home > j);
      if (movable) {
        keys_[hole] = keys_[j];
        values_[hole] = values_[j];
        hole = j;
      }
    }
    values_[hole] = -1;
    keys_[hole] = Address();
  }

 private:
  std::vector<Address> keys_;
  std::vector<int> values_;
  size_t mask_ = 0;
  std::array<unsigned char, crypto_shorthash_siphash24_KEYBYTES> key_{};
};

}  // namespace bitwire::detail

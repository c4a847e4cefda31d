// AddressMap: a fixed-capacity hash map from Address to a small int (open addressing, linear probing,
// backward-shift deletion, so no tombstones build up). Allocated once; never allocates after.
#pragma once

#include <cstddef>
#include <cstdint>
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
  }
  size_t memory_bytes() const { return keys_.size() * (sizeof(Address) + sizeof(int)); }

  int find(const Address& key) const {
    for (size_t i = key.hash() & mask_;; i = (i + 1) & mask_) {
      if (values_[i] < 0) return -1;
      if (keys_[i] == key) return values_[i];
    }
  }
  // The caller keeps the count under max_entries. Replaces the value of an existing key.
  void insert(const Address& key, int value) {
    for (size_t i = key.hash() & mask_;; i = (i + 1) & mask_) {
      if (values_[i] < 0 || keys_[i] == key) {
        keys_[i] = key;
        values_[i] = value;
        return;
      }
    }
  }
  void erase(const Address& key) {
    size_t i = key.hash() & mask_;
    while (true) {
      if (values_[i] < 0) return;
      if (keys_[i] == key) break;
      i = (i + 1) & mask_;
    }
    // Shift later members of the probe run back so every key stays reachable from its home slot.
    size_t hole = i;
    for (size_t j = (hole + 1) & mask_; values_[j] >= 0; j = (j + 1) & mask_) {
      const size_t home = keys_[j].hash() & mask_;
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
};

}  // namespace bitwire::detail

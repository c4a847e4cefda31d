// FixedVector<T, N>: a vector with its capacity in the object (no heap), the storage generated code uses
// for variable-length arrays. Its size is what goes on the wire; elements past the size are unused.
//
// Contracts: nothing writes past the N elements in any build. push_back and resize refuse (return false,
// change nothing) what does not fit; the constructors keep the first N elements of an over-long list (and
// assert in debug builds); an index at or past size() is asserted and, in release builds, clamped to the
// last slot of the storage rather than read or written outside it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "bitwire/core/config.hpp"

namespace bitwire {

template <typename T, size_t N>
class FixedVector {
 public:
  using value_type = T;
  static constexpr size_t kCapacity = N;

  constexpr FixedVector() = default;
  // `count` copies of `value` (count at most N).
  constexpr FixedVector(size_t count, const T& value) {
    BITWIRE_ASSERT(count <= N);
    if (count > N) count = N;
    for (size_t i = 0; i < count; ++i) items_[i] = value;
    size_ = count;
  }
  constexpr FixedVector(std::initializer_list<T> items) {
    BITWIRE_ASSERT(items.size() <= N);
    for (const T& item : items) {
      if (size_ == N) break;
      items_[size_++] = item;
    }
  }

  constexpr size_t size() const { return size_; }
  static constexpr size_t capacity() { return N; }
  constexpr bool empty() const { return size_ == 0; }

  constexpr T& operator[](size_t index) {
    BITWIRE_ASSERT(index < size_);
    return items_[index < N ? index : N - 1];
  }
  constexpr const T& operator[](size_t index) const {
    BITWIRE_ASSERT(index < size_);
    return items_[index < N ? index : N - 1];
  }

  // Appends `item` and returns true, or returns false when the vector is full.
  constexpr bool push_back(const T& item) {
    if (size_ >= N) return false;
    items_[size_++] = item;
    return true;
  }
  // Grows or shrinks to `size` and returns true; returns false and changes nothing when size > N. New
  // elements keep whatever the slot held (default-constructed for a fresh vector), so readers assign
  // every element they accept.
  constexpr bool resize(size_t size) {
    if (size > N) return false;
    size_ = size;
    return true;
  }
  constexpr void clear() { size_ = 0; }

  constexpr T* data() { return items_.data(); }
  constexpr const T* data() const { return items_.data(); }
  constexpr T* begin() { return items_.data(); }
  constexpr T* end() { return items_.data() + size_; }
  constexpr const T* begin() const { return items_.data(); }
  constexpr const T* end() const { return items_.data() + size_; }

  friend constexpr bool operator==(const FixedVector& a, const FixedVector& b) {
    if (a.size_ != b.size_) return false;
    for (size_t i = 0; i < a.size_; ++i) {
      if (!(a.items_[i] == b.items_[i])) return false;
    }
    return true;
  }

 private:
  std::array<T, N> items_{};
  size_t size_ = 0;
};

}  // namespace bitwire

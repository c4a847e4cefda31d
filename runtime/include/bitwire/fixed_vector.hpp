// FixedVector<T, N>: a vector with its capacity in the object (no heap), the storage generated code uses
// for variable-length arrays. Its size is what goes on the wire; elements past the size are unused.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "bitwire/config.hpp"

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
    for (size_t i = 0; i < count; ++i) items_[i] = value;
    size_ = count;
  }
  constexpr FixedVector(std::initializer_list<T> items) {
    BITWIRE_ASSERT(items.size() <= N);
    for (const T& item : items) items_[size_++] = item;
  }

  constexpr size_t size() const { return size_; }
  static constexpr size_t capacity() { return N; }
  constexpr bool empty() const { return size_ == 0; }

  constexpr T& operator[](size_t index) {
    BITWIRE_ASSERT(index < size_);
    return items_[index];
  }
  constexpr const T& operator[](size_t index) const {
    BITWIRE_ASSERT(index < size_);
    return items_[index];
  }

  constexpr void push_back(const T& item) {
    BITWIRE_ASSERT(size_ < N);
    items_[size_++] = item;
  }
  // Grows or shrinks to `size` (at most N); new elements keep whatever the slot held (default-constructed
  // for a fresh vector), so readers assign every element they accept.
  constexpr void resize(size_t size) {
    BITWIRE_ASSERT(size <= N);
    size_ = size;
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

// FixedString<N>: up to N bytes of UTF-8 in the object (no heap), NUL-terminated, the storage generated
// code uses for `string<N>` fields. On the wire it is serialize_string with a buffer of N + 1 bytes.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

#include "bitwire/config.hpp"

namespace bitwire {

template <size_t N>
class FixedString {
 public:
  static constexpr size_t kMaxLength = N;
  static constexpr size_t kBufferSize = N + 1;

  constexpr FixedString() = default;
  FixedString(std::string_view text) { assign(text); }  // NOLINT: implicit, like std::string

  // Precondition: text fits (at most N bytes) and holds no zero byte.
  void assign(std::string_view text) {
    BITWIRE_ASSERT(text.size() <= N);
    BITWIRE_ASSERT(text.find('\0') == std::string_view::npos);
    std::memcpy(buffer_, text.data(), text.size());
    buffer_[text.size()] = '\0';
  }
  FixedString& operator=(std::string_view text) {
    assign(text);
    return *this;
  }

  size_t size() const { return std::strlen(buffer_); }
  bool empty() const { return buffer_[0] == '\0'; }
  const char* c_str() const { return buffer_; }
  std::string_view view() const { return std::string_view(buffer_); }
  // The buffer serialize_string reads into and writes from (kBufferSize bytes).
  char* buffer() { return buffer_; }

  friend bool operator==(const FixedString& a, const FixedString& b) { return a.view() == b.view(); }
  friend bool operator==(const FixedString& a, std::string_view b) { return a.view() == b; }

 private:
  char buffer_[N + 1] = {};
};

}  // namespace bitwire

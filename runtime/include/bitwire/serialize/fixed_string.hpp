// FixedString<N>: up to N bytes of UTF-8 in the object (no heap), NUL-terminated, with its length stored
// beside the text, the storage generated code uses for `string<N>` fields. On the wire it is
// serialize_string (the length, then the bytes): a write takes the stored length instead of scanning for the
// terminator, and a read sets it.
//
// Contracts: nothing writes past the N + 1 bytes in any build. A string literal converts implicitly and is
// checked at compile time; run-time text goes through assign(), which refuses (returns false, leaves the
// string unchanged) what does not fit, or assign_truncated(), which keeps the longest prefix that fits and
// ends on a UTF-8 code-point boundary. Neither checks UTF-8 well-formedness: the validating stream refuses
// a malformed string when the message is sent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "bitwire/core/config.hpp"

namespace bitwire {

template <size_t N>
class FixedString {
 public:
  static constexpr size_t kMaxLength = N;
  static constexpr size_t kBufferSize = N + 1;
  // The smallest unsigned type that holds N.
  using Length = std::conditional_t<N <= 0xFF, uint8_t, std::conditional_t<N <= 0xFFFF, uint16_t, uint32_t>>;
  static_assert(N <= 0xFFFFFFFFu, "a FixedString holds at most 2^32 - 1 bytes");

  constexpr FixedString() = default;

  // From a string literal; one longer than N bytes does not compile.
  template <size_t M>
  constexpr FixedString(const char (&literal)[M]) {  // NOLINT: implicit, checked at compile time
    static_assert(M >= 1 && M - 1 <= N, "string literal longer than the FixedString's capacity");
    copy_literal(literal, M - 1);
  }
  template <size_t M>
  constexpr FixedString& operator=(const char (&literal)[M]) {
    static_assert(M >= 1 && M - 1 <= N, "string literal longer than the FixedString's capacity");
    copy_literal(literal, M - 1);
    return *this;
  }

  // Replaces the text when it fits (at most N bytes, no zero byte) and returns true; otherwise returns
  // false and leaves the string unchanged.
  [[nodiscard]] bool assign(std::string_view text) {
    if (text.size() > N || text.find('\0') != std::string_view::npos) return false;
    std::memcpy(buffer_, text.data(), text.size());
    set_length(text.size());
    return true;
  }

  // Replaces the text with its longest prefix that fits: at most N bytes, stopping before the first zero
  // byte, and never ending inside a multi-byte UTF-8 sequence (a cut lands on the lead byte of the
  // sequence it would split, which is dropped whole). Returns the number of bytes kept.
  size_t assign_truncated(std::string_view text) {
    size_t length = text.find('\0');
    if (length == std::string_view::npos) length = text.size();
    if (length > N) {
      length = N;
      // Back up over continuation bytes (10xxxxxx) to the lead byte of the split sequence.
      while (length > 0 && (static_cast<unsigned char>(text[length]) & 0xC0) == 0x80) --length;
    }
    std::memcpy(buffer_, text.data(), length);
    set_length(length);
    return length;
  }

  BITWIRE_FORCE_INLINE size_t size() const { return length_; }
  bool empty() const { return length_ == 0; }
  const char* c_str() const { return buffer_; }
  std::string_view view() const { return std::string_view(buffer_, length_); }

  // Low level, for code that fills the text itself (serialize_string does): storage() is the kBufferSize
  // bytes of the text; after writing `length` bytes to it, set_length(length) makes them the string (and
  // terminates it). A length above N is clamped to N. Until then size(), view() and a write take the
  // stored length over whatever storage() holds (never a scan for the terminator), and c_str() may be
  // unterminated. Neither checks the bytes: a zero byte or malformed UTF-8 inside the length is refused by
  // the validating stream when the message is sent.
  char* storage() { return buffer_; }
  BITWIRE_FORCE_INLINE void set_length(size_t length) {
    if (length > N) length = N;
    length_ = static_cast<Length>(length);
    buffer_[length] = '\0';
  }
  // set_length for a text already terminated at `length` (<= N, asserted): only the length is stored.
  BITWIRE_FORCE_INLINE void set_terminated_length(size_t length) {
    BITWIRE_ASSERT(length <= N && buffer_[length] == '\0');
    length_ = static_cast<Length>(length);
  }

  friend bool operator==(const FixedString& a, const FixedString& b) { return a.view() == b.view(); }
  friend bool operator==(const FixedString& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const FixedString& a, const char* b) { return a.view() == std::string_view(b); }

 private:
  constexpr void copy_literal(const char* literal, size_t length) {
    size_t i = 0;
    for (; i < length && literal[i] != '\0'; ++i) buffer_[i] = literal[i];
    buffer_[i] = '\0';
    length_ = static_cast<Length>(i);
  }

  char buffer_[N + 1] = {};
  Length length_ = 0;
};

}  // namespace bitwire

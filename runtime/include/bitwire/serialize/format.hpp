// Readable text for logs: format_value(out, value) appends a value to a std::string. Generated code adds
// an overload per enum and flag set, and per package one format_value / to_string template pair that
// takes the package's structs (all found by argument-dependent lookup); inside generated code each type's
// formatter is called by its own name (format_items takes it as `format`), so no call resolves against an
// overload set that grows with the package. Not for the packet path: it allocates.
#pragma once

#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>

#include "bitwire/core/config.hpp"
#include "bitwire/serialize/fixed_string.hpp"
#include "bitwire/serialize/fixed_vector.hpp"

namespace bitwire {

inline void format_value(std::string& out, bool value) { out += value ? "true" : "false"; }

template <typename T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
inline void format_value(std::string& out, T value) {
  char text[32];
  if constexpr (std::is_signed_v<T>) {
    std::snprintf(text, sizeof text, "%" PRId64, static_cast<int64_t>(value));
  } else {
    std::snprintf(text, sizeof text, "%" PRIu64, static_cast<uint64_t>(value));
  }
  out += text;
}

inline void format_value(std::string& out, uint128_t value) {
  char digits[40];
  size_t count = 0;
  do {
    digits[count++] = static_cast<char>('0' + static_cast<int>(value % 10));
    value /= 10;
  } while (value != 0);
  while (count > 0) out += digits[--count];
}

inline void format_value(std::string& out, int128_t value) {
  if (value < 0) {
    out += '-';
    format_value(out, static_cast<uint128_t>(0) - static_cast<uint128_t>(value));
  } else {
    format_value(out, static_cast<uint128_t>(value));
  }
}

// Shortest text that reads back to the same value.
inline void format_value(std::string& out, double value) {
  char text[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  out += text;
}

inline void format_value(std::string& out, float value) {
  char text[40];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, static_cast<double>(value));
    if (std::strtof(text, nullptr) == value) break;
  }
  out += text;
}

// Quoted, with '"' and '\\' escaped.
inline void format_string(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

template <size_t N>
inline void format_value(std::string& out, const FixedString<N>& value) {
  format_string(out, value.view());
}
// Declared before format_range so that arrays of arrays (`bytes[20] hashes[2]`, `bytes<8> blobs[2]`) find
// them: std::array of a standard type brings no bitwire overload in through argument-dependent lookup.
template <typename T, size_t N>
inline void format_value(std::string& out, const std::array<T, N>& value);
template <typename T, size_t N>
inline void format_value(std::string& out, const FixedVector<T, N>& value);

template <typename Range>
inline void format_range(std::string& out, const Range& range) {
  out += '[';
  bool first = true;
  for (const auto& item : range) {
    if (!first) out += ", ";
    first = false;
    format_value(out, item);
  }
  out += ']';
}

// `count` elements from `items` as [a, b, ...]: each by format_value, or by `format(out, element)`. What
// generated formatters call for arrays: one instantiation per element type, not one per array type.
template <typename T>
inline void format_items(std::string& out, const T* items, size_t count) {
  out += '[';
  for (size_t i = 0; i < count; ++i) {
    if (i != 0) out += ", ";
    format_value(out, items[i]);
  }
  out += ']';
}

template <typename T, typename Format>
inline void format_items(std::string& out, const T* items, size_t count, Format format) {
  out += '[';
  for (size_t i = 0; i < count; ++i) {
    if (i != 0) out += ", ";
    format(out, items[i]);
  }
  out += ']';
}

template <typename T, size_t N>
inline void format_value(std::string& out, const std::array<T, N>& value) {
  format_range(out, value);
}

template <typename T, size_t N>
inline void format_value(std::string& out, const FixedVector<T, N>& value) {
  format_range(out, value);
}

}  // namespace bitwire

#include "backend/cpp/emit_cpp_text.hpp"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "bitwire/serialize/utf8.hpp"

namespace idlc::cpp {

std::string int64_literal(std::int64_t value) {
  if (value == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807LL - 1)";
  return std::to_string(value) + (value > 2147483647 || value < -2147483647 ? "LL" : "");
}

std::string uint64_literal(std::uint64_t value) { return std::to_string(value) + (value > 4294967295u ? "ULL" : "u"); }

std::string integer_literal(std::int64_t stored, model::IntStorage storage) {
  if (!storage.is_signed && stored < 0) return uint64_literal(static_cast<std::uint64_t>(stored));
  return int64_literal(stored);
}

std::string enum_literal(model::EnumValue value) {
  if (value > std::numeric_limits<std::int64_t>::max())
    return uint64_literal(static_cast<std::uint64_t>(value));
  return int64_literal(static_cast<std::int64_t>(value));
}

std::string int128_value(__int128 value, const std::string& type) {
  if (value >= std::numeric_limits<std::int64_t>::min() &&
      value <= std::numeric_limits<std::int64_t>::max()) {
    return type + "(" + int64_literal(static_cast<std::int64_t>(value)) + ")";
  }
  if (value > 0 && value <= static_cast<__int128>(std::numeric_limits<std::uint64_t>::max())) {
    return type + "(" + uint64_literal(static_cast<std::uint64_t>(value)) + ")";
  }
  const auto bits = static_cast<unsigned __int128>(value);
  return type + "((bitwire::uint128_t{" + uint64_literal(static_cast<std::uint64_t>(bits >> 64)) +
         "} << 64) | " + uint64_literal(static_cast<std::uint64_t>(bits)) + ")";
}

std::string fixed_raw_literal(__int128 value) {
  if (value > std::numeric_limits<std::int64_t>::max())
    return uint64_literal(static_cast<std::uint64_t>(value));
  return int64_literal(static_cast<std::int64_t>(value));
}

std::string hex64(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%016" PRIx64 "ull", value);
  return text;
}

std::string float_literal(float value) {
  char text[48];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, static_cast<double>(value));
    if (std::strtof(text, nullptr) == value) break;
  }
  std::string result = text;
  if (result.find_first_of(".e") == std::string::npos) result += ".0";
  return result + "f";
}

std::string double_literal(double value) {
  char text[48];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  std::string result = text;
  if (result.find_first_of(".e") == std::string::npos) result += ".0";
  return result;
}

std::string string_literal(const std::string& bytes) {
  std::string out = "\"";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '?' && i + 1 < bytes.size() && bytes[i + 1] == '?') {
      out += "?\\";  // `?\?` is the same two characters and never a trigraph
    } else if (c < 0x20 || c >= 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\%03o", c);  // octal escapes never swallow following digits
      out += escape;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

namespace {

// The text shown for the Unicode bidirectional control at `at` (UTF-8), or nullptr, with its length in
// bytes in `length`: the embeddings and overrides U+202A-U+202E, the isolates U+2066-U+2069 and the marks
// U+200E, U+200F, U+061C. Raw in a header they reorder how the code around them displays (Trojan Source)
// and g++ warns (-Wbidi-chars). Shown as U+XXXX, which no compiler reads as a character.
const char* bidi_control(const unsigned char* at, std::size_t size, std::size_t& length) {
  static const char* const k202x[] = {"U+202A", "U+202B", "U+202C", "U+202D", "U+202E"};
  static const char* const k206x[] = {"U+2066", "U+2067", "U+2068", "U+2069"};
  length = 2;
  if (size >= 2 && at[0] == 0xD8 && at[1] == 0x9C) return "U+061C";
  length = 3;
  if (size < 3 || at[0] != 0xE2) return nullptr;
  if (at[1] == 0x80 && at[2] >= 0xAA && at[2] <= 0xAE) return k202x[at[2] - 0xAA];
  if (at[1] == 0x80 && at[2] == 0x8E) return "U+200E";
  if (at[1] == 0x80 && at[2] == 0x8F) return "U+200F";
  if (at[1] == 0x81 && at[2] >= 0xA6 && at[2] <= 0xA9) return k206x[at[2] - 0xA6];
  return nullptr;
}

}  // namespace

std::string comment_text(const std::string& line) {
  std::string out;
  const auto* bytes = reinterpret_cast<const unsigned char*>(line.data());
  const bool utf8 = bitwire::check_utf8(bytes, line.size()) != bitwire::Utf8Status::kInvalid;
  std::size_t length = 0;  // of a bidi control
  for (std::size_t i = 0; i < line.size(); ++i) {
    const unsigned char c = bytes[i];
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (const char* control = utf8 ? bidi_control(bytes + i, line.size() - i, length) : nullptr) {
      out += control;
      i += length - 1;
    } else if ((c < 0x20 && c != '\t') || c == 0x7f || (c >= 0x80 && !utf8)) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\x%02X", c);
      out += escape;
    } else {
      out += static_cast<char>(c);
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
  const bool splices = !out.empty() && (out.back() == '\\' || (out.size() >= 3 && out.compare(out.size() - 3, 3, "?\?/") == 0));
  if (splices) out += '.';
  return out;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i != 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::string storage_type(const model::IntStorage& storage) {
  return std::string(storage.is_signed ? "std::int" : "std::uint") + std::to_string(storage.bits) + "_t";
}

std::string format_function_name(const std::string& type_name) { return "format_" + type_name + "_"; }

}  // namespace idlc::cpp

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

std::string comment_text(const std::string& line) {
  std::string out;
  const auto* bytes = reinterpret_cast<const unsigned char*>(line.data());
  const bool utf8 = bitwire::check_utf8(bytes, line.size()) != bitwire::Utf8Status::kInvalid;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const unsigned char c = bytes[i];
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
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

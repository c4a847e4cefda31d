// Text helpers of the C++ emitter: literals that read back exactly, comment text that cannot leave its
// comment, and the C++ spelling of storage types. No model decisions here: only spelling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace idlc::cpp {

std::string int64_literal(std::int64_t value);
std::string uint64_literal(std::uint64_t value);
// A stored bound or default of an integer storage (model.hpp: unsigned storage bit for bit): the
// int64 spelling while the value fits int64, the unsigned one above (no narrowing, no sign flip).
std::string integer_literal(std::int64_t stored, model::IntStorage storage);
// An enum value as a literal its storage takes without a narrowing conversion: an int64 literal up to
// 2^63 - 1, an unsigned one (`ULL`) above (only a uint64 storage holds those).
std::string enum_literal(model::EnumValue value);
// A 128-bit value as an expression of `type` (bitwire::int128_t or bitwire::uint128_t): `type(literal)`
// while it fits int64 or uint64, else composed from its two 64-bit halves, since C++ has no 128-bit
// literal: `type((bitwire::uint128_t{HIGH} << 64) | LOW)` (two's complement bits for a negative value).
std::string int128_value(__int128 value, const std::string& type);
// A raw fixed-point bound of a storage of up to 64 bits: the int64 spelling while it fits int64, the
// unsigned one above (unsigned storage up to 2^64 - 1).
std::string fixed_raw_literal(__int128 value);
std::string hex64(std::uint64_t value);
// A float literal that reads back to exactly `value` (shortest round-trip text).
std::string float_literal(float value);
std::string double_literal(double value);
// A string literal of any bytes: octal escapes for control and non-ASCII bytes, and no `??` (a trigraph
// under -trigraphs, and -Wtrigraphs everywhere).
std::string string_literal(const std::string& bytes);

// The text of one `//` comment line: nothing in it can end the comment or splice the next line into it.
// Line-ending characters (CR, LF, and every other control character but tab) are shown as `\r`, `\n`,
// `\xNN`; a line that ends in a backslash or in `??/` (once any trailing blanks are dropped) gets a `.`
// after it; bytes that are not UTF-8 are shown as `\xNN`.
std::string comment_text(const std::string& line);

std::string join(const std::vector<std::string>& parts, const std::string& separator);
std::string storage_type(const model::IntStorage& storage);

// The formatter of enum or flag set `type_name` under a name of its own (format_<Type>_): generated
// structs call it instead of format_value, whose overload set grows with the package. The trailing '_'
// keeps it out of the schema's names.
std::string format_function_name(const std::string& type_name);

}  // namespace idlc::cpp

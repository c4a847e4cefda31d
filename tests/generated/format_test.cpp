// Generated structs' text (bitwire/serialize/format.hpp): `to_string(value)` and `format_value(out, value)`,
// called unqualified and found by argument-dependent lookup, for a struct, a struct nested in another
// package's struct, and a message; and with both packages' namespaces brought in by using-directives, where
// each package's one constrained template pair must take its own structs only (no ambiguity). The texts
// are the ones the per-struct overloads produced before the package template replaced them. (That the
// declarations do not grow with the package: Scale.FormattingDeclarationsDoNotGrowWithTheStructs.)
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "bitwire/serialize/format.hpp"
#include "constructs.hpp"

namespace {

namespace dc = demo::constructs;

// What the per-struct overloads printed for these values (captured from the headers before the change).
constexpr const char* kPositionText = "Position{x=1, y=-2.5, z=3}";
constexpr const char* kPingText = "Ping{sent_tick=7}";
constexpr const char* kShapesText =
    "Shapes{fixed_array=[1, 2, 3, 4], variable_array=[], path=[Position{x=0, y=0, z=0}, Position{x=2,"
    " y=3.5, z=-4}], health=[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
    "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
    "0, 0, 0, 0, 0, 0, 0, 0], tiny=[false, false, false], spawn=Position{x=5, y=6, z=7}, maybe_list=n"
    "one, nested=Scalars{flag=true, i8=-8, i16=0, i32=0, i64=0, u8=8, u16=16, u32=0, u64=0, ranged=-5"
    ", small_range=0, ranged_in_storage=0, constant_value=7, five_bits=31, twelve_signed_bits=-2048, "
    "twenty_bits_in_uint32=0, raw_float=1.5, raw_double=-0.25, compressed=12.5, compressed_from_const"
    "ants=0, q8=384, wide_signed=0, wide_unsigned=7, name=\"nested\", blob=[1, 2], mode=Run, offset=A"
    "head, code=Ok, only=One, toggles=None}, last_ping=Ping{sent_tick=99}}";

dc::Shapes sample() {
  dc::Shapes s;
  s.fixed_array = {1, 2, 3, 4};
  EXPECT_TRUE(s.path.push_back(common::Position{2.0f, 3.5f, -4.0f}));
  s.has_spawn = true;
  s.spawn = common::Position{5.0f, 6.0f, 7.0f};
  s.nested.u16 = 16;
  EXPECT_TRUE(s.nested.name.assign("nested"));
  s.last_ping.sent_tick = 99;
  return s;
}

TEST(GeneratedFormat, ToStringFindsStructsNestedStructsAndMessagesUnqualified) {
  const common::Position position{1.0f, -2.5f, 3.0f};
  EXPECT_EQ(to_string(position), kPositionText);
  dc::Ping ping;
  ping.sent_tick = 7;
  EXPECT_EQ(to_string(ping), kPingText);
  EXPECT_EQ(to_string(sample()), kShapesText);
  // format_value appends, the same text.
  std::string out = "> ";
  format_value(out, position);
  EXPECT_EQ(out, std::string("> ") + kPositionText);
  // Through the runtime's ranges: format_range's unqualified format_value reaches the package's template.
  std::string list;
  bitwire::format_value(list, std::array<common::Position, 2>{position, position});
  EXPECT_EQ(list, std::string("[") + kPositionText + ", " + kPositionText + "]");
}

namespace both {
using namespace common;
using namespace demo::constructs;
// Both packages' to_string and format_value templates are visible by ordinary lookup here.
std::string texts() { return to_string(common::Position{1.0f, -2.5f, 3.0f}) + "|" + to_string(dc::Ping{}); }
template <typename T>
concept HasToString = requires(const T& value) { to_string(value); };
struct Unrelated {
  static void format_(std::string&, const Unrelated&) {}
};
}  // namespace both

TEST(GeneratedFormat, TwoPackagesInOneScopeDoNotClash) {
  dc::Ping ping;
  EXPECT_EQ(both::texts(), std::string(kPositionText) + "|" + to_string(ping));
  static_assert(both::HasToString<common::Position>);
  static_assert(both::HasToString<dc::Shapes>);
  // Each package's template admits its own structs only, and never a type that merely has a format_.
  static_assert(common::Formatted_<common::Position>);
  static_assert(!common::Formatted_<dc::Ping>);
  static_assert(!dc::Formatted_<common::Position>);
  static_assert(!both::HasToString<both::Unrelated>);
  static_assert(!both::HasToString<int>);
}

}  // namespace

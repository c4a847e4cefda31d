// The table of legal corner cases: schemas at the edges of every rule that must check clean, each
// with the MaxBits idlc must compute for its struct S.
#include <gtest/gtest.h>

#include "support.hpp"

namespace {

struct Corner {
  const char* what;
  const char* schema;      // follows `package t;`
  std::uint64_t max_bits;  // of struct S
};

const Corner kCorners[] = {
    {"an empty struct", "struct S {}", 0},
    {"a range of one value costs nothing", "struct S { int<-5 .. -5> a; uint64<7 .. 7> b; }", 0},
    {"the full int64 range as a ranged integer",
     "struct S { int<-9223372036854775807 - 1 .. 9223372036854775807> a; }", 64},
    {"uint64 up to the int64 maximum", "struct S { uint64<0 .. 9223372036854775807> a; }", 63},
    {"width 1 and width 64", "struct S { uint:1 a; int:64 b; uint64:64 c; }", 129},
    {"a width equal to its storage", "struct S { uint8:8 a; int16:16 b; }", 24},
    {"an enum with one value", "enum E { Only = -7 }\nstruct S { E e; }", 0},
    {"an enum with negative and positive values", "enum E { A = -128, B = 127 }\nstruct S { E e; }", 8},
    {"an enum filling its declared storage", "enum E : int8 { A = -128, B = 127 }\nstruct S { E e; }", 8},
    {"64 flags",
     "flags F { F0, F1, F2, F3, F4, F5, F6, F7, F8, F9, F10, F11, F12, F13, F14, F15, F16, F17, F18, F19,"
     " F20, F21, F22, F23, F24, F25, F26, F27, F28, F29, F30, F31, F32, F33, F34, F35, F36, F37, F38,"
     " F39, F40, F41, F42, F43, F44, F45, F46, F47, F48, F49, F50, F51, F52, F53, F54, F55, F56, F57,"
     " F58, F59, F60, F61, F62, F63 }\nstruct S { F f; }",
     64},
    {"a one-flag set", "flags F { A }\nstruct S { F f; }", 1},
    {"string<1> and the largest string", "struct S { string<1> a; string<65535> b; }",
     (1 + 7 + 8) + (16 + 7 + 8 * 65535ull)},
    {"the largest bytes", "struct S { bytes<1048576> a; }", 21 + 7 + 8 * 1048576ull},
    {"an array of one and of the largest size", "struct S { bool a[1]; bool b[65535]; }", 65536},
    {"a variable array that may be empty up to one", "struct S { uint8 a[0 .. 1]; }", 1 + 8},
    {"a variable array of fixed count", "struct S { uint8 a[3 .. 3]; }", 24},
    {"the largest sparse array", "struct S { sparse bool a[65535]; }", 0},  // computed below
    {"an optional array of optional-free structs", "struct V { bool x; }\nstruct S { V a[0 .. 2]?; }",
     1 + 2 + 2},
    {"a compressed float at the resolution limit", "struct S { float<0 .. 1, res 1> a; }", 1},
    {"a compressed float with fractional bounds", "struct S { float<-0.5 .. 0.5, res 0.001> a; }", 10},
    {"fixed point with one fraction bit", "struct S { fixed<0 .. 1, frac 1> a; }", 2},
    {"fixed point filling 64 bits", "struct S { fixed<-2 .. 1, frac 61> a; }", 63},
    {"an if with empty sides", "struct S { bool a; if (a) {} else {} }", 1},
    {"an if on an enum declared after the struct",
     "struct S { E e; if (e == E.B) { uint8 x; } }\nenum E { A, B }", 9},
    {"an if reading a field from an enclosing if",
     "struct S { bool a; if (a) { bool b; if (b) { uint8 c; } } }", 10},
    {"ifs nested 20 deep",
     "struct S { bool a; if (a) { if (a) { if (a) { if (a) { if (a) { if (a) { if (a) { if (a) {"
     " if (a) { if (a) { if (a) { if (a) { if (a) { if (a) { if (a) { if (a) { if (a) { if (a) {"
     " if (a) { if (a) { uint8 deep; } } } } } } } } } } } } } } } } } } } } }",
     9},
    {"defaults at the edges of their ranges",
     "struct S { int<-3 .. 3> a = -3; uint:4 b = 15; int:4 c = -8; }", 3 + 4 + 4},
    {"a default string of exactly the maximum length", "struct S { string<3> a = \"abc\"; }", 2 + 7 + 24},
    {"a default of multi-byte UTF-8", "struct S { string<8> a = \"\xc3\xa9t\xc3\xa9\"; }", 4 + 7 + 64},
    {"bytes defaults may hold any octet", "struct S { bytes<2> a = \"\\0\\xff\"; }", 2 + 7 + 16},
    {"names that differ from keywords only in case", "struct S { bool Class; bool Delete; bool New; }", 3},
    {"names that contain keywords", "struct S { bool classy; bool if_set; bool do_it; }", 3},
    {"a single underscore prefix before a lowercase letter", "struct S { bool _private; }", 1},
    {"a type named like its package", "struct t { bool x; }\nstruct S { t inner; }", 1},
    {"a message used as a field type", "message M { uint8 a; }\nstruct S { M m; }", 8},
    {"align and check at the start and end", "struct S { align; check; bool a; check; align; }",
     7 + 39 + 1 + 39 + 7},
    {"constants used in every position",
     "const N = 4;\nconst W = N + 1;\nstruct S { uint8 a[N]; uint8 b[N - 4 .. N]; int<-N .. N> c; uint:W d;"
     " string<N> e; float<-N .. N, res 1> f; fixed<-N .. N, frac N> g; }",
     32 + (3 + 32) + 4 + 5 + (3 + 7 + 32) + 4 + 8},
    {"a constant expression with every operator",
     "const X = ((7 + 5) * 3 - 6) / 5 % 4;\nstruct S { bool a[X + 1]; }", 3},
    {"enum counts as sizes", "enum E { A, B, C }\nstruct S { bool a[E.count]; }", 3},
    {"hex and separators", "const X = 0x1_0;\nstruct S { bool a[X]; bool b[1_0]; }", 26},
    {"a package option and a message budget exactly met",
     "option budget = 1;\nmessage M { uint8 a; }\nstruct S {}", 0},
};

TEST(CornerCases, EveryLegalCornerChecksCleanWithTheExpectedMaxBits) {
  for (const Corner& corner : kCorners) {
    SCOPED_TRACE(corner.what);
    auto compiled = idlc::test::compile_text(std::string("package t;\n") + corner.schema + "\n");
    ASSERT_TRUE(compiled->schema != nullptr) << compiled->errors;
    EXPECT_EQ(compiled->errors, "");
    const idlc::model::Struct* s = nullptr;
    for (const auto& candidate : compiled->package().structs) {
      if (candidate.name == "S") s = &candidate;
    }
    ASSERT_NE(s, nullptr);
    if (std::string(corner.what) == "the largest sparse array") {
      // bool elements (1 bit): gaps of 2 beat gaps of 1 ((5 + 1) / 2 > 1 + 1), so the worst case
      // is 32767 gaps of 2 and one gap of 1: 32767 * 6 + 2, plus the 16-bit count.
      EXPECT_EQ(s->cost.max, 16u + 32767u * 6 + 2);
    } else {
      EXPECT_EQ(s->cost.max, corner.max_bits);
    }
  }
}

TEST(CornerCases, TheTableIsLargeEnough) {
  EXPECT_GE(std::size(kCorners), 40u);
}

}  // namespace

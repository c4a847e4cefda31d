// Checker tests for the numbers at the edges of the language: fixed point (storage, raw bounds, exact
// defaults), ranged 128-bit integers and 128-bit defaults, and the diagnostics for huge literals.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "check_support.hpp"

namespace {

using namespace idlc;
using idlc::test::compile_text;
using idlc::test::find_field;
using idlc::test::find_struct;
using idlc::test::one_field;

TEST(Check, FixedPointFields) {
  auto q = one_field("fixed<-128 .. 127, frac 8> f");
  ASSERT_NE(q.field, nullptr) << q.compiled->errors;
  const auto& fixed = q.field->type.fixed;
  EXPECT_EQ(fixed.raw_min, -32768);
  EXPECT_EQ(fixed.raw_max, 32512);
  EXPECT_EQ(fixed.bits, 16);
  EXPECT_EQ(fixed.storage.bits, 16);
  EXPECT_TRUE(fixed.storage.is_signed);
  EXPECT_FIELD_BITS("fixed<0 .. 1, frac 16> f", 17, 17);
  EXPECT_FIELD_BITS("fixed<-1 .. 1, frac 62> f", 64, 64);
}

// int128<lo .. hi> / uint128<lo .. hi>: the bounds anywhere in 128 bits, bits_required over them (the
// runtime's rule), the declared 128-bit storage kept; a range that fits 64 bits costs what the 64-bit
// ranged form over the same bounds costs.
TEST(Check, RangedInt128Fields) {
  EXPECT_FIELD_BITS("int128<-1000 .. 1000> f", 11, 11);
  EXPECT_FIELD_BITS("int64<-1000 .. 1000> f", 11, 11);
  EXPECT_FIELD_BITS("int128<-5000000000 .. 5000000000> f", 34, 34);
  EXPECT_FIELD_BITS("uint128<0 .. 18446744073709551615> f", 64, 64);
  EXPECT_FIELD_BITS("uint128<0 .. 18446744073709551616> f", 65, 65);
  EXPECT_FIELD_BITS("int128<7 .. 7> f", 0, 0);
  // +-2^100: schema's WideProbe.flux, 102 bits.
  EXPECT_FIELD_BITS("int128<-1267650600228229401496703205376 .. 1267650600228229401496703205376> f", 102,
                    102);
  // The whole signed range: max - min is 2^128 - 1, computed in the unsigned domain.
  EXPECT_FIELD_BITS(
      "int128<-170141183460469231731687303715884105727 - 1 .. 170141183460469231731687303715884105727> f",
      128, 128);

  auto wide = one_field("uint128<36893488147419103232 .. 36893488147419103232 * 2> f");
  ASSERT_NE(wide.field, nullptr) << wide.compiled->errors;
  EXPECT_EQ(wide.field->type.kind, model::TypeKind::Int128);
  EXPECT_FALSE(wide.field->type.int128_signed);
  EXPECT_TRUE(wide.field->type.int128.ranged);
  EXPECT_TRUE(wide.field->type.int128.min == static_cast<__int128>(1) << 65);
  EXPECT_TRUE(wide.field->type.int128.max == static_cast<__int128>(1) << 66);
  EXPECT_EQ(wide.field->type.int128.bits, 66);
  // Zero outside the range: a new object holds the bound nearest zero.
  ASSERT_TRUE(wide.field->initial.element.has_value());
  EXPECT_TRUE(wide.field->initial.element->wide == static_cast<__int128>(1) << 65);

  auto raw = one_field("int128 f");
  ASSERT_NE(raw.field, nullptr);
  EXPECT_FALSE(raw.field->type.int128.ranged);
  EXPECT_EQ(raw.field->type.int128.bits, 128);
}

// 128-bit defaults past 64 bits, literals and constant expressions, exact.
TEST(Check, Int128DefaultsPastSixtyFourBits) {
  auto seed = one_field("uint128 f = 36893488147419103232");
  ASSERT_NE(seed.field, nullptr) << seed.compiled->errors;
  EXPECT_TRUE(seed.field->default_value->wide == static_cast<__int128>(1) << 65);
  auto expr = one_field("int128 f = -Big * 4 - 1", "const Big = 4611686018427387904;");
  ASSERT_NE(expr.field, nullptr) << expr.compiled->errors;
  EXPECT_TRUE(expr.field->default_value->wide == -(static_cast<__int128>(1) << 64) - 1);
  auto top = one_field("uint128 f = 170141183460469231731687303715884105727");
  ASSERT_NE(top.field, nullptr) << top.compiled->errors;
  EXPECT_TRUE(top.field->default_value->wide == ~(static_cast<__int128>(1) << 127));
  auto ranged = one_field("int128<-1000 .. 1000> f = -250");
  ASSERT_NE(ranged.field, nullptr) << ranged.compiled->errors;
  EXPECT_TRUE(ranged.field->default_value->wide == -250);
}

// A fixed-point range without a negative end stores unsigned, whose raw values may reach 2^64 - 1
// (schema's ufixed(48, 16) over [0, 2^48 - 1]); frac 0 is a ranged integer in fixed-point spelling.
TEST(Check, UnsignedFixedPointPastInt64AndFracZero) {
  auto span = one_field("fixed<0 .. 281474976710655, frac 16> f");
  ASSERT_NE(span.field, nullptr) << span.compiled->errors;
  const auto& fixed = span.field->type.fixed;
  EXPECT_FALSE(fixed.storage.is_signed);
  EXPECT_EQ(fixed.storage.bits, 64);
  EXPECT_EQ(static_cast<std::uint64_t>(fixed.raw_max), 18446744073709486080u);  // 2^64 - 2^16, bit for bit
  EXPECT_EQ(fixed.bits, 64);
  EXPECT_FALSE(span.field->initial.element.has_value());
  // Zero outside the range: the lower bound, whose raw value is past int64.
  auto high = one_field("fixed<140737488355328 .. 281474976710655, frac 16> f");
  ASSERT_NE(high.field, nullptr) << high.compiled->errors;
  EXPECT_EQ(static_cast<std::uint64_t>(high.field->initial.element->integer), 9223372036854775808u);
  EXPECT_EQ(high.field->type.fixed.bits, 63);
  // A default past int64, exact.
  auto top = one_field("fixed<0 .. 281474976710655, frac 16> f = 281474976710655");
  ASSERT_NE(top.field, nullptr) << top.compiled->errors;
  EXPECT_EQ(static_cast<std::uint64_t>(top.field->default_value->integer), 18446744073709486080u);
  auto half = one_field("fixed<0 .. 281474976710655, frac 16> f = 140737488355328.5");
  ASSERT_NE(half.field, nullptr) << half.compiled->errors;
  EXPECT_EQ(static_cast<std::uint64_t>(half.field->default_value->integer), 9223372036854808576u);
  EXPECT_FIELD_BITS("fixed<0 .. 1000000, frac 0> f", 20, 20);
  EXPECT_FIELD_BITS("fixed<-1 .. 140737488355327, frac 16> f", 64, 64);
}

// Raw ranges past 64 bits store in 128 bits (schema's fixed(112, 16) with wide bounds, ufixed(64, 64),
// fixed(2, 126)); the bounds are exact; a default past 64 bits is kept exactly.
TEST(Check, FixedPointPastSixtyFourBitsStoresInOneHundredTwentyEightBits) {
  auto q112 = one_field("fixed<-4611686018427387904 .. 4611686018427387904, frac 16> f");
  ASSERT_NE(q112.field, nullptr) << q112.compiled->errors;
  const auto& wide = q112.field->type.fixed;
  EXPECT_TRUE(wide.wide);
  EXPECT_TRUE(wide.storage.is_signed);
  EXPECT_TRUE(wide.raw_min == -(static_cast<__int128>(1) << 78));
  EXPECT_TRUE(wide.raw_max == static_cast<__int128>(1) << 78);
  EXPECT_EQ(wide.bits, 80);
  auto u64 = one_field("fixed<0 .. 9223372036854775807, frac 64> f");
  ASSERT_NE(u64.field, nullptr) << u64.compiled->errors;
  EXPECT_TRUE(u64.field->type.fixed.wide);
  EXPECT_FALSE(u64.field->type.fixed.storage.is_signed);
  EXPECT_EQ(u64.field->type.fixed.bits, 127);
  EXPECT_FIELD_BITS("fixed<-1 .. 0, frac 126> f", 127, 127);  // bitlen(0 - -1) + 126, as schema counts
  EXPECT_FIELD_BITS("fixed<-9223372036854775807 - 1 .. 0, frac 64> f", 128, 128);
  auto half = one_field("fixed<-2 .. 2, frac 100> f = 1.5");
  ASSERT_NE(half.field, nullptr) << half.compiled->errors;
  EXPECT_TRUE(half.field->default_value->wide == static_cast<__int128>(3) << 99);
  // Zero outside the range: the bound nearest zero, exact.
  auto high = one_field("fixed<1 .. 2, frac 100> f");
  ASSERT_NE(high.field, nullptr) << high.compiled->errors;
  EXPECT_TRUE(high.field->initial.element->wide == static_cast<__int128>(1) << 100);
  // 64 bits still fit their 64-bit storage: no wide storage below the limit.
  auto edge = one_field("fixed<-1 .. 1, frac 62> f");
  ASSERT_NE(edge.field, nullptr);
  EXPECT_FALSE(edge.field->type.fixed.wide);
}

// The runtime's serialize_fixed takes a storage type only when the fraction leaves it at least one bit
// (static_assert F < bits of T): a raw range as small as 0 .. 0 still needs storage wider than frac, and
// 128 bits once frac reaches 64.
TEST(Check, FixedPointStorageIsWiderThanItsFraction) {
  struct Case {
    const char* field;
    bool wide;
    int storage_bits;  // when !wide
    bool is_signed;
  };
  for (const Case& c :
       {Case{"fixed<0 .. 0, frac 8> f", false, 16, false}, Case{"fixed<0 .. 0, frac 40> f", false, 64, false},
        Case{"fixed<0 .. 0, frac 63> f", false, 64, false}, Case{"fixed<0 .. 0, frac 64> f", true, 0, false},
        Case{"fixed<0 .. 0, frac 126> f", true, 0, false}, Case{"fixed<0 .. 1, frac 16> f", false, 32, false},
        Case{"fixed<-1 .. 0, frac 16> f", false, 32, true}, Case{"fixed<-1 .. 1, frac 70> f", true, 0, true},
        Case{"fixed<0 .. 1, frac 7> f", false, 8, false}, Case{"fixed<-1 .. 0, frac 7> f", false, 8, true}}) {
    auto compiled = one_field(c.field);
    ASSERT_NE(compiled.field, nullptr) << c.field << ": " << compiled.compiled->errors;
    const auto& fixed = compiled.field->type.fixed;
    EXPECT_EQ(fixed.wide, c.wide) << c.field;
    EXPECT_EQ(fixed.storage.is_signed, c.is_signed) << c.field;
    if (!c.wide) {
      EXPECT_EQ(fixed.storage.bits, c.storage_bits) << c.field;
    }
    EXPECT_LT(fixed.fraction_bits, fixed.wide ? 128 : fixed.storage.bits) << c.field;
  }
}

// A fixed-point default's raw value (value x 2^F), exact whatever its storage.
__int128 fixed_default_raw(const model::Field& field) {
  const auto& fixed = field.type.fixed;
  const model::Value& value = *field.default_value;
  if (fixed.wide) return value.wide;
  if (fixed.storage.is_signed) return value.integer;
  return static_cast<__int128>(static_cast<std::uint64_t>(value.integer));
}

// Fixed-point defaults are exact or refused: an integer is evaluated in 128 bits (not through a double,
// which rounds 2^53 + 1), and a decimal is checked on its digits (0.1 is no multiple of 2^-126, although
// the double nearest 0.1 is).
TEST(Check, FixedPointDefaultsAreExactOrRefused) {
  struct Exact {
    const char* field;
    __int128 raw;
  };
  const __int128 one = 1;
  for (const Exact& c : {
           Exact{"fixed<0 .. 9223372036854775807, frac 0> f = 9007199254740993", 9007199254740993},
           Exact{"fixed<-9223372036854775807 - 1 .. 0, frac 0> f = -9007199254740993", -9007199254740993},
           Exact{"fixed<0 .. 9223372036854775807, frac 0> f = 9007199254740993.0", 9007199254740993},
           Exact{"fixed<0 .. 9223372036854775807, frac 0> f = 1152921504606846976", one << 60},
           Exact{"fixed<0 .. 9223372036854775807, frac 1> f = 4611686018427387903.5", (one << 63) - 1},
           Exact{"fixed<0 .. 9223372036854775807, frac 0> f = 1e18", 1000000000000000000},
           Exact{"fixed<-2 .. 2, frac 4> f = 1.5", 24},
           Exact{"fixed<-1 .. 1, frac 2> f = -0.25", -1},
           Exact{"fixed<-1 .. 1, frac 2> f = --0.25", 1},
           Exact{"fixed<-10 .. 10, frac 8> f = 1_000e-3", 256},
           Exact{"fixed<0 .. 1, frac 126> f = 0.5", one << 125},
           Exact{"fixed<0 .. 1, frac 126> f = 0.1e1", one << 126},
           // 2^-126 written out in full: 89 significant digits, exact.
           Exact{
               "fixed<0 .. 1, frac 126> f = "
               "1.1754943508222875079687365372222456778186655567720875215087517062784172594547271728515625e-"
               "38",
               1},
           Exact{"fixed<-1 .. 1, frac 100> f = -0.75", -(one << 99) - (one << 98)},
           Exact{"fixed<-4 .. 4, frac 3> f = Half * 2", 16},
       }) {
    auto compiled = one_field(c.field, "const Half = 1;");
    ASSERT_NE(compiled.field, nullptr) << c.field << ": " << compiled.compiled->errors;
    ASSERT_TRUE(compiled.field->default_value.has_value()) << c.field;
    EXPECT_TRUE(fixed_default_raw(*compiled.field) == c.raw) << c.field;
  }
  struct Refused {
    const char* field;
    const char* error;
  };
  for (const Refused& c : {
           Refused{"fixed<0 .. 1, frac 126> f = 0.1", "the default 0.1 is not a multiple of 2^-126"},
           Refused{"fixed<0 .. 1, frac 126> f = 1e-38", "the default 1e-38 is not a multiple of 2^-126"},
           // 2^-127: one binary digit past frac 126.
           Refused{"fixed<0 .. 1, frac 126> f = "
                   "5.87747175411143753984368268611122838909332778386043760754375853139208729727363586425781"
                   "25e-39",
                   "is not a multiple of 2^-126"},
           Refused{"fixed<0 .. 9223372036854775807, frac 1> f = 4611686018427387903.25",
                   "the default 4611686018427387903.25 is not a multiple of 2^-1"},
           Refused{"fixed<0 .. 9223372036854775806, frac 0> f = 9223372036854775807",
                   "the default is outside the fixed-point range 0 .. 9223372036854775806"},
           Refused{"fixed<0 .. 9223372036854775806, frac 0> f = 9223372036854775807.0",
                   "the default is outside the fixed-point range 0 .. 9223372036854775806"},
           Refused{"fixed<0 .. 1, frac 126> f = 1e40", "the default is outside the fixed-point range 0 .. 1"},
       }) {
    auto compiled = one_field(c.field);
    EXPECT_EQ(compiled.field, nullptr) << c.field;
    EXPECT_NE(compiled.compiled->errors.find(c.error), std::string::npos)
        << c.field << ": " << compiled.compiled->errors;
  }
}

// 1 - 2^-k written out in its k decimal digits: 10^k - 5^k after "0.", the digits of 5^k built by hand.
std::string one_minus_two_to_minus(int k) {
  std::string five = "1";  // 5^i, least significant digit first
  for (int i = 0; i < k; ++i) {
    int carry = 0;
    for (char& c : five) {
      const int v = (c - '0') * 5 + carry;
      c = static_cast<char>('0' + v % 10);
      carry = v / 10;
    }
    while (carry != 0) {
      five += static_cast<char>('0' + carry % 10);
      carry /= 10;
    }
  }
  five.resize(static_cast<std::size_t>(k), '0');
  std::string digits(static_cast<std::size_t>(k), '0');  // 10^k - 5^k, least significant first
  int borrow = 0;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    int v = -(five[i] - '0') - borrow;
    borrow = v < 0 ? 1 : 0;
    digits[i] = static_cast<char>('0' + v + 10 * borrow);
  }
  return "0." + std::string(digits.rbegin(), digits.rend());
}

// Decimal defaults of many digits are exact or refused: 1 - 2^-k written in its k digits is refused when
// k passes frac (5000 here) and taken exactly within it (126); 300 whole digits are outside the range.
TEST(Check, ManyDigitDecimalFixedPointDefaultsAreTakenExactlyOrRefused) {
  const auto refused = one_field("fixed<0 .. 1, frac 126> f = " + one_minus_two_to_minus(5000));
  EXPECT_EQ(refused.field, nullptr);
  EXPECT_NE(refused.compiled->errors.find("is not a multiple of 2^-126"), std::string::npos);
  const auto taken = one_field("fixed<0 .. 1, frac 126> f = " + one_minus_two_to_minus(126));
  ASSERT_NE(taken.field, nullptr) << taken.compiled->errors.substr(0, 300);
  EXPECT_TRUE(fixed_default_raw(*taken.field) == (static_cast<__int128>(1) << 126) - 1);
  const auto large = one_field("fixed<0 .. 1, frac 126> f = 1" + std::string(300, '0') + ".5");
  EXPECT_EQ(large.field, nullptr);
  EXPECT_NE(large.compiled->errors.find("the default is outside the fixed-point range 0 .. 1"),
            std::string::npos)
      << large.compiled->errors.substr(0, 300);
}

// The written exponent is weighed against the literal's own length: a run of zeros as long as the
// exponent is large cancels it, so 0.<10^6 zeros>5e1000001 is 5 and 5<10^6 zeros>0e-1000001 is 5.
TEST(Check, DecimalFixedPointDefaultsWhoseZerosCancelAHugeExponentAreExact) {
  const auto fraction = one_field("fixed<0 .. 10, frac 1> f = 0." + std::string(1000000, '0') + "5e1000001");
  ASSERT_NE(fraction.field, nullptr) << fraction.compiled->errors.substr(0, 300);
  EXPECT_TRUE(fixed_default_raw(*fraction.field) == 10);
  const auto whole = one_field("fixed<0 .. 100, frac 1> f = 5" + std::string(1000000, '0') + "0e-1000001");
  ASSERT_NE(whole.field, nullptr) << whole.compiled->errors.substr(0, 300);
  EXPECT_TRUE(fixed_default_raw(*whole.field) == 10);
  const auto one = one_field("fixed<0 .. 1, frac 126> f = 1" + std::string(3000000, '0') + "e-3000000");
  ASSERT_NE(one.field, nullptr) << one.compiled->errors.substr(0, 300);
  EXPECT_TRUE(fixed_default_raw(*one.field) == static_cast<__int128>(1) << 126);
  // Zeros one short of cancelling leave the value ten times too large or too small.
  const auto ten_times = one_field("fixed<0 .. 10, frac 1> f = 0." + std::string(999999, '0') + "5e1000001");
  EXPECT_EQ(ten_times.field, nullptr);
  EXPECT_NE(ten_times.compiled->errors.find("outside the fixed-point range 0 .. 10"), std::string::npos);
  const auto tenth = one_field("fixed<0 .. 100, frac 1> f = 5" + std::string(999999, '0') + "e-1000001");
  EXPECT_EQ(tenth.field, nullptr);
  EXPECT_NE(tenth.compiled->errors.find("is not a multiple of 2^-1"), std::string::npos);
}

// A fixed-point default is evaluated in the checker's 128-bit arithmetic, so its overflow says so.
TEST(Check, FixedPointDefaultOverflowGivesThe128BitAdvice) {
  const auto overflow = one_field("fixed<0 .. 10, frac 1> f = 170141183460469231731687303715884105727 + 1");
  EXPECT_EQ(overflow.field, nullptr);
  EXPECT_NE(overflow.compiled->errors.find(
                "exceeds 128-bit arithmetic): write a 128-bit bound or default within -2^127 .. 2^127 - 1"),
            std::string::npos)
      << overflow.compiled->errors;
  EXPECT_EQ(overflow.compiled->errors.find("keep constants within 64 bits"), std::string::npos);
}

// A diagnostic names a long literal by its start and length, and shows a window of its line, so a
// multi-megabyte literal gives a diagnostic of a few hundred bytes.
TEST(Check, DiagnosticsForAHugeLiteralStaySmall) {
  const std::string literal = "0." + std::string(3000000, '3');
  for (const std::string& field : {"fixed<0 .. 1, frac 8> f = " + literal, "int32 f = " + literal,
                                   "uint8<0 .. 1" + std::string(3000000, '0') + "> f"}) {
    auto compiled = compile_text("package t;\nstruct S {\n  " + field + ";\n}\n");
    ASSERT_EQ(compiled->diagnostics.error_count(), 1u) << compiled->errors.substr(0, 300);
    std::ostringstream printed;
    compiled->diagnostics.print(printed);
    EXPECT_LT(printed.str().size(), 1000u) << printed.str().substr(0, 300);
    EXPECT_NE(printed.str().find(" characters)"), std::string::npos) << printed.str().substr(0, 300);
  }
}

}  // namespace

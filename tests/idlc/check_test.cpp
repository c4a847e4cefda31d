// Checker tests per construct: what the resolved model says about each type, field, struct and
// package (kinds, ranges, storage, wire bits, MaxBits), checked against costs worked out by hand from
// wire-format.md section 1.
#include <gtest/gtest.h>

#include <sstream>

#include "support.hpp"

namespace {

using namespace idlc;
using idlc::test::compile_text;

const model::Struct& find_struct(const model::Package& package, const std::string& name) {
  for (const auto& s : package.structs) {
    if (s.name == name) return s;
  }
  throw std::runtime_error("no struct " + name);
}

const model::Field& find_field(const model::Struct& s, const std::string& name) {
  for (const auto& f : s.fields) {
    if (f.name == name) return f;
  }
  throw std::runtime_error("no field " + name);
}

// Compiles `package t; struct S { <field>; }` and returns the field.
struct OneField {
  std::unique_ptr<test::Compiled> compiled;
  const model::Field* field = nullptr;
};

OneField one_field(const std::string& field, const std::string& extra = "") {
  OneField result;
  result.compiled = compile_text("package t;\n" + extra + "\nstruct S { " + field + "; }\n");
  if (result.compiled->schema) result.field = &find_field(find_struct(result.compiled->package(), "S"), "f");
  return result;
}

#define EXPECT_FIELD_BITS(field_text, min_bits, max_bits)                               \
  do {                                                                                  \
    auto one = one_field(field_text);                                                   \
    ASSERT_NE(one.field, nullptr) << field_text << "\n" << one.compiled->errors;        \
    EXPECT_EQ(one.field->cost.min, static_cast<std::uint64_t>(min_bits)) << field_text; \
    EXPECT_EQ(one.field->cost.max, static_cast<std::uint64_t>(max_bits)) << field_text; \
  } while (0)

TEST(Check, Constants) {
  auto c = compile_text(
      "package t;\n"
      "const A = 2 + 3 * 4;\n"       // 14: * before +
      "const B = (2 + 3) * 4;\n"     // 20
      "const C = 20 - 6 - 4;\n"      // 10: left to right
      "const D = 7 / 2 + -7 / 2;\n"  // 3 + -3 = 0: truncation toward zero
      "const E = -7 % 3;\n"          // -1: the sign of the dividend
      "const F = Later + 1;\n"       // order does not matter
      "const Later = 0x10;\n"
      "const G = Weapon.count * 100 + Weapon.Rifle;\n"
      "const H = Buttons.count + Buttons.Fire;\n"  // 3 + (1 << 2)
      "const I = -9223372036854775807 - 1;\n"      // INT64_MIN exactly
      "const J = 9223372036854775807 * 2 / 2;\n"   // exact: the intermediate exceeds 64 bits
      "enum Weapon { Pistol, Rifle = 5 }\n"
      "flags Buttons { Jump, Crouch, Fire }\n");
  ASSERT_TRUE(c->schema) << c->errors;
  std::map<std::string, std::int64_t> values;
  for (const auto& constant : c->package().constants) values[constant.name] = constant.value;
  EXPECT_EQ(values["A"], 14);
  EXPECT_EQ(values["B"], 20);
  EXPECT_EQ(values["C"], 10);
  EXPECT_EQ(values["D"], 0);
  EXPECT_EQ(values["E"], -1);
  EXPECT_EQ(values["F"], 17);
  EXPECT_EQ(values["G"], 205);
  EXPECT_EQ(values["H"], 7);
  EXPECT_EQ(values["I"], INT64_MIN);
  EXPECT_EQ(values["J"], INT64_MAX);
}

TEST(Check, EnumsUseTheFewestBitsForTheirValues) {
  auto c = compile_text(
      "package t;\n"
      "enum A { X, Y, Z }\n"            // 0..2: 2 bits
      "enum B { X = 10, Y = 12, Z }\n"  // 10..13: 2 bits, not contiguous (11 is a hole)
      "enum C { X = -3, Y = 300 }\n"    // span 303: 9 bits, int16 storage
      "enum D : uint32 { X }\n"         // one value: 0 bits; declared storage kept
      "enum E { X = 0, Y = 255 }\n"     // uint8
      "enum F { X = -9223372036854775807 - 1, Y = 9223372036854775807 }\n");  // 64 bits
  ASSERT_TRUE(c->schema) << c->errors;
  const auto& enums = c->package().enums;
  ASSERT_EQ(enums.size(), 6u);
  EXPECT_EQ(enums[0].bits, 2);
  EXPECT_TRUE(enums[0].contiguous);
  EXPECT_EQ(enums[0].storage.bits, 8);
  EXPECT_FALSE(enums[0].storage.is_signed);
  EXPECT_EQ(enums[1].bits, 2);
  EXPECT_EQ(enums[1].min, 10);
  EXPECT_EQ(enums[1].items[2].value, 13);
  EXPECT_FALSE(enums[1].contiguous);
  EXPECT_EQ(enums[2].bits, 9);
  EXPECT_TRUE(enums[2].storage.is_signed);
  EXPECT_EQ(enums[2].storage.bits, 16);
  EXPECT_EQ(enums[3].bits, 0);
  EXPECT_TRUE(enums[3].storage_declared);
  EXPECT_EQ(enums[3].storage.bits, 32);
  EXPECT_EQ(enums[4].storage.bits, 8);
  EXPECT_FALSE(enums[4].storage.is_signed);
  EXPECT_EQ(enums[5].bits, 64);
  EXPECT_EQ(enums[5].storage.bits, 64);
}

TEST(Check, FlagsTakeOneBitEach) {
  auto c = compile_text("package t;\nflags F { A, B, C, D, E, F1, G, H, I }\nstruct S { F f; }\n");
  ASSERT_TRUE(c->schema) << c->errors;
  const auto& f = c->package().flags.front();
  EXPECT_EQ(f.bits, 9);
  EXPECT_EQ(f.items[8].bit, 8);
  EXPECT_EQ(f.storage.bits, 16);
  EXPECT_EQ(find_struct(c->package(), "S").cost.max, 9u);
}

TEST(Check, IntegerFields) {
  EXPECT_FIELD_BITS("bool f", 1, 1);
  EXPECT_FIELD_BITS("int8 f", 8, 8);
  EXPECT_FIELD_BITS("uint64 f", 64, 64);
  EXPECT_FIELD_BITS("int<0 .. 7> f", 3, 3);
  EXPECT_FIELD_BITS("int<0 .. 8> f", 4, 4);
  EXPECT_FIELD_BITS("int<5 .. 5> f", 0, 0);
  EXPECT_FIELD_BITS("int<-1000 .. 1000> f", 11, 11);
  EXPECT_FIELD_BITS("uint:5 f", 5, 5);
  EXPECT_FIELD_BITS("int:64 f", 64, 64);
  EXPECT_FIELD_BITS("int64<-9223372036854775807 - 1 .. 9223372036854775807> f", 64, 64);
  EXPECT_FIELD_BITS("int128 f", 128, 128);

  auto raw = one_field("int16 f");
  ASSERT_NE(raw.field, nullptr);
  EXPECT_EQ(raw.field->type.integer.encoding, model::IntEncoding::Raw);
  EXPECT_TRUE(raw.field->type.integer.storage.is_signed);

  auto ranged = one_field("uint16<10 .. 1000> f");
  ASSERT_NE(ranged.field, nullptr);
  const auto& integer = ranged.field->type.integer;
  EXPECT_EQ(integer.encoding, model::IntEncoding::Ranged);
  EXPECT_EQ(integer.min, 10);
  EXPECT_EQ(integer.max, 1000);
  EXPECT_EQ(integer.bits, 10);
  EXPECT_EQ(integer.storage.bits, 16);

  // int picks the smallest signed storage, uint the smallest unsigned one.
  auto signed_auto = one_field("int<0 .. 200> f");
  EXPECT_EQ(signed_auto.field->type.integer.storage.bits, 16);
  EXPECT_TRUE(signed_auto.field->type.integer.storage.is_signed);
  auto unsigned_auto = one_field("uint<0 .. 200> f");
  EXPECT_EQ(unsigned_auto.field->type.integer.storage.bits, 8);
  EXPECT_FALSE(unsigned_auto.field->type.integer.storage.is_signed);

  auto width = one_field("int:12 f");
  EXPECT_EQ(width.field->type.integer.encoding, model::IntEncoding::Raw);
  EXPECT_EQ(width.field->type.integer.bits, 12);
  EXPECT_EQ(width.field->type.integer.storage.bits, 16);
  auto width_in_storage = one_field("uint32:20 f");
  EXPECT_EQ(width_in_storage.field->type.integer.storage.bits, 32);
}

TEST(Check, FloatFields) {
  EXPECT_FIELD_BITS("float f", 32, 32);
  EXPECT_FIELD_BITS("double f", 64, 64);
  // [0, 10] at 0.01: 1000 quanta -> 10 bits (wire-format.md's test vector range).
  EXPECT_FIELD_BITS("float<0 .. 10, res 0.01> f", 10, 10);
  // [-1000, 1000] at 0.01: 200000 quanta -> 18 bits.
  EXPECT_FIELD_BITS("float<-1000 .. 1000, res 0.01> f", 18, 18);
  // A resolution coarser than the range still needs one bit (values clamp to at least 1).
  EXPECT_FIELD_BITS("float<0 .. 1, res 5> f", 1, 1);
  // At most 4294967040 quanta (the largest float below 2^32): 32 bits. More are refused.
  EXPECT_FIELD_BITS("float<0 .. 4294967040, res 1> f", 32, 32);
  auto compressed = one_field("float<-1.5 .. 2.5, res 0.25> f");
  ASSERT_NE(compressed.field, nullptr) << compressed.compiled->errors;
  const auto& cf = compressed.field->type.compressed;
  EXPECT_EQ(cf.min, -1.5f);
  EXPECT_EQ(cf.max, 2.5f);
  EXPECT_EQ(cf.resolution, 0.25f);
  EXPECT_EQ(cf.max_int, 16u);
  EXPECT_EQ(cf.bits, 5);
}

TEST(Check, CompressedFloatBitsAreComputedInFloat32) {
  // The wire computes max_int = ceil(float(max - min) / float(res)) in float32. These ranges give a
  // different answer in double arithmetic (ceil(2.1 / 0.3) = 8, ceil(0.3 / 0.01) = 30), so they pin
  // the float32 rule that the runtime uses too.
  auto a = one_field("float<0 .. 2.1, res 0.3> f");
  ASSERT_NE(a.field, nullptr) << a.compiled->errors;
  EXPECT_EQ(a.field->type.compressed.max_int, 7u);
  EXPECT_EQ(a.field->type.compressed.bits, 3);
  auto b = one_field("float<0 .. 0.3, res 0.01> f");
  ASSERT_NE(b.field, nullptr) << b.compiled->errors;
  EXPECT_EQ(b.field->type.compressed.max_int, 31u);
  EXPECT_EQ(b.field->type.compressed.bits, 5);
}

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

TEST(Check, StringsAndBytesAreLengthPrefixedAndAligned) {
  // string<N>: int(len, 0, N) then align (0..7) then up to N bytes.
  EXPECT_FIELD_BITS("string<32> f", 6, 6 + 7 + 256);
  EXPECT_FIELD_BITS("string<1> f", 1, 1 + 7 + 8);
  EXPECT_FIELD_BITS("bytes<1024> f", 11, 11 + 7 + 8192);
  auto s = one_field("string<200> f");
  EXPECT_EQ(s.field->type.kind, model::TypeKind::String);
  EXPECT_EQ(s.field->type.max_length, 200u);
  EXPECT_EQ(s.field->type.length_bits, 8);
}

TEST(Check, ArraysOptionalAndSparse) {
  EXPECT_FIELD_BITS("uint8 f[4]", 32, 32);
  EXPECT_FIELD_BITS("uint8 f[0 .. 4]", 3, 3 + 32);
  EXPECT_FIELD_BITS("uint8 f[2 .. 4]", 2 + 16, 2 + 32);
  EXPECT_FIELD_BITS("uint8 f[4 .. 4]", 32, 32);  // count of a single value: 0 bits
  EXPECT_FIELD_BITS("uint8 f?", 1, 9);
  EXPECT_FIELD_BITS("uint8 f[0 .. 4]?", 1, 1 + 3 + 32);
  // sparse uint8[4]: count int(n, 0, 4) = 3 bits, then per changed element at least 1 bit of
  // position + 8 bits: all four changed is the worst case.
  EXPECT_FIELD_BITS("sparse uint8 f[4]", 3, 3 + 4 * 9);
  // sparse bool[3]: 2 count bits; worst case positions 2 then... gaps {2,1}: 5+1 + 1+1 = 8 beats
  // {1,1,1}: 3 * (1+1) = 6.
  EXPECT_FIELD_BITS("sparse bool f[3]", 2, 2 + 8);
  // sparse int<5 .. 5>[100] (elements of 0 bits): worst case is gaps of 2 (5 bits per 2 positions)
  // -> 50 * 5 = 250, vs all gaps 1 -> 100; count 7 bits.
  EXPECT_FIELD_BITS("sparse int<5 .. 5> f[100]", 7, 7 + 250);
  auto sparse = one_field("sparse uint8 f[64]");
  EXPECT_EQ(sparse.field->shape, model::Shape::SparseArray);
  EXPECT_EQ(sparse.field->array_max, 64u);
  EXPECT_EQ(sparse.field->count_bits, 7);
  auto variable = one_field("uint8 f[3 .. 10]");
  EXPECT_EQ(variable.field->shape, model::Shape::VariableArray);
  EXPECT_EQ(variable.field->array_min, 3u);
  EXPECT_EQ(variable.field->count_bits, 3);
}

TEST(Check, NestedStructsAndMessagesInline) {
  auto c = compile_text(
      "package t;\n"
      "struct Vec { int<0 .. 15> x; int<0 .. 15> y; }\n"
      "message Ping { uint8 seq; }\n"
      "struct S { Vec a; Vec b[3]; Ping p; }\n");
  ASSERT_TRUE(c->schema) << c->errors;
  const auto& s = find_struct(c->package(), "S");
  EXPECT_EQ(s.cost.max, 8u + 24 + 8);
  EXPECT_EQ(find_field(s, "p").type.structure->is_message, true);
  EXPECT_EQ(find_field(s, "a").type.structure, &find_struct(c->package(), "Vec"));
}

TEST(Check, ConditionsCostTheLargerSideAndRecordTheirSubject) {
  auto c = compile_text(
      "package t;\n"
      "enum Kind { A, B, C }\n"
      "struct S {\n"
      "  bool on;\n"
      "  Kind kind;\n"
      "  if (on) { uint16 big; } else { uint8 small; }\n"
      "  if (!on) { bool x; }\n"
      "  if (kind == Kind.B) { uint32 b; } else if (kind != C) { bool c; }\n"
      "}\n");
  ASSERT_TRUE(c->schema) << c->errors;
  const auto& s = find_struct(c->package(), "S");
  // 1 + 2 + [8, 16] + [0, 1] + [0, 32]
  EXPECT_EQ(s.cost.min, 1u + 2 + 8);
  EXPECT_EQ(s.cost.max, 1u + 2 + 16 + 1 + 32);
  ASSERT_EQ(s.body.size(), 5u);
  const auto& first = s.body[2];
  EXPECT_EQ(first.kind, model::ItemKind::If);
  EXPECT_EQ(s.fields[first.condition.subject].name, "on");
  EXPECT_EQ(first.condition.test, model::Condition::Test::IsTrue);
  EXPECT_EQ(s.fields[first.then_items[0].field].name, "big");
  EXPECT_EQ(s.fields[first.else_items[0].field].name, "small");
  EXPECT_EQ(s.body[3].condition.test, model::Condition::Test::IsFalse);
  const auto& third = s.body[4];
  EXPECT_EQ(third.condition.test, model::Condition::Test::Equals);
  EXPECT_EQ(third.condition.enumerator, 1u);
  const auto& nested = third.else_items.at(0);
  EXPECT_EQ(nested.kind, model::ItemKind::If);
  EXPECT_EQ(nested.condition.test, model::Condition::Test::NotEquals);
  EXPECT_EQ(nested.condition.enumerator, 2u);
  // Every field is a member: both sides of every if.
  EXPECT_EQ(s.fields.size(), 7u);
}

TEST(Check, AlignAndCheckCountSevenBitsOfPadding) {
  auto c =
      compile_text("package t;\nstruct S { uint8 a; align; uint8 b; }\nstruct T { bool a; check; S s; }\n");
  ASSERT_TRUE(c->schema) << c->errors;
  // wire-format.md: {bits 8; align; bits 8} measures 23 bits.
  EXPECT_EQ(find_struct(c->package(), "S").cost.max, 23u);
  EXPECT_EQ(find_struct(c->package(), "S").cost.min, 16u);
  const auto& t = find_struct(c->package(), "T");
  EXPECT_TRUE(t.has_checks);
  EXPECT_EQ(t.cost.max, 1u + 7 + 32 + 23);
  EXPECT_EQ(t.max_bits_without_checks, 1u + 23);
  EXPECT_EQ(t.max_bytes, (t.cost.max + 7) / 8);
}

TEST(Check, DefaultValues) {
  auto c = compile_text(
      "package t;\n"
      "enum Kind { A, B }\n"
      "struct S {\n"
      "  bool a = true;\n"
      "  int<0 .. 100> b = 42;\n"
      "  float c = 0.5;\n"
      "  double d = -1e300;\n"
      "  fixed<-2 .. 2, frac 4> e = 1.5;\n"
      "  string<8> f = \"h\\x69\\n\";\n"
      "  Kind g = B;\n"
      "  Kind h = Kind.A;\n"
      "  uint8 i;\n"
      "  float<0 .. 1, res 0.1> j = 1;\n"
      "}\n");
  ASSERT_TRUE(c->schema) << c->errors;
  const auto& s = find_struct(c->package(), "S");
  EXPECT_TRUE(find_field(s, "a").default_value->boolean);
  EXPECT_EQ(find_field(s, "b").default_value->integer, 42);
  EXPECT_EQ(find_field(s, "c").default_value->number, 0.5);
  EXPECT_EQ(find_field(s, "d").default_value->number, -1e300);
  EXPECT_EQ(find_field(s, "e").default_value->kind, model::Value::Kind::Integer);
  EXPECT_EQ(find_field(s, "e").default_value->integer, 24);  // 1.5 * 2^4
  EXPECT_EQ(find_field(s, "f").default_value->text, "hi\n");
  EXPECT_EQ(find_field(s, "g").default_value->enumerator, 1u);
  EXPECT_EQ(find_field(s, "h").default_value->enumerator, 0u);
  EXPECT_FALSE(find_field(s, "i").default_value.has_value());
  EXPECT_EQ(find_field(s, "j").default_value->number, 1.0);
}

TEST(Check, MessagesGetTypeIdsAndTheFewestTypeBits) {
  std::string text = "package t;\nstruct NotAMessage { bool x; }\n";
  for (int i = 0; i < 5; ++i) text += "message M" + std::to_string(i) + " { bool x; }\n";
  auto c = compile_text(text);
  ASSERT_TRUE(c->schema) << c->errors;
  const auto& package = c->package();
  ASSERT_EQ(package.messages.size(), 5u);
  EXPECT_EQ(package.message_type_bits, 3);
  for (std::uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(package.messages[i]->type_id, i);
    EXPECT_EQ(package.messages[i]->name, "M" + std::to_string(i));
  }
  auto one = compile_text("package t;\nmessage Only { bool x; }\n");
  EXPECT_EQ(one->package().message_type_bits, 0);
  auto two = compile_text("package t;\nmessage A { bool x; }\nmessage B { bool x; }\n");
  EXPECT_EQ(two->package().message_type_bits, 1);
}

TEST(Check, MoreThan65536MessagesInAPackageAreRefused) {
  std::string text = "package t;\n";
  for (int i = 0; i <= 65536; ++i) text += "message M" + std::to_string(i) + " {}\n";
  auto c = compile_text(text);
  EXPECT_EQ(c->schema, nullptr);
  EXPECT_NE(c->errors.find("65538:1: package t declares more than 65536 messages (this is message 65537)"),
            std::string::npos)
      << c->errors.substr(0, 300);
}

TEST(Check, PacketBudgets) {
  auto c = compile_text(
      "package t;\noption budget = 100;\n"
      "message Default { uint8 a; }\n"
      "message Own budget 4 { uint32 a; }\n");
  ASSERT_TRUE(c->schema) << c->errors;
  EXPECT_EQ(c->package().budget_bytes, 100u);
  EXPECT_EQ(*find_struct(c->package(), "Default").budget_bytes, 100u);
  EXPECT_EQ(*find_struct(c->package(), "Own").budget_bytes, 4u);
  // Exactly at the budget is fine; one bit over is not.
  EXPECT_TRUE(compile_text("package t;\nmessage M budget 4 { uint32 a; }\n")->schema);
  auto over = compile_text("package t;\nmessage M budget 4 { uint32 a; bool b; }\n");
  EXPECT_FALSE(over->schema);
  EXPECT_NE(over->errors.find("over its packet budget of 4 bytes"), std::string::npos);
}

TEST(Check, DocCommentsReachTheModel) {
  auto c = compile_text(
      "/// The package.\npackage t;\n/// A constant.\nconst A = 1;\n/// An enum.\nenum E {\n  /// First.\n  "
      "X }\n"
      "/// Flags.\nflags F {\n  /// Bit zero.\n  B }\n/// A message.\nmessage M {\n  /// A field.\n  bool "
      "x;\n}\n");
  ASSERT_TRUE(c->schema) << c->errors;
  const auto& p = c->package();
  EXPECT_EQ(p.doc, model::Doc{"The package."});
  EXPECT_EQ(p.constants[0].doc, model::Doc{"A constant."});
  EXPECT_EQ(p.enums[0].doc, model::Doc{"An enum."});
  EXPECT_EQ(p.enums[0].items[0].doc, model::Doc{"First."});
  EXPECT_EQ(p.flags[0].doc, model::Doc{"Flags."});
  EXPECT_EQ(p.flags[0].items[0].doc, model::Doc{"Bit zero."});
  EXPECT_EQ(p.structs[0].doc, model::Doc{"A message."});
  EXPECT_EQ(p.structs[0].fields[0].doc, model::Doc{"A field."});
}

TEST(Check, ImportsResolveQualifiedAndUnqualifiedNames) {
  std::map<std::string, std::string> files = {
      {"lib/common.net",
       "package common;\nconst Max = 8;\nenum Kind { A, B }\nstruct Vec { int<0 .. 3> x; }\n"},
      {"lib/other.net",
       "package other.stuff;\nimport \"common.net\";\nstruct Vec { common.Vec inner; bool y; }\n"}};
  auto c = compile_text(
      "package t;\nimport \"lib/common.net\";\nimport \"lib/other.net\";\n"
      "struct S { Kind k; common.Vec a; other.stuff.Vec b; uint8 items[Max]; uint8 more[common.Max + "
      "Kind.count]; }\n",
      files);
  ASSERT_TRUE(c->schema) << c->errors;
  const auto& schema = *c->schema;
  ASSERT_EQ(schema.packages.size(), 3u);
  // Imports come before their importers.
  EXPECT_EQ(schema.packages[0].name, "common");
  EXPECT_EQ(schema.packages[1].name, "other.stuff");
  EXPECT_EQ(schema.packages[1].name_parts, (std::vector<std::string>{"other", "stuff"}));
  EXPECT_EQ(schema.packages[1].source_path, "lib/other.net");
  EXPECT_EQ(schema.packages[1].file_stem, "other");
  EXPECT_EQ(schema.roots.size(), 1u);
  const auto& s = find_struct(c->package(), "S");
  EXPECT_EQ(find_field(s, "k").type.enumeration->package, &schema.packages[0]);
  EXPECT_EQ(find_field(s, "b").type.structure->package, &schema.packages[1]);
  EXPECT_EQ(find_field(s, "items").array_max, 8u);
  EXPECT_EQ(find_field(s, "more").array_max, 10u);
  EXPECT_EQ(c->package().imports.size(), 2u);
  // Vec is declared by two imported packages: unqualified use is ambiguous.
  auto ambiguous = compile_text(
      "package t;\nimport \"lib/common.net\";\nimport \"lib/other.net\";\nstruct S { Vec v; }\n", files);
  EXPECT_EQ(ambiguous->errors,
            "4:12: 'Vec' is declared by both package common and package other.stuff: qualify it, e.g. "
            "other.stuff.Vec\n");
  // Imports are not transitive.
  auto transitive = compile_text("package t;\nimport \"lib/other.net\";\nstruct S { Kind k; }\n", files);
  EXPECT_NE(transitive->errors.find("unknown type 'Kind'"), std::string::npos);
}

TEST(Check, DiamondImportsLoadEachFileOnce) {
  std::map<std::string, std::string> files = {
      {"base.net", "package base;\nstruct B { bool x; }\n"},
      {"left.net", "package left;\nimport \"base.net\";\nstruct L { base.B b; }\n"},
      {"right.net", "package right;\nimport \"./base.net\";\nstruct R { base.B b; }\n"}};
  auto c = compile_text(
      "package top;\nimport \"left.net\";\nimport \"right.net\";\nstruct T { left.L l; right.R r; }\n",
      files);
  ASSERT_TRUE(c->schema) << c->errors;
  EXPECT_EQ(c->schema->packages.size(), 4u);
  const auto& t = find_struct(c->package(), "T");
  EXPECT_EQ(find_field(*find_field(t, "l").type.structure, "b").type.structure,
            find_field(*find_field(t, "r").type.structure, "b").type.structure);
}

TEST(Check, DefinitionOrderPutsUsedTypesFirst) {
  auto c = compile_text(
      "package t;\nconst K = 1;\nstruct A { B b; Kind k; }\nstruct B { C c; }\nenum Kind { X }\nstruct C { "
      "bool x; }\n");
  ASSERT_TRUE(c->schema) << c->errors;
  const auto& p = c->package();
  std::vector<std::string> order;
  for (const auto& ref : p.definition_order) {
    switch (ref.kind) {
      case model::DeclKind::Constant:
        order.push_back(p.constants[ref.index].name);
        break;
      case model::DeclKind::Enum:
        order.push_back(p.enums[ref.index].name);
        break;
      case model::DeclKind::Flags:
        order.push_back(p.flags[ref.index].name);
        break;
      case model::DeclKind::Struct:
        order.push_back(p.structs[ref.index].name);
        break;
    }
  }
  EXPECT_EQ(order, (std::vector<std::string>{"K", "C", "B", "Kind", "A"}));
  std::vector<std::string> source;
  for (const auto& ref : p.declarations)
    source.push_back(ref.kind == model::DeclKind::Struct ? p.structs[ref.index].name : "");
  EXPECT_EQ(source, (std::vector<std::string>{"", "A", "B", "", "C"}));
}

TEST(Check, EveryErrorOfAFileIsReportedInSourceOrder) {
  // Declarations resolve out of order (A needs C first); errors still print in source order.
  auto c = compile_text(
      "package t;\n"
      "struct A { C c; uint8<0 .. 300> x; }\n"
      "struct B { bool delete; }\n"
      "struct C { uint:0 y; }\n");
  EXPECT_FALSE(c->schema);
  EXPECT_EQ(c->errors,
            "2:23: range 0 .. 300 does not fit uint8 (0 .. 255): widen the storage (e.g. uint16) or narrow "
            "the range\n"
            "3:17: 'delete' is a C++ keyword and cannot name anything in generated code: rename it\n"
            "4:17: a bit width must be 1 .. 64, found 0\n");
}

TEST(Check, AFieldInErrorIsNotReportedAgainByConditionsOnIt) {
  auto c = compile_text("package t;\nstruct S {\n  Mood mood;\n  if (mood == Happy) { bool smile; }\n}\n");
  EXPECT_EQ(c->errors,
            "3:3: unknown type 'Mood': declare it, import the file that declares it, or fix the spelling\n");
}

TEST(Check, DeepButFiniteReferenceChainsAreFine) {
  std::string text = "package t;\n";
  for (int i = 0; i < 200; ++i)
    text += "const C" + std::to_string(i) + " = C" + std::to_string(i + 1) + " + 1;\n";
  text += "const C200 = 0;\n";
  auto c = compile_text(text);
  ASSERT_TRUE(c->schema) << c->errors;
  EXPECT_EQ(c->package().constants[0].value, 200);
}

// The documented limit is 256 references deep: a struct whose array size goes through a chain of 256
// constants is within it (the struct itself is one more declaration being resolved).
TEST(Check, ConstantChainOf256ReferencesBelowAStructIsAccepted) {
  std::string text = "package t;\nstruct S { uint8 a[C0]; }\n";
  for (int i = 0; i < 255; ++i)
    text += "const C" + std::to_string(i) + " = C" + std::to_string(i + 1) + " + 1;\n";
  text += "const C255 = 1;\n";
  auto c = compile_text(text);
  ASSERT_TRUE(c->schema) << c->errors.substr(0, 500);
  EXPECT_EQ(c->package().constants[0].value, 256);
}

TEST(Check, OverlyDeepConstantChainsAreErrorsNotStackOverflows) {
  std::string text = "package t;\n";
  for (int i = 0; i < 5000; ++i)
    text += "const C" + std::to_string(i) + " = C" + std::to_string(i + 1) + " + 1;\n";
  text += "const C5000 = 0;\n";
  auto c = compile_text(text);
  EXPECT_FALSE(c->schema);
  EXPECT_NE(c->errors.find(
                "258:14: declarations refer to each other more than 256 levels deep here: flatten the chain"),
            std::string::npos)
      << c->errors.substr(0, 500);
}

TEST(Check, DeeplyNestedStructsCheckWithoutRecursion) {
  // Structs are checked in dependency order found iteratively, so nesting depth costs no stack, even
  // with deep if blocks at every level.
  std::string text = "package t;\n";
  const int depth = 1000;
  for (int i = 0; i < depth; ++i) {
    text += "struct S" + std::to_string(i) + " { bool a;";
    for (int k = 0; k < 60; ++k) text += " if (a) {";
    text += " S" + std::to_string(i + 1) + " next;";
    for (int k = 0; k < 60; ++k) text += " }";
    text += " }\n";
  }
  text += "struct S" + std::to_string(depth) + " { bool end; }\nmessage M { S0 root; }\n";
  auto c = compile_text(text);
  ASSERT_TRUE(c->schema) << c->errors.substr(0, 500);
  EXPECT_EQ(c->package().messages[0]->cost.max, static_cast<std::uint64_t>(depth) + 1);
  EXPECT_NE(c->package().protocol_id, 0u);
  // Types come before their users.
  EXPECT_EQ(c->package().structs[c->package().definition_order.front().index].name, "S1000");
}

}  // namespace

namespace {

// The checker estimates the C++ storage of every generated struct (to refuse what no compiler can
// build); for plain members it is the 64-bit ABI's sizeof.
TEST(Check, StorageBytesFollowTheMembersAndBothSidesOfEveryIf) {
  auto c = idlc::test::compile_text(
      "package t;\n"
      "struct Plain { uint8 a; uint32 b; bool c; }\n"
      "struct Sides { bool b; if (b) { uint64 x; } else { uint64 y; } }\n"
      "struct Arrays { uint16 a[10]; string<7> s; bool o?; }\n"
      "struct Nested { Plain p; uint8 tail; Arrays a[2]; }\n");
  ASSERT_TRUE(c->schema) << c->errors;
  const auto& structs = c->package().structs;
  EXPECT_EQ(structs[0].storage_bytes, 12u);  // 1, pad 3, 4, 1, pad 3
  EXPECT_EQ(structs[1].storage_bytes, 24u);  // 1, pad 7, 8, 8
  EXPECT_EQ(structs[2].storage_bytes, 30u);  // 20, 8 (7 + NUL), 1 (has_o), 1 (o)
  EXPECT_EQ(structs[3].storage_bytes, 76u);  // 12 (4-aligned), 1, pad 1, 60 (2-aligned), pad 2
}

}  // namespace

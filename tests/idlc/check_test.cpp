// Checker tests per construct: what the resolved model says about each type, field, struct and
// package (kinds, ranges, storage, wire bits, MaxBits), checked against costs worked out by hand from
// wire-format.md section 1.
#include <gtest/gtest.h>

#include <sstream>

#include "check_support.hpp"

namespace {

using namespace idlc;
using idlc::test::compile_text;
using idlc::test::find_field;
using idlc::test::find_struct;
using idlc::test::one_field;

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

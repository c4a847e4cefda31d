// --layout output: the table a person reads and the JSON a tool reads, pinned for a small schema
// whose offsets were worked out by hand.
#include <gtest/gtest.h>

#include "model/layout.hpp"
#include "support.hpp"

namespace {

const char kSchema[] =
    "package demo;\n"
    "struct Vec { int<0 .. 15> x; int<0 .. 15> y; }\n"
    "message Move budget 20 {\n"
    "  uint16 tick;\n"
    "  Vec at;\n"
    "  bool jumping;\n"
    "  if (jumping) { uint:5 height; } else { Vec target; }\n"
    "  string<3> tag?;\n"
    "  align;\n"
    "  check;\n"
    "  Vec path[0 .. 2];\n"
    "}\n"
    "message Empty {}\n";

// By hand: tick 0 +16; at 16 +8 (x 16, y 20); jumping 24 +1; the if starts at 25 and takes 5 (then)
// or 8 (else); tag starts at 30..33 and takes 1 (absent) .. 1 + 2 + 7 + 24; align at 31..67 takes
// 0..7; check at 31..74 takes 32..39; path at 63..113 takes a 2-bit count plus up to 2 * 8.
const char kExpectedText[] =
    "package demo (demo.net)  ProtocolId 0x%016llx\n"
    "2 messages, message type in 1 bit\n"
    "\n"
    "message Move  (type id 0)  MaxBits 131, MaxBytes 17, budget 20 bytes\n"
    "  offset        bits        field         type\n"
    "  0             16          tick          uint16\n"
    "  16            8           at            Vec\n"
    "  16            4             at.x        int8<0 .. 15>\n"
    "  20            4             at.y        int8<0 .. 15>\n"
    "  24            1           jumping       bool\n"
    "  25            5           if (jumping)\n"
    "  25            5             height      uint8:5\n"
    "  25            8           else\n"
    "  25            8             target      Vec\n"
    "  25            4               target.x  int8<0 .. 15>\n"
    "  29            4               target.y  int8<0 .. 15>\n"
    "  30..33        1..34       tag           string<3>?\n"
    "  31..67        0..7        (align)\n"
    "  31..74        32..39      (check)\n"
    "  63..113       2..18       path          Vec[0 .. 2]\n"
    "  read as one: tick .. jumping (3 items, 25 bits)\n"
    "  read as one: target (1 item, 8 bits)\n"
    "  total 65..131 bits; worst case 131 bits = 17 bytes (92 bits with check markers off)\n"
    "\n"
    "message Empty  (type id 1)  MaxBits 0, MaxBytes 0\n"
    "  offset        bits        field  type\n"
    "  total 0 bits; worst case 0 bits = 0 bytes\n";

TEST(Layout, TextTable) {
  auto c = idlc::test::compile_text(kSchema, {}, "demo.net");
  ASSERT_TRUE(c->schema) << c->errors;
  char expected[4096];
  std::snprintf(expected, sizeof expected, kExpectedText,
                static_cast<unsigned long long>(c->package().protocol_id));
  EXPECT_EQ(idlc::layout_text(c->package()), expected);
}

// The pieces generated code reads with one bounds check each, as the model split the runs: the
// message's own item lists (if sides included), not the expanded structs' (those are read inside the
// struct's piece).
TEST(Layout, PiecesAreTheModelsSplit) {
  auto c = idlc::test::compile_text(kSchema, {}, "demo.net");
  ASSERT_TRUE(c->schema) << c->errors;
  idlc::MessageLayout layout = idlc::layout_of(*c->package().messages[0]);
  ASSERT_EQ(layout.pieces.size(), 3u);
  EXPECT_EQ(layout.pieces[0].first, "tick");
  EXPECT_EQ(layout.pieces[0].last, "jumping");
  EXPECT_EQ(layout.pieces[0].items, 3u);
  EXPECT_EQ(layout.pieces[0].bits, 25u);
  EXPECT_TRUE(layout.pieces[0].grouped);
  EXPECT_EQ(layout.pieces[1].first, "height");  // a lone scalar: read on its own
  EXPECT_FALSE(layout.pieces[1].grouped);
  EXPECT_EQ(layout.pieces[1].offset.min, 25u);
  EXPECT_EQ(layout.pieces[2].first, "target");  // a struct: one bounds check for its reads
  EXPECT_TRUE(layout.pieces[2].grouped);
}

TEST(Layout, LongRunsAndAlignedPairsAreShown) {
  auto c = idlc::test::compile_text(
      "package p;\n"
      "message M {\n"
      "  uint64 a; uint64 b; uint64 c; uint64 d; uint64 e; uint64 f; uint64 g;\n"
      "  uint64 h; bool i; align; uint8 j; uint8 k;\n"
      "}\n",
      {}, "p.net");
  ASSERT_TRUE(c->schema) << c->errors;
  const std::string text = idlc::layout_text(c->package());
  EXPECT_NE(text.find("  read as one: a .. g (7 items, 448 bits)\n"
                      "  read as one: h .. i (2 items, 65 bits) + align + j .. k (2 items, 16 bits)\n"
                      "  total"),
            std::string::npos)
      << text;
  const std::string json = idlc::layout_json(c->package());
  EXPECT_NE(json.find("{\"first\": \"h\", \"last\": \"i\", \"items\": 2, \"offset_min\": 448, "
                      "\"offset_max\": 448, \"bits\": 65, \"grouped\": true, \"joins_next\": true}"),
            std::string::npos)
      << json;
}

// An enum with values past 2^63 - 1 shows its true width: [0, 2^64 - 1] is 64 bits, two values just past
// 2^63 are 1.
TEST(Layout, UnsignedEnumsPast2To63HaveTheirTrueWidth) {
  auto c = idlc::test::compile_text(
      "package t;\n"
      "enum Wide : uint64 { low, top = 18446744073709551615 }\n"
      "enum High { a = 9223372036854775808, b }\n"
      "message M { Wide w; High h; }\n",
      {}, "t.net");
  ASSERT_TRUE(c->schema) << c->errors;
  const std::string text = idlc::layout_text(c->package());
  EXPECT_NE(text.find("  0             64          w      Wide\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  64            1           h      High\n"), std::string::npos) << text;
  EXPECT_NE(text.find("worst case 65 bits"), std::string::npos) << text;
}

TEST(Layout, RowsEndAtMaxBits) {
  auto c = idlc::test::compile_text(kSchema, {}, "demo.net");
  ASSERT_TRUE(c->schema) << c->errors;
  const idlc::model::Struct& move = *c->package().messages[0];
  idlc::MessageLayout layout = idlc::layout_of(move);
  const idlc::LayoutRow& last = layout.rows.back();
  EXPECT_EQ(last.offset.max + last.bits.max, move.cost.max);
  EXPECT_EQ(last.offset.min + last.bits.min, move.cost.min);
  EXPECT_FALSE(layout.truncated);
}

TEST(Layout, Json) {
  auto c = idlc::test::compile_text(kSchema, {}, "demo.net");
  ASSERT_TRUE(c->schema) << c->errors;
  std::string json = idlc::layout_json(c->package());
  EXPECT_NE(json.find("\"package\": \"demo\""), std::string::npos);
  EXPECT_NE(json.find("\"message_type_bits\": 1"), std::string::npos);
  EXPECT_NE(
      json.find(
          "{\"name\": \"Move\", \"type_id\": 0, \"min_bits\": 65, \"max_bits\": 131, "
          "\"max_bits_without_checks\": 92, \"max_bytes\": 17, \"budget_bytes\": 20, \"block\": false, \"truncated\": false,"),
      std::string::npos)
      << json;
  EXPECT_NE(
      json.find("{\"depth\": 2, \"kind\": \"field\", \"path\": \"target.y\", \"type\": \"int8<0 .. 15>\", "
                "\"offset_min\": 29, \"offset_max\": 29, \"bits_min\": 4, \"bits_max\": 4}"),
      std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"depth\": 0, \"kind\": \"if\", \"path\": \"if (jumping)\""), std::string::npos);
  EXPECT_NE(json.find("{\"name\": \"Empty\", \"type_id\": 1, \"min_bits\": 0, \"max_bits\": 0, "
                      "\"max_bits_without_checks\": 0, \"max_bytes\": 0, \"budget_bytes\": null, \"block\": "
                      "false, \"truncated\": false,\n"
                      "     \"rows\": [],\n     \"pieces\": []}"),
            std::string::npos)
      << json;
  // Balanced brackets and quotes: a cheap well-formedness check (the CLI test parses nothing either).
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < json.size(); ++i) {
    char ch = json[i];
    if (in_string) {
      if (ch == '\\')
        ++i;
      else if (ch == '"')
        in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    if (ch == '{' || ch == '[') ++depth;
    if (ch == '}' || ch == ']') --depth;
    ASSERT_GE(depth, 0);
  }
  EXPECT_EQ(depth, 0);
  EXPECT_FALSE(in_string);
}

TEST(Layout, ExponentiallyNestedStructsAreCutAtTheRowLimit) {
  // Each level holds two of the next: 2^17 leaves if fully expanded (2^18 - 2 members of struct type, the
  // limit), far more than the table's rows.
  std::string text = "package t;\nstruct L17 { bool x; }\n";
  for (int i = 16; i >= 0; --i) {
    text += "struct L" + std::to_string(i) + " { L" + std::to_string(i + 1) + " a; L" +
            std::to_string(i + 1) + " b; }\n";
  }
  text += "message M { L0 root; }\n";
  auto c = idlc::test::compile_text(text);
  ASSERT_TRUE(c->schema) << c->errors;
  idlc::MessageLayout layout = idlc::layout_of(*c->package().messages[0]);
  EXPECT_TRUE(layout.truncated);
  EXPECT_EQ(layout.rows.size(), idlc::kMaxLayoutRows);
  EXPECT_EQ(c->package().messages[0]->cost.max, 1u << 17);
  EXPECT_NE(idlc::layout_text(c->package()).find("the table stops at 4096 rows"), std::string::npos);
}

}  // namespace

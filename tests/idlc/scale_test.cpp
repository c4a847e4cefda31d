// idlc on a large schema: a generated package of 2,000 message-sized declarations, 256 messages (a
// package's limit) and 1,744 structs of the same shape, plus the structs, enums and constants they use,
// parses and checks into the right model. The time is printed, never asserted (run
// idlc_scale_test to see it; the CLI measurement is in docs/schema-language.md).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "support.hpp"

namespace {

// A schema of `messages` declarations in the style of a real protocol, the first 256 of them messages
// and the rest structs: each has eight fields of mixed kinds, every tenth has an if block, and they share
// 100 structs and 20 enums.
std::string generate_schema(int messages) {
  std::string text = "/// Generated for the scale test.\npackage big;\noption budget = 4096;\n";
  for (int i = 0; i < 20; ++i) {
    text += "enum Kind" + std::to_string(i) + " { A, B, C, D = " + std::to_string(10 + i) + " }\n";
    text += "const Limit" + std::to_string(i) + " = " + std::to_string(i + 4) + " * 2;\n";
  }
  for (int i = 0; i < 100; ++i) {
    std::string n = std::to_string(i);
    text += "struct Part" + n + " {\n  float<-1000 .. 1000, res 0.01> x;\n  int<0 .. " +
            std::to_string(100 + i) + "> y;\n  Kind" + std::to_string(i % 20) + " kind;\n}\n";
  }
  for (int i = 0; i < messages; ++i) {
    std::string n = std::to_string(i);
    text += "/// Message " + n + ".\n" + (i < 256 ? "message" : "struct") + " Msg" + n + " {\n";
    text += "  uint32 tick;\n";
    text += "  Part" + std::to_string(i % 100) + " part;\n";
    text += "  int<-" + n + " .. " + std::to_string(i + 1000) + "> value = 0;\n";
    text += "  bool flag;\n";
    text += "  string<32> name?;\n";
    text += "  Part" + std::to_string((i + 1) % 100) + " items[0 .. Limit" + std::to_string(i % 20) + "];\n";
    text += "  uint:" + std::to_string(1 + i % 64) + " bits;\n";
    text += "  Kind" + std::to_string(i % 20) + " kind;\n";
    if (i % 10 == 0) text += "  if (flag) { fixed<-10 .. 10, frac 8> q; } else { bytes<8> raw; }\n";
    text += "}\n";
  }
  return text;
}

TEST(Scale, TwoThousandMessageSizedDeclarations) {
  const std::string text = generate_schema(2000);
  const auto start = std::chrono::steady_clock::now();
  auto compiled = idlc::test::compile_text(text, {}, "big.net");
  const auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start);
  ASSERT_TRUE(compiled->schema) << compiled->errors.substr(0, 2000);
  const auto& package = compiled->package();
  ASSERT_EQ(package.messages.size(), 256u);
  ASSERT_EQ(package.structs.size(), 2100u);
  EXPECT_EQ(package.message_type_bits, 8);
  EXPECT_EQ(package.messages[255]->name, "Msg255");
  EXPECT_EQ(package.messages[255]->type_id, 255u);
  std::printf("parse + check of %zu bytes, 2000 message-sized declarations: %.1f ms\n", text.size(),
              elapsed.count());
  // The same text reaches the same fingerprint.
  auto again = idlc::test::compile_text(text, {}, "big.net");
  ASSERT_TRUE(again->schema);
  EXPECT_EQ(again->package().protocol_id, package.protocol_id);
}

}  // namespace

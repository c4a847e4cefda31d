// idlc on a large schema: a generated package of 2,000 message-sized declarations, 256 messages (a
// package's limit) and 1,744 structs of the same shape, plus the structs, enums and constants they use,
// parses and checks into the right model. The time is printed, never asserted (run
// idlc_scale_test to see it; the CLI measurement is in docs/schema-language.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "backend/cpp/emit_cpp.hpp"
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

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The lines of `text` that call `name(` without naming the callee exactly: not a definition (one of
// `definitions`), not qualified (`bitwire::name(`, `::name(`), not a member (`.name(`).
std::vector<std::string> unqualified_calls(const std::string& text, const std::string& name,
                                           const std::vector<std::string>& definitions) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    bool defined = false;
    for (const std::string& d : definitions) defined = defined || line.find(d) != std::string::npos;
    if (defined) continue;
    for (std::size_t at = line.find(name + "("); at != std::string::npos; at = line.find(name + "(", at + 1)) {
      const char before = at == 0 ? ' ' : line[at - 1];
      if (before != ':' && before != '.' && before != '_' && (std::isalnum(static_cast<unsigned char>(before)) == 0)) {
        lines.push_back(line);
        break;
      }
    }
  }
  return lines;
}

// Compile time stays linear in the schema: the header's formatting code never calls into an overload set
// that grows with the package (each formatter is called by its own name; the format_value / to_string
// functions exist only for users' argument-dependent lookup), and the header holds no message table:
// the factory is declared, and defined once in the source file, one entry per message. A failure names
// the offending lines. (Overload resolution against every struct of the package was 39% of an
// include-only compile, quadratic in the number of structs.)
TEST(Scale, GeneratedCodeCallsNoOverloadSetThatGrowsWithThePackage) {
  for (int declarations : {30, 300}) {
    SCOPED_TRACE(std::to_string(declarations) + " declarations");
    auto compiled = idlc::test::compile_text(generate_schema(declarations), {}, "big.net");
    ASSERT_TRUE(compiled->schema) << compiled->errors.substr(0, 2000);
    const auto& package = compiled->package();
    const std::string header = idlc::emit_cpp_header(package);
    const std::string source = idlc::emit_cpp_source(package);
    EXPECT_EQ(unqualified_calls(header, "format_value", {"inline void format_value(std::string& out_, "}),
              std::vector<std::string>{});
    // serialize's membership test of an enum with gaps (serialize_enum_member) is the one call of to_string.
    EXPECT_EQ(unqualified_calls(header, "to_string",
                                {"inline std::string to_string(const ", "inline constexpr const char* to_string(",
                                 "serialize_enum_member"}),
              std::vector<std::string>{});
    // One format_value template for all the structs, and an overload per enum, each a one-line forward
    // to the type's own formatter.
    EXPECT_EQ(count(header, "inline void format_value("), 1 + package.enums.size());
    EXPECT_EQ(count(header, "static void format_("), package.structs.size());
    // The factory: declared in the header, one table in the source.
    EXPECT_NE(header.find("\nconst bitwire::MessageFactory& message_factory();\n"), std::string::npos);
    EXPECT_EQ(count(header, "describe_message"), 0u);
    EXPECT_EQ(count(source, "bitwire::describe_message<"), package.messages.size());
    EXPECT_EQ(count(source, "const bitwire::MessageFactory& message_factory() {"), 1u);
    EXPECT_EQ(count(source, "#include \"big.hpp\""), 1u);
  }
}

// The formatting functions users find by argument-dependent lookup: one constrained template pair per
// package, however many structs it has (an overload pair per struct made each include of a large package
// superlinear: every declaration of a name is checked against the earlier ones, bench/RESULTS.md). The
// enums keep theirs (to_string(Enum) names the enumerator; 20 enums here at every size).
TEST(Scale, FormattingDeclarationsDoNotGrowWithTheStructs) {
  std::vector<std::size_t> format_values;
  std::vector<std::size_t> to_strings;
  for (int declarations : {30, 300}) {
    SCOPED_TRACE(std::to_string(declarations) + " declarations");
    auto compiled = idlc::test::compile_text(generate_schema(declarations), {}, "big.net");
    ASSERT_TRUE(compiled->schema) << compiled->errors.substr(0, 2000);
    const auto& package = compiled->package();
    const std::string header = idlc::emit_cpp_header(package);
    ASSERT_EQ(count(header, "static void format_("), package.structs.size());
    // Declarations at namespace scope: at the start of a line.
    format_values.push_back(count(header, "\ninline void format_value(") + count(header, "\nvoid format_value("));
    to_strings.push_back(count(header, "\ninline std::string to_string(") + count(header, "\nstd::string to_string("));
    EXPECT_EQ(count(header, "\ninline std::string to_string("), 1u);
    EXPECT_EQ(count(header, "\ninline void format_value("), 1 + package.enums.size());
  }
  ASSERT_EQ(format_values.size(), 2u);
  EXPECT_EQ(format_values[0], format_values[1]);
  EXPECT_EQ(to_strings[0], to_strings[1]);
}

// The factory spread over source files: every message's four entry points defined in exactly one file,
// in type-id order, at least kMinMessagesPerFactorySource a file; the table in the first file only; every
// file that defines entry points includes the header, an empty one includes nothing.
TEST(Scale, FactorySourcesDefineEveryEntryPointOnce) {
  auto compiled = idlc::test::compile_text(generate_schema(300), {}, "big.net");
  ASSERT_TRUE(compiled->schema) << compiled->errors.substr(0, 2000);
  const auto& package = compiled->package();
  ASSERT_EQ(package.messages.size(), 256u);
  for (int files : {1, 3, 8, 17, 64}) {
    SCOPED_TRACE(std::to_string(files) + " files");
    idlc::CppOptions options;
    options.factory_sources = files;
    const std::vector<std::string> names = idlc::cpp_source_names(package, options);
    ASSERT_EQ(names.size(), static_cast<std::size_t>(files));
    EXPECT_EQ(names.front(), "big.cpp");
    std::vector<std::string> texts;
    for (int i = 0; i < files; ++i) texts.push_back(idlc::emit_cpp_source(package, options, i));
    EXPECT_EQ(count(texts[0], "const bitwire::MessageFactory& message_factory() {"), 1u);
    std::size_t previous_end = 0;
    std::size_t used = 0;
    for (int i = 0; i < files; ++i) {
      if (i > 0) {
        EXPECT_EQ(names[static_cast<std::size_t>(i)], "big_factory_" + std::to_string(i) + ".cpp");
        EXPECT_EQ(count(texts[static_cast<std::size_t>(i)], "message_factory() {"), 0u);
      }
      const auto [first, last] = idlc::factory_share(package.messages.size(), files, i);
      const std::string& text = texts[static_cast<std::size_t>(i)];
      EXPECT_EQ(count(text, "  return static_cast<"), 4 * (last - first));
      EXPECT_EQ(count(text, "#include \"big.hpp\""), first == last ? 0u : 1u);
      if (first == last) continue;
      ++used;
      EXPECT_EQ(first, previous_end);
      EXPECT_GE(last - first, idlc::kMinMessagesPerFactorySource);
      previous_end = last;
      for (std::size_t m = first; m < last; ++m) {
        const std::string& name = package.messages[m]->name;
        for (const char* kind : {"write_", "read_", "measure_", "validate_"}) {
          EXPECT_EQ(count(text, "bool " + std::string(kind) + name + "_(void* message_, bitwire::"), 2u)
              << kind << name << ": declared, then defined";
        }
      }
    }
    EXPECT_EQ(previous_end, package.messages.size());
    EXPECT_EQ(used, std::min<std::size_t>(static_cast<std::size_t>(files), 256 / idlc::kMinMessagesPerFactorySource));
  }
}

// The default (kFactorySourcesAuto) chooses one file per kMinMessagesPerFactorySource messages, rounded
// down, from 1 to kAutoMaxFactorySources, and every file it chooses holds messages.
TEST(Scale, AutomaticFactorySourcesFollowThePackageSize) {
  ASSERT_EQ(idlc::CppOptions{}.factory_sources, idlc::kFactorySourcesAuto);
  idlc::model::Package package;
  std::deque<idlc::model::Struct> storage;
  const auto resize = [&](std::size_t messages) {
    while (package.messages.size() < messages) package.messages.push_back(&storage.emplace_back());
  };
  for (const auto& [messages, files] : std::vector<std::pair<std::size_t, int>>{
           {0, 1}, {1, 1}, {24, 1}, {25, 1}, {49, 1}, {50, 2}, {200, 8}, {201, 8}, {400, 16}, {2000, 16}}) {
    SCOPED_TRACE(std::to_string(messages) + " messages");
    resize(messages);
    const int count = idlc::factory_source_count(package, idlc::CppOptions{});
    EXPECT_EQ(count, files);
    for (int i = 0; i < count && messages > 0; ++i) {
      const auto [first, last] = idlc::factory_share(messages, count, i);
      EXPECT_GE(last - first, std::min(messages, idlc::kMinMessagesPerFactorySource));
    }
  }
  idlc::CppOptions explicit_count;
  explicit_count.factory_sources = 40;
  EXPECT_EQ(idlc::factory_source_count(package, explicit_count), 40) << "an explicit count is kept";
}

// idlc --no-format: no formatting code at all (the enums' to_string stays: reads use it), and less text.
TEST(Scale, NoFormatLeavesTheFormattingCodeOut) {
  auto compiled = idlc::test::compile_text(generate_schema(300), {}, "big.net");
  ASSERT_TRUE(compiled->schema) << compiled->errors.substr(0, 2000);
  idlc::CppOptions plain;
  plain.format = false;
  const std::string with = idlc::emit_cpp_header(compiled->package());
  const std::string without = idlc::emit_cpp_header(compiled->package(), plain);
  EXPECT_EQ(count(without, "format_"), 0u);
  EXPECT_EQ(count(without, "std::string"), 0u);
  EXPECT_EQ(count(without, "bitwire/serialize/format.hpp"), 0u);
  EXPECT_EQ(count(without, "inline constexpr const char* to_string("), compiled->package().enums.size());
  // What leaves is the formatting code, about 1.3 KB per message of this schema (a share of the header
  // that shrinks as the serialize code grows, so the bound is per message, not a ratio).
  ASSERT_LT(without.size(), with.size());
  EXPECT_GE(with.size() - without.size(), 300u * 1000u) << without.size() << " bytes against " << with.size();
  EXPECT_EQ(idlc::emit_cpp_source(compiled->package(), plain), idlc::emit_cpp_source(compiled->package()));
}

}  // namespace

// Parser tests: each construct parses into the expected tree with byte offsets; doc comments attach to
// the token after them; syntax errors are reported in order and the parser recovers at declarations.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <type_traits>
#include <variant>

#include "frontend/lexical.hpp"
#include "frontend/parser.hpp"

namespace {

using namespace idlc;

struct Parsed {
  Diagnostics diagnostics;
  const SourceFile* file = nullptr;
  std::optional<ast::File> tree;
};

std::unique_ptr<Parsed> parse_text(const std::string& text) {
  auto p = std::make_unique<Parsed>();
  p->file = &p->diagnostics.add_source("p.net", text);
  p->tree = parse(*p->file, p->diagnostics);
  return p;
}

std::string errors(const Parsed& p) {
  std::string out;
  for (const Diagnostic* d : p.diagnostics.sorted()) {
    LineColumn lc = p.diagnostics.line_column(*d->file, d->offset);
    out += std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": " + d->message + "\n";
  }
  return out;
}

template <typename T>
const T& declaration(const ast::File& file, std::size_t index) {
  const T* d = std::get_if<T>(&file.declarations.at(index).get());
  if (d == nullptr) throw std::runtime_error("unexpected declaration kind");
  return *d;
}

const ast::Field& field_of(const ast::StructDecl& s, std::size_t index) {
  return std::get<ast::Field>(s.items.at(index).get());
}

// The text an offset points at, for readable offset checks.
std::string at(const Parsed& p, std::uint32_t offset, std::size_t length) {
  return p.file->text.substr(offset, length);
}

// The tree the checker reads is made of standard types: the grammar's Boost types (boost::optional,
// x3::variant) are converted at the frontend's boundary, and no checker file names Boost.
static_assert(std::is_same_v<decltype(ast::Field::dims), std::optional<ast::Dims>>);
static_assert(
    std::is_same_v<decltype(ast::Item::value),
                   std::variant<ast::Field, ast::Directive, ast::Box<ast::IfBlock>, ast::WireItem>>);
static_assert(
    std::is_same_v<decltype(ast::Primary::value), std::variant<ast::NumberLiteral, ast::BoolLiteral,
                                                               ast::QualifiedName, ast::Box<ast::Expr>>>);

TEST(Parser, OnlyTheGrammarNamesBoost) {
  const std::filesystem::path src = std::filesystem::path(IDLC_TEST_DIR) / ".." / ".." / "idlc" / "src";
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(src)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (name == "parser.cpp" || name == "parser_def.hpp") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str().find("boost::"), std::string::npos) << entry.path();
    EXPECT_EQ(text.str().find("#include <boost/"), std::string::npos) << entry.path();
    ++files;
  }
  EXPECT_GT(files, 30u);
}

// A parenthesized expression and a nested if survive the conversion with their offsets, and copies are
// deep (a copied tree is independent of the original).
TEST(Parser, ConvertedTreeKeepsNestingAndCopiesDeeply) {
  auto p =
      parse_text("package t;\nconst A = (1 + (2));\nstruct S { bool a; if (a) { if (a) { bool b; } } }\n");
  ASSERT_TRUE(p->tree);
  const auto& value = declaration<ast::ConstDecl>(*p->tree, 1).value;
  const auto* outer = std::get_if<ast::Box<ast::Expr>>(&value.first.operand.get());
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(at(*p, outer->get().offset, 4), "(1 +");
  EXPECT_EQ(static_cast<const std::string&>(std::get<ast::NumberLiteral>(outer->get().first.operand.get())),
            "1");
  ASSERT_EQ(outer->get().rest.size(), 1u);
  const auto* inner = std::get_if<ast::Box<ast::Expr>>(&outer->get().rest[0].operand.operand.get());
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(at(*p, inner->get().offset, 3), "(2)");
  EXPECT_EQ(static_cast<const std::string&>(std::get<ast::NumberLiteral>(inner->get().first.operand.get())),
            "2");
  ast::File copy = *p->tree;
  const auto& s = declaration<ast::StructDecl>(copy, 2);
  const auto& block = std::get<ast::Box<ast::IfBlock>>(s.items.at(1).get()).get();
  ASSERT_EQ(block.then_items.size(), 1u);
  const auto& nested = std::get<ast::Box<ast::IfBlock>>(block.then_items[0].get()).get();
  EXPECT_EQ(at(*p, nested.offset, 2), "if");
  EXPECT_NE(&nested,
            &std::get<ast::Box<ast::IfBlock>>(
                 std::get<ast::Box<ast::IfBlock>>(declaration<ast::StructDecl>(*p->tree, 2).items.at(1).get())
                     .get()
                     .then_items[0]
                     .get())
                 .get());
}

TEST(Parser, PackageImportOptionConst) {
  auto p = parse_text(
      "package studio.game;\nimport \"common.net\";\noption budget = 1200;\nconst Max = 4 * (3 + 1);\n");
  ASSERT_TRUE(p->tree) << errors(*p);
  ASSERT_EQ(p->tree->declarations.size(), 4u);
  const auto& package = declaration<ast::PackageDecl>(*p->tree, 0);
  ASSERT_EQ(package.size(), 2u);
  EXPECT_EQ(package[0], "studio");
  EXPECT_EQ(package[1], "game");
  EXPECT_EQ(package.offset, 0u);
  EXPECT_EQ(at(*p, package[1].offset, 4), "game");
  const auto& import = declaration<ast::ImportDecl>(*p->tree, 1);
  EXPECT_EQ(static_cast<const std::string&>(import), "\"common.net\"");
  EXPECT_EQ(at(*p, import.offset, 6), "import");
  const auto& option = declaration<ast::OptionDecl>(*p->tree, 2);
  EXPECT_EQ(option.key, "budget");
  const auto& constant = declaration<ast::ConstDecl>(*p->tree, 3);
  EXPECT_EQ(constant.name, "Max");
  EXPECT_EQ(at(*p, constant.name.offset, 3), "Max");
  // 4 * (3 + 1): first operand 4, one operation '*' with a parenthesized operand.
  ASSERT_EQ(constant.value.rest.size(), 1u);
  EXPECT_EQ(constant.value.rest[0].op, '*');
  EXPECT_EQ(at(*p, constant.value.rest[0].offset, 1), "*");
  EXPECT_NE(std::get_if<ast::Box<ast::Expr>>(&constant.value.rest[0].operand.operand.get()), nullptr);
}

TEST(Parser, NumbersSignsAndQualifiedNames) {
  auto p = parse_text("package t;\nconst A = -0x1F_FF + --2 % Weapon.count - common.Max;\n");
  ASSERT_TRUE(p->tree) << errors(*p);
  const auto& value = declaration<ast::ConstDecl>(*p->tree, 1).value;
  EXPECT_EQ(value.first.signs, "-");
  EXPECT_EQ(static_cast<const std::string&>(std::get<ast::NumberLiteral>(value.first.operand.get())),
            "0x1F_FF");
  ASSERT_EQ(value.rest.size(), 3u);
  EXPECT_EQ(value.rest[0].operand.signs, "--");
  const auto& name = std::get<ast::QualifiedName>(value.rest[1].operand.operand.get());
  ASSERT_EQ(name.size(), 2u);
  EXPECT_EQ(name[0], "Weapon");
  EXPECT_EQ(name[1], "count");
  EXPECT_EQ(value.rest[2].op, '-');
}

TEST(Parser, EnumsWithExplicitValuesStorageAndTrailingComma) {
  auto p = parse_text(
      "package t;\nenum Weapon : uint8 { Pistol, Rifle = 5, Shotgun, }\nflags Buttons { Jump, Fire }\n");
  ASSERT_TRUE(p->tree) << errors(*p);
  const auto& e = declaration<ast::EnumDecl>(*p->tree, 1);
  EXPECT_EQ(e.name, "Weapon");
  ASSERT_TRUE(e.storage);
  EXPECT_EQ(*e.storage, "uint8");
  ASSERT_EQ(e.items.size(), 3u);
  EXPECT_FALSE(e.items[0].value);
  ASSERT_TRUE(e.items[1].value);
  EXPECT_EQ(at(*p, e.items[2].offset, 7), "Shotgun");
  const auto& f = declaration<ast::FlagsDecl>(*p->tree, 2);
  ASSERT_EQ(f.items.size(), 2u);
  EXPECT_EQ(f.items[1], "Fire");
}

TEST(Parser, EveryFieldForm) {
  auto p = parse_text(
      "package t;\n"
      "message M budget 1200 {\n"
      "  uint32 tick;\n"
      "  int<0 .. 1023> yaw = 5;\n"
      "  uint:5 buttons;\n"
      "  float<-1000 .. 1000, res 0.01> x;\n"
      "  fixed<-128 .. 127, frac 8> q;\n"
      "  string<32> name = \"bob\";\n"
      "  Entity items[0 .. 64];\n"
      "  Vec3 points[4];\n"
      "  sparse Entity all[64];\n"
      "  common.Vec3 spawn?;\n"
      "  align;\n"
      "  check;\n"
      "}\n");
  ASSERT_TRUE(p->tree) << errors(*p);
  const auto& m = declaration<ast::StructDecl>(*p->tree, 1);
  EXPECT_TRUE(m.is_message);
  ASSERT_TRUE(m.budget);
  ASSERT_EQ(m.items.size(), 12u);
  const auto& yaw = field_of(m, 1);
  ASSERT_TRUE(yaw.type.args);
  EXPECT_TRUE(yaw.type.args->last);
  EXPECT_TRUE(yaw.default_value);
  EXPECT_EQ(at(*p, yaw.offset, 3), "int");
  EXPECT_EQ(at(*p, yaw.name.offset, 3), "yaw");
  const auto& buttons = field_of(m, 2);
  EXPECT_TRUE(buttons.type.width);
  const auto& x = field_of(m, 3);
  ASSERT_EQ(x.type.args->params.size(), 1u);
  EXPECT_EQ(x.type.args->params[0].key, "res");
  const auto& name = field_of(m, 5);
  EXPECT_EQ(static_cast<const std::string&>(std::get<ast::StringLiteral>(name.default_value->get())),
            "\"bob\"");
  const auto& items = field_of(m, 6);
  ASSERT_TRUE(items.dims);
  EXPECT_TRUE(items.dims->last);
  const auto& points = field_of(m, 7);
  EXPECT_FALSE(points.dims->last);
  EXPECT_TRUE(field_of(m, 8).sparse);
  const auto& spawn = field_of(m, 9);
  EXPECT_TRUE(spawn.optional);
  EXPECT_EQ(spawn.type.name.size(), 2u);
  EXPECT_EQ(static_cast<const std::string&>(std::get<ast::Directive>(m.items[10].get())), "align");
  EXPECT_EQ(static_cast<const std::string&>(std::get<ast::Directive>(m.items[11].get())), "check");
}

TEST(Parser, IfElseChains) {
  auto p = parse_text(
      "package t;\n"
      "struct S {\n"
      "  if (!at_rest) { Vec3 v; } else if (kind == Kind.Move) { bool a; } else { bool b; }\n"
      "  if (kind != Idle) {}\n"
      "}\n");
  ASSERT_TRUE(p->tree) << errors(*p);
  const auto& s = declaration<ast::StructDecl>(*p->tree, 1);
  ASSERT_EQ(s.items.size(), 2u);
  const auto& first = std::get<ast::Box<ast::IfBlock>>(s.items[0].get()).get();
  EXPECT_TRUE(first.condition.negated);
  EXPECT_FALSE(first.condition.comparison);
  EXPECT_EQ(at(*p, first.offset, 2), "if");
  ASSERT_EQ(first.else_items.size(), 1u);
  const auto& nested = std::get<ast::Box<ast::IfBlock>>(first.else_items[0].get()).get();
  ASSERT_TRUE(nested.condition.comparison);
  EXPECT_EQ(nested.condition.comparison->op, "==");
  EXPECT_EQ(nested.else_items.size(), 1u);
  const auto& second = std::get<ast::Box<ast::IfBlock>>(s.items[1].get()).get();
  EXPECT_EQ(second.condition.comparison->op, "!=");
  EXPECT_TRUE(second.then_items.empty());
}

TEST(Parser, CommentsAreSkippedAndDocCommentsAttachToTheNextToken) {
  auto p = parse_text(
      "/// The package.\n"
      "package t; // trailing\n"
      "/* block\n comment */\n"
      "/// A vector.\n"
      "///   indented second line\n"
      "// an ordinary comment between doc and declaration\n"
      "struct Vec3 {\n"
      "  /// x coordinate\n"
      "  float x; /// not a doc: it does not start its line\n"
      "  float y;\n"
      "}\n"
      "//// four slashes: ordinary\n"
      "enum E { /// first value\n A }\n");
  ASSERT_TRUE(p->tree) << errors(*p);
  const auto& docs = p->tree->docs;
  const auto& package = declaration<ast::PackageDecl>(*p->tree, 0);
  ASSERT_TRUE(docs.count(package.offset));
  EXPECT_EQ(docs.at(package.offset), std::vector<std::string>{"The package."});
  const auto& s = declaration<ast::StructDecl>(*p->tree, 1);
  ASSERT_TRUE(docs.count(s.offset));
  EXPECT_EQ(docs.at(s.offset), (std::vector<std::string>{"A vector.", "  indented second line"}));
  EXPECT_EQ(docs.at(field_of(s, 0).offset), std::vector<std::string>{"x coordinate"});
  EXPECT_FALSE(docs.count(field_of(s, 1).offset));
  const auto& e = declaration<ast::EnumDecl>(*p->tree, 2);
  EXPECT_FALSE(docs.count(e.offset));
  EXPECT_FALSE(docs.count(e.items[0].offset)) << "a /// after code on its line is an ordinary comment";
}

TEST(Parser, KeywordsNeedWholeWords) {
  // `message_count` and `iffy` are names, not keywords followed by text.
  auto p = parse_text("package t;\nstruct S { uint8 message_count; bool iffy; bool aligned; }\n");
  ASSERT_TRUE(p->tree) << errors(*p);
  const auto& s = declaration<ast::StructDecl>(*p->tree, 1);
  EXPECT_EQ(field_of(s, 0).name, "message_count");
  EXPECT_EQ(field_of(s, 2).name, "aligned");
}

TEST(Parser, RangesNeedNoSpaces) {
  auto p = parse_text("package t;\nstruct S { int<-5..5> a; uint8 b[0..N]; float<0..1.5, res 0.5> c; }\n");
  ASSERT_TRUE(p->tree) << errors(*p);
  const auto& s = declaration<ast::StructDecl>(*p->tree, 1);
  EXPECT_TRUE(field_of(s, 0).type.args->last);
  EXPECT_TRUE(field_of(s, 1).dims->last);
  EXPECT_EQ(static_cast<const std::string&>(
                std::get<ast::NumberLiteral>(field_of(s, 2).type.args->last->first.operand.get())),
            "1.5");
  // A number starts with a digit.
  auto bad = parse_text("package t;\nstruct S { float<0 .. 1, res .5> c; }\n");
  EXPECT_FALSE(bad->tree);
  EXPECT_EQ(errors(*bad), "2:30: expected an expression, found '.'\n");
}

TEST(Parser, SyntaxErrorsAreReportedInOrderWithRecovery) {
  auto p = parse_text(
      "package t;\n"
      "const A = 5\n"
      "struct S {\n"
      "  int32 ;\n"
      "}\n"
      "enum E { A B }\n"
      "message M { bool ok; }\n"
      "strct X {}\n"
      "struct Y { bool z; }\n");
  EXPECT_FALSE(p->tree);
  EXPECT_EQ(
      errors(*p),
      "2:12: expected ';' after '5', found 'struct'\n"
      "4:9: expected a field name, found ';'\n"
      "6:12: expected ',' or '}', found 'B'\n"
      "8:1: expected a declaration (package, import, option, const, enum, flags, struct or message), found "
      "'strct': did you mean 'struct'?\n");
}

TEST(Parser, ErrorAtEndOfFile) {
  auto p = parse_text("package t;\nstruct S { bool x;");
  EXPECT_FALSE(p->tree);
  EXPECT_EQ(errors(*p), "2:19: expected a field, `if`, `align`, `check`, `const(`, `reserved(` or '}', found the end of the file\n");
}

TEST(Parser, LexicalLimits) {
  std::string deep = "package t;\nconst A = " + std::string(65, '(') + "1" + std::string(65, ')') + ";\n";
  auto p = parse_text(deep);
  EXPECT_FALSE(p->tree);
  EXPECT_EQ(errors(*p),
            "2:75: brackets nest deeper than 64 levels here: flatten the expression or the if blocks\n");

  std::string ok = "package t;\nconst A = " + std::string(63, '(') + "1" + std::string(63, ')') + ";\n";
  EXPECT_TRUE(parse_text(ok)->tree);

  std::string huge(kMaxSourceBytes + 1, ' ');
  auto big = parse_text(huge);
  EXPECT_FALSE(big->tree);
  EXPECT_NE(errors(*big).find("schema files are limited to"), std::string::npos);
}

TEST(Parser, IfBlocksNestedToTheLimitParse) {
  // `struct S {` is one level; each if adds one brace level (its parentheses close at once).
  std::string text = "package t;\nstruct S { bool a;";
  for (int i = 0; i < kMaxNesting - 1; ++i) text += " if (a) {";
  text += " bool leaf;";
  for (int i = 0; i < kMaxNesting - 1; ++i) text += " }";
  text += " }\n";
  auto p = parse_text(text);
  ASSERT_TRUE(p->tree) << errors(*p);
}

TEST(Parser, BytesOutsideAsciiAreErrorsNotCrashes) {
  std::string text = "package t;\nstruct S { bool \xff\xfe; }\n\x80\x81 message M {}\n";
  auto p = parse_text(text);
  EXPECT_FALSE(p->tree);
  EXPECT_EQ(
      errors(*p),
      "2:17: the byte 0xFF is not ASCII and not valid UTF-8: save the file as UTF-8 (or ASCII) and remove "
      "the byte\n");
}

TEST(Parser, EmptyAndCommentOnlyFilesParseToNothing) {
  auto empty = parse_text("");
  ASSERT_TRUE(empty->tree);
  EXPECT_TRUE(empty->tree->declarations.empty());
  auto comments = parse_text("// nothing\n/* here */\n");
  ASSERT_TRUE(comments->tree);
  EXPECT_TRUE(comments->tree->declarations.empty());
}

}  // namespace

// Hostile bytes and shapes a schema file may have, as a table: each input must be refused with exactly
// the diagnostic listed (what the byte, encoding or line end is, and what to do), or accepted where the
// language allows it. These inputs cannot live in tests/idlc/invalid/ because the table's reader splits
// lines at LF and the files would have to hold NUL bytes, byte order marks and lone CRs.
#include <gtest/gtest.h>

#include <string>

#include "backend/cpp/emit_cpp.hpp"
#include "backend/cpp/emit_cpp_text.hpp"
#include "frontend/lexical.hpp"
#include "support.hpp"

namespace {

using idlc::test::compile_text;

struct HostileCase {
  const char* name;
  std::string text;
  std::string errors;  // every diagnostic, `line:col: message` per line
};

// A string literal with its embedded NUL bytes (but not the terminating one).
template <std::size_t N>
std::string bytes(const char (&data)[N]) {
  return std::string(data, N - 1);
}

const std::string kBomHint = "save it as UTF-8 (or ASCII)";

std::vector<HostileCase> hostile_cases() {
  return {
      {"nul_byte", bytes("package t;\nstruct S { bool b\0; }\n"),
       "2:18: a NUL byte (0x00): a schema is a text file; remove it\n"},
      {"utf8_bom", "\xEF\xBB\xBFpackage t;\n",
       "1:1: the file starts with a UTF-8 byte order mark (EF BB BF): save it as UTF-8 without a BOM\n"},
      {"utf16le_bom", bytes("\xFF\xFEp\0a\0"),
       "1:1: the file is UTF-16 (little-endian byte order mark FF FE): " + kBomHint + "\n"},
      {"utf16be_bom", bytes("\xFE\xFF\0p\0a"),
       "1:1: the file is UTF-16 (big-endian byte order mark FE FF): " + kBomHint + "\n"},
      {"utf32le_bom", bytes("\xFF\xFE\0\0p\0\0\0"),
       "1:1: the file is UTF-32 (little-endian byte order mark FF FE 00 00): " + kBomHint + "\n"},
      {"utf32be_bom", bytes("\0\0\xFE\xFF\0\0\0p"),
       "1:1: the file is UTF-32 (big-endian byte order mark 00 00 FE FF): " + kBomHint + "\n"},
      {"utf16le_without_bom", bytes("p\0a\0c\0k\0"),
       "1:1: the file looks like UTF-16 (little-endian, a NUL byte beside every character): " + kBomHint +
           "\n"},
      {"utf16be_without_bom", bytes("\0p\0a\0c\0k"),
       "1:1: the file looks like UTF-16 (big-endian, a NUL byte beside every character): " + kBomHint + "\n"},
      {"non_ascii_name", "package t;\nstruct S { bool caf\xC3\xA9; }\n",
       "2:20: the character U+00E9 (UTF-8 C3 A9) is not allowed here: names, numbers and punctuation are "
       "ASCII; non-ASCII text belongs in comments and string literals\n"},
      {"invalid_utf8", "package t;\nstruct S { bool \xC3; }\n",
       "2:17: the byte 0xC3 is not ASCII and not valid UTF-8: save the file as UTF-8 (or ASCII) and remove "
       "the "
       "byte\n"},
      {"control_character", "package t;\nstruct S {\x07 bool b; }\n",
       "2:11: the control character 0x07 cannot appear outside comments and strings: remove it\n"},
      // A lone CR used to be whitespace for the grammar but not a line end for `//` comments: the first
      // comment swallowed the rest of the file and the file checked clean with nothing in it.
      {"cr_only_line_ends", "package t;\r// a comment\rstruct S { bool b; }\r",
       "1:11: a carriage return (0x0D) not followed by a line feed: lines end with LF or CRLF; save the file "
       "with Unix or Windows line endings\n"},
      {"cr_inside_doc_comment", "package t;\n/// harmless\r#error injected\nstruct S { bool b; }\n",
       "2:13: a carriage return (0x0D) not followed by a line feed: lines end with LF or CRLF; save the file "
       "with Unix or Windows line endings\n"},
      // CRLF is an ordinary line end: positions count lines as an editor does.
      {"crlf_positions", "package t;\r\nstruct S {\r\n  flaot x;\r\n}\r\n",
       "3:3: unknown type 'flaot': did you mean 'float'?\n"},
  };
}

TEST(HostileInput, EveryCaseReportsExactlyItsDiagnostic) {
  for (const HostileCase& c : hostile_cases()) {
    SCOPED_TRACE(c.name);
    auto compiled = compile_text(c.text);
    EXPECT_EQ(compiled->schema, nullptr);
    EXPECT_EQ(compiled->errors, c.errors);
  }
}

TEST(HostileInput, CrlfFilesAndNonAsciiInCommentsAndStringsAreAccepted) {
  auto crlf = compile_text("package t;\r\n/// doc\r\nstruct S { bool b; }\r\n");
  EXPECT_NE(crlf->schema, nullptr) << crlf->errors;
  auto text = compile_text("package t;\n// caf\xC3\xA9\nstruct S { string<8> s = \"caf\xC3\xA9\"; }\n");
  EXPECT_NE(text->schema, nullptr) << text->errors;
}

// Unicode bidirectional controls (U+202A-U+202E, U+2066-U+2069, and the marks U+200E, U+200F, U+061C) in
// a doc comment would be copied raw into the header: g++ warns (-Wbidi-chars, an error at -Werror) and an
// override around `} ; uint8 evil;` displays as code it is not (Trojan Source). They are shown as
// U+XXXX; other non-ASCII text stays as written.
TEST(HostileInput, BidiControlsInDocCommentsAreEscaped) {
  const struct {
    const char* utf8;
    const char* escaped;
  } controls[] = {{"\xE2\x80\xAA", "U+202A"}, {"\xE2\x80\xAB", "U+202B"}, {"\xE2\x80\xAC", "U+202C"},
                  {"\xE2\x80\xAD", "U+202D"}, {"\xE2\x80\xAE", "U+202E"}, {"\xE2\x81\xA6", "U+2066"},
                  {"\xE2\x81\xA7", "U+2067"}, {"\xE2\x81\xA8", "U+2068"}, {"\xE2\x81\xA9", "U+2069"},
                  {"\xE2\x80\x8E", "U+200E"}, {"\xE2\x80\x8F", "U+200F"}, {"\xD8\x9C", "U+061C"}};
  for (const auto& control : controls) {
    const std::string line =
        std::string("before ") + control.utf8 + "} ; uint8 evil;" + control.utf8 + " caf\xC3\xA9";
    EXPECT_EQ(idlc::cpp::comment_text(line), std::string("before ") + control.escaped + "} ; uint8 evil;" +
                                                 control.escaped + " caf\xC3\xA9");
    auto compiled = compile_text("package t;\n/// " + line + "\nstruct S { bool b; }\n");
    ASSERT_NE(compiled->schema, nullptr) << compiled->errors;
    const std::string header = idlc::emit_cpp_header(compiled->package());
    EXPECT_EQ(header.find(control.utf8), std::string::npos) << control.escaped;
    EXPECT_NE(header.find(std::string("/// before ") + control.escaped), std::string::npos) << header;
  }
}

TEST(HostileInput, FileNamesThatCannotBeIncludedAreRefused) {
  const std::string schema = "package t;\nstruct S { bool b; }\n";
  auto quote = compile_text(schema, {}, "a\"b.net");
  EXPECT_EQ(quote->schema, nullptr);
  EXPECT_EQ(
      quote->errors,
      "the schema file name 'a\"b.net' contains '\"', which cannot appear in the #include of its generated "
      "header: rename the file\n");
  auto newline = compile_text(schema, {}, "a\nb.net");
  EXPECT_EQ(newline->schema, nullptr);
  EXPECT_EQ(newline->errors,
            "the schema file name 'a\\x0Ab.net' contains a control character, which cannot appear in the "
            "#include of its generated header: rename the file\n");
  // An imported file is refused at its import.
  auto imported = compile_text("package t;\nimport \"x'y.net\";\n", {{"x'y.net", "package u;\n"}});
  EXPECT_EQ(imported->schema, nullptr);
  EXPECT_EQ(
      imported->errors,
      "2:8: the schema file name 'x'y.net' contains a quote ('), which cannot appear in the #include of "
      "its generated header: rename the file\n");
}

std::string else_if_chain(int links) {
  std::string text = "package t;\nstruct S {\n  bool b;\n  if (b) { uint8 x0; }";
  for (int i = 1; i <= links; ++i) text += " else if (b) { uint8 x" + std::to_string(i) + "; }";
  return text + "\n}\n";
}

// `else if` nests each if inside the previous else, so a long chain recursed through the parser, the
// checker, the fingerprint and the layout without bound (the nesting guard counted braces only).
TEST(HostileInput, ElseIfChainOf100000LinksIsAnErrorNotACrash) {
  auto compiled = compile_text(else_if_chain(100000));
  EXPECT_EQ(compiled->schema, nullptr);
  const std::string expected =
      "`else if` chains nest " + std::to_string(idlc::kMaxElseIfLinks) +
      " links deep here (each `else if` is an if inside the previous else): split the chain, e.g. test an "
      "enum with separate if blocks\n";
  ASSERT_GE(compiled->errors.size(), expected.size());
  EXPECT_EQ(compiled->errors.substr(compiled->errors.size() - expected.size()), expected);
  EXPECT_EQ(compiled->errors.rfind("4:", 0), 0u) << compiled->errors;
}

TEST(HostileInput, ElseIfChainAtTheLimitIsAccepted) {
  auto compiled = compile_text(else_if_chain(idlc::kMaxElseIfLinks));
  EXPECT_NE(compiled->schema, nullptr) << compiled->errors.substr(0, 300);
  auto over = compile_text(else_if_chain(idlc::kMaxElseIfLinks + 1));
  EXPECT_EQ(over->schema, nullptr);
  // Chains one after another, or ended by a field, do not add up.
  std::string sequential = "package t;\nstruct S {\n  bool b;\n";
  for (int chain = 0; chain < 3; ++chain) {
    sequential += "  if (b) { uint8 c" + std::to_string(chain) + "_0; }";
    for (int i = 1; i <= 200; ++i) {
      sequential += " else if (b) { uint8 c" + std::to_string(chain) + "_" + std::to_string(i) + "; }";
    }
    sequential += "\n  uint8 after" + std::to_string(chain) + ";\n";
  }
  sequential += "}\n";
  auto many = compile_text(sequential);
  EXPECT_NE(many->schema, nullptr) << many->errors.substr(0, 300);
  // Nor do chains that follow each other directly: each `if` that is not after `else` starts a new one.
  std::string back_to_back = "package t;\nstruct S {\n  bool b;\n";
  for (int chain = 0; chain < 3; ++chain) {
    back_to_back += "  if (b) { uint8 d" + std::to_string(chain) + "_0; }";
    for (int i = 1; i <= 200; ++i) {
      back_to_back += " else if (b) { uint8 d" + std::to_string(chain) + "_" + std::to_string(i) + "; }";
    }
    back_to_back += "\n";
  }
  back_to_back += "}\n";
  auto adjacent = compile_text(back_to_back);
  EXPECT_NE(adjacent->schema, nullptr) << adjacent->errors.substr(0, 300);
}

}  // namespace

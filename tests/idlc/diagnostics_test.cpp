// Diagnostic formatting: positions are byte offsets turned into line:column only when printed; the
// source line is shown with a caret under the token, tabs preserved, long lines windowed; errors
// print in source order per file whatever order they were reported in; a per-file cap bounds output.
#include <gtest/gtest.h>

#include <sstream>

#include "frontend/diagnostics.hpp"

namespace {

using namespace idlc;

TEST(Diagnostics, LineAndColumnFromOffsets) {
  Diagnostics d;
  const SourceFile& f = d.add_source("x.net", "ab\ncd\r\n\nef");
  EXPECT_EQ(d.line_column(f, 0).line, 1u);
  EXPECT_EQ(d.line_column(f, 1).column, 2u);
  EXPECT_EQ(d.line_column(f, 3).line, 2u);
  EXPECT_EQ(d.line_column(f, 3).column, 1u);
  EXPECT_EQ(d.line_column(f, 7).line, 3u);
  EXPECT_EQ(d.line_column(f, 8).line, 4u);
  EXPECT_EQ(d.line_column(f, 9).column, 2u);
  EXPECT_EQ(d.line_column(f, 10).column, 3u);  // the end of the text
}

TEST(Diagnostics, FormatShowsTheLineAndACaretUnderTheToken) {
  Diagnostics d;
  const SourceFile& f = d.add_source("game.net", "package game;\n\tuint8 x;\r\n");
  d.error(f, 15, 5, "a message");
  d.note(f, 0, 7, "a note");
  std::ostringstream out;
  d.print(out);
  EXPECT_EQ(out.str(),
            "game.net:2:2: error: a message\n"
            "\tuint8 x;\n"
            "\t^~~~~\n"
            "game.net:1:1: note: a note\n"
            "package game;\n"
            "^~~~~~~\n");
}

TEST(Diagnostics, ErrorsPrintInSourceOrderPerFileInRegistrationOrder) {
  Diagnostics d;
  const SourceFile& a = d.add_source("a.net", "one\ntwo\nthree\n");
  const SourceFile& b = d.add_source("b.net", "x\n");
  d.error(b, 0, 1, "b first");
  d.error(a, 8, 1, "a third");
  d.error(a, 4, 1, "a second");
  d.error(a, 4, 1, "a second, reported later");
  d.error("no place");
  EXPECT_EQ(d.error_count(), 5u);
  EXPECT_EQ(d.summary(),
            "no place\n2:1: a second\n2:1: a second, reported later\n3:1: a third\n1:1: b first\n");
}

TEST(Diagnostics, LongLinesAreWindowedAroundTheCaret) {
  Diagnostics d;
  std::string line(1000, 'a');
  line.replace(700, 3, "BAD");
  const SourceFile& f = d.add_source("w.net", line + "\n");
  d.error(f, 700, 3, "here");
  std::string text = d.format(*d.sorted().front());
  std::istringstream lines(text);
  std::string header, source, caret;
  std::getline(lines, header);
  std::getline(lines, source);
  std::getline(lines, caret);
  EXPECT_EQ(header, "w.net:1:701: error: here");
  EXPECT_LT(source.size(), 200u);
  EXPECT_EQ(source.substr(0, 3), "...");
  EXPECT_EQ(source.substr(caret.find('^'), 3), "BAD");
  EXPECT_EQ(caret.substr(caret.find('^')), "^~~");
}

TEST(Diagnostics, ControlCharactersAreNotPrintedRaw) {
  Diagnostics d;
  const SourceFile& f = d.add_source("c.net", std::string("a\x1b[31mb\x00z", 10));
  d.error(f, 1, 1, "escape");
  std::string text = d.format(*d.sorted().front());
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\0'), std::string::npos);
}

TEST(Diagnostics, ErrorsPerFileAreCapped) {
  Diagnostics d;
  const SourceFile& f = d.add_source("many.net", "x\n");
  for (int i = 0; i < 1000; ++i) d.error(f, 0, 1, "e");
  EXPECT_EQ(d.error_count(), 1000u);
  EXPECT_EQ(d.error_count(f), 1000u);
  EXPECT_EQ(d.sorted().size(), Diagnostics::kMaxErrorsPerFile);
  std::ostringstream out;
  d.print(out);
  EXPECT_NE(out.str().find("many.net: error: 800 more errors not shown"), std::string::npos);
}

TEST(Diagnostics, OffsetsPastTheEndAreClamped) {
  Diagnostics d;
  const SourceFile& f = d.add_source("e.net", "abc");
  d.error(f, 99, 4, "past the end");
  EXPECT_EQ(d.summary(), "1:4: past the end\n");
  EXPECT_NE(d.format(*d.sorted().front()).find("abc\n   ^\n"), std::string::npos);
}

}  // namespace

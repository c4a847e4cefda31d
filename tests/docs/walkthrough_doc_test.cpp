// docs/walkthrough.md quotes its code from the files it walks through; this test keeps it that way.
// Every ```cpp, ```cmake and ```net block of the doc must be a run of consecutive lines of one of those
// files (compared with leading and trailing whitespace trimmed, so a quote may drop the indentation of an
// enclosing block), and every region of examples/hello_session.cpp between two `// [name]` marker lines
// must be quoted whole, so the doc can neither drift from the program nor skip a step of it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "support/doc_quotes.hpp"

namespace {

using namespace bitwire::test::doc_quotes;

const char* const kSources[] = {"schemas/hello.net", "examples/hello_session.cpp", "examples/CMakeLists.txt",
                                "generated/hello.hpp"};


struct Block {
  std::string language;
  int line = 0;  // of the opening fence in the doc
  std::vector<std::string> lines;
};

// The fenced code blocks of a Markdown text whose language is one of the checked ones.
std::vector<Block> code_blocks(const std::string& markdown) {
  std::vector<Block> blocks;
  const std::vector<std::string> lines = trimmed_lines(markdown);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("```", 0) != 0) continue;
    Block block;
    block.language = lines[i].substr(3);
    block.line = static_cast<int>(i) + 1;
    size_t j = i + 1;
    while (j < lines.size() && lines[j] != "```") block.lines.push_back(lines[j++]);
    EXPECT_LT(j, lines.size()) << "unclosed code block at doc line " << block.line;
    i = j;
    if (block.language == "cpp" || block.language == "cmake" || block.language == "net") blocks.push_back(block);
  }
  return blocks;
}


TEST(WalkthroughDoc, RunMatchingIsExact) {
  const std::vector<std::string> file = {"a", "b", "", "c"};
  EXPECT_TRUE(contains_run(file, {"b", "", "c"}));
  EXPECT_FALSE(contains_run(file, {"b", "c"}));   // a line left out
  EXPECT_FALSE(contains_run(file, {"b", "", "C"}));  // a line changed
  EXPECT_FALSE(contains_run(file, {}));
  EXPECT_EQ(trimmed_lines("  x \n\ty\n"), (std::vector<std::string>{"x", "y"}));
}

TEST(WalkthroughDoc, EverySnippetIsQuotedFromTheFilesItWalksThrough) {
  std::vector<std::vector<std::string>> sources;
  for (const char* path : kSources) sources.push_back(trimmed_lines(read_file(path)));
  const std::vector<Block> blocks = code_blocks(read_file("docs/walkthrough.md"));
  ASSERT_GE(blocks.size(), 10u) << "the walk-through lost its snippets";
  for (const Block& block : blocks) {
    bool found = false;
    for (const auto& source : sources) found = found || contains_run(source, block.lines);
    EXPECT_TRUE(found) << "docs/walkthrough.md line " << block.line << ": the ```" << block.language
                       << " block is not (any more) in schemas/hello.net, examples/hello_session.cpp, "
                          "examples/CMakeLists.txt or generated/hello.hpp; copy it again from there";
  }
}

TEST(WalkthroughDoc, EveryMarkedStepOfTheProgramIsInTheDoc) {
  const auto regions = marked_regions(trimmed_lines(read_file("examples/hello_session.cpp")));
  ASSERT_GE(regions.size(), 8u);
  const std::vector<Block> blocks = code_blocks(read_file("docs/walkthrough.md"));
  for (const auto& region : regions) {
    const std::string& name = region.first;
    const std::vector<std::string>& lines = region.second;
    const bool quoted =
        std::any_of(blocks.begin(), blocks.end(), [&](const Block& block) { return block.lines == lines; });
    EXPECT_TRUE(quoted) << "region [" << name << "] of examples/hello_session.cpp is not quoted whole in "
                           "docs/walkthrough.md";
  }
  // The schema is quoted whole too.
  std::vector<std::string> schema = trimmed_lines(read_file("schemas/hello.net"));
  EXPECT_TRUE(std::any_of(blocks.begin(), blocks.end(), [&](const Block& block) { return block.lines == schema; }));
}

}  // namespace

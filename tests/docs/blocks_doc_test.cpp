// docs/blocks.md section 9 quotes examples/block_session.cpp (and docs/deployment.md
// examples/fleet/fleet.cpp); this test keeps it that way: every ```cpp block of that section is a run of
// consecutive lines of the program (leading and trailing whitespace trimmed), and every `// [name]` region of
// the program is quoted whole. ctest runs the program itself (block_session), so the example compiles and
// works in CI.
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

// The ```cpp blocks after the heading that starts with `heading`, up to the next "## " heading.
std::vector<std::vector<std::string>> cpp_blocks_of_section(const std::string& markdown,
                                                            const std::string& heading) {
  std::vector<std::vector<std::string>> blocks;
  const std::vector<std::string> lines = trimmed_lines(markdown);
  bool in_section = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("## ", 0) == 0) in_section = lines[i].rfind(heading, 0) == 0;
    if (!in_section || lines[i] != "```cpp") continue;
    std::vector<std::string> block;
    size_t j = i + 1;
    while (j < lines.size() && lines[j] != "```") block.push_back(lines[j++]);
    blocks.push_back(block);
    i = j;
  }
  return blocks;
}


TEST(BlocksDoc, EverySnippetIsQuotedFromTheProgram) {
  const std::vector<std::string> program = trimmed_lines(read_file("examples/block_session.cpp"));
  const auto blocks =
      cpp_blocks_of_section(read_file("docs/blocks.md"), "## 9. A block from Server to Client");
  ASSERT_EQ(blocks.size(), 3u) << "docs/blocks.md section 9 lost its snippets";
  for (size_t b = 0; b < blocks.size(); ++b) {
    EXPECT_TRUE(contains_run(program, blocks[b]))
        << "docs/blocks.md section 9, ```cpp block " << b + 1
        << " is not (any more) in examples/block_session.cpp; copy it again from there";
  }
}

TEST(BlocksDoc, EveryMarkedStepOfTheProgramIsInTheDoc) {
  const auto regions = marked_regions(trimmed_lines(read_file("examples/block_session.cpp")));
  ASSERT_EQ(regions.size(), 4u);  // config, send, receive; simulate is docs/simulator.md's
  const auto blocks =
      cpp_blocks_of_section(read_file("docs/blocks.md"), "## 9. A block from Server to Client");
  for (const auto& [name, lines] : regions) {
    if (name == "simulate") continue;
    EXPECT_TRUE(std::find(blocks.begin(), blocks.end(), lines) != blocks.end())
        << "region [" << name << "] of examples/block_session.cpp is not quoted whole in docs/blocks.md";
  }
}

// docs/deployment.md quotes examples/fleet/fleet.cpp (ctest `fleet` runs it): every marked region of the
// program is quoted whole, and every ```cpp block of the doc is a run of the program's lines.
TEST(DeploymentDoc, QuotesTheFleetExample) {
  const std::vector<std::string> program = trimmed_lines(read_file("examples/fleet/fleet.cpp"));
  const auto regions = marked_regions(program);
  ASSERT_EQ(regions.size(), 4u);  // config, mint, place, report
  std::vector<std::vector<std::string>> blocks;
  for (const char* section : {"## 2.", "## 3."}) {
    for (auto& block : cpp_blocks_of_section(read_file("docs/deployment.md"), section))
      blocks.push_back(block);
  }
  ASSERT_EQ(blocks.size(), 3u);
  for (const auto& block : blocks) {
    EXPECT_TRUE(contains_run(program, block)) << "a ```cpp block of docs/deployment.md is not in fleet.cpp";
  }
  for (const char* name : {"mint", "place", "report"}) {
    ASSERT_EQ(regions.count(name), 1u) << name;
    EXPECT_TRUE(std::find(blocks.begin(), blocks.end(), regions.at(name)) != blocks.end())
        << "region [" << name << "] of examples/fleet/fleet.cpp is not quoted whole in docs/deployment.md";
  }
}

// docs/simulator.md section 6 shows the one-line SimulatedTransport with a quote of
// examples/block_session.cpp.
TEST(SimulatorDoc, QuotesTheExample) {
  const auto regions = marked_regions(trimmed_lines(read_file("examples/block_session.cpp")));
  ASSERT_EQ(regions.count("simulate"), 1u);
  const auto blocks = cpp_blocks_of_section(read_file("docs/simulator.md"), "## 6. SimulatedTransport");
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0], regions.at("simulate"))
      << "docs/simulator.md section 6 no longer quotes region [simulate] of examples/block_session.cpp";
}

// docs/delta.md section 3 quotes examples/delta_session.cpp (ctest `delta_session` runs it): every marked
// region of the program is quoted whole and every ```cpp block of the section is a run of its lines.
TEST(DeltaDoc, QuotesTheDeltaSessionExample) {
  const std::vector<std::string> program = trimmed_lines(read_file("examples/delta_session.cpp"));
  const auto regions = marked_regions(program);
  ASSERT_EQ(regions.size(), 3u);  // config, send, receive
  const auto blocks = cpp_blocks_of_section(read_file("docs/delta.md"), "## 3. Over a Connection");
  ASSERT_EQ(blocks.size(), 4u) << "docs/delta.md section 3 lost its snippets";
  for (const auto& block : blocks) {
    EXPECT_TRUE(contains_run(program, block)) << "a ```cpp block of docs/delta.md section 3 is not in "
                                                 "examples/delta_session.cpp; copy it again from there";
  }
  for (const auto& [name, lines] : regions) {
    EXPECT_TRUE(std::find(blocks.begin(), blocks.end(), lines) != blocks.end())
        << "region [" << name << "] of examples/delta_session.cpp is not quoted whole in docs/delta.md";
  }
}

}  // namespace

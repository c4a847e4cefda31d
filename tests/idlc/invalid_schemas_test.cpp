// The table of schemas that must fail: every file in tests/idlc/invalid/ (except the `_` helpers it
// imports) lists, in `// expect:` lines at its end, every error idlc must report, in order, with its
// line:column. Files are compiled from memory under their bare names so messages are path-independent.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support.hpp"

namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string expected_errors(const std::string& text) {
  std::string out;
  std::istringstream lines(text);
  std::string line;
  const std::string marker = "// expect: ";
  while (std::getline(lines, line)) {
    if (line.rfind(marker, 0) == 0) out += line.substr(marker.size()) + "\n";
  }
  return out;
}

struct Case {
  std::string name;
  std::string text;
};

std::vector<Case> load_cases(std::map<std::string, std::string>& all_files) {
  std::vector<Case> cases;
  for (const auto& entry : fs::directory_iterator(fs::path(IDLC_TEST_DIR) / "invalid")) {
    if (entry.path().extension() != ".net") continue;
    std::string name = entry.path().filename().string();
    std::string text = read_file(entry.path());
    all_files[name] = text;
    if (name[0] != '_') cases.push_back({name, text});
  }
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

TEST(InvalidSchemas, EveryCaseReportsExactlyItsExpectedErrors) {
  std::map<std::string, std::string> files;
  std::vector<Case> cases = load_cases(files);
  ASSERT_GE(cases.size(), 50u) << "the table must hold at least 50 invalid schemas";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string expected = expected_errors(c.text);
    ASSERT_FALSE(expected.empty()) << c.name << " has no // expect: lines";
    auto compiled = idlc::test::compile_text(c.text, files, c.name);
    EXPECT_EQ(compiled->schema, nullptr);
    EXPECT_EQ(compiled->errors, expected);
  }
}

}  // namespace

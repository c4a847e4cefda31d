// What the docs tests share: a source file of the tree as text, its lines trimmed, whether a doc's quote is
// a run of consecutive lines of it, and its `// [name]` regions (tests/docs/*_doc_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace bitwire::test::doc_quotes {

inline std::string read_file(const std::string& relative) {
  std::ifstream in(std::string(BITWIRE_SOURCE_DIR) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in) << relative;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string trim(const std::string& line) {
  const size_t begin = line.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  const size_t end = line.find_last_not_of(" \t\r");
  return line.substr(begin, end - begin + 1);
}

inline std::vector<std::string> trimmed_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      if (start < text.size()) lines.push_back(trim(text.substr(start)));
      break;
    }
    lines.push_back(trim(text.substr(start, end - start)));
    start = end + 1;
  }
  return lines;
}

// True when `run` occurs as consecutive lines of `lines`.
inline bool contains_run(const std::vector<std::string>& lines, const std::vector<std::string>& run) {
  if (run.empty() || run.size() > lines.size()) return false;
  for (size_t i = 0; i + run.size() <= lines.size(); ++i) {
    if (std::equal(run.begin(), run.end(), lines.begin() + static_cast<std::ptrdiff_t>(i))) return true;
  }
  return false;
}

// The `// [name]` ... `// [name]` regions of a source file, by name.
inline std::map<std::string, std::vector<std::string>> marked_regions(const std::vector<std::string>& lines) {
  std::map<std::string, std::vector<std::string>> regions;
  std::map<std::string, size_t> open;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.rfind("// [", 0) != 0 || line.back() != ']') continue;
    const std::string name = line.substr(4, line.size() - 5);
    const auto it = open.find(name);
    if (it == open.end()) {
      open[name] = i;
      EXPECT_EQ(regions.count(name), 0u) << "marker [" << name << "] used for two regions";
    } else {
      regions[name] = std::vector<std::string>(lines.begin() + static_cast<std::ptrdiff_t>(it->second + 1),
                                               lines.begin() + static_cast<std::ptrdiff_t>(i));
      open.erase(it);
    }
  }
  for (const auto& [name, line] : open) ADD_FAILURE() << "marker [" << name << "] at line " << line + 1 << " not closed";
  return regions;
}

}  // namespace bitwire::test::doc_quotes

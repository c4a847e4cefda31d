#include "lexical.hpp"

namespace idlc {

namespace {

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

// True when only spaces and tabs precede `offset` on its line.
bool starts_line(const std::string& text, std::size_t offset) {
  while (offset > 0) {
    char c = text[offset - 1];
    if (c == '\n') return true;
    if (c != ' ' && c != '\t' && c != '\r') return false;
    --offset;
  }
  return true;
}

}  // namespace

std::uint32_t next_token_offset(const std::string& text, std::uint32_t offset) {
  std::size_t i = offset;
  const std::size_t n = text.size();
  while (i < n) {
    if (is_space(text[i])) {
      ++i;
    } else if (text.compare(i, 2, "//") == 0) {
      while (i < n && text[i] != '\n') ++i;
    } else if (text.compare(i, 2, "/*") == 0) {
      std::size_t close = text.find("*/", i + 2);
      if (close == std::string::npos) return static_cast<std::uint32_t>(i);  // the comment is the token
      i = close + 2;
    } else {
      break;
    }
  }
  return static_cast<std::uint32_t>(i);
}

std::uint32_t token_length(const std::string& text, std::uint32_t offset) {
  const std::size_t n = text.size();
  if (offset >= n) return 0;
  std::size_t i = offset;
  if (is_word_char(text[i])) {
    while (i < n &&
           (is_word_char(text[i]) || (text[i] == '.' && i + 1 < n && text[i + 1] >= '0' &&
                                      text[i + 1] <= '9' && text[offset] >= '0' && text[offset] <= '9'))) {
      ++i;
    }
  } else if (text[i] == '"') {
    ++i;
    while (i < n && text[i] != '"' && text[i] != '\n') i += (text[i] == '\\' && i + 1 < n) ? 2 : 1;
    if (i < n && text[i] == '"') ++i;
  } else {
    ++i;
  }
  return static_cast<std::uint32_t>(i - offset);
}

LexicalScan scan_source(const SourceFile& file, Diagnostics& diagnostics) {
  LexicalScan scan;
  const std::string& text = file.text;
  if (text.size() > kMaxSourceBytes) {
    diagnostics.error(file, 0, 1,
                      "the file is " + std::to_string(text.size()) + " bytes; schema files are limited to " +
                          std::to_string(kMaxSourceBytes) + " bytes: split it with `import`");
    scan.ok = false;
    return scan;
  }
  const std::size_t n = text.size();
  std::vector<std::string> pending_doc;
  std::vector<std::uint32_t> open_brackets;  // offsets of the unclosed ( [ {
  std::size_t i = 0;
  while (i < n) {
    char c = text[i];
    if (is_space(c)) {
      ++i;
      continue;
    }
    if (text.compare(i, 2, "//") == 0) {
      std::size_t end = text.find('\n', i);
      if (end == std::string::npos) end = n;
      bool is_doc = text.compare(i, 3, "///") == 0 && text.compare(i, 4, "////") != 0 && starts_line(text, i);
      if (is_doc) {
        std::size_t from = i + 3;
        if (from < end && text[from] == ' ') ++from;
        std::size_t to = end;
        if (to > from && text[to - 1] == '\r') --to;
        pending_doc.push_back(text.substr(from, to - from));
      }
      i = end;
      continue;
    }
    if (text.compare(i, 2, "/*") == 0) {
      std::size_t close = text.find("*/", i + 2);
      if (close == std::string::npos) {
        diagnostics.error(file, static_cast<std::uint32_t>(i), 2,
                          "this block comment is never closed: add `*/` where it should end");
        scan.ok = false;
        return scan;
      }
      i = close + 2;
      continue;
    }
    // A token starts here: it takes the pending doc block.
    if (!pending_doc.empty()) {
      scan.docs[static_cast<std::uint32_t>(i)] = std::move(pending_doc);
      pending_doc.clear();
    }
    if (c == '"') {
      std::size_t j = i + 1;
      while (j < n && text[j] != '"' && text[j] != '\n')
        j += (text[j] == '\\' && j + 1 < n && text[j + 1] != '\n') ? 2 : 1;
      if (j >= n || text[j] != '"') {
        diagnostics.error(file, static_cast<std::uint32_t>(i), 1,
                          "this string literal is not closed on its line: add the closing '\"'");
        scan.ok = false;
        return scan;
      }
      i = j + 1;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      if (open_brackets.size() >= static_cast<std::size_t>(kMaxNesting)) {
        diagnostics.error(file, static_cast<std::uint32_t>(i), 1,
                          "brackets nest deeper than " + std::to_string(kMaxNesting) +
                              " levels here: flatten the expression or the if blocks");
        scan.ok = false;
        return scan;
      }
      open_brackets.push_back(static_cast<std::uint32_t>(i));
    } else if (c == ')' || c == ']' || c == '}') {
      if (!open_brackets.empty()) open_brackets.pop_back();
    }
    // Skip the rest of a word at once (keeps the loop linear and cheap).
    if (is_word_char(c)) {
      while (i < n && is_word_char(text[i])) ++i;
    } else {
      ++i;
    }
  }
  return scan;
}

}  // namespace idlc

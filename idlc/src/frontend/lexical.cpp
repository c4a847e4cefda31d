#include "frontend/lexical.hpp"

#include <cstdio>

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

std::string hex_byte(unsigned char byte) {
  static const char kDigits[] = "0123456789ABCDEF";
  return std::string("0x") + kDigits[byte >> 4] + kDigits[byte & 15];
}

// The length of the UTF-8 sequence starting at `i` and its code point, or 0 when it is not valid UTF-8.
std::size_t utf8_sequence(const std::string& text, std::size_t i, std::uint32_t& code) {
  auto c = static_cast<unsigned char>(text[i]);
  std::size_t length = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
  if (length == 0 || i + length > text.size()) return 0;
  code = c & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    auto next = static_cast<unsigned char>(text[i + k]);
    if ((next & 0xC0) != 0x80) return 0;
    code = (code << 6) | (next & 0x3F);
  }
  static const std::uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kMinimum[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

// What is wrong with the byte at `i`, which cannot start a token (a control character or a non-ASCII
// byte): named by its value and, for UTF-8, its code point.
std::string describe_bad_byte(const std::string& text, std::size_t i, std::uint32_t& length) {
  auto byte = static_cast<unsigned char>(text[i]);
  length = 1;
  if (byte == 0) return "a NUL byte (0x00): a schema is a text file; remove it";
  if (byte < 0x80) {
    return "the control character " + hex_byte(byte) +
           " cannot appear outside comments and strings: remove it";
  }
  std::uint32_t code = 0;
  std::size_t sequence = utf8_sequence(text, i, code);
  if (sequence == 0) {
    return "the byte " + hex_byte(byte) +
           " is not ASCII and not valid UTF-8: save the file as UTF-8 (or ASCII) and remove the byte";
  }
  length = static_cast<std::uint32_t>(sequence);
  char point[16];
  std::snprintf(point, sizeof point, "U+%04X", static_cast<unsigned>(code));
  std::string bytes;
  for (std::size_t k = 0; k < sequence; ++k)
    bytes += (k ? " " : "") + hex_byte(static_cast<unsigned char>(text[i + k])).substr(2);
  return std::string("the character ") + point + " (UTF-8 " + bytes +
         ") is not allowed here: names, numbers and punctuation are ASCII; non-ASCII text belongs in "
         "comments "
         "and string literals";
}

// Problems of the file as a whole: byte order marks, UTF-16, line ends that are a lone CR. Returns an
// empty message when there is none.
std::string encoding_problem(const std::string& text, std::uint32_t& offset) {
  offset = 0;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) {
    return "the file starts with a UTF-8 byte order mark (EF BB BF): save it as UTF-8 without a BOM";
  }
  // UTF-32 first: its little-endian mark starts with UTF-16's.
  if (text.compare(0, 4, std::string("\xFF\xFE\0\0", 4)) == 0 ||
      text.compare(0, 4, std::string("\0\0\xFE\xFF", 4)) == 0) {
    const bool little = text[0] == '\xFF';
    return std::string("the file is UTF-32 (") +
           (little ? "little-endian byte order mark FF FE 00 00" : "big-endian byte order mark 00 00 FE FF") +
           "): save it as UTF-8 (or ASCII)";
  }
  if (text.compare(0, 2, "\xFF\xFE") == 0 || text.compare(0, 2, "\xFE\xFF") == 0) {
    return std::string("the file is UTF-16 (") + (text[0] == '\xFF' ? "little" : "big") +
           "-endian byte order mark " + hex_byte(static_cast<unsigned char>(text[0])).substr(2) + " " +
           hex_byte(static_cast<unsigned char>(text[1])).substr(2) + "): save it as UTF-8 (or ASCII)";
  }
  // UTF-16 without a mark: ASCII text with a NUL byte next to each character.
  if (text.size() >= 4 && ((text[0] == '\0') != (text[1] == '\0')) &&
      ((text[2] == '\0') != (text[3] == '\0'))) {
    return std::string("the file looks like UTF-16 (") + (text[1] == '\0' ? "little" : "big") +
           "-endian, a NUL byte beside every character): save it as UTF-8 (or ASCII)";
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) {
      offset = static_cast<std::uint32_t>(i);
      return "a carriage return (0x0D) not followed by a line feed: lines end with LF or CRLF; save the file "
             "with Unix or Windows line endings";
    }
  }
  return {};
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
  {
    std::uint32_t at = 0;
    if (std::string problem = encoding_problem(text, at); !problem.empty()) {
      diagnostics.error(file, at, 1, std::move(problem));
      scan.ok = false;
      return scan;
    }
  }
  const std::size_t n = text.size();
  std::vector<std::string> pending_doc;
  std::vector<std::uint32_t> open_brackets;  // offsets of the unclosed ( [ {
  // Per bracket level (index 0: outside any), the `else if` links of the chain being written there.
  std::vector<int> chain_links(1, 0);
  int open_links = 0;       // the sum of chain_links
  bool after_else = false;  // the previous token was the word `else`
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
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      std::uint32_t length = 1;
      std::string problem = describe_bad_byte(text, i, length);
      diagnostics.error(file, static_cast<std::uint32_t>(i), length, std::move(problem));
      scan.ok = false;
      return scan;
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
      chain_links.push_back(0);
    } else if (c == ')' || c == ']' || c == '}') {
      if (!open_brackets.empty()) {
        open_brackets.pop_back();
        open_links -= chain_links.back();
        chain_links.pop_back();
      }
    } else if (c == ';') {
      open_links -= chain_links.back();
      chain_links.back() = 0;
    }
    // Skip the rest of a word at once (keeps the loop linear and cheap).
    if (is_word_char(c)) {
      const std::size_t word = i;
      while (i < n && is_word_char(text[i])) ++i;
      const bool is_else = text.compare(word, i - word, "else") == 0;
      const bool is_if = text.compare(word, i - word, "if") == 0;
      if (is_if && after_else) {
        if (open_links >= kMaxElseIfLinks) {
          diagnostics.error(
              file, static_cast<std::uint32_t>(word), 2,
              "`else if` chains nest " + std::to_string(kMaxElseIfLinks) +
                  " links deep here (each `else if` is an if inside the previous else): split the "
                  "chain, e.g. test an enum with separate if blocks");
          scan.ok = false;
          return scan;
        }
        ++chain_links.back();
        ++open_links;
      } else if (!is_else) {
        // An `if` that starts a statement, or any other word, ends the chain written at this level.
        open_links -= chain_links.back();
        chain_links.back() = 0;
      }
      after_else = is_else;
      continue;
    }
    after_else = false;
    ++i;
  }
  return scan;
}

}  // namespace idlc

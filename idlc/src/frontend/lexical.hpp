// A lexical pass that runs before the grammar: it enforces the input limits that keep the parser's
// recursion and memory bounded (file size, bracket nesting), reports unterminated comments and string
// literals precisely, and collects `///` doc comments (the grammar's skipper treats them as ordinary
// comments). Boost-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frontend/diagnostics.hpp"

namespace idlc {

inline constexpr std::size_t kMaxSourceBytes = 8u << 20;  // 8 MiB per schema file
inline constexpr int kMaxNesting = 64;                    // ( [ { nested deeper than this is an error
// `else if` nests the second if inside the first one's else, so a chain recurses through every pass:
// the links of the chains open at any point (the chain being written and those of the blocks around it)
// are limited to this many.
inline constexpr int kMaxElseIfLinks = 256;

struct LexicalScan {
  bool ok = true;  // false: an error was reported and the file must not be parsed
  // Doc comment blocks: consecutive `///` lines that start their line, keyed by the offset of the first
  // token after them (whitespace and ordinary comments skipped).
  std::map<std::uint32_t, std::vector<std::string>> docs;
};

LexicalScan scan_source(const SourceFile& file, Diagnostics& diagnostics);

// Where the next token starts at or after `offset`: whitespace and comments skipped.
std::uint32_t next_token_offset(const std::string& text, std::uint32_t offset);

// The length of the token starting at `offset` (a word, a number, a string literal, or one character);
// 0 at the end of the text.
std::uint32_t token_length(const std::string& text, std::uint32_t offset);

}  // namespace idlc

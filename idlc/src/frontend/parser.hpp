// The schema parser's facade: text in, syntax tree out. The grammar (Boost.Spirit X3) lives in
// parser_def.hpp and is compiled only by parser.cpp; nothing that includes this header pays for it.
#pragma once

#include <optional>

#include "frontend/ast.hpp"
#include "frontend/diagnostics.hpp"

namespace idlc {

// Parses one schema file. Every syntax error goes to `diagnostics` (the parser recovers at the next
// declaration keyword, so one run reports them all, in source order). Returns the tree only when the
// file had no error; the tree's nodes carry byte offsets into `file.text`, and `file` must outlive it
// for diagnostics that point into it.
std::optional<ast::File> parse(const SourceFile& file, Diagnostics& diagnostics);

}  // namespace idlc

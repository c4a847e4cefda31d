// `idlc --layout`: where every field of every message sits on the wire. Offsets and widths are ranges
// [min, max] in bits from the start of the message body; the max side counts 7 bits for every
// alignment (the MaxBits convention), so the last row ends at MaxBits. Non-optional struct fields are
// expanded into their own fields (indented, up to kMaxLayoutDepth levels); arrays are shown as one row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace idlc {

struct LayoutRow {
  int depth = 0;           // nesting: inside expanded structs and if blocks
  std::string kind;        // "field", "align", "check", "if", "else"
  std::string path;        // field path ("spawn.x"); the condition text for "if"
  std::string type;        // the field's type as written-ish: "int<0 .. 1023>", "Entity[0 .. 64]", "Vec3?"
  model::BitRange offset;  // where the row starts
  model::BitRange bits;    // how many bits it takes
};

// One piece of a run of the message's own item lists (model::RunPiece), as generated code reads it.
struct LayoutPiece {
  std::string first;       // path of its first item ("tick", "(const)")
  std::string last;        // path of its last item
  std::size_t items = 0;   // how many items
  model::BitRange offset;  // where the piece starts
  std::uint64_t bits = 0;
  bool grouped = false;     // one bounds check on read, one WriteRun on write
  bool joins_next = false;  // read with the next piece in one bounds check across the alignment between
};

struct MessageLayout {
  const model::Struct* message = nullptr;
  std::vector<LayoutRow> rows;
  std::vector<LayoutPiece> pieces;  // every piece of every run of the message's body and if sides
  bool truncated = false;  // the row limit cut the table short (deeply nested structs)
};

inline constexpr std::size_t kMaxLayoutRows = 4096;
// Structs nested deeper than this (counting if blocks) are shown as one row, not expanded.
inline constexpr int kMaxLayoutDepth = 32;

MessageLayout layout_of(const model::Struct& message);

// A readable description of a field's type and shape.
std::string describe_field_type(const model::Field& field, const model::Package* context);

// The table for every message of `package`.
std::string layout_text(const model::Package& package);

// The same as a JSON document.
std::string layout_json(const model::Package& package);

}  // namespace idlc

#include "check/model_build.hpp"

#include <algorithm>
#include <utility>

#include "bitwire/serialize/serialize.hpp"

namespace idlc::model {

namespace {

// The implicit initial value of one element of `type`: nullopt where zero (or false, or empty) is valid.
std::optional<Value> implicit_element(const Type& type) {
  Value value;
  switch (type.kind) {
    case TypeKind::Integer: {
      const bool is_unsigned = !type.integer.storage.is_signed;
      const __int128 min = integer_value(type.integer.min, is_unsigned);
      const __int128 max = integer_value(type.integer.max, is_unsigned);
      if (type.integer.encoding != IntEncoding::Ranged || (min <= 0 && max >= 0)) return std::nullopt;
      value.kind = Value::Kind::Integer;
      value.integer = min > 0 ? type.integer.min : type.integer.max;  // the stored bits of the nearer bound
      return value;
    }
    case TypeKind::FixedPoint: {
      const FixedPointType& fixed = type.fixed;
      if (fixed.raw_min <= 0 && fixed.raw_max >= 0) return std::nullopt;
      const __int128 nearer = fixed.raw_min > 0 ? fixed.raw_min : fixed.raw_max;
      value.kind = Value::Kind::Integer;
      if (fixed.wide) {
        value.wide = nearer;
      } else {
        value.integer = static_cast<std::int64_t>(static_cast<std::uint64_t>(nearer));  // bit for bit
      }
      return value;
    }
    case TypeKind::Int128: {
      const Int128Type& wide = type.int128;
      if (!wide.ranged || (wide.min <= 0 && wide.max >= 0)) return std::nullopt;
      value.kind = Value::Kind::Integer;
      value.wide = wide.min > 0 ? wide.min : wide.max;
      return value;
    }
    case TypeKind::CompressedFloat: {
      // The wire value nearest zero: the bottom of the range (integer 0 reads back as min exactly) or the
      // top as the wire reads it back (integer max_int), so a new object writes and reads back equal.
      const CompressedFloatType& c = type.compressed;
      if (c.min <= 0 && c.max >= 0) return std::nullopt;
      const bitwire::CompressedFloatParams params =
          bitwire::compressed_float_params(c.min, c.max, c.resolution);
      value.kind = Value::Kind::Float;
      value.number = bitwire::dequantize_compressed_float(c.min > 0 ? 0u : params.max_integer, params);
      return value;
    }
    case TypeKind::Enum:
      if (type.enumeration->items.front().value == 0) return std::nullopt;
      value.kind = Value::Kind::Enumerator;
      value.enumerator = 0;
      return value;
    default: return std::nullopt;
  }
}

Initial initial_of(const Field& field) {
  Initial initial;
  if (field.default_value && field.shape == Shape::Scalar) {
    initial.element = field.default_value;
  } else {
    initial.element = implicit_element(field.type);
  }
  // A count range that excludes zero starts at its minimum, so a new object is writable.
  if (field.shape == Shape::VariableArray) initial.count = field.array_min;
  return initial;
}

// Splits every run of `items` into its pieces (see RunPiece), then pairs pieces across an alignment.
void split_runs(const Struct& s, const std::vector<Item>& items, std::vector<Run>& runs) {
  std::vector<RunPiece*> pieces;  // every piece of the item list, in wire order
  for (Run& run : runs) {
    run.pieces.clear();
    std::size_t first = 0;
    while (first < run.members.size()) {
      std::size_t last = first;
      std::uint64_t bits = run.members[first].bits;
      while (last + 1 < run.members.size() && bits + run.members[last + 1].bits <= kMaxRunPieceBits) {
        bits += run.members[++last].bits;
      }
      const Item& head = items[run.members[first].item];
      const Field* single = head.kind == ItemKind::Field ? &s.fields[head.field] : nullptr;
      const bool several_reads =
          single != nullptr && (single->shape != Shape::Scalar || single->type.kind == TypeKind::Struct);
      // A lone member wider than kMaxRunMemberBits is serialized on the stream: a run of its width would
      // cost compile time in proportion to it and save one bounds check per 448 bits.
      const bool grouped = bits != 0 && (last > first || (several_reads && bits <= kMaxRunMemberBits));
      run.pieces.push_back({first, last - first + 1, bits, grouped, false});
      first = last + 1;
    }
  }
  for (Run& run : runs) {
    for (RunPiece& piece : run.pieces) pieces.push_back(&piece);
  }
  // Members of a piece, by item index: the pieces' runs are needed to find their items.
  std::vector<std::pair<std::size_t, std::size_t>> spans;  // first and last item of each piece
  for (const Run& run : runs) {
    for (const RunPiece& piece : run.pieces) {
      spans.emplace_back(run.members[piece.first].item, run.members[piece.first + piece.count - 1].item);
    }
  }
  for (std::size_t g = 0; g + 1 < pieces.size(); ++g) {
    const std::size_t align = spans[g].second + 1;
    if (align + 1 != spans[g + 1].first || items[align].kind != ItemKind::Align) continue;
    const std::uint64_t first_bits = pieces[g]->bits;
    const std::uint64_t second_bits = pieces[g + 1]->bits;
    if (first_bits == 0 || second_bits == 0) continue;
    const std::uint64_t joined = first_bits + (8 - first_bits % 8) % 8 + second_bits;
    if (joined > kMaxRunPieceBits) continue;
    pieces[g]->joins_next = true;
    pieces[g]->joined_bits = joined;
    ++g;  // the second of a pair starts none
  }
}

std::vector<Run> runs_of(const Struct& s, const std::vector<Item>& items) {
  std::vector<Run> runs;
  bool open = false;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Item& item = items[i];
    // A constant or reserved item is a fixed-width read with its own check, like a ranged field.
    const bool fixed_item = item.kind == ItemKind::Constant || item.kind == ItemKind::Reserved;
    // A field of a struct that is called, or that calls one (Struct::makes_calls), is serialized on the
    // stream, outside any run: the called serialize is instantiated for the four stream kinds only.
    const Struct* type = item.kind == ItemKind::Field && s.fields[item.field].type.kind == TypeKind::Struct
                             ? s.fields[item.field].type.structure
                             : nullptr;
    const bool called = type != nullptr && (type->called || type->makes_calls);
    if (!(item.kind == ItemKind::Field || fixed_item) || item.cost.min != item.cost.max || called) {
      open = false;
      continue;
    }
    if (!open) runs.emplace_back();
    open = true;
    Run& run = runs.back();
    run.members.push_back({i, run.bits, item.cost.max});
    run.bits += item.cost.max;
  }
  split_runs(s, items, runs);
  return runs;
}

}  // namespace

namespace {

// Struct::inline_weight, inline_depth and called, from the field types' (complete before s is).
void weigh_struct(Struct& s) {
  s.inline_weight = 0;
  s.inline_depth = 1;
  s.makes_calls = false;
  std::vector<const std::vector<Item>*> pending{&s.body};
  while (!pending.empty()) {
    const std::vector<Item>* items = pending.back();
    pending.pop_back();
    for (const Item& item : *items) {
      ++s.inline_weight;
      if (item.kind == ItemKind::If) {
        pending.push_back(&item.then_items);
        pending.push_back(&item.else_items);
      }
      if (item.kind != ItemKind::Field) continue;
      const Struct* type =
          s.fields[item.field].type.kind == TypeKind::Struct ? s.fields[item.field].type.structure : nullptr;
      if (type == nullptr) continue;
      s.makes_calls = s.makes_calls || type->called || type->makes_calls;
      if (type->called) continue;
      s.inline_weight += type->inline_weight;
      s.inline_depth = std::max(s.inline_depth, type->inline_depth + 1);
    }
  }
  s.called = s.inline_weight > kMaxInlineWeight || s.inline_depth > kMaxInlineDepth;
}

}  // namespace

void complete_struct(Struct& s) {
  for (Field& field : s.fields) field.initial = initial_of(field);
  weigh_struct(s);
  s.runs = runs_of(s, s.body);
  // Every If, with whether it is outermost; an explicit stack instead of recursion.
  std::vector<std::pair<Item*, bool>> pending;
  for (Item& item : s.body) {
    if (item.kind == ItemKind::If) pending.emplace_back(&item, true);
  }
  while (!pending.empty()) {
    auto [item, outermost] = pending.back();
    pending.pop_back();
    item->then_runs = runs_of(s, item->then_items);
    item->else_runs = runs_of(s, item->else_items);
    item->resets.clear();
    for (std::vector<Item>* side : {&item->then_items, &item->else_items}) {
      for (Item& inner : *side) {
        if (inner.kind == ItemKind::If) pending.emplace_back(&inner, false);
      }
    }
    if (!outermost) continue;
    // Every field of both sides, nested ifs included, in declaration order.
    std::vector<const std::vector<Item>*> sides{&item->then_items, &item->else_items};
    while (!sides.empty()) {
      const std::vector<Item>* side = sides.back();
      sides.pop_back();
      for (const Item& inner : *side) {
        if (inner.kind == ItemKind::Field) item->resets.push_back(inner.field);
        if (inner.kind == ItemKind::If) {
          sides.push_back(&inner.then_items);
          sides.push_back(&inner.else_items);
        }
      }
    }
    std::sort(item->resets.begin(), item->resets.end());
  }
}

void complete_package(Package& package) {
  package.message_type_storage = IntStorage{false, package.messages.size() <= 256 ? 8 : 16};
  package.depends_on_checks = false;
  for (const Struct& s : package.structs) package.depends_on_checks = package.depends_on_checks || s.has_checks;
}

}  // namespace idlc::model

// The serialize function of a struct: one template that writes, reads and measures. Fields in wire
// order, arrays with counted loops, optional fields behind their presence bit, ifs with the resets the
// model lists, alignment and check directives.
#include <cstdio>
#include <span>
#include <utility>

#include "backend/cpp/emit_cpp_emitter.hpp"

namespace idlc::cpp {

using model::Field;
using model::Item;
using model::ItemKind;
using model::Shape;
using model::Struct;
using model::Type;
using model::TypeKind;

namespace {

// True when some item writes through the stream outside an `if constexpr` on the check setting: an
// unnamed or [[maybe_unused]] parameter otherwise, so no build warns.
bool uses_stream(const Item* first, const Item* end) {
  std::vector<std::pair<const Item*, const Item*>> pending{{first, end}};
  while (!pending.empty()) {
    const auto [begin, stop] = pending.back();
    pending.pop_back();
    for (const Item& item : std::span<const Item>(begin, stop)) {
      if (item.kind == ItemKind::Field || item.kind == ItemKind::Align || item.kind == ItemKind::Constant ||
          item.kind == ItemKind::Reserved) {
        return true;
      }
      if (item.kind == ItemKind::If) {
        pending.emplace_back(item.then_items.data(), item.then_items.data() + item.then_items.size());
        pending.emplace_back(item.else_items.data(), item.else_items.data() + item.else_items.size());
      }
    }
  }
  return false;
}

// A wire constant as the schema usually spells it: hexadecimal.
std::string hex_literal(std::uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llX%s", static_cast<unsigned long long>(value),
                value > 4294967295u ? "ULL" : "u");
  return buffer;
}

// A fixed array of whole bytes: serialize_byte_array, eight per 64-bit field.
bool is_byte_array(const Field& field) {
  return field.shape == Shape::FixedArray && field.type.kind == TypeKind::Integer &&
         field.type.integer.encoding == model::IntEncoding::Raw && !field.type.integer.storage.is_signed &&
         field.type.integer.storage.bits == 8 && field.type.integer.bits == 8;
}

// The weight (model::Struct::inline_weight) of one item: 1, plus an inlined struct type's weight, plus
// the items of an if's sides.
std::uint64_t item_weight(const Struct& s, const Item& item) {
  std::uint64_t weight = 0;
  std::vector<const Item*> pending{&item};
  while (!pending.empty()) {
    const Item* next = pending.back();
    pending.pop_back();
    ++weight;
    if (next->kind == ItemKind::Field && s.fields[next->field].type.kind == TypeKind::Struct &&
        !s.fields[next->field].type.structure->called) {
      weight += s.fields[next->field].type.structure->inline_weight;
    }
    if (next->kind == ItemKind::If) {
      for (const Item& inner : next->then_items) pending.push_back(&inner);
      for (const Item& inner : next->else_items) pending.push_back(&inner);
    }
  }
  return weight;
}

// A value the runtime takes by reference and a write only reads: a number, bool, enum, float, fixed-point
// or 128-bit field. Not a struct (its own serialize is called on the member) nor a container (written
// element by element); a flag set is left out because its generated write copies it already.
bool is_plain_value(const Type& type) {
  switch (type.kind) {
    case TypeKind::Bool:
    case TypeKind::Integer:
    case TypeKind::Float:
    case TypeKind::Double:
    case TypeKind::CompressedFloat:
    case TypeKind::FixedPoint:
    case TypeKind::Int128:
    case TypeKind::Enum:
      return true;
    default:
      return false;
  }
}

// Sets a flag for the life of the object and restores its previous value after, as Bind does a binding.
class ScopedFlag {
 public:
  explicit ScopedFlag(bool& flag) : flag_(flag), before_(flag) { flag_ = true; }
  ~ScopedFlag() { flag_ = before_; }
  ScopedFlag(const ScopedFlag&) = delete;
  ScopedFlag& operator=(const ScopedFlag&) = delete;

 private:
  bool& flag_;
  bool before_;
};

}  // namespace

// Forced inline (the runtime's inlining contract, bitwire/core/config.hpp): nested structs' serialize and the
// message's own become one body with the caller's stream, its state in registers. A struct past the inline
// budget (model::Struct::called) is called instead, and its body, when heavier than the budget, is printed
// as out-of-line parts of about the budget each, called in order: the compilers' time per function grows
// faster than its length.
void Emitter::serialize_function(const Struct& s) {
  const char* const inline_macro = s.called ? "BITWIRE_OUT_OF_LINE" : "BITWIRE_FORCE_INLINE";
  std::vector<Unit> units = units_of(s.body, s.runs);
  std::vector<std::pair<std::size_t, std::size_t>> parts;  // [first, last) units of each part
  if (s.called && s.inline_weight > model::kMaxInlineWeight) {
    std::uint64_t weight = 0;
    for (std::size_t u = 0; u < units.size(); ++u) {
      std::uint64_t unit_weight = 0;
      for (std::size_t i = units[u].first_item; i < units[u].end_item; ++i) {
        unit_weight += item_weight(s, s.body[i]);
      }
      if (parts.empty() || (weight > 0 && weight + unit_weight > model::kMaxInlineWeight)) {
        parts.emplace_back(u, u);
        weight = 0;
      }
      parts.back().second = u + 1;
      weight += unit_weight;
    }
  }
  // The parameter named only when some item writes through it.
  const auto parameter = [&](std::size_t first_item, std::size_t end_item) {
    if (first_item == end_item) return std::string("Stream_&");
    return std::string(uses_stream(s.body.data() + first_item, s.body.data() + end_item)
                           ? "Stream_& stream_"
                           : "[[maybe_unused]] Stream_& stream_");
  };
  if (parts.size() > 1) {
    for (std::size_t k = 0; k < parts.size(); ++k) {
      const std::size_t first_item = units[parts[k].first].first_item;
      const std::size_t end_item = units[parts[k].second - 1].end_item;
      p_.print("// Part $k$ of serialize (the body is longer than one function should be).\n",
               {{"k", std::to_string(k)}});
      p_.print("template <typename Stream_>\n");
      p_.print("BITWIRE_OUT_OF_LINE bool serialize_part_$k$_($param$) {\n",
               {{"k", std::to_string(k)}, {"param", parameter(first_item, end_item)}});
      {
        Indent body(p_);
        Bind stream(p_, "stream", "stream_");
        for (std::size_t u = parts[k].first; u < parts[k].second; ++u) emit_unit(s, s.body, units[u]);
        p_.print("return true;\n");
      }
      p_.print("}\n\n");
    }
    p_.print("template <typename Stream_>\n");
    p_.print("$inline$ bool serialize(Stream_& stream_) {\n", {{"inline", inline_macro}});
    for (std::size_t k = 0; k < parts.size(); ++k) {
      p_.print("  BITWIRE_TRY(serialize_part_$k$_(stream_));\n", {{"k", std::to_string(k)}});
    }
    p_.print("  return true;\n");
    p_.print("}\n\n");
    return;
  }
  p_.print("template <typename Stream_>\n");
  p_.print("$inline$ bool serialize($param$) {\n",
           {{"inline", inline_macro}, {"param", parameter(0, s.body.size())}});
  {
    Indent body(p_);
    // Field statements name their stream `$stream$`: stream_ here, run_ inside a run (emit_run).
    Bind stream(p_, "stream", "stream_");
    emit_items(s, s.body, s.runs);
    p_.print("return true;\n");
  }
  p_.print("}\n\n");
}

// Statements that serialize one element of `type` held in `ref`.
void Emitter::element(const Type& type, const std::string& ref) {
  switch (type.kind) {
    case TypeKind::Bool:
      p_.print("BITWIRE_TRY(bitwire::serialize_bool($stream$, $r$));\n", {{"r", ref}});
      return;
    case TypeKind::Integer: {
      const model::IntegerType& i = type.integer;
      if (i.encoding == model::IntEncoding::Raw) {
        p_.print(i.storage.is_signed ? "BITWIRE_TRY(bitwire::serialize_signed_bits($stream$, $r$, $bits$));\n"
                                     : "BITWIRE_TRY(bitwire::serialize_bits($stream$, $r$, $bits$));\n",
                 {{"r", ref}, {"bits", std::to_string(i.bits)}});
      } else {
        const std::string t = storage_type(i.storage);
        p_.print("BITWIRE_TRY(bitwire::serialize_int($stream$, $r$, $t${$min$}, $t${$max$}));\n",
                 {{"r", ref},
                  {"t", t},
                  {"min", integer_literal(i.min, i.storage)},
                  {"max", integer_literal(i.max, i.storage)}});
      }
      return;
    }
    case TypeKind::Float:
      p_.print("BITWIRE_TRY(bitwire::serialize_float($stream$, $r$));\n", {{"r", ref}});
      return;
    case TypeKind::Double:
      p_.print("BITWIRE_TRY(bitwire::serialize_double($stream$, $r$));\n", {{"r", ref}});
      return;
    case TypeKind::CompressedFloat:
      // Parameters as a constant expression: nothing about the quantization is computed at run time.
      p_.print(
          "BITWIRE_TRY(bitwire::serialize_compressed_float($stream$, $r$, "
          "bitwire::compressed_float_constant($min$, $max$, $res$)));\n",
          {{"r", ref},
           {"min", float_literal(type.compressed.min)},
           {"max", float_literal(type.compressed.max)},
           {"res", float_literal(type.compressed.resolution)}});
      return;
    case TypeKind::FixedPoint:
      p_.print("BITWIRE_TRY(bitwire::serialize_fixed<$f$>($stream$, $r$, $min$, $max$));\n",
               {{"f", std::to_string(type.fixed.fraction_bits)},
                {"r", ref},
                {"min", int64_literal(type.fixed.whole_min)},
                {"max", int64_literal(type.fixed.whole_max)}});
      return;
    case TypeKind::Int128: {
      if (!type.int128.ranged) {
        p_.print("BITWIRE_TRY(bitwire::serialize_raw128($stream$, $r$));\n", {{"r", ref}});
        return;
      }
      const std::string t = element_type(type);
      p_.print(
          "BITWIRE_TRY(bitwire::serialize_int($stream$, $r$, $min$, $max$));\n",
          {{"r", ref}, {"min", int128_value(type.int128.min, t)}, {"max", int128_value(type.int128.max, t)}});
      return;
    }
    case TypeKind::String:
      p_.print("BITWIRE_TRY(bitwire::serialize_string($stream$, $r$));\n", {{"r", ref}});
      return;
    case TypeKind::Bytes:
      p_.print("{\n");
      {
        Indent in(p_);
        p_.print("auto length_ = static_cast<std::uint32_t>($r$.size());\n", {{"r", ref}});
        p_.print("BITWIRE_TRY(bitwire::serialize_count($stream$, length_, 0, $max$));\n",
                 {{"max", uint64_literal(type.max_length)}});
        p_.print("if constexpr (Stream_::kIsReading) $r$.resize(length_);\n", {{"r", ref}});
        p_.print("BITWIRE_TRY(bitwire::serialize_bytes($stream$, $r$.data(), $r$.size()));\n", {{"r", ref}});
      }
      p_.print("}\n");
      return;
    case TypeKind::ByteBlock:
      // One block copy after the alignment; a read fails on non-zero padding or a short span.
      p_.print("BITWIRE_TRY(bitwire::serialize_bytes($stream$, $r$.data(), $r$.size()));\n", {{"r", ref}});
      return;
    case TypeKind::Enum: {
      const model::Enum& e = *type.enumeration;
      const std::string t = element_type(type);
      const std::string u = storage_type(e.storage);
      p_.print(
          "BITWIRE_TRY(bitwire::serialize_enum($stream$, $r$, static_cast<$t$>($u${$min$}), "
          "static_cast<$t$>($u${$max$})));\n",
          {{"r", ref}, {"t", t}, {"u", u}, {"min", enum_literal(e.min)}, {"max", enum_literal(e.wire_max)}});
      if (!e.contiguous && !e.headroom) {
        // A value between the declared ones: a read refuses it where it starts, a validating stream
        // refuses it at send (so a peer never sees it), a write asserts.
        p_.print(
            "BITWIRE_TRY(bitwire::serialize_enum_member($stream$, to_string($r$) != nullptr, $bits$));\n",
            {{"r", ref}, {"bits", std::to_string(e.bits)}});
      }
      return;
    }
    case TypeKind::Flags: {
      const std::string u = storage_type(type.flags->storage);
      p_.print("{\n");
      {
        Indent in(p_);
        p_.print("auto mask_ = static_cast<$u$>($r$);\n", {{"u", u}, {"r", ref}});
        p_.print("BITWIRE_TRY(bitwire::serialize_bits($stream$, mask_, $bits$));\n",
                 {{"bits", std::to_string(type.flags->bits)}});
        p_.print("if constexpr (Stream_::kIsReading) $r$ = static_cast<$t$>(mask_);\n", {{"r", ref}, {"t", element_type(type)}});
      }
      p_.print("}\n");
      return;
    }
    case TypeKind::Struct:
      p_.print("BITWIRE_TRY($r$.serialize($stream$));\n", {{"r", ref}});
      return;
  }
}

void Emitter::field_value(const Field& field) {
  const std::string& name = field.name;
  switch (field.shape) {
    case Shape::Scalar:
      if (copy_run_values_ && is_plain_value(field.type)) {
        p_.print("{\n");
        {
          Indent in(p_);
          p_.print("auto value_ = $f$;\n", {{"f", name}});
          element(field.type, "value_");
        }
        p_.print("}\n");
        return;
      }
      element(field.type, name);
      return;
    case Shape::FixedArray:
      if (is_byte_array(field)) {
        // Whole bytes: eight per 64-bit field (the same bits as one field per byte).
        p_.print("BITWIRE_TRY(bitwire::serialize_byte_array($stream$, $f$.data(), $f$.size()));\n",
                 {{"f", name}});
        return;
      }
      p_.print("for (auto& item_ : $f$) {\n", {{"f", name}});
      {
        Indent in(p_);
        element(field.type, "item_");
      }
      p_.print("}\n");
      return;
    case Shape::VariableArray:
      p_.print("{\n");
      {
        Indent in(p_);
        p_.print("auto count_ = static_cast<std::uint32_t>($f$.size());\n", {{"f", name}});
        p_.print("BITWIRE_TRY(bitwire::serialize_count($stream$, count_, $min$, $max$));\n",
                 {{"min", uint64_literal(field.array_min)}, {"max", uint64_literal(field.array_max)}});
        p_.print("if constexpr (Stream_::kIsReading) $f$.resize(count_);\n", {{"f", name}});
        // A counted loop, which the compilers unroll where they leave a begin/end loop alone.
        p_.print("for (std::uint32_t i_ = 0; i_ < count_; ++i_) {\n");
        {
          Indent in2(p_);
          p_.print("auto& item_ = $f$.data()[i_];\n", {{"f", name}});
          element(field.type, "item_");
        }
        p_.print("}\n");
      }
      p_.print("}\n");
      return;
    case Shape::SparseArray: {
      const std::string changed = model::changed_member_name(name);
      const std::string n = std::to_string(field.array_max);
      p_.print("{\n");
      {
        Indent in(p_);
        p_.print("// Only the changed elements: their count, then each one's position (index + 1) relative to\n");
        p_.print("// the previous one, then the element.\n");
        p_.print("std::uint32_t count_ = 0;\n");
        p_.print("if constexpr (Stream_::kIsReading) {\n");
        p_.print("  $c$ = {};\n", {{"c", changed}});
        p_.print("} else {\n");
        p_.print("  for (bool is_changed_ : $c$) count_ += is_changed_ ? 1u : 0u;\n", {{"c", changed}});
        p_.print("}\n");
        p_.print("BITWIRE_TRY(bitwire::serialize_count($stream$, count_, 0, $n$u));\n", {{"n", n}});
        p_.print("std::uint32_t position_ = 0;\n");
        p_.print("for (std::uint32_t i_ = 0; i_ < count_; ++i_) {\n");
        {
          Indent in2(p_);
          p_.print("std::uint32_t next_ = position_ + 1;\n");
          p_.print("if constexpr (Stream_::kIsReading) {\n");
          p_.print("  const std::size_t at_ = $stream$.bits_processed();\n");
          p_.print("  BITWIRE_TRY(bitwire::serialize_int_relative($stream$, position_, next_));\n");
          p_.print("  // A position past the array is refused where it starts.\n");
          p_.print("  if (next_ > $n$u) return $stream$.fail_at(bitwire::ReadError::kInvalidCount, at_);\n",
                   {{"n", n}});
          p_.print("  $c$[next_ - 1] = true;\n", {{"c", changed}});
          p_.print("} else {\n");
          p_.print("  while (!$c$[next_ - 1]) ++next_;\n", {{"c", changed}});
          p_.print("  BITWIRE_TRY(bitwire::serialize_int_relative($stream$, position_, next_));\n");
          p_.print("}\n");
          p_.print("position_ = next_;\n");
          element(field.type, name + "[position_ - 1]");
        }
        p_.print("}\n");
      }
      p_.print("}\n");
      return;
    }
  }
}

// A field back at its initial value, with its presence and changed flags cleared.
void Emitter::reset_field(const Field& field) {
  if (field.optional) p_.print("$has$ = false;\n", {{"has", model::presence_member_name(field.name)}});
  p_.print("$f$ = $value$;\n", {{"f", field.name}, {"value", reset_value(field)}});
  if (field.shape == Shape::SparseArray) p_.print("$c$ = {};\n", {{"c", model::changed_member_name(field.name)}});
}

std::string Emitter::condition_text(const Struct& s, const model::Condition& c) const {
  const Field& subject = s.fields[c.subject];
  switch (c.test) {
    case model::Condition::Test::IsTrue: return subject.name;
    case model::Condition::Test::IsFalse: return "!" + subject.name;
    case model::Condition::Test::Equals:
    case model::Condition::Test::NotEquals:
      return subject.name + (c.test == model::Condition::Test::Equals ? " == " : " != ") +
             element_type(subject.type) + "::" + subject.type.enumeration->items[c.enumerator].name;
  }
  return "true";
}

// An item list with its runs of fixed-width items read as the model split them (model::RunPiece): a
// grouped piece is read through one bitwire::ReadRun (one bounds check, constant offsets), written through
// one bitwire::WriteRun (whole words at constant shifts) and measured as one constant; a piece that joins
// the next is read with it across the alignment between.
std::vector<Emitter::Unit> Emitter::units_of(const std::vector<Item>& items,
                                             const std::vector<model::Run>& runs) {
  std::vector<Piece> pieces;
  for (const model::Run& run : runs) {
    for (const model::RunPiece& piece : run.pieces) {
      const auto begin = run.members.begin() + static_cast<std::ptrdiff_t>(piece.first);
      pieces.push_back({{begin, begin + static_cast<std::ptrdiff_t>(piece.count)}, &piece});
    }
  }
  std::vector<Unit> units;
  std::size_t next = 0;  // the first item not in a unit yet
  const auto singles = [&](std::size_t end) {
    for (; next < end; ++next) units.push_back({next, next + 1, {}, {}});
  };
  for (std::size_t g = 0; g < pieces.size(); ++g) {
    const Piece& piece = pieces[g];
    if (piece.piece->joins_next && g + 1 < pieces.size()) {
      singles(piece.members.front().item);
      const Piece& second = pieces[++g];
      units.push_back({next, second.members.back().item + 1, piece, second});
      next = second.members.back().item + 1;
    } else if (piece.piece->grouped) {
      singles(piece.members.front().item);
      units.push_back({next, piece.members.back().item + 1, piece, {}});
      next = piece.members.back().item + 1;
    }
  }
  singles(items.size());
  return units;
}

void Emitter::emit_unit(const Struct& s, const std::vector<Item>& items, const Unit& unit) {
  if (unit.second.piece != nullptr) {
    emit_aligned_pair(s, items, unit.first, unit.second);
  } else if (unit.first.piece != nullptr) {
    emit_run(s, items, unit.first.members, unit.first.piece->bits);
  } else {
    emit_item(s, items[unit.first_item]);
  }
}

void Emitter::emit_items(const Struct& s, const std::vector<Item>& items,
                         const std::vector<model::Run>& runs) {
  for (const Unit& unit : units_of(items, runs)) emit_unit(s, items, unit);
}

// An aligned pair (model::RunPiece::joins_next): on a ReadStream whose cursor is on a byte boundary, one
// ReadRun<bits, true> over both pieces and the padding (its width constant, still refused when not zero);
// anywhere else (a reading stream at another bit, a short span, every other stream) the pieces exactly
// as they are printed alone.
void Emitter::emit_aligned_pair(const Struct& s, const std::vector<Item>& items, const Piece& first,
                                const Piece& second) {
  const std::size_t align = first.members.back().item + 1;
  const std::uint64_t first_bits = first.piece->bits;
  const std::string count = std::to_string(first.piece->joined_bits);
  p_.print(
      "// $a$ + $b$ bits with an alignment between: on a ReadStream at a byte boundary one bounds check, "
      "the\n"
      "// padding's width constant.\n",
      {{"a", std::to_string(first_bits)}, {"b", std::to_string(second.piece->bits)}});
  p_.print("bool in_aligned_run_ = false;\n");
  p_.print("if constexpr (bitwire::kReadsRuns<Stream_>) {\n");
  {
    Indent in(p_);
    p_.print("bitwire::ReadRun<$bits$, true> run_(stream_);\n", {{"bits", count}});
    p_.print("if (run_.load()) [[likely]] {\n");
    {
      Indent in2(p_);
      {
        Bind on_run(p_, "stream", "run_");
        for (const model::RunMember& member : first.members) emit_item(s, items[member.item]);
        emit_item(s, items[align]);
        for (const model::RunMember& member : second.members) emit_item(s, items[member.item]);
      }
      p_.print("BITWIRE_TRY(run_.finish());\n");
      p_.print("in_aligned_run_ = true;\n");
    }
    p_.print("}\n");
  }
  p_.print("}\n");
  p_.print("if (!in_aligned_run_) {\n");
  {
    Indent in(p_);
    for (const Piece* piece : {&first, &second}) {
      if (piece->piece->grouped) {
        emit_run(s, items, piece->members, piece->piece->bits);
      } else {
        for (const model::RunMember& member : piece->members) emit_item(s, items[member.item]);
      }
      if (piece == &first) emit_item(s, items[align]);
    }
  }
  p_.print("}\n");
}

// A group of fixed-width items (fields, constants, reserved bits): on a ReadStream through a ReadRun, on a
// WriteStream through a WriteRun, on a measuring stream one constant, on any other stream (a
// ValidateStream: every value checked with its own reason) field by field.
void Emitter::emit_run(const Struct& s, const std::vector<Item>& items,
                       const std::vector<model::RunMember>& members, std::uint64_t bits) {
  const std::string count = std::to_string(bits);
  p_.print("if constexpr (Stream_::kIsMeasuring) {\n");
  p_.print("  stream_.add_bits($bits$);\n", {{"bits", count}});
  p_.print("} else if constexpr (bitwire::kWritesRuns<Stream_>) {\n");
  {
    // Writes cannot fail: the run's words are assembled at constant offsets and appended once per 64 bits.
    // Each scalar field is passed as a copy: read as a member of this struct, not through a reference,
    // g++ folds the struct's address into each load (an element of an array of messages indexed in a loop
    // then costs no register and no instruction of its own); clang++ prints the same code either way.
    Indent in(p_);
    p_.print("bitwire::WriteRun<$bits$> run_(stream_);\n", {{"bits", count}});
    {
      Bind on_run(p_, "stream", "run_");
      ScopedFlag copying(copy_run_values_);
      for (const model::RunMember& member : members) emit_item(s, items[member.item]);
    }
    p_.print("run_.finish();\n");
  }
  p_.print("} else {\n");
  {
    Indent in(p_);
    // "items" when the run holds a constant or reserved item (checked on read like a field).
    bool all_fields = true;
    for (const model::RunMember& member : members)
      all_fields = all_fields && items[member.item].kind == ItemKind::Field;
    p_.print(
        "// $n$ $what$, $bits$ bits: on a ReadStream one bounds check, then every field at a constant "
        "offset.\n",
        {{"n", std::to_string(members.size())}, {"what", all_fields ? "fields" : "items"}, {"bits", count}});
    p_.print("bool in_run_ = false;\n");
    p_.print("if constexpr (bitwire::kReadsRuns<Stream_>) {\n");
    {
      Indent in2(p_);
      p_.print("bitwire::ReadRun<$bits$> run_(stream_);\n", {{"bits", count}});
      p_.print("if (run_.load()) [[likely]] {\n");
      {
        Indent in3(p_);
        {
          Bind on_run(p_, "stream", "run_");
          for (const model::RunMember& member : members) emit_item(s, items[member.item]);
        }
        p_.print("BITWIRE_TRY(run_.finish());\n");
        p_.print("in_run_ = true;\n");
      }
      p_.print("}\n");
    }
    p_.print("}\n");
    p_.print("if (!in_run_) {\n");
    {
      Indent in2(p_);
      for (const model::RunMember& member : members) emit_item(s, items[member.item]);
    }
    p_.print("}\n");
  }
  p_.print("}\n");
}

void Emitter::emit_item(const Struct& s, const Item& item) {
  switch (item.kind) {
    case ItemKind::Field: {
      const Field& field = s.fields[item.field];
      if (field.optional) {
        const std::string has = model::presence_member_name(field.name);
        p_.print("BITWIRE_TRY(bitwire::serialize_bool($stream$, $has$));\n", {{"has", has}});
        p_.print("if ($has$) {\n", {{"has", has}});
        {
          Indent in(p_);
          field_value(field);
        }
        p_.print("} else if constexpr (Stream_::kIsReading) {\n");
        {
          Indent in(p_);
          p_.print("$f$ = $value$;\n", {{"f", field.name}, {"value", reset_value(field)}});
          if (field.shape == Shape::SparseArray) p_.print("$c$ = {};\n", {{"c", model::changed_member_name(field.name)}});
        }
        p_.print("}\n");
      } else {
        field_value(field);
      }
      return;
    }
    case ItemKind::Align:
      p_.print("BITWIRE_TRY(bitwire::serialize_align($stream$));\n");
      return;
    case ItemKind::Constant:
      // Stored nowhere: written as the value, refused on read when different (kConstantMismatch).
      p_.print("BITWIRE_TRY(bitwire::serialize_constant($stream$, $v$, $bits$));\n",
               {{"v", hex_literal(item.constant)}, {"bits", std::to_string(item.bits)}});
      return;
    case ItemKind::Reserved:
      // Stored nowhere: written as zeros, refused on read when any is one (kNonZeroReserved).
      p_.print("BITWIRE_TRY(bitwire::serialize_reserved($stream$, $bits$));\n",
               {{"bits", std::to_string(item.bits)}});
      return;
    case ItemKind::Check:
      p_.print("if constexpr (bitwire::kSerializeChecks) {\n");
      p_.print("  BITWIRE_TRY(bitwire::serialize_check($stream$));\n");
      p_.print("}\n");
      return;
    case ItemKind::If:
      if (!item.resets.empty()) {
        p_.print("if constexpr (Stream_::kIsReading) {\n");
        {
          Indent in(p_);
          p_.print("// Every field under this if starts at its initial value; the side taken reads over its own.\n");
          for (std::size_t index : item.resets) reset_field(s.fields[index]);
        }
        p_.print("}\n");
      }
      // An `else if` chain prints flat and iteratively: its length costs neither indentation nor stack.
      for (const Item* link = &item;;) {
        p_.print(link == &item ? "if ($cond$) {\n" : "} else if ($cond$) {\n",
                 {{"cond", condition_text(s, link->condition)}});
        {
          Indent in(p_);
          emit_items(s, link->then_items, link->then_runs);
        }
        const std::vector<Item>& rest = link->else_items;
        if (rest.size() == 1 && rest.front().kind == ItemKind::If && rest.front().resets.empty()) {
          link = &rest.front();
          continue;
        }
        if (!rest.empty()) {
          p_.print("} else {\n");
          Indent in(p_);
          emit_items(s, rest, link->else_runs);
        }
        break;
      }
      p_.print("}\n");
      return;
  }
}

}  // namespace idlc::cpp

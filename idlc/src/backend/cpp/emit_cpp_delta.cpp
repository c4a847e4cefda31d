// The delta form of a struct (docs/schema-language.md, "Delta messages"): one template that writes, reads
// and measures the object's changes against a baseline of the same type, next to serialize. Every width
// and cost comes from the model (model_delta.cpp); this only prints.
//
// A read assigns every member: from the wire where something was sent, from the baseline where the wire
// says "unchanged", and the initial value where the whole form's read would reset it (absent optional
// fields, the untaken side of an if). So a delta read against a baseline yields exactly what a whole read
// of the same object yields, provided the baseline is itself a decoded object (a read's result).
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

std::string compressed_params(const Type& type) {
  return "bitwire::compressed_float_constant(" + float_literal(type.compressed.min) + ", " +
         float_literal(type.compressed.max) + ", " + float_literal(type.compressed.resolution) + ")";
}

}  // namespace

void Emitter::delta_function(const Struct& s) {
  p_.print(
      "// The delta form: this object as its changes against `baseline_`, which must be an object the\n");
  p_.print("// peer decoded (a read's result). One \"changed\" bit, then the changes (docs/delta.md).\n");
  if (s.has_checks) {
    p_.print("static constexpr std::size_t MaxDeltaBits = bitwire::kSerializeChecks ? $with$ : $without$;\n",
             {{"with", std::to_string(s.delta_cost.max)},
              {"without", std::to_string(s.delta_max_bits_without_checks)}});
  } else {
    p_.print("static constexpr std::size_t MaxDeltaBits = $bits$;\n",
             {{"bits", std::to_string(s.delta_cost.max)}});
  }
  p_.print("static constexpr std::size_t MaxDeltaBytes = (MaxDeltaBits + 7) / 8;\n\n");
  p_.print("template <typename Stream_>\n");
  p_.print("BITWIRE_FORCE_INLINE bool serialize_delta(Stream_& stream_, const $name$& baseline_) {\n",
           {{"name", s.name}});
  {
    Indent in(p_);
    p_.print("// A read decodes into a distinct object: the baseline is read while members are assigned.\n");
    p_.print("if constexpr (Stream_::kIsReading) BITWIRE_ASSERT(this != &baseline_);\n");
    p_.print("bool is_changed_ = false;\n");
    p_.print("if constexpr (!Stream_::kIsReading) is_changed_ = !(*this == baseline_);\n");
    p_.print("BITWIRE_TRY(bitwire::serialize_bool(stream_, is_changed_));\n");
    p_.print("if (!is_changed_) {\n");
    p_.print("  if constexpr (Stream_::kIsReading) *this = baseline_;\n");
    p_.print("  return true;\n");
    p_.print("}\n");
    p_.print("return serialize_delta_changes_(stream_, baseline_);\n");
  }
  p_.print("}\n\n");
  p_.print("// Writes or measures the delta form of a const object.\n");
  p_.print("template <typename Stream_>\n");
  p_.print("  requires(!Stream_::kIsReading)\n");
  p_.print("BITWIRE_FORCE_INLINE bool serialize_delta(Stream_& stream_, const $name$& baseline_) const {\n",
           {{"name", s.name}});
  p_.print("  return const_cast<$name$*>(this)->serialize_delta(stream_, baseline_);\n", {{"name", s.name}});
  p_.print("}\n\n");
  p_.print("// The changes after the \"changed\" bit (also what an array sends for each changed element).\n");
  p_.print("template <typename Stream_>\n");
  // Out of line past the inline budget, as serialize (model::Struct::called).
  const std::string inline_macro = s.called ? "BITWIRE_OUT_OF_LINE" : "BITWIRE_FORCE_INLINE";
  p_.print("$inline$ bool serialize_delta_changes_([[maybe_unused]] Stream_& stream_,\n",
           {{"inline", inline_macro}});
  p_.print("$pad$[[maybe_unused]] const $name$& baseline_) {\n",
           {{"pad", std::string(inline_macro.size() + 29, ' ')}, {"name", s.name}});
  {
    Indent in(p_);
    // The field statements the whole form shares (element()) name their stream `$stream$`.
    Bind stream(p_, "stream", "stream_");
    delta_items(s, s.body);
    p_.print("return true;\n");
  }
  p_.print("}\n\n");
}

std::string Emitter::delta_condition(const Struct& s, const model::Condition& c,
                                     const std::string& prefix) const {
  const Field& subject = s.fields[c.subject];
  switch (c.test) {
    case model::Condition::Test::IsTrue:
      return prefix + subject.name;
    case model::Condition::Test::IsFalse:
      return "!" + prefix + subject.name;
    case model::Condition::Test::Equals:
    case model::Condition::Test::NotEquals:
      return prefix + subject.name + (c.test == model::Condition::Test::Equals ? " == " : " != ") +
             element_type(subject.type) + "::" + subject.type.enumeration->items[c.enumerator].name;
  }
  return "true";
}

void Emitter::delta_items(const Struct& s, const std::vector<Item>& items) {
  for (const Item& item : items) {
    switch (item.kind) {
      case ItemKind::Field:
        delta_field(s.fields[item.field]);
        break;
      case ItemKind::If: {
        if (!item.resets.empty()) {
          p_.print("if constexpr (Stream_::kIsReading) {\n");
          {
            Indent in(p_);
            for (std::size_t f : item.resets) reset_field(s.fields[f]);
          }
          p_.print("}\n");
        }
        // The baseline took the same side: that side's delta; the other side: the side whole.
        const std::string here = delta_condition(s, item.condition, "");
        const std::string there = delta_condition(s, item.condition, "baseline_.");
        p_.print("if ($c$) {\n", {{"c", here}});
        {
          Indent in(p_);
          p_.print("if ($c$) {\n", {{"c", there}});
          {
            Indent in2(p_);
            delta_items(s, item.then_items);
          }
          p_.print("} else {\n");
          {
            Indent in2(p_);
            emit_items(s, item.then_items, item.then_runs);
          }
          p_.print("}\n");
        }
        if (!item.else_items.empty()) {
          p_.print("} else {\n");
          Indent in(p_);
          p_.print("if (!($c$)) {\n", {{"c", there}});
          {
            Indent in2(p_);
            delta_items(s, item.else_items);
          }
          p_.print("} else {\n");
          {
            Indent in2(p_);
            emit_items(s, item.else_items, item.else_runs);
          }
          p_.print("}\n");
        }
        p_.print("}\n");
        break;
      }
      default:
        // Directives and wire constants: exactly as in the whole form.
        emit_item(s, item);
        break;
    }
  }
}

void Emitter::delta_field(const Field& field) {
  if (!field.optional) {
    delta_shape(field);
    return;
  }
  // The presence bit; a field the baseline lacks is sent whole.
  const std::string has = model::presence_member_name(field.name);
  p_.print("BITWIRE_TRY(bitwire::serialize_bool(stream_, $has$));\n", {{"has", has}});
  p_.print("if ($has$) {\n", {{"has", has}});
  {
    Indent in(p_);
    p_.print("if (baseline_.$has$) {\n", {{"has", has}});
    {
      Indent in2(p_);
      delta_shape(field);
    }
    p_.print("} else {\n");
    {
      Indent in2(p_);
      field_value(field);
    }
    p_.print("}\n");
  }
  p_.print("} else if constexpr (Stream_::kIsReading) {\n");
  p_.print("  $f$ = $value$;\n", {{"f", field.name}, {"value", reset_value(field)}});
  p_.print("}\n");
}

void Emitter::delta_shape(const Field& field) {
  const std::string& name = field.name;
  switch (field.shape) {
    case Shape::Scalar:
      delta_scalar(field.type, name, "baseline_." + name);
      return;
    case Shape::FixedArray: {
      p_.print("{\n");
      {
        Indent in(p_);
        p_.print("if constexpr (Stream_::kIsReading) $f$ = baseline_.$f$;\n", {{"f", name}});
        const std::string n = std::to_string(field.array_max) + "u";
        delta_changed_list(field, n, n);
      }
      p_.print("}\n");
      return;
    }
    case Shape::VariableArray: {
      p_.print("{\n");
      {
        Indent in(p_);
        p_.print("// bool(same count) [count], the changes of the elements both hold, the new ones whole.\n");
        p_.print("auto count_ = static_cast<std::uint32_t>($f$.size());\n", {{"f", name}});
        p_.print("const auto base_count_ = static_cast<std::uint32_t>(baseline_.$f$.size());\n",
                 {{"f", name}});
        p_.print("bool same_count_ = false;\n");
        p_.print("if constexpr (!Stream_::kIsReading) same_count_ = count_ == base_count_;\n");
        p_.print("BITWIRE_TRY(bitwire::serialize_bool(stream_, same_count_));\n");
        p_.print("if (same_count_) {\n");
        p_.print("  if constexpr (Stream_::kIsReading) count_ = base_count_;\n");
        p_.print("} else {\n");
        p_.print("  BITWIRE_TRY(bitwire::serialize_count(stream_, count_, $min$, $max$));\n",
                 {{"min", uint64_literal(field.array_min)}, {"max", uint64_literal(field.array_max)}});
        p_.print("}\n");
        p_.print("const std::uint32_t shared_ = count_ < base_count_ ? count_ : base_count_;\n");
        p_.print("if constexpr (Stream_::kIsReading) {\n");
        p_.print("  $f$.resize(count_);\n", {{"f", name}});
        p_.print(
            "  for (std::uint32_t i_ = 0; i_ < shared_; ++i_) $f$.data()[i_] = baseline_.$f$.data()[i_];\n",
            {{"f", name}});
        p_.print("}\n");
        delta_changed_list(field, "shared_", "shared_");
        p_.print("for (std::uint32_t i_ = shared_; i_ < count_; ++i_) {\n");
        {
          Indent in2(p_);
          p_.print("auto& item_ = $f$.data()[i_];\n", {{"f", name}});
          element(field.type, "item_");
        }
        p_.print("}\n");
      }
      p_.print("}\n");
      return;
    }
    case Shape::SparseArray:
      // The checker refuses sparse arrays in a delta form.
      p_.print("static_assert(sizeof(Stream_) == 0, \"a sparse array has no delta form\");\n");
      return;
  }
}

// The elements [0, shared) that differ from the baseline's: int(changed, 0, shared_max), then each one's
// position (index + 1) relative to the previous one as in a sparse array, then its change. A read refuses
// a position past `shared` (kInvalidCount) or not increasing (kNotIncreasing). A read has already copied
// the baseline's elements.
void Emitter::delta_changed_list(const Field& field, const std::string& shared,
                                 const std::string& shared_max) {
  const std::string& name = field.name;
  const std::string differs =
      delta_differs(field.type, name + ".data()[next_ - 1]", "baseline_." + name + ".data()[next_ - 1]");
  p_.print("{\n");
  {
    Indent in(p_);
    p_.print("std::uint32_t changed_count_ = 0;\n");
    p_.print("if constexpr (!Stream_::kIsReading) {\n");
    p_.print("  for (std::uint32_t next_ = 1; next_ <= $n$; ++next_) changed_count_ += $d$ ? 1u : 0u;\n",
             {{"n", shared}, {"d", differs}});
    p_.print("}\n");
    p_.print("BITWIRE_TRY(bitwire::serialize_count(stream_, changed_count_, 0, $m$));\n",
             {{"m", shared_max}});
    p_.print("std::uint32_t position_ = 0;\n");
    p_.print("for (std::uint32_t c_ = 0; c_ < changed_count_; ++c_) {\n");
    {
      Indent in2(p_);
      p_.print("std::uint32_t next_ = position_ + 1;\n");
      p_.print("if constexpr (Stream_::kIsReading) {\n");
      p_.print("  const std::size_t at_ = stream_.bits_processed();\n");
      p_.print("  BITWIRE_TRY(bitwire::serialize_int_relative(stream_, position_, next_));\n");
      p_.print("  // A position past the elements both objects hold is refused where it starts.\n");
      p_.print("  if (next_ > $n$) return stream_.fail_at(bitwire::ReadError::kInvalidCount, at_);\n",
               {{"n", shared}});
      p_.print("} else {\n");
      p_.print("  while (!$d$) ++next_;\n", {{"d", differs}});
      p_.print("  BITWIRE_TRY(bitwire::serialize_int_relative(stream_, position_, next_));\n");
      p_.print("}\n");
      p_.print("position_ = next_;\n");
      p_.print("auto& item_ = $f$.data()[position_ - 1];\n", {{"f", name}});
      p_.print("[[maybe_unused]] const auto& base_item_ = baseline_.$f$.data()[position_ - 1];\n",
               {{"f", name}});
      delta_change(field.type, "item_", "base_item_");
    }
    p_.print("}\n");
  }
  p_.print("}\n");
}

// One scalar value against its baseline value: its changed bit, then its change.
void Emitter::delta_scalar(const Type& type, const std::string& ref, const std::string& base) {
  if (model::delta_nested(type, &package_)) {
    p_.print("BITWIRE_TRY($r$.serialize_delta(stream_, $b$));\n", {{"r", ref}, {"b", base}});
    return;
  }
  if (type.kind == TypeKind::Bool) {
    // The changed bit alone: a change of a bool is its flip.
    p_.print("{\n");
    p_.print("  bool flip_ = false;\n");
    p_.print("  if constexpr (!Stream_::kIsReading) flip_ = $r$ != $b$;\n", {{"r", ref}, {"b", base}});
    p_.print("  BITWIRE_TRY(bitwire::serialize_bool(stream_, flip_));\n");
    p_.print("  if constexpr (Stream_::kIsReading) $r$ = $b$ != flip_;\n", {{"r", ref}, {"b", base}});
    p_.print("}\n");
    return;
  }
  p_.print("{\n");
  {
    Indent in(p_);
    p_.print("bool is_changed_ = false;\n");
    p_.print("if constexpr (!Stream_::kIsReading) is_changed_ = $d$;\n",
             {{"d", delta_differs(type, ref, base)}});
    p_.print("BITWIRE_TRY(bitwire::serialize_bool(stream_, is_changed_));\n");
    p_.print("if (is_changed_) {\n");
    {
      Indent in2(p_);
      delta_change(type, ref, base);
    }
    p_.print("} else if constexpr (Stream_::kIsReading) {\n");
    p_.print("  $r$ = $b$;\n", {{"r", ref}, {"b", base}});
    p_.print("}\n");
  }
  p_.print("}\n");
}

// A value known to differ from its baseline value: relative (model::delta_relative_bits) where the type
// has the relative encoding, else whole.
void Emitter::delta_change(const Type& type, const std::string& ref, const std::string& base) {
  if (type.kind == TypeKind::Bool) {
    p_.print("$r$ = !$b$;\n", {{"r", ref}, {"b", base}});
    return;
  }
  if (model::delta_nested(type, &package_)) {
    p_.print("BITWIRE_TRY($r$.serialize_delta_changes_(stream_, $b$));\n", {{"r", ref}, {"b", base}});
    return;
  }
  const int bits = model::delta_relative_bits(type);
  if (bits == 0) {
    element(type, ref);
    return;
  }
  // The last argument of each call is the whole form's width, from which the runtime takes the windows.
  const std::string k = std::to_string(bits);
  switch (type.kind) {
    case TypeKind::Integer: {
      const model::IntegerType& i = type.integer;
      if (i.encoding == model::IntEncoding::Raw) {
        p_.print("BITWIRE_TRY(bitwire::serialize_bits_delta(stream_, $r$, $b$, $k$));\n",
                 {{"r", ref}, {"b", base}, {"k", k}});
      } else {
        const std::string t = storage_type(i.storage);
        p_.print(
            "BITWIRE_TRY(bitwire::serialize_int_delta(stream_, $r$, $b$, $t${$min$}, $t${$max$}, $k$));\n",
            {{"r", ref},
             {"b", base},
             {"t", t},
             {"min", integer_literal(i.min, i.storage)},
             {"max", integer_literal(i.max, i.storage)},
             {"k", k}});
      }
      return;
    }
    case TypeKind::FixedPoint: {
      const model::FixedPointType& f = type.fixed;
      const std::string t = storage_type(f.storage);
      p_.print("BITWIRE_TRY(bitwire::serialize_int_delta(stream_, $r$, $b$, $t${$min$}, $t${$max$}, $k$));\n",
               {{"r", ref},
                {"b", base},
                {"t", t},
                {"min", fixed_raw_literal(f.raw_min)},
                {"max", fixed_raw_literal(f.raw_max)},
                {"k", k}});
      return;
    }
    case TypeKind::CompressedFloat:
      p_.print("BITWIRE_TRY(bitwire::serialize_compressed_float_delta(stream_, $r$, $b$, $p$));\n",
               {{"r", ref}, {"b", base}, {"p", compressed_params(type)}});
      return;
    default:
      element(type, ref);
      return;
  }
}

std::string Emitter::delta_differs(const Type& type, const std::string& a, const std::string& b) const {
  if (type.kind == TypeKind::CompressedFloat) {
    return "bitwire::delta_differs_compressed(" + a + ", " + b + ", " + compressed_params(type) + ")";
  }
  return "bitwire::delta_differs(" + a + ", " + b + ")";
}

}  // namespace idlc::cpp

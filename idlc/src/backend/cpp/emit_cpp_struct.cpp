// Struct definitions: C++ types of fields, initial values as the model decides them, the comment beside
// each member, MaxBits, operator== and the formatters.
#include "backend/cpp/emit_cpp_emitter.hpp"

namespace idlc::cpp {

using model::Field;
using model::Shape;
using model::Struct;
using model::Type;
using model::TypeKind;

std::string Emitter::qualified(const model::Package* owner, const std::string& name) const {
  if (owner == &package_ || owner == nullptr) return name;
  return "::" + join(owner->name_parts, "::") + "::" + name;
}

std::string Emitter::constant_or_number(const model::Constant* constant, std::uint64_t value) const {
  if (constant != nullptr) return qualified(constant->package, constant->name);
  return std::to_string(value);
}

std::string Emitter::element_type(const Type& type) const {
  switch (type.kind) {
    case TypeKind::Bool: return "bool";
    case TypeKind::Integer: return storage_type(type.integer.storage);
    case TypeKind::Float: return "float";
    case TypeKind::Double: return "double";
    case TypeKind::CompressedFloat: return "float";
    case TypeKind::FixedPoint:
      if (type.fixed.wide) return type.fixed.storage.is_signed ? "bitwire::int128_t" : "bitwire::uint128_t";
      return storage_type(type.fixed.storage);
    case TypeKind::Int128: return type.int128_signed ? "bitwire::int128_t" : "bitwire::uint128_t";
    case TypeKind::String:
      return "bitwire::FixedString<" + constant_or_number(type.max_length_constant, type.max_length) + ">";
    case TypeKind::Bytes:
      return "bitwire::FixedVector<std::uint8_t, " + constant_or_number(type.max_length_constant, type.max_length) +
             ">";
    case TypeKind::ByteBlock:
      return "std::array<std::uint8_t, " + constant_or_number(type.max_length_constant, type.max_length) + ">";
    case TypeKind::Enum: return qualified(type.enumeration->package, type.enumeration->name);
    case TypeKind::Flags: return qualified(type.flags->package, type.flags->name);
    case TypeKind::Struct: return qualified(type.structure->package, type.structure->name);
  }
  return "void";
}

std::string Emitter::field_type(const Field& field) const {
  const std::string element = element_type(field.type);
  const std::string size = constant_or_number(field.array_max_constant, field.array_max);
  switch (field.shape) {
    case Shape::Scalar: return element;
    case Shape::FixedArray:
    case Shape::SparseArray: return "std::array<" + element + ", " + size + ">";
    case Shape::VariableArray: return "bitwire::FixedVector<" + element + ", " + size + ">";
  }
  return element;
}

// One element's value as a C++ expression of the element type.
std::string Emitter::value_text(const Type& type, const model::Value& value) const {
  switch (value.kind) {
    case model::Value::Kind::Bool: return value.boolean ? "true" : "false";
    case model::Value::Kind::Integer:
      if (type.kind == TypeKind::Int128) return int128_value(value.wide, element_type(type));
      if (type.kind == TypeKind::Integer) return element_type(type) + "{" + integer_literal(value.integer, type.integer.storage) + "}";
      if (type.fixed.wide) return int128_value(value.wide, element_type(type));
      return element_type(type) + "{" + integer_literal(value.integer, type.fixed.storage) + "}";
    case model::Value::Kind::Float:
      if (type.kind == TypeKind::Double) return double_literal(value.number);
      return float_literal(static_cast<float>(value.number));
    case model::Value::Kind::String: {
      if (type.kind == TypeKind::String) return element_type(type) + "(" + string_literal(value.text) + ")";
      std::vector<std::string> bytes;
      for (unsigned char c : value.text) bytes.push_back(std::to_string(c));
      return element_type(type) + "{" + join(bytes, ", ") + "}";
    }
    case model::Value::Kind::Enumerator:
      return element_type(type) + "::" + type.enumeration->items[value.enumerator].name;
  }
  return "{}";
}

// The field's initial value (model::Initial) as an initializer; "{}" for value initialisation.
std::string Emitter::initial_value(const Field& field) const {
  const model::Initial& initial = field.initial;
  const std::string element = initial.element ? value_text(field.type, *initial.element) : "";
  switch (field.shape) {
    case Shape::Scalar: return element.empty() ? "{}" : element;
    case Shape::VariableArray:
      if (initial.count == 0) return "{}";
      return field_type(field) + "(" + std::to_string(initial.count) + ", " +
             (element.empty() ? element_type(field.type) + "{}" : element) + ")";
    case Shape::FixedArray:
    case Shape::SparseArray:
      if (element.empty()) return "{}";
      return "[] { " + field_type(field) + " items_{}; items_.fill(" + element + "); return items_; }()";
  }
  return "{}";
}

std::string Emitter::reset_value(const Field& field) const {
  const std::string value = initial_value(field);
  return value == "{}" ? field_type(field) + "{}" : value;
}

namespace {

std::string cost_text(const model::BitRange& cost) {
  if (cost.min == cost.max) return std::to_string(cost.max) + (cost.max == 1 ? " bit" : " bits");
  return std::to_string(cost.min) + ".." + std::to_string(cost.max) + " bits";
}

}  // namespace

// A short description of the wire form of one element, for the comment beside each field.
std::string Emitter::wire_text(const Type& type) const {
  switch (type.kind) {
    case TypeKind::Bool: return "bool";
    case TypeKind::Integer:
      if (type.integer.encoding == model::IntEncoding::Raw) return "raw " + std::to_string(type.integer.bits) + " bits";
      return "[" + model::integer_text(type.integer.min, !type.integer.storage.is_signed) + ", " +
             model::integer_text(type.integer.max, !type.integer.storage.is_signed) + "]";
    case TypeKind::Float: return "float32";
    case TypeKind::Double: return "float64";
    case TypeKind::CompressedFloat:
      return "[" + float_literal(type.compressed.min) + ", " + float_literal(type.compressed.max) + "] res " +
             float_literal(type.compressed.resolution);
    case TypeKind::FixedPoint:
      return "fixed, " + std::to_string(type.fixed.fraction_bits) + " fraction bits, [" +
             std::to_string(type.fixed.whole_min) + ", " + std::to_string(type.fixed.whole_max) + "]";
    case TypeKind::Int128:
      if (!type.int128.ranged) return "raw 128 bits";
      return "[" + model::int128_text(type.int128.min) + ", " + model::int128_text(type.int128.max) + "]";
    case TypeKind::String: return "string, length in " + std::to_string(type.length_bits) + " bits + aligned bytes";
    case TypeKind::Bytes: return "bytes, length in " + std::to_string(type.length_bits) + " bits + aligned bytes";
    case TypeKind::ByteBlock:
      return std::to_string(type.max_length) + (type.max_length == 1 ? " aligned byte" : " aligned bytes") + ", no length";
    case TypeKind::Enum: return "enum " + type.enumeration->name;
    case TypeKind::Flags: return "flags " + type.flags->name;
    case TypeKind::Struct: return type.structure->name;
  }
  return "";
}

std::string Emitter::field_comment(const Field& field) const {
  std::string text = wire_text(field.type);
  switch (field.shape) {
    case Shape::Scalar: break;
    case Shape::FixedArray: text += ", " + std::to_string(field.array_max) + " of them"; break;
    case Shape::VariableArray:
      text += ", count [" + std::to_string(field.array_min) + ", " + std::to_string(field.array_max) + "]";
      break;
    case Shape::SparseArray: text += ", changed ones of " + std::to_string(field.array_max); break;
  }
  if (field.optional) text = "optional " + text;
  return text + ": " + cost_text(field.cost);
}

void Emitter::structure(const Struct& s) {
  doc(s.doc);
  p_.print("// $kind$; at most $bits$ bits.\n",
           {{"kind", s.is_message ? "Message type " + std::to_string(s.type_id) : std::string("Struct")},
            {"bits", std::to_string(s.cost.max)}});
  p_.print("struct $name$ {\n", {{"name", s.name}});
  {
    Indent in(p_);
    if (s.is_message) {
      p_.print("static constexpr MessageType kType = MessageType::$name$;\n", {{"name", s.name}});
      p_.print("static constexpr std::uint32_t kTypeId = $id$;\n", {{"id", std::to_string(s.type_id)}});
      if (s.has_block) {
        p_.print("// Carries a block of bytes (MessageHandle::attach_block), sent beside the body.\n");
        p_.print("static constexpr bool kHasBlock = true;\n");
      }
    }
    if (s.has_checks) {
      p_.print("// Worst case, 7 bits per alignment; `check` markers count only when BITWIRE_SERIALIZE_CHECKS is on.\n");
      p_.print("static constexpr std::size_t MaxBits = bitwire::kSerializeChecks ? $with$ : $without$;\n",
               {{"with", std::to_string(s.cost.max)}, {"without", std::to_string(s.max_bits_without_checks)}});
    } else {
      p_.print("// Worst case, counting 7 bits per alignment.\n");
      p_.print("static constexpr std::size_t MaxBits = $bits$;\n", {{"bits", std::to_string(s.cost.max)}});
    }
    p_.print("static constexpr std::size_t MaxBytes = (MaxBits + 7) / 8;\n\n");
    for (const Field& field : s.fields) member(field);
    p_.print("\n");
    serialize_function(s);
    // Writing and measuring never modify the object, so a const object can be written without a copy.
    p_.print("// Writes or measures a const object (writes and measures never modify it).\n");
    p_.print("template <typename Stream_>\n");
    p_.print("  requires(!Stream_::kIsReading)\n");
    p_.print("BITWIRE_FORCE_INLINE bool serialize(Stream_& stream_) const {\n");
    p_.print("  return const_cast<$name$*>(this)->serialize(stream_);\n", {{"name", s.name}});
    p_.print("}\n\n");
    if (s.delta_form) delta_function(s);
    struct_format_member(s);
    // A const member, not a hidden friend: C++20 synthesises != and the reversed form from it, and a member
    // is looked up only in the class of the left operand, where every hidden friend joins the overload set
    // of every comparison the header makes (with 2,000 messages, include time grew with the square of the
    // type count: bench/RESULTS.md, "Compiling a package of many messages").
    p_.print("bool operator==(const $name$&) const = default;\n", {{"name", s.name}});
  }
  p_.print("};\n\n");
}

void Emitter::member(const Field& field) {
  doc(field.doc);
  if (field.optional) {
    p_.print("bool $has$ = false;  // presence of $f$: 1 bit\n",
             {{"has", model::presence_member_name(field.name)}, {"f", field.name}});
  }
  std::string init = initial_value(field);
  p_.print("$type$ $name$$init$;  // $comment$\n",
           {{"type", field_type(field)},
            {"name", field.name},
            {"init", init == "{}" ? "{}" : " = " + init},
            {"comment", field_comment(field)}});
  if (field.shape == Shape::SparseArray) {
    p_.print("std::array<bool, $n$> $changed${};  // which elements of $f$ go on the wire\n",
             {{"n", constant_or_number(field.array_max_constant, field.array_max)},
              {"changed", model::changed_member_name(field.name)},
              {"f", field.name}});
  }
}

// The statement that appends `value` (field `field`'s member, or one element of it) to out_. Every call
// names its callee exactly: a struct's static format_, an enum's or flag set's format_<Type>_, or
// bitwire::format_value / format_items (a fixed set of runtime overloads), so none resolves against the
// package; arrays go through format_items, instantiated once per element type.
std::string Emitter::format_call(const Field& field, const std::string& value) const {
  std::string element_formatter;
  switch (field.type.kind) {
    case TypeKind::Struct:
      element_formatter = qualified(field.type.structure->package, field.type.structure->name) + "::format_";
      break;
    case TypeKind::Enum:
      element_formatter = qualified(field.type.enumeration->package, format_function_name(field.type.enumeration->name));
      break;
    case TypeKind::Flags:
      element_formatter = qualified(field.type.flags->package, format_function_name(field.type.flags->name));
      break;
    case TypeKind::String:
      // Through the text, not the FixedString<N>: one function for every length.
      if (field.shape == Shape::Scalar) return "bitwire::format_string(out_, " + value + ".view());";
      return "bitwire::format_items(out_, " + value + ".data(), " + value + ".size());";
    case TypeKind::Bytes:
      // A scalar's bytes as a list of numbers (one instantiation for every capacity); an array's elements
      // each through format_value.
      return "bitwire::format_items(out_, " + value + ".data(), " + value + ".size());";
    default:
      if (field.shape == Shape::Scalar) return "bitwire::format_value(out_, " + value + ");";
      return "bitwire::format_items(out_, " + value + ".data(), " + value + ".size());";
  }
  if (field.shape == Shape::Scalar) return element_formatter + "(out_, " + value + ");";
  return "bitwire::format_items(out_, " + value + ".data(), " + value + ".size(), " + element_formatter + ");";
}

// Inside the struct: the package's tag (what admits it to the package's format_value / to_string), and
// `static void format_(std::string&, const T&)`, the formatter other generated formatters call by its
// qualified name.
void Emitter::struct_format_member(const Struct& s) {
  if (!options_.format) return;
  p_.print("// The package's tag: its to_string and format_value take this struct.\n");
  p_.print("using FormatPackage_ = FormatTag_;\n");
  // An empty struct leaves the value unnamed: no unused parameter.
  p_.print("// Appends the struct as text (bitwire/serialize/format.hpp): what format_value and to_string call.\n");
  p_.print("static void format_(std::string& out_, const $name$&$value$) {\n",
           {{"name", s.name}, {"value", s.fields.empty() ? "" : " value_"}});
  {
    Indent in(p_);
    p_.print("out_ += \"$name${\";\n", {{"name", s.name}});
    bool first = true;
    for (const Field& field : s.fields) {
      const std::string sep = first ? "" : ", ";
      first = false;
      p_.print("out_ += \"$sep$$f$=\";\n", {{"sep", sep}, {"f", field.name}});
      const std::string call = format_call(field, "value_." + field.name);
      if (field.optional) {
        p_.print("if (value_.$has$) { $call$ } else { out_ += \"none\"; }\n",
                 {{"has", model::presence_member_name(field.name)}, {"call", call}});
      } else {
        p_.print("$call$\n", {{"call", call}});
      }
    }
    p_.print("out_ += '}';\n");
  }
  p_.print("}\n\n");
}

// Once per package, before its first struct: the formatting functions users call, found by
// argument-dependent lookup (`to_string(value)`, `format_value(out, value)`, and bitwire::format_range /
// format_items on arrays of the package's structs). One constrained template pair for the whole package,
// not an overload pair per struct: every declaration of a name is checked against the earlier ones, so
// N pairs made including a package of N messages superlinear (bench/RESULTS.md). The constraint admits
// only this package's structs (each names the package's tag as FormatPackage_), so the pair never takes
// an unrelated type, nor another package's struct when both namespaces are visible (no ambiguity).
void Emitter::package_format() {
  if (!options_.format || package_.structs.empty()) return;
  p_.print("// Text for logs (bitwire/serialize/format.hpp): format_value and to_string for every struct and message of the\n");
  p_.print("// package, found by argument-dependent lookup. One pair for the package, taking only the structs\n");
  p_.print("// that name this package's tag.\n");
  p_.print("struct FormatTag_ {};\n");
  p_.print("template <typename T_>\n");
  p_.print("concept Formatted_ = std::is_same_v<typename T_::FormatPackage_, FormatTag_>;\n\n");
  p_.print("template <Formatted_ T_>\n");
  p_.print("inline void format_value(std::string& out_, const T_& value_) { T_::format_(out_, value_); }\n\n");
  p_.print("template <Formatted_ T_>\n");
  p_.print("inline std::string to_string(const T_& value_) {\n");
  p_.print("  std::string out_;\n  T_::format_(out_, value_);\n  return out_;\n}\n\n");
}

}  // namespace idlc::cpp

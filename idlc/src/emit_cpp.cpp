// The C++ emitter. It only prints: every width, range and cost comes resolved from the model.
//
// Shape of the output for one struct (see docs/schema-language.md for the full picture):
//
//   struct Vec3 {
//     float x = 0.0f;  // [-1000, 1000] res 0.01: 18 bits
//     static constexpr std::size_t MaxBits = 54;
//     static constexpr std::size_t MaxBytes = 7;
//     template <typename Stream> bool serialize(Stream& stream) { ... }
//     friend bool operator==(const Vec3&, const Vec3&) = default;
//   };
//
// The write path must compile to what a hand-written writer would be: every primitive returns `true` at
// compile time on a WriteStream, so BITWIRE_TRY vanishes; stream kinds are tested with `if constexpr` only.
#include "emit_cpp.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "printer.hpp"

namespace idlc {
namespace {

using model::Field;
using model::Item;
using model::ItemKind;
using model::Package;
using model::Shape;
using model::Struct;
using model::Type;
using model::TypeKind;

std::string int64_literal(std::int64_t value) {
  if (value == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807LL - 1)";
  return std::to_string(value) + (value > 2147483647 || value < -2147483647 ? "LL" : "");
}

std::string uint64_literal(std::uint64_t value) { return std::to_string(value) + (value > 4294967295u ? "ULL" : "u"); }

std::string hex64(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%016" PRIx64 "ull", value);
  return text;
}

// A float literal that reads back to exactly `value` (shortest round-trip text).
std::string float_literal(float value) {
  char text[48];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, static_cast<double>(value));
    if (std::strtof(text, nullptr) == value) break;
  }
  std::string result = text;
  if (result.find_first_of(".e") == std::string::npos) result += ".0";
  return result + "f";
}

std::string double_literal(double value) {
  char text[48];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(text, sizeof text, "%.*g", precision, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  std::string result = text;
  if (result.find_first_of(".e") == std::string::npos) result += ".0";
  return result;
}

std::string string_literal(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\%03o", c);  // octal escapes never swallow following digits
      out += escape;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i != 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::string storage_type(const model::IntStorage& storage) {
  return std::string(storage.is_signed ? "std::int" : "std::uint") + std::to_string(storage.bits) + "_t";
}

class Emitter {
 public:
  explicit Emitter(const Package& package) : package_(package) {}

  std::string run() {
    prologue();
    for (const model::DeclRef& ref : package_.definition_order) {
      if (ref.kind == model::DeclKind::Constant) constant(package_.constants[ref.index]);
    }
    if (!package_.messages.empty()) message_type_enum();
    for (const model::DeclRef& ref : package_.definition_order) {
      switch (ref.kind) {
        case model::DeclKind::Constant: break;
        case model::DeclKind::Enum: enumeration(package_.enums[ref.index]); break;
        case model::DeclKind::Flags: flag_set(package_.flags[ref.index]); break;
        case model::DeclKind::Struct: structure(package_.structs[ref.index]); break;
      }
    }
    package_footer();
    return p_.str();
  }

 private:
  // ---- names and types ----

  std::string qualified(const Package* owner, const std::string& name) const {
    if (owner == &package_ || owner == nullptr) return name;
    return "::" + join(owner->name_parts, "::") + "::" + name;
  }

  std::string element_type(const Type& type) const {
    switch (type.kind) {
      case TypeKind::Bool: return "bool";
      case TypeKind::Integer: return storage_type(type.integer.storage);
      case TypeKind::Float: return "float";
      case TypeKind::Double: return "double";
      case TypeKind::CompressedFloat: return "float";
      case TypeKind::FixedPoint: return storage_type(type.fixed.storage);
      case TypeKind::Int128: return type.int128_signed ? "bitwire::int128_t" : "bitwire::uint128_t";
      case TypeKind::String: return "bitwire::FixedString<" + std::to_string(type.max_length) + ">";
      case TypeKind::Bytes: return "bitwire::FixedVector<std::uint8_t, " + std::to_string(type.max_length) + ">";
      case TypeKind::Enum: return qualified(type.enumeration->package, type.enumeration->name);
      case TypeKind::Flags: return qualified(type.flags->package, type.flags->name);
      case TypeKind::Struct: return qualified(type.structure->package, type.structure->name);
    }
    return "void";
  }

  std::string field_type(const Field& field) const {
    const std::string element = element_type(field.type);
    switch (field.shape) {
      case Shape::Scalar: return element;
      case Shape::FixedArray:
      case Shape::SparseArray: return "std::array<" + element + ", " + std::to_string(field.array_max) + ">";
      case Shape::VariableArray: return "bitwire::FixedVector<" + element + ", " + std::to_string(field.array_max) + ">";
    }
    return element;
  }

  // The value an element of `type` holds when the schema gives no default; "" stands for zero (value
  // initialisation). Zero where zero is a valid value, else an enum's first enumerator or the bound of the
  // range nearest zero, so that a new struct always writes (writes assert that values are in range).
  std::string implicit_default(const Type& type) const {
    const auto nearest_zero = [](std::int64_t min, std::int64_t max) { return min > 0 ? min : max; };
    switch (type.kind) {
      case TypeKind::Integer:
        if (type.integer.encoding != model::IntEncoding::Ranged || (type.integer.min <= 0 && type.integer.max >= 0)) {
          return "";
        }
        return element_type(type) + "{" + int64_literal(nearest_zero(type.integer.min, type.integer.max)) + "}";
      case TypeKind::FixedPoint:
        if (type.fixed.raw_min <= 0 && type.fixed.raw_max >= 0) return "";
        return element_type(type) + "{" + int64_literal(nearest_zero(type.fixed.raw_min, type.fixed.raw_max)) + "}";
      case TypeKind::Enum:
        if (type.enumeration->items.front().value == 0) return "";
        return element_type(type) + "::" + type.enumeration->items.front().name;
      default: return "";
    }
  }

  // The value a field starts with and is reset to: its declared default, or the implicit default of its
  // elements (zero, empty, or see implicit_default).
  std::string default_value(const Field& field) const {
    if (!field.default_value || field.shape != Shape::Scalar) {
      const std::string element = implicit_default(field.type);
      if (field.shape == Shape::VariableArray) {
        // A count range that excludes zero starts at its minimum, so a new object is writable.
        if (field.array_min == 0) return "{}";
        return field_type(field) + "(" + std::to_string(field.array_min) + ", " +
               (element.empty() ? element_type(field.type) + "{}" : element) + ")";
      }
      if (element.empty()) return "{}";
      if (field.shape == Shape::Scalar) return element;
      // Fixed and sparse arrays: every element starts at the element's default.
      return "[] { " + field_type(field) + " items{}; items.fill(" + element + "); return items; }()";
    }
    const model::Value& value = *field.default_value;
    const Type& type = field.type;
    switch (value.kind) {
      case model::Value::Kind::Bool: return value.boolean ? "true" : "false";
      case model::Value::Kind::Integer:
        if (type.kind == TypeKind::Int128) return element_type(type) + "(" + int64_literal(value.integer) + ")";
        return element_type(type) + "{" + int64_literal(value.integer) + "}";
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

  static std::string cost_text(const model::BitRange& cost) {
    if (cost.min == cost.max) return std::to_string(cost.max) + (cost.max == 1 ? " bit" : " bits");
    return std::to_string(cost.min) + ".." + std::to_string(cost.max) + " bits";
  }

  // A short description of the wire form of one element, for the comment beside each field.
  std::string wire_text(const Type& type) const {
    switch (type.kind) {
      case TypeKind::Bool: return "bool";
      case TypeKind::Integer:
        if (type.integer.encoding == model::IntEncoding::Raw) return "raw " + std::to_string(type.integer.bits) + " bits";
        return "[" + std::to_string(type.integer.min) + ", " + std::to_string(type.integer.max) + "]";
      case TypeKind::Float: return "float32";
      case TypeKind::Double: return "float64";
      case TypeKind::CompressedFloat:
        return "[" + float_literal(type.compressed.min) + ", " + float_literal(type.compressed.max) + "] res " +
               float_literal(type.compressed.resolution);
      case TypeKind::FixedPoint:
        return "fixed, " + std::to_string(type.fixed.fraction_bits) + " fraction bits, [" +
               std::to_string(type.fixed.whole_min) + ", " + std::to_string(type.fixed.whole_max) + "]";
      case TypeKind::Int128: return "raw 128 bits";
      case TypeKind::String: return "string, length in " + std::to_string(type.length_bits) + " bits + aligned bytes";
      case TypeKind::Bytes: return "bytes, length in " + std::to_string(type.length_bits) + " bits + aligned bytes";
      case TypeKind::Enum: return "enum " + type.enumeration->name;
      case TypeKind::Flags: return "flags " + type.flags->name;
      case TypeKind::Struct: return type.structure->name;
    }
    return "";
  }

  std::string field_comment(const Field& field) const {
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

  void doc(const model::Doc& lines) {
    for (const std::string& line : lines) p_.print("///$text$\n", {{"text", line.empty() ? "" : " " + line}});
  }

  // ---- file structure ----

  void prologue() {
    p_.print("// Generated by idlc from $file$.net. Do not edit: change the schema and run idlc again.\n",
             {{"file", package_.file_stem}});
    p_.print("#pragma once\n\n");
    for (const char* header : {"array", "cstddef", "cstdint", "string", "variant"}) {
      p_.print("#include <$h$>\n", {{"h", header}});
    }
    p_.print("\n");
    for (const char* header : {"fixed_string", "fixed_vector", "format", "serialize"}) {
      p_.print("#include \"bitwire/$h$.hpp\"\n", {{"h", header}});
    }
    for (const Package* import : package_.imports) {
      p_.print("#include \"$h$\"\n", {{"h", cpp_header_name(*import)}});
    }
    p_.print("\n");
    doc(package_.doc);
    p_.print("namespace $ns$ {\n\n", {{"ns", join(package_.name_parts, "::")}});
  }

  void constant(const model::Constant& c) {
    doc(c.doc);
    p_.print("inline constexpr std::int64_t $name$ = $value$;\n\n", {{"name", c.name}, {"value", int64_literal(c.value)}});
  }

  void message_type_enum() {
    const std::string underlying = package_.messages.size() <= 256 ? "std::uint8_t" : "std::uint16_t";
    p_.print("// Every message of the package, by type id; on the wire a type takes $bits$ bits.\n",
             {{"bits", std::to_string(package_.message_type_bits)}});
    p_.print("enum class MessageType : $u$ {\n", {{"u", underlying}});
    {
      Indent in(p_);
      for (const Struct* message : package_.messages) {
        p_.print("$name$ = $id$,\n", {{"name", message->name}, {"id", std::to_string(message->type_id)}});
      }
    }
    p_.print("};\n\n");
    p_.print("inline constexpr std::uint32_t kMessageTypeCount = $n$;\n", {{"n", std::to_string(package_.messages.size())}});
    p_.print("inline constexpr int kMessageTypeBits = $n$;\n\n", {{"n", std::to_string(package_.message_type_bits)}});
  }

  void enumeration(const model::Enum& e) {
    doc(e.doc);
    p_.print("// Wire: [$min$, $max$] in $bits$ bits$holes$.\n",
             {{"min", std::to_string(e.min)},
              {"max", std::to_string(e.max)},
              {"bits", std::to_string(e.bits)},
              {"holes", e.contiguous ? "" : "; reads refuse values between the declared ones"}});
    p_.print("enum class $name$ : $u$ {\n", {{"name", e.name}, {"u", storage_type(e.storage)}});
    {
      Indent in(p_);
      for (const model::Enumerator& item : e.items) {
        doc(item.doc);
        p_.print("$name$ = $value$,\n", {{"name", item.name}, {"value", int64_literal(item.value)}});
      }
    }
    p_.print("};\n\n");
    p_.print("// The enumerator's name, or nullptr for a value outside the set.\n");
    p_.print("inline constexpr const char* to_string($name$ value) {\n", {{"name", e.name}});
    {
      Indent in(p_);
      p_.print("switch (value) {\n");
      {
        Indent in2(p_);
        for (const model::Enumerator& item : e.items) {
          p_.print("case $e$::$n$: return \"$n$\";\n", {{"e", e.name}, {"n", item.name}});
        }
      }
      p_.print("}\n");
      p_.print("return nullptr;\n");
    }
    p_.print("}\n\n");
    p_.print("inline void format_value(std::string& out, $name$ value) {\n", {{"name", e.name}});
    {
      Indent in(p_);
      p_.print("const char* name = to_string(value);\n");
      p_.print("if (name != nullptr) {\n");
      p_.print("  out += name;\n");
      p_.print("} else {\n");
      p_.print("  bitwire::format_value(out, static_cast<$u$>(value));\n", {{"u", storage_type(e.storage)}});
      p_.print("}\n");
    }
    p_.print("}\n\n");
  }

  void flag_set(const model::Flags& f) {
    const std::string u = storage_type(f.storage);
    doc(f.doc);
    p_.print("// Wire: one bit per flag, $bits$ bits, the first flag first.\n", {{"bits", std::to_string(f.bits)}});
    p_.print("enum class $name$ : $u$ {\n", {{"name", f.name}, {"u", u}});
    {
      Indent in(p_);
      p_.print("None = 0,\n");
      for (const model::Flag& flag : f.items) {
        doc(flag.doc);
        p_.print("$name$ = $u${1} << $bit$,\n", {{"name", flag.name}, {"u", u}, {"bit", std::to_string(flag.bit)}});
      }
    }
    p_.print("};\n\n");
    p_.print("constexpr $name$ operator|($name$ a, $name$ b) { return static_cast<$name$>(static_cast<$u$>(static_cast<$u$>(a) | static_cast<$u$>(b))); }\n",
             {{"name", f.name}, {"u", u}});
    p_.print("constexpr $name$ operator&($name$ a, $name$ b) { return static_cast<$name$>(static_cast<$u$>(static_cast<$u$>(a) & static_cast<$u$>(b))); }\n",
             {{"name", f.name}, {"u", u}});
    p_.print("constexpr bool has_flag($name$ set, $name$ flag) { return (set & flag) == flag; }\n\n", {{"name", f.name}});
    p_.print("inline void format_value(std::string& out, $name$ value) {\n", {{"name", f.name}});
    {
      Indent in(p_);
      p_.print("bool first = true;\n");
      for (const model::Flag& flag : f.items) {
        p_.print("if (has_flag(value, $name$::$flag$)) { out += first ? \"$flag$\" : \"|$flag$\"; first = false; }\n",
                 {{"name", f.name}, {"flag", flag.name}});
      }
      p_.print("if (first) out += \"None\";\n");
    }
    p_.print("}\n\n");
  }

  // ---- structs ----

  void structure(const Struct& s) {
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
      p_.print("template <typename Stream>\n");
      p_.print("bool serialize(Stream& stream) {\n");
      {
        Indent body(p_);
        for (const Item& item : s.body) emit_item(s, item);
        p_.print("return true;\n");
      }
      p_.print("}\n\n");
      p_.print("friend bool operator==(const $name$&, const $name$&) = default;\n", {{"name", s.name}});
    }
    p_.print("};\n\n");

    p_.print("inline void format_value(std::string& out, const $name$& value) {\n", {{"name", s.name}});
    {
      Indent in(p_);
      p_.print("using bitwire::format_value;\n");
      p_.print("out += \"$name${\";\n", {{"name", s.name}});
      bool first = true;
      for (const Field& field : s.fields) {
        const std::string sep = first ? "" : ", ";
        first = false;
        if (field.optional) {
          p_.print("out += \"$sep$$f$=\";\n", {{"sep", sep}, {"f", field.name}});
          p_.print("if (value.$has$) { format_value(out, value.$f$); } else { out += \"none\"; }\n",
                   {{"has", model::presence_member_name(field.name)}, {"f", field.name}});
        } else {
          p_.print("out += \"$sep$$f$=\";\n", {{"sep", sep}, {"f", field.name}});
          p_.print("format_value(out, value.$f$);\n", {{"f", field.name}});
        }
      }
      p_.print("out += '}';\n");
    }
    p_.print("}\n\n");
    p_.print("inline std::string to_string(const $name$& value) {\n", {{"name", s.name}});
    p_.print("  std::string out;\n  format_value(out, value);\n  return out;\n}\n\n");
  }

  void member(const Field& field) {
    doc(field.doc);
    if (field.optional) {
      p_.print("bool $has$ = false;  // presence of $f$: 1 bit\n",
               {{"has", model::presence_member_name(field.name)}, {"f", field.name}});
    }
    std::string init = default_value(field);
    p_.print("$type$ $name$$init$;  // $comment$\n",
             {{"type", field_type(field)},
              {"name", field.name},
              {"init", init == "{}" ? "{}" : " = " + init},
              {"comment", field_comment(field)}});
    if (field.shape == Shape::SparseArray) {
      p_.print("std::array<bool, $n$> $changed${};  // which elements of $f$ go on the wire\n",
               {{"n", std::to_string(field.array_max)}, {"changed", model::changed_member_name(field.name)}, {"f", field.name}});
    }
  }

  // Statements that serialize one element of `type` held in `ref`.
  void element(const Type& type, const std::string& ref) {
    switch (type.kind) {
      case TypeKind::Bool:
        p_.print("BITWIRE_TRY(bitwire::serialize_bool(stream, $r$));\n", {{"r", ref}});
        return;
      case TypeKind::Integer: {
        const model::IntegerType& i = type.integer;
        if (i.encoding == model::IntEncoding::Raw) {
          p_.print(i.storage.is_signed ? "BITWIRE_TRY(bitwire::serialize_signed_bits(stream, $r$, $bits$));\n"
                                       : "BITWIRE_TRY(bitwire::serialize_bits(stream, $r$, $bits$));\n",
                   {{"r", ref}, {"bits", std::to_string(i.bits)}});
        } else {
          const std::string t = storage_type(i.storage);
          p_.print("BITWIRE_TRY(bitwire::serialize_int(stream, $r$, $t${$min$}, $t${$max$}));\n",
                   {{"r", ref}, {"t", t}, {"min", int64_literal(i.min)}, {"max", int64_literal(i.max)}});
        }
        return;
      }
      case TypeKind::Float:
        p_.print("BITWIRE_TRY(bitwire::serialize_float(stream, $r$));\n", {{"r", ref}});
        return;
      case TypeKind::Double:
        p_.print("BITWIRE_TRY(bitwire::serialize_double(stream, $r$));\n", {{"r", ref}});
        return;
      case TypeKind::CompressedFloat:
        // Parameters as a constant expression: nothing about the quantization is computed at run time.
        p_.print("BITWIRE_TRY(bitwire::serialize_compressed_float(stream, $r$, "
                 "bitwire::compressed_float_constant($min$, $max$, $res$)));\n",
                 {{"r", ref},
                  {"min", float_literal(type.compressed.min)},
                  {"max", float_literal(type.compressed.max)},
                  {"res", float_literal(type.compressed.resolution)}});
        return;
      case TypeKind::FixedPoint:
        p_.print("BITWIRE_TRY(bitwire::serialize_fixed<$f$>(stream, $r$, $min$, $max$));\n",
                 {{"f", std::to_string(type.fixed.fraction_bits)},
                  {"r", ref},
                  {"min", int64_literal(type.fixed.whole_min)},
                  {"max", int64_literal(type.fixed.whole_max)}});
        return;
      case TypeKind::Int128:
        p_.print("BITWIRE_TRY(bitwire::serialize_raw128(stream, $r$));\n", {{"r", ref}});
        return;
      case TypeKind::String:
        p_.print("BITWIRE_TRY(bitwire::serialize_string(stream, $r$.buffer(), $r$.kBufferSize));\n", {{"r", ref}});
        return;
      case TypeKind::Bytes:
        p_.print("{\n");
        {
          Indent in(p_);
          p_.print("auto length = static_cast<std::uint32_t>($r$.size());\n", {{"r", ref}});
          p_.print("BITWIRE_TRY(bitwire::serialize_count(stream, length, 0, $max$));\n",
                   {{"max", uint64_literal(type.max_length)}});
          p_.print("if constexpr (Stream::kIsReading) $r$.resize(length);\n", {{"r", ref}});
          p_.print("BITWIRE_TRY(bitwire::serialize_bytes(stream, $r$.data(), $r$.size()));\n", {{"r", ref}});
        }
        p_.print("}\n");
        return;
      case TypeKind::Enum: {
        const model::Enum& e = *type.enumeration;
        const std::string t = element_type(type);
        const std::string u = storage_type(e.storage);
        p_.print("BITWIRE_TRY(bitwire::serialize_enum(stream, $r$, static_cast<$t$>($u${$min$}), static_cast<$t$>($u${$max$})));\n",
                 {{"r", ref}, {"t", t}, {"u", u}, {"min", int64_literal(e.min)}, {"max", int64_literal(e.max)}});
        if (!e.contiguous) {
          p_.print("if constexpr (Stream::kIsReading) {\n");
          // Refused where the value starts, like every other refusal.
          p_.print("  if (to_string($r$) == nullptr) {\n", {{"r", ref}});
          p_.print("    return stream.fail_at(bitwire::ReadError::kInvalidEnum, stream.bits_processed() - $bits$);\n",
                   {{"bits", std::to_string(e.bits)}});
          p_.print("  }\n");
          p_.print("}\n");
        }
        return;
      }
      case TypeKind::Flags: {
        const std::string u = storage_type(type.flags->storage);
        p_.print("{\n");
        {
          Indent in(p_);
          p_.print("auto mask = static_cast<$u$>($r$);\n", {{"u", u}, {"r", ref}});
          p_.print("BITWIRE_TRY(bitwire::serialize_bits(stream, mask, $bits$));\n", {{"bits", std::to_string(type.flags->bits)}});
          p_.print("if constexpr (Stream::kIsReading) $r$ = static_cast<$t$>(mask);\n", {{"r", ref}, {"t", element_type(type)}});
        }
        p_.print("}\n");
        return;
      }
      case TypeKind::Struct:
        p_.print("BITWIRE_TRY($r$.serialize(stream));\n", {{"r", ref}});
        return;
    }
  }

  void field_value(const Field& field) {
    const std::string& name = field.name;
    switch (field.shape) {
      case Shape::Scalar:
        element(field.type, name);
        return;
      case Shape::FixedArray:
        p_.print("for (auto& item : $f$) {\n", {{"f", name}});
        {
          Indent in(p_);
          element(field.type, "item");
        }
        p_.print("}\n");
        return;
      case Shape::VariableArray:
        p_.print("{\n");
        {
          Indent in(p_);
          p_.print("auto count = static_cast<std::uint32_t>($f$.size());\n", {{"f", name}});
          p_.print("BITWIRE_TRY(bitwire::serialize_count(stream, count, $min$, $max$));\n",
                   {{"min", uint64_literal(field.array_min)}, {"max", uint64_literal(field.array_max)}});
          p_.print("if constexpr (Stream::kIsReading) $f$.resize(count);\n", {{"f", name}});
          // A counted loop, which the compilers unroll where they leave a begin/end loop alone.
          p_.print("for (std::uint32_t i = 0; i < count; ++i) {\n");
          {
            Indent in2(p_);
            p_.print("auto& item = $f$.data()[i];\n", {{"f", name}});
            element(field.type, "item");
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
          p_.print("std::uint32_t count = 0;\n");
          p_.print("if constexpr (Stream::kIsReading) {\n");
          p_.print("  $c$ = {};\n", {{"c", changed}});
          p_.print("} else {\n");
          p_.print("  for (bool is_changed : $c$) count += is_changed ? 1u : 0u;\n", {{"c", changed}});
          p_.print("}\n");
          p_.print("BITWIRE_TRY(bitwire::serialize_count(stream, count, 0, $n$u));\n", {{"n", n}});
          p_.print("std::uint32_t position = 0;\n");
          p_.print("for (std::uint32_t i = 0; i < count; ++i) {\n");
          {
            Indent in2(p_);
            p_.print("std::uint32_t next = position + 1;\n");
            p_.print("if constexpr (Stream::kIsReading) {\n");
            p_.print("  const std::size_t at = stream.bits_processed();\n");
            p_.print("  BITWIRE_TRY(bitwire::serialize_int_relative(stream, position, next));\n");
            p_.print("  // A position past the array is refused where it starts.\n");
            p_.print("  if (next > $n$u) return stream.fail_at(bitwire::ReadError::kInvalidCount, at);\n", {{"n", n}});
            p_.print("  $c$[next - 1] = true;\n", {{"c", changed}});
            p_.print("} else {\n");
            p_.print("  while (!$c$[next - 1]) ++next;\n", {{"c", changed}});
            p_.print("  BITWIRE_TRY(bitwire::serialize_int_relative(stream, position, next));\n");
            p_.print("}\n");
            p_.print("position = next;\n");
            element(field.type, name + "[position - 1]");
          }
          p_.print("}\n");
        }
        p_.print("}\n");
        return;
      }
    }
  }

  void reset_field(const Field& field) {
    if (field.optional) p_.print("$has$ = false;\n", {{"has", model::presence_member_name(field.name)}});
    p_.print("$f$ = $value$;\n", {{"f", field.name}, {"value", reset_value(field)}});
    if (field.shape == Shape::SparseArray) p_.print("$c$ = {};\n", {{"c", model::changed_member_name(field.name)}});
  }

  std::string reset_value(const Field& field) const {
    const std::string value = default_value(field);
    return value == "{}" ? field_type(field) + "{}" : value;
  }

  void collect_fields(const std::vector<Item>& items, std::vector<size_t>& out) const {
    for (const Item& item : items) {
      if (item.kind == ItemKind::Field) out.push_back(item.field);
      if (item.kind == ItemKind::If) {
        collect_fields(item.then_items, out);
        collect_fields(item.else_items, out);
      }
    }
  }

  void reset_side(const Struct& s, const std::vector<Item>& side) {
    std::vector<size_t> fields;
    collect_fields(side, fields);
    if (fields.empty()) return;
    p_.print("if constexpr (Stream::kIsReading) {\n");
    {
      Indent in(p_);
      p_.print("// The side not taken reads as its defaults.\n");
      for (size_t index : fields) reset_field(s.fields[index]);
    }
    p_.print("}\n");
  }

  std::string condition_text(const Struct& s, const model::Condition& c) const {
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

  void emit_item(const Struct& s, const Item& item) {
    switch (item.kind) {
      case ItemKind::Field: {
        const Field& field = s.fields[item.field];
        if (field.optional) {
          const std::string has = model::presence_member_name(field.name);
          p_.print("BITWIRE_TRY(bitwire::serialize_bool(stream, $has$));\n", {{"has", has}});
          p_.print("if ($has$) {\n", {{"has", has}});
          {
            Indent in(p_);
            field_value(field);
          }
          p_.print("} else if constexpr (Stream::kIsReading) {\n");
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
        p_.print("BITWIRE_TRY(bitwire::serialize_align(stream));\n");
        return;
      case ItemKind::Check:
        p_.print("if constexpr (bitwire::kSerializeChecks) {\n");
        p_.print("  BITWIRE_TRY(bitwire::serialize_check(stream));\n");
        p_.print("}\n");
        return;
      case ItemKind::If:
        p_.print("if ($cond$) {\n", {{"cond", condition_text(s, item.condition)}});
        {
          Indent in(p_);
          for (const Item& inner : item.then_items) emit_item(s, inner);
          reset_side(s, item.else_items);
        }
        p_.print("} else {\n");
        {
          Indent in(p_);
          for (const Item& inner : item.else_items) emit_item(s, inner);
          reset_side(s, item.then_items);
        }
        p_.print("}\n");
        return;
    }
  }

  // ---- per package ----

  void package_footer() {
    p_.print("// Fingerprint of the package's wire shape: peers built from different schemas have different ids.\n");
    if (package_.protocol_id_with_checks != package_.protocol_id) {
      // A message reaches a `check`: builds that write the markers have another wire, so another id.
      p_.print("inline constexpr std::uint64_t ProtocolId = bitwire::kSerializeChecks ? $with$ : $without$;\n\n",
               {{"with", hex64(package_.protocol_id_with_checks)}, {"without", hex64(package_.protocol_id)}});
    } else {
      p_.print("inline constexpr std::uint64_t ProtocolId = $id$;\n\n", {{"id", hex64(package_.protocol_id)}});
    }
    if (package_.messages.empty()) {
      p_.print("}  // namespace $ns$\n", {{"ns", join(package_.name_parts, "::")}});
      return;
    }

    std::vector<std::string> names;
    for (const Struct* message : package_.messages) names.push_back(message->name);
    p_.print("inline constexpr const char* message_name(MessageType type) {\n");
    {
      Indent in(p_);
      p_.print("switch (type) {\n");
      for (const std::string& name : names) p_.print("  case MessageType::$n$: return \"$n$\";\n", {{"n", name}});
      p_.print("}\n");
      p_.print("return nullptr;\n");
    }
    p_.print("}\n\n");

    p_.print("// Any message of the package; the alternative's index is its type id.\n");
    p_.print("using Message = std::variant<$list$>;\n\n", {{"list", join(names, ", ")}});

    p_.print("// The factory: makes `message` a default-constructed message of `type`. False for an unknown type.\n");
    p_.print("inline bool create_message(MessageType type, Message& message) {\n");
    {
      Indent in(p_);
      p_.print("switch (type) {\n");
      for (const std::string& name : names) {
        p_.print("  case MessageType::$n$: message.emplace<$n$>(); return true;\n", {{"n", name}});
      }
      p_.print("}\n");
      p_.print("return false;\n");
    }
    p_.print("}\n\n");

    p_.print("// The message's type in $bits$ bits, then its body. A read replaces `message` with the type it finds.\n",
             {{"bits", std::to_string(package_.message_type_bits)}});
    p_.print("template <typename Stream>\n");
    p_.print("bool serialize_message(Stream& stream, Message& message) {\n");
    {
      Indent in(p_);
      p_.print("auto type = static_cast<std::uint32_t>(message.index());\n");
      p_.print("BITWIRE_TRY(bitwire::serialize_int(stream, type, 0u, $last$u));\n",
               {{"last", std::to_string(names.size() - 1)}});
      p_.print("if constexpr (Stream::kIsReading) {\n");
      p_.print("  if (message.index() != type) create_message(static_cast<MessageType>(type), message);\n");
      p_.print("}\n");
      p_.print("return std::visit([&stream](auto& body) { return body.serialize(stream); }, message);\n");
    }
    p_.print("}\n\n");

    p_.print("// The largest message, in bits, including its type.\n");
    std::vector<std::string> maxes;
    for (const std::string& name : names) maxes.push_back(name + "::MaxBits");
    p_.print("inline constexpr std::size_t kMaxMessageBits = kMessageTypeBits + [] {\n");
    p_.print("  std::size_t largest = 0;\n");
    p_.print("  for (std::size_t bits : {$list$}) largest = bits > largest ? bits : largest;\n", {{"list", join(maxes, ", ")}});
    p_.print("  return largest;\n");
    p_.print("}();\n\n");

    p_.print("}  // namespace $ns$\n", {{"ns", join(package_.name_parts, "::")}});
  }

  const Package& package_;
  Printer p_;
};

}  // namespace

std::string cpp_header_name(const model::Package& package) { return package.file_stem + ".hpp"; }

std::string emit_cpp_header(const model::Package& package) { return Emitter(package).run(); }

}  // namespace idlc

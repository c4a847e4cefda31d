#include "model/fingerprint.hpp"

#include <bit>
#include <cstdio>
#include <set>
#include <vector>

namespace idlc {

namespace {

std::string qualified(const model::Package* package, const std::string& name) {
  return package == nullptr ? name : package->name + "." + name;
}

std::string float_bits(float value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%08x", std::bit_cast<std::uint32_t>(value));
  return buffer;
}

// Writes every type reachable from the messages once, the types a struct uses before it, then the
// messages. The reachable set is collected with an explicit stack, so nesting depth costs no recursion and
// the text stays linear in the size of the schema.
class ShapeWriter {
 public:
  std::string write(const model::Package& package, bool checks_enabled, int delta_format) {
    out_ = "package " + package.name + " messages " + std::to_string(package.messages.size()) +
           " type_bits " + std::to_string(package.message_type_bits) + "\n";
    for (const model::Struct* message : package.messages) collect(*message);
    for (const model::Struct* message : package.messages) {
      out_ += "message " + std::to_string(message->type_id) + " " + message->name +
              (message->has_block ? " block" : "") + (message->delta_form ? " delta {" : " {") +
              items(*message, message->body) + "}\n";
      has_delta_ |= message->delta_form;
    }
    if (has_delta_) out_ += "delta format " + std::to_string(delta_format) + "\n";
    bool has_checks = false;
    for (const model::Struct* message : package.messages) has_checks |= message->has_checks;
    if (checks_enabled && has_checks) out_ += "checks on\n";
    return std::move(out_);
  }

 private:
  // Appends the definitions of every enum, flag set and struct reachable from `root`'s fields that is
  // not written yet, dependencies first.
  void collect(const model::Struct& root) {
    struct Frame {
      const model::Struct* s;
      std::size_t next = 0;
    };
    std::vector<Frame> stack{{&root}};
    while (!stack.empty()) {
      Frame& frame = stack.back();
      if (frame.next == frame.s->fields.size()) {
        if (frame.s != &root) {
          out_ += "struct " + qualified(frame.s->package, frame.s->name) +
                  (frame.s->delta_form ? " delta {" : " {") + items(*frame.s, frame.s->body) + "}\n";
        }
        stack.pop_back();
        continue;
      }
      const model::Type& t = frame.s->fields[frame.next++].type;
      if (t.kind == model::TypeKind::Enum && seen_.insert(t.enumeration).second) enumeration(*t.enumeration);
      if (t.kind == model::TypeKind::Flags && seen_.insert(t.flags).second) flags(*t.flags);
      if (t.kind == model::TypeKind::Struct && seen_.insert(t.structure).second)
        stack.push_back({t.structure});
    }
  }

  static std::string type(const model::Type& t) {
    switch (t.kind) {
      case model::TypeKind::Bool:
        return "bool";
      case model::TypeKind::Integer: {
        const auto& i = t.integer;
        std::string storage = (i.storage.is_signed ? "s" : "u") + std::to_string(i.storage.bits);
        if (i.encoding == model::IntEncoding::Raw) return "raw " + storage + " " + std::to_string(i.bits);
        const bool u = !i.storage.is_signed;
        return "ranged " + storage + " " + model::integer_text(i.min, u) + " " + model::integer_text(i.max, u);
      }
      case model::TypeKind::Float:
        return "f32";
      case model::TypeKind::Double:
        return "f64";
      case model::TypeKind::CompressedFloat:
        return "cf " + float_bits(t.compressed.min) + " " + float_bits(t.compressed.max) + " " +
               float_bits(t.compressed.resolution);
      case model::TypeKind::FixedPoint:
        return "fixed " + model::int128_text(t.fixed.raw_min) + " " + model::int128_text(t.fixed.raw_max) +
               " " + std::to_string(t.fixed.fraction_bits);
      case model::TypeKind::Int128: {
        const std::string raw = t.int128_signed ? "i128" : "u128";
        if (!t.int128.ranged) return raw;
        return "ranged " + raw + " " + model::int128_text(t.int128.min) + " " +
               model::int128_text(t.int128.max);
      }
      case model::TypeKind::String:
        return "string " + std::to_string(t.max_length);
      case model::TypeKind::Bytes:
        return "bytes " + std::to_string(t.max_length);
      case model::TypeKind::ByteBlock:
        return "byte block " + std::to_string(t.max_length);
      case model::TypeKind::Enum:
        return "enum " + qualified(t.enumeration->package, t.enumeration->name);
      case model::TypeKind::Flags:
        return "flags " + qualified(t.flags->package, t.flags->name);
      case model::TypeKind::Struct:
        return "struct " + qualified(t.structure->package, t.structure->name);
    }
    return "?";
  }

  static std::string items(const model::Struct& s, const std::vector<model::Item>& list) {
    std::string text;
    for (const model::Item& item : list) {
      switch (item.kind) {
        case model::ItemKind::Field: {
          const model::Field& f = s.fields[item.field];
          text += " field " + f.name + " " + type(f.type);
          switch (f.shape) {
            case model::Shape::Scalar:
              break;
            case model::Shape::FixedArray:
              text += " [" + std::to_string(f.array_max) + "]";
              break;
            case model::Shape::VariableArray:
              text += " [" + std::to_string(f.array_min) + ".." + std::to_string(f.array_max) + "]";
              break;
            case model::Shape::SparseArray:
              text += " sparse[" + std::to_string(f.array_max) + "]";
              break;
          }
          if (f.optional) text += " ?";
          text += ";";
          break;
        }
        case model::ItemKind::Align:
          text += " align;";
          break;
        case model::ItemKind::Check:
          text += " check;";
          break;
        case model::ItemKind::Constant:
          text += " const " + std::to_string(item.constant) + " " + std::to_string(item.bits) + ";";
          break;
        case model::ItemKind::Reserved:
          text += " reserved " + std::to_string(item.bits) + ";";
          break;
        case model::ItemKind::If: {
          const model::Condition& c = item.condition;
          const model::Field& subject = s.fields[c.subject];
          static const char* const kTests[] = {"true", "false", "==", "!="};
          text += " if " + subject.name + " " + kTests[static_cast<int>(c.test)];
          if (c.test == model::Condition::Test::Equals || c.test == model::Condition::Test::NotEquals) {
            text += " " + subject.type.enumeration->items[c.enumerator].name;
          }
          text += " {" + items(s, item.then_items) + "} else {" + items(s, item.else_items) + "}";
          break;
        }
      }
    }
    return text;
  }

  void enumeration(const model::Enum& e) {
    out_ += "enum " + qualified(e.package, e.name) + " bits " + std::to_string(e.bits) + " {";
    for (const auto& item : e.items) out_ += " " + item.name + "=" + model::enum_value_text(item.value);
    out_ += " }";
    // Headroom changes what a reader accepts even where it leaves the width alone.
    if (e.headroom) out_ += " wire max " + model::enum_value_text(e.wire_max);
    out_ += "\n";
  }

  void flags(const model::Flags& f) {
    out_ += "flags " + qualified(f.package, f.name) + " {";
    for (const auto& item : f.items) out_ += " " + item.name;
    out_ += " }\n";
  }

  std::string out_;
  std::set<const void*> seen_;
  // A message is sent as a delta: a delta struct reached only from whole messages is never sent by its
  // delta form, so it does not make the package depend on the delta format.
  bool has_delta_ = false;
};

}  // namespace

std::string wire_shape_text(const model::Package& package, bool checks_enabled, int delta_format) {
  return ShapeWriter().write(package, checks_enabled, delta_format);
}

std::uint64_t fingerprint(const model::Package& package, bool checks_enabled, int delta_format) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : wire_shape_text(package, checks_enabled, delta_format)) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace idlc

#include "model/layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace idlc {

namespace {

std::string hex64(std::uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%016llx", static_cast<unsigned long long>(value));
  return buffer;
}

std::string hex(std::uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llX", static_cast<unsigned long long>(value));
  return buffer;
}

// The shortest decimal text that reads back as the same float.
std::string number(float value) {
  char buffer[64];
  if (value > -1e15f && value < 1e15f && value == std::trunc(value)) {
    std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(value));
    return buffer;
  }
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, static_cast<double>(value));
    if (std::strtof(buffer, nullptr) == value) break;
  }
  return buffer;
}

std::string range(const model::BitRange& r) {
  return r.min == r.max ? std::to_string(r.min) : std::to_string(r.min) + ".." + std::to_string(r.max);
}

model::BitRange operator+(const model::BitRange& a, const model::BitRange& b) {
  return {a.min + b.min, a.max + b.max};
}

std::string type_name(const model::Type& t, const model::Package* context) {
  auto qualified = [&](const model::Package* package, const std::string& name) {
    return package == context || package == nullptr ? name : package->name + "." + name;
  };
  switch (t.kind) {
    case model::TypeKind::Bool:
      return "bool";
    case model::TypeKind::Integer: {
      const auto& i = t.integer;
      std::string storage = (i.storage.is_signed ? "int" : "uint") + std::to_string(i.storage.bits);
      if (i.encoding == model::IntEncoding::Ranged) {
        return storage + "<" + model::integer_text(i.min, !i.storage.is_signed) + " .. " +
               model::integer_text(i.max, !i.storage.is_signed) + ">";
      }
      return i.bits == i.storage.bits ? storage : storage + ":" + std::to_string(i.bits);
    }
    case model::TypeKind::Float:
      return "float";
    case model::TypeKind::Double:
      return "double";
    case model::TypeKind::CompressedFloat:
      return "float<" + number(t.compressed.min) + " .. " + number(t.compressed.max) + ", res " +
             number(t.compressed.resolution) + ">";
    case model::TypeKind::FixedPoint:
      return "fixed<" + std::to_string(t.fixed.whole_min) + " .. " + std::to_string(t.fixed.whole_max) +
             ", frac " + std::to_string(t.fixed.fraction_bits) + ">";
    case model::TypeKind::Int128: {
      const std::string name = t.int128_signed ? "int128" : "uint128";
      if (!t.int128.ranged) return name;
      return name + "<" + model::int128_text(t.int128.min) + " .. " + model::int128_text(t.int128.max) + ">";
    }
    case model::TypeKind::String:
      return "string<" + std::to_string(t.max_length) + ">";
    case model::TypeKind::Bytes:
      return "bytes<" + std::to_string(t.max_length) + ">";
    case model::TypeKind::ByteBlock:
      return "bytes[" + std::to_string(t.max_length) + "]";
    case model::TypeKind::Enum:
      return qualified(t.enumeration->package, t.enumeration->name);
    case model::TypeKind::Flags:
      return qualified(t.flags->package, t.flags->name);
    case model::TypeKind::Struct:
      return qualified(t.structure->package, t.structure->name);
  }
  return "?";
}

std::string condition_text(const model::Struct& s, const model::Condition& c) {
  const model::Field& subject = s.fields[c.subject];
  switch (c.test) {
    case model::Condition::Test::IsTrue:
      return "if (" + subject.name + ")";
    case model::Condition::Test::IsFalse:
      return "if (!" + subject.name + ")";
    case model::Condition::Test::Equals:
    case model::Condition::Test::NotEquals:
      return "if (" + subject.name + (c.test == model::Condition::Test::Equals ? " == " : " != ") +
             subject.type.enumeration->items[c.enumerator].name + ")";
  }
  return "if";
}

class LayoutBuilder {
 public:
  explicit LayoutBuilder(MessageLayout& layout) : layout_(layout) {}

  // `runs`: the runs of `items` when they are the message's own (their pieces are listed), else null.
  model::BitRange walk(const model::Struct& s, const std::vector<model::Item>& items,
                       const std::vector<model::Run>* runs, model::BitRange at, int depth,
                       const std::string& prefix) {
    std::vector<std::pair<std::string, model::BitRange>> where;  // each item's path and offset
    if (runs != nullptr) where.reserve(items.size());
    for (const model::Item& item : items) {
      if (runs != nullptr) {
        std::string path = item.kind == model::ItemKind::Field      ? prefix + s.fields[item.field].name
                           : item.kind == model::ItemKind::Constant ? std::string("(const)")
                                                                    : std::string("(reserved)");
        where.emplace_back(std::move(path), at);
      }
      switch (item.kind) {
        case model::ItemKind::Field: {
          const model::Field& field = s.fields[item.field];
          add({depth, "field", prefix + field.name, describe_field_type(field, layout_.message->package), at,
               field.cost});
          if (field.type.kind == model::TypeKind::Struct && field.shape == model::Shape::Scalar &&
              !field.optional && !layout_.truncated && depth + 1 < kMaxLayoutDepth) {
            walk(*field.type.structure, field.type.structure->body, nullptr, at, depth + 1,
                 prefix + field.name + ".");
          }
          break;
        }
        case model::ItemKind::Align:
          add({depth, "align", "(align)", "", at, item.cost});
          break;
        case model::ItemKind::Check:
          add({depth, "check", "(check)", "", at, item.cost});
          break;
        case model::ItemKind::Constant:
          add({depth, "const", "(const)",
               "const(" + hex(item.constant) + ", " + std::to_string(item.bits) + ")", at, item.cost});
          break;
        case model::ItemKind::Reserved:
          add({depth, "reserved", "(reserved)", "reserved(" + std::to_string(item.bits) + ")", at, item.cost});
          break;
        case model::ItemKind::If: {
          // The if row shows the then side's bits, the else row the else side's.
          std::size_t if_row = add({depth, "if", condition_text(s, item.condition), "", at, {0, 0}});
          model::BitRange then_end =
              walk(s, item.then_items, runs != nullptr ? &item.then_runs : nullptr, at, depth + 1, prefix);
          set_bits(if_row, {then_end.min - at.min, then_end.max - at.max});
          if (!item.else_items.empty()) {
            std::size_t else_row = add({depth, "else", "else", "", at, {0, 0}});
            model::BitRange else_end =
                walk(s, item.else_items, runs != nullptr ? &item.else_runs : nullptr, at, depth + 1, prefix);
            set_bits(else_row, {else_end.min - at.min, else_end.max - at.max});
          }
          break;
        }
      }
      at = at + item.cost;
    }
    if (runs != nullptr) {
      for (const model::Run& run : *runs) {
        for (const model::RunPiece& piece : run.pieces) {
          const std::size_t first = run.members[piece.first].item;
          const std::size_t last = run.members[piece.first + piece.count - 1].item;
          layout_.pieces.push_back({where[first].first, where[last].first, piece.count, where[first].second,
                                    piece.bits, piece.grouped, piece.joins_next});
        }
      }
    }
    return at;
  }

 private:
  // Returns the row's index, or SIZE_MAX when the row limit dropped it.
  std::size_t add(LayoutRow row) {
    if (layout_.rows.size() >= kMaxLayoutRows) {
      layout_.truncated = true;
      return SIZE_MAX;
    }
    layout_.rows.push_back(std::move(row));
    return layout_.rows.size() - 1;
  }

  void set_bits(std::size_t row, model::BitRange bits) {
    if (row < layout_.rows.size()) layout_.rows[row].bits = bits;
  }

  MessageLayout& layout_;
};

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace

std::string describe_field_type(const model::Field& field, const model::Package* context) {
  std::string text = type_name(field.type, context);
  switch (field.shape) {
    case model::Shape::Scalar:
      break;
    case model::Shape::FixedArray:
      text += "[" + std::to_string(field.array_max) + "]";
      break;
    case model::Shape::VariableArray:
      text += "[" + std::to_string(field.array_min) + " .. " + std::to_string(field.array_max) + "]";
      break;
    case model::Shape::SparseArray:
      text = "sparse " + text + "[" + std::to_string(field.array_max) + "]";
      break;
  }
  if (field.optional) text += "?";
  return text;
}

MessageLayout layout_of(const model::Struct& message) {
  MessageLayout layout;
  layout.message = &message;
  LayoutBuilder builder(layout);
  builder.walk(message, message.body, &message.runs, {0, 0}, 0, "");
  // Pieces in wire order of their lists as walked: an if's sides were listed before the body's runs.
  std::stable_sort(layout.pieces.begin(), layout.pieces.end(),
                   [](const LayoutPiece& a, const LayoutPiece& b) { return a.offset.min < b.offset.min; });
  return layout;
}

std::string layout_text(const model::Package& package) {
  std::string out = "package " + package.name + " (" + package.source_path + ")  ProtocolId " +
                    hex64(package.protocol_id) + "\n" + std::to_string(package.messages.size()) + " message" +
                    (package.messages.size() == 1 ? "" : "s") + ", message type in " +
                    std::to_string(package.message_type_bits) + " bit" +
                    (package.message_type_bits == 1 ? "" : "s") + "\n";
  for (const model::Struct* message : package.messages) {
    MessageLayout layout = layout_of(*message);
    out += "\nmessage " + message->name + "  (type id " + std::to_string(message->type_id) + ")  MaxBits " +
           std::to_string(message->cost.max) + ", MaxBytes " + std::to_string(message->max_bytes);
    if (message->budget_bytes) out += ", budget " + std::to_string(*message->budget_bytes) + " bytes";
    if (message->has_block) out += ", carries a block";
    if (message->delta_form) out += ", delta form MaxDeltaBits " + std::to_string(message->delta_cost.max);
    out += "\n";
    std::size_t field_width = 5;
    for (const LayoutRow& row : layout.rows) {
      field_width = std::max(field_width, row.path.size() + 2 * static_cast<std::size_t>(row.depth));
    }
    field_width = std::min<std::size_t>(field_width, 48);
    auto pad = [](std::string text, std::size_t width) {
      if (text.size() < width) text.append(width - text.size(), ' ');
      return text;
    };
    out += "  " + pad("offset", 14) + pad("bits", 12) + pad("field", field_width + 2) + "type\n";
    for (const LayoutRow& row : layout.rows) {
      std::string name(2 * static_cast<std::size_t>(row.depth), ' ');
      name += row.path;
      std::string line = "  " + pad(range(row.offset), 14) + pad(range(row.bits), 12) +
                         pad(name, field_width + 2) + row.type;
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    // The pieces generated code reads with one bounds check each (a pair across an alignment as one).
    auto piece_text = [](const LayoutPiece& piece) {
      return (piece.items == 1 ? piece.first : piece.first + " .. " + piece.last) + " (" +
             std::to_string(piece.items) + (piece.items == 1 ? " item, " : " items, ") +
             std::to_string(piece.bits) + " bits)";
    };
    for (std::size_t i = 0; i < layout.pieces.size(); ++i) {
      const LayoutPiece& piece = layout.pieces[i];
      if (piece.joins_next && i + 1 < layout.pieces.size()) {
        out +=
            "  read as one: " + piece_text(piece) + " + align + " + piece_text(layout.pieces[i + 1]) + "\n";
        ++i;
      } else if (piece.grouped) {
        out += "  read as one: " + piece_text(piece) + "\n";
      }
    }
    if (layout.truncated) {
      out += "  ... (the table stops at " + std::to_string(kMaxLayoutRows) + " rows)\n";
    }
    out += "  total " + range(message->cost) + " bits; worst case " + std::to_string(message->cost.max) +
           " bits = " + std::to_string(message->max_bytes) + " bytes";
    if (message->has_checks) {
      out += " (" + std::to_string(message->max_bits_without_checks) + " bits with check markers off)";
    }
    out += "\n";
  }
  return out;
}

std::string layout_json(const model::Package& package) {
  std::string out = "{\n  \"package\": " + json_string(package.name) +
                    ",\n  \"source\": " + json_string(package.source_path) + ",\n  \"protocol_id\": \"" +
                    hex64(package.protocol_id) +
                    "\",\n  \"message_type_bits\": " + std::to_string(package.message_type_bits) +
                    ",\n  \"messages\": [";
  bool first_message = true;
  for (const model::Struct* message : package.messages) {
    MessageLayout layout = layout_of(*message);
    out += first_message ? "\n" : ",\n";
    first_message = false;
    out += "    {\"name\": " + json_string(message->name) +
           ", \"type_id\": " + std::to_string(message->type_id) +
           ", \"min_bits\": " + std::to_string(message->cost.min) +
           ", \"max_bits\": " + std::to_string(message->cost.max) +
           ", \"max_bits_without_checks\": " + std::to_string(message->max_bits_without_checks) +
           ", \"max_bytes\": " + std::to_string(message->max_bytes) + ", \"budget_bytes\": " +
           (message->budget_bytes ? std::to_string(*message->budget_bytes) : std::string("null")) +
           ", \"block\": " + (message->has_block ? "true" : "false") +
           (message->delta_form ? ", \"max_delta_bits\": " + std::to_string(message->delta_cost.max)
                                : std::string()) +
           ", \"truncated\": " + (layout.truncated ? "true" : "false") + ",\n     \"rows\": [";
    bool first_row = true;
    for (const LayoutRow& row : layout.rows) {
      out += first_row ? "\n" : ",\n";
      first_row = false;
      out += "      {\"depth\": " + std::to_string(row.depth) + ", \"kind\": " + json_string(row.kind) +
             ", \"path\": " + json_string(row.path) + ", \"type\": " + json_string(row.type) +
             ", \"offset_min\": " + std::to_string(row.offset.min) +
             ", \"offset_max\": " + std::to_string(row.offset.max) +
             ", \"bits_min\": " + std::to_string(row.bits.min) +
             ", \"bits_max\": " + std::to_string(row.bits.max) + "}";
    }
    out += first_row ? "]" : "\n     ]";
    out += ",\n     \"pieces\": [";
    bool first_piece = true;
    for (const LayoutPiece& piece : layout.pieces) {
      out += first_piece ? "\n" : ",\n";
      first_piece = false;
      out += "      {\"first\": " + json_string(piece.first) + ", \"last\": " + json_string(piece.last) +
             ", \"items\": " + std::to_string(piece.items) +
             ", \"offset_min\": " + std::to_string(piece.offset.min) +
             ", \"offset_max\": " + std::to_string(piece.offset.max) +
             ", \"bits\": " + std::to_string(piece.bits) +
             ", \"grouped\": " + (piece.grouped ? "true" : "false") +
             ", \"joins_next\": " + (piece.joins_next ? "true" : "false") + "}";
    }
    out += first_piece ? "]}" : "\n     ]}";
  }
  out += first_message ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace idlc

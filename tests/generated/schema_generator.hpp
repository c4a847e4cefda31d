// A deterministic generator of valid .net schemas that together use every construct of the language:
// constants, enums (holes, negative values, declared storage), flag sets, every scalar type, every array
// shape, optional fields, defaults, nested structs, imports, ifs on bools and enums with else-if chains
// and nested ifs, align and check directives, messages with budgets; and names that collide with what
// generated code declares (stream, count, item, value, ...). The same seed gives the same text.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace bitwire::test::corpus {

class SchemaGenerator {
 public:
  explicit SchemaGenerator(std::uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}

  // Schema `index` of package `name`; `import_name` (may be empty) is a generated schema it imports,
  // whose package `import_package` declares struct `Shared`.
  std::string schema(const std::string& package, const std::string& import_file, const std::string& import_package) {
    text_.clear();
    type_names_.clear();
    if (chance(2)) text_ += "/// Generated corpus schema.\n";
    text_ += "package " + package + ";\n";
    if (!import_file.empty()) text_ += "import \"" + import_file + "\";\n";
    imported_ = import_package;
    if (chance(3)) text_ += "option budget = 65536;\n";
    text_ += "const Size = " + std::to_string(1 + below(12)) + ";\n";
    text_ += "const Twice = Size * 2;\n";
    enum_bool();
    text_ += "struct Shared { uint8 value; bool stream; }\n";
    type_names_.push_back("Shared");
    const int structs = 1 + static_cast<int>(below(3));
    for (int s = 0; s < structs; ++s) structure("S" + std::to_string(s), false);
    const int messages = static_cast<int>(below(4));
    for (int m = 0; m < messages; ++m) structure("M" + std::to_string(m), true);
    return text_;
  }

 private:
  std::uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  bool chance(std::uint64_t n) { return below(n) == 0; }

  void enum_bool() {
    switch (below(4)) {
      case 0: text_ += "enum Kind { Idle, Walk, Run = 10, Sprint }\n"; break;
      case 1: text_ += "enum Kind { Back = -2, Still = 0, Ahead = 2 }\n"; break;
      case 2: text_ += "enum Kind : uint16 { Ok = 200, Missing = 404 }\n"; break;
      default: text_ += "enum Kind { Only }\n"; break;
    }
    text_ += chance(2) ? "flags Bits { Lights, Siren, Horn }\n" : "flags Bits { One }\n";
  }

  // A field type and whether it takes a default (and which).
  struct FieldType {
    std::string type;
    std::string default_value;  // "" for none
  };

  FieldType field_type() {
    static const char* const kRaw[] = {"bool",   "int8",  "int16",  "int32", "int64",  "uint8",
                                       "uint16", "uint32", "uint64", "float", "double", "int128", "uint128"};
    switch (below(12)) {
      case 0: return {kRaw[below(13)], ""};
      case 1: return {"int<-100 .. 100>", chance(2) ? "-5" : ""};
      case 2: return {"uint<1 .. Twice>", ""};
      case 3: return {"uint:" + std::to_string(1 + below(64)), ""};
      case 4: return {"int32:" + std::to_string(2 + below(31)), ""};
      case 5: return {"float<-1000 .. 1000, res 0.01>", ""};
      case 6: return {"fixed<-128 .. 127, frac 8>", chance(2) ? "1.5" : ""};
      case 7: return chance(2) ? FieldType{"string<Size>", ""} : FieldType{"string<32>", chance(2) ? "\"hi?" "?=\"" : ""};
      case 8: return {"bytes<Twice>", ""};
      case 9: return {"Kind", ""};
      case 10: return {"Bits", ""};
      default:
        if (!imported_.empty() && chance(2)) return {imported_ + ".Shared", ""};
        return {type_names_[below(type_names_.size())], ""};
    }
  }

  std::string field_name() {
    static const char* const kNames[] = {"stream", "Stream", "count", "i",     "item",  "mask",  "length",
                                         "position", "next", "value", "out",   "name",  "first", "at",
                                         "items",  "set",    "flag",  "bits",  "largest", "body", "a"};
    std::string name = kNames[below(sizeof kNames / sizeof kNames[0])];
    if (used_.count(name) != 0) name += "_" + std::to_string(used_.size()) + "x";
    used_.insert(name);
    return name;
  }

  // One field line; its name is added to `bools` / `enums` when it can be a condition later.
  void field(std::string& out, const std::string& indent, bool condition_visible) {
    FieldType t = field_type();
    const std::string name = field_name();
    std::string line = indent;
    const std::uint64_t shape = below(8);
    if (shape == 0) {
      line += t.type + " " + name + "[" + std::to_string(1 + below(4)) + "]";
    } else if (shape == 1) {
      line += t.type + " " + name + "[" + std::to_string(below(2)) + " .. Size]";
    } else if (shape == 2) {
      line += "sparse " + t.type + " " + name + "[Size]";
    } else if (shape == 3) {
      line += t.type + " " + name + "?";
    } else {
      line += t.type + " " + name;
      if (!t.default_value.empty()) line += " = " + t.default_value;
      if (condition_visible && t.type == "bool") bools_.push_back(name);
      if (condition_visible && t.type == "Kind") enums_.push_back(name);
    }
    out += line + ";\n";
  }

  void items(std::string& out, const std::string& indent, int depth, bool visible) {
    const int count = 1 + static_cast<int>(below(5));
    for (int k = 0; k < count; ++k) {
      const std::uint64_t what = below(10);
      if (what == 0) {
        out += indent + (chance(2) ? "align;\n" : "check;\n");
      } else if (what == 1 && depth < 3 && (!bools_.empty() || !enums_.empty())) {
        if_block(out, indent, depth);
      } else {
        field(out, indent, visible);
      }
    }
  }

  std::string condition() {
    if (!bools_.empty() && (enums_.empty() || chance(2))) {
      const std::string& b = bools_[below(bools_.size())];
      return chance(2) ? b : "!" + b;
    }
    const std::string& e = enums_[below(enums_.size())];
    return e + (chance(2) ? " == " : " != ") + "Kind." + enum_value();
  }

  std::string enum_value() {
    if (text_.find("enum Kind { Idle") != std::string::npos) return chance(2) ? "Run" : "Idle";
    if (text_.find("enum Kind { Back") != std::string::npos) return chance(2) ? "Back" : "Ahead";
    if (text_.find("enum Kind : uint16") != std::string::npos) return "Missing";
    return "Only";
  }

  void if_block(std::string& out, const std::string& indent, int depth) {
    // Fields declared inside an if are not visible as conditions after it.
    const auto bools = bools_;
    const auto enums = enums_;
    out += indent + "if (" + condition() + ") {\n";
    items(out, indent + "    ", depth + 1, true);
    bools_ = bools;
    enums_ = enums;
    const std::uint64_t links = below(4);
    for (std::uint64_t link = 0; link < links; ++link) {
      out += indent + "} else if (" + condition() + ") {\n";
      items(out, indent + "    ", depth + 1, true);
      bools_ = bools;
      enums_ = enums;
    }
    if (chance(2)) {
      out += indent + "} else {\n";
      items(out, indent + "    ", depth + 1, true);
      bools_ = bools;
      enums_ = enums;
    }
    out += indent + "}\n";
  }

  void structure(const std::string& name, bool is_message) {
    used_.clear();
    bools_.clear();
    enums_.clear();
    std::string out;
    if (chance(2)) out += "/// " + name + " doc with a trailing backslash \\\n";
    out += (is_message ? "message " : "struct ") + name + (is_message && chance(3) ? " budget 60000" : "") + " {\n";
    if (!chance(6)) {
      out += "    bool on;\n    Kind kind;\n";
      used_.insert("on");
      used_.insert("kind");
      bools_.push_back("on");
      enums_.push_back("kind");
      items(out, "    ", 0, true);
    }
    out += "}\n";
    text_ += out;
    if (!is_message) type_names_.push_back(name);
  }

  std::uint64_t state_;
  std::string text_;
  std::string imported_;
  std::vector<std::string> type_names_;
  std::set<std::string> used_;
  std::vector<std::string> bools_;
  std::vector<std::string> enums_;
};

}  // namespace bitwire::test::corpus

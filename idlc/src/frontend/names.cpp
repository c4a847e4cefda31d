#include "frontend/names.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <vector>

#include "model/model.hpp"

namespace idlc {

namespace {

// C++20 keywords, alternative tokens and identifiers with special meaning (final, override, import,
// module).
constexpr std::string_view kCppKeywords[] = {
    "alignas",     "alignof",   "and",        "and_eq",    "asm",      "auto",         "bitand",
    "bitor",       "bool",      "break",      "case",      "catch",    "char",         "char8_t",
    "char16_t",    "char32_t",  "class",      "compl",     "concept",  "const",        "consteval",
    "constexpr",   "constinit", "const_cast", "continue",  "co_await", "co_return",    "co_yield",
    "decltype",    "default",   "delete",     "do",        "double",   "dynamic_cast", "else",
    "enum",        "explicit",  "export",     "extern",    "false",    "float",        "for",
    "friend",      "goto",      "if",         "inline",    "int",      "long",         "mutable",
    "namespace",   "new",       "noexcept",   "not",       "not_eq",   "nullptr",      "operator",
    "or",          "or_eq",     "private",    "protected", "public",   "register",     "reinterpret_cast",
    "requires",    "return",    "short",      "signed",    "sizeof",   "static",       "static_assert",
    "static_cast", "struct",    "switch",     "template",  "this",     "thread_local", "throw",
    "true",        "try",       "typedef",    "typeid",    "typename", "union",        "unsigned",
    "using",       "virtual",   "void",       "volatile",  "wchar_t",  "while",        "xor",
    "xor_eq",      "final",     "override",   "import",    "module",
};

// Macros defined by the headers generated code includes (see the file for how it is made).
constexpr std::string_view kReservedMacros[] = {
#include "frontend/reserved_macros.inc"
};

// Global-namespace names declared by those headers: a package's outermost name cannot be one.
constexpr std::string_view kReservedGlobals[] = {
#include "frontend/reserved_globals.inc"
};

constexpr std::string_view kBuiltinTypes[] = {
    "bool",   "int",    "uint",    "int8",  "int16",  "int32", "int64",  "uint8", "uint16", "uint32",
    "uint64", "int128", "uint128", "float", "double", "fixed", "string", "bytes", "sparse",
};

bool contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

bool is_cpp_keyword(const std::string& name) {
  return std::find(std::begin(kCppKeywords), std::end(kCppKeywords), name) != std::end(kCppKeywords);
}

bool is_reserved_macro(const std::string& name) {
  return std::find(std::begin(kReservedMacros), std::end(kReservedMacros), name) != std::end(kReservedMacros);
}

bool is_reserved_global(const std::string& name) {
  return std::find(std::begin(kReservedGlobals), std::end(kReservedGlobals), name) !=
         std::end(kReservedGlobals);
}

namespace {

// A spelling of `name` that is no macro, in the style of `context`: lower_snake for fields and packages
// (EINVAL -> einval), PascalCase for the rest (EXIT_SUCCESS -> ExitSuccess).
std::string macro_free_spelling(const std::string& name, NameContext context) {
  const bool snake = context == NameContext::Field || context == NameContext::Package;
  std::string out;
  bool start_of_part = true;
  for (char c : name) {
    if (c == '_') {
      if (snake) out += c;
      start_of_part = true;
      continue;
    }
    const char lower = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    out += (!snake && start_of_part && lower >= 'a' && lower <= 'z') ? static_cast<char>(lower - 'a' + 'A')
                                                                     : lower;
    start_of_part = false;
  }
  if (out == name || is_reserved_macro(out) || is_cpp_keyword(out)) out += snake ? "_value" : "Value";
  return out;
}

}  // namespace

bool is_builtin_type_name(const std::string& name) {
  return std::find(std::begin(kBuiltinTypes), std::end(kBuiltinTypes), name) != std::end(kBuiltinTypes);
}

std::string name_problem(const std::string& name, NameContext context) {
  if (name.size() > kMaxIdentifierLength) {
    return "this name is " + std::to_string(name.size()) + " characters long; names are limited to " +
           std::to_string(kMaxIdentifierLength) + ": shorten it";
  }
  if (is_cpp_keyword(name)) {
    return "'" + name + "' is a C++ keyword and cannot name anything in generated code: rename it";
  }
  if (is_reserved_macro(name)) {
    return "'" + name +
           "' is a macro in the standard headers the generated code includes, so the generated "
           "declaration would be replaced by the macro: rename it, e.g. '" +
           macro_free_spelling(name, context) + "'";
  }
  if (name.find("__") != std::string::npos ||
      (name.size() >= 2 && name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z')) {
    return "'" + name + "' is reserved in C++ (it contains '__' or starts with '_' and a capital): rename it";
  }
  if (!name.empty() && name.back() == '_') {
    // Generated code names its locals, parameters and template parameters with a trailing '_', so no
    // schema name can collide with them.
    return "'" + name + "' ends in '_', which is reserved for names in generated code: rename it";
  }
  switch (context) {
    case NameContext::Package:
      if (name == "std" || name == "bitwire") {
        return "'" + name + "' is taken by the libraries generated code uses: choose another package name";
      }
      break;
    case NameContext::Type:
    case NameContext::Constant:
      if (context == NameContext::Type && (name == "align" || name == "check" || name == "sparse")) {
        // Contextual keywords that begin an item of a struct body where a field's type would.
        return "'" + name + "' begins " +
               (name == "sparse" ? std::string("a sparse array field (`sparse T x[N];`)")
                                 : "the `" + name + ";` directive") +
               " in a struct body, so a field could not use a type of that name: rename the declaration";
      }
      if (is_builtin_type_name(name)) {
        return "'" + name + "' is a built-in type name: rename the declaration";
      }
      if (contains(model::reserved_member_names(), name)) {
        return "'" + name +
               "' is the name of a member idlc generates in every struct, so a struct using it would find "
               "its own "
               "member instead: rename the declaration";
      }
      if (contains(model::reserved_package_names(), name)) {
        return "'" + name + "' collides with a name idlc generates in every package: rename the declaration";
      }
      break;
    case NameContext::Field:
      if (contains(model::reserved_member_names(), name)) {
        return "'" + name + "' collides with a member idlc generates in every struct: rename the field";
      }
      break;
    case NameContext::Enumerator:
    case NameContext::Flag:
      if (name == "count") {
        return "'count' is reserved: `Name.count` is the number of values: rename the value";
      }
      if (context == NameContext::Flag && name == "None") {
        return "'None' is reserved in a flag set: it is the empty set every flag set has: rename the flag";
      }
      break;
  }
  return {};
}

std::size_t edit_distance(const std::string& a, const std::string& b, std::size_t limit) {
  // Optimal string alignment: insertions, deletions, substitutions and swaps of adjacent characters
  // (`flaot`, `unit8`) each cost 1.
  if (a.size() > b.size() + limit || b.size() > a.size() + limit) return limit + 1;
  std::vector<std::size_t> before(b.size() + 1);
  std::vector<std::size_t> previous(b.size() + 1);
  std::vector<std::size_t> current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    std::size_t row_min = current[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
      row_min = std::min(row_min, current[j]);
    }
    if (row_min > limit) return limit + 1;
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return std::min(previous[b.size()], limit + 1);
}

}  // namespace idlc

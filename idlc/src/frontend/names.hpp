// Rules for the names a schema declares: they become C++ identifiers in generated code, so they must
// not be C++ keywords, reserved identifiers, built-in schema type names, or names the generated code
// uses itself. Boost-free.
#pragma once

#include <cstddef>
#include <string>

namespace idlc {

inline constexpr std::size_t kMaxIdentifierLength = 128;

enum class NameContext {
  Package,  // a component of a package name (a C++ namespace)
  Type,     // struct, message, enum or flag set
  Constant,
  Field,
  Enumerator,  // enum value
  Flag,        // a flag of a flag set
};

bool is_cpp_keyword(const std::string& name);
bool is_builtin_type_name(const std::string& name);
// A macro defined by the headers generated code includes (reserved_macros.inc).
bool is_reserved_macro(const std::string& name);
// A global-namespace name declared by those headers (reserved_globals.inc): no package's outermost name.
bool is_reserved_global(const std::string& name);

// Why `name` cannot be declared in `context`, with the fix, or an empty string when it can.
std::string name_problem(const std::string& name, NameContext context);

// Edit distance capped at `limit + 1` (for "did you mean" suggestions).
std::size_t edit_distance(const std::string& a, const std::string& b, std::size_t limit);

}  // namespace idlc

// The checker's internals (not a public interface: use check.hpp). One Checker checks every file of a
// program in import order and builds the model. Declarations resolve lazily in any order: each symbol
// moves Unresolved -> Resolving -> Done/Failed, a reference to a Resolving symbol is a cycle, and a
// reference to a Failed one fails quietly (its error is already reported), so every problem is reported
// once. Structs are checked in dependency order found without recursion (check_order.cpp), so checking
// one struct never recurses into another: nesting depth costs no stack. Implementation split by
// concern: check.cpp (files, declarations, packages), check_expr.cpp (constant expressions and name
// lookup), check_types.cpp (types and fields), check_struct.cpp (struct bodies, conditions, costs),
// check_order.cpp (struct order and containment cycles).
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "frontend/ast.hpp"
#include "frontend/diagnostics.hpp"
#include "frontend/loader.hpp"
#include "model/model.hpp"

namespace idlc::detail {

// Constant expressions are evaluated exactly in 128 bits; every named value must then fit int64, except
// enum values and unsigned bounds, which reach 2^64 - 1.
using Int = __int128;
inline constexpr Int kInt64Max = std::numeric_limits<std::int64_t>::max();
inline constexpr Int kEnumValueMin = std::numeric_limits<std::int64_t>::min();
inline constexpr Int kEnumValueMax = std::numeric_limits<std::uint64_t>::max();

// Declarations refer to each other at most this deep (constants, enums, nested structs).
inline constexpr std::size_t kMaxResolveDepth = 256;
inline constexpr std::size_t kMaxEnumerators = 65536;
// Message type ids are 16 bits (the generated MessageType and the factory table index by them).
inline constexpr std::size_t kMaxMessagesPerPackage = 65536;
// The C++ storage of one generated struct (Struct::storage_bytes); compilers fail on far less than the
// 2^64 that nested if/else blocks could otherwise reach.
inline constexpr std::uint64_t kMaxStorageBytes = std::uint64_t{64} << 20;
// Members of struct type in one generated struct, counted through nested structs (an array's element
// once): the C++ compilers initialise each of them separately (a default member initializer `T x{}`
// expands T's own), so a balanced tree of structs costs compile time in proportion to its leaves
// however small its schema.
inline constexpr std::uint64_t kMaxStructMembers = std::uint64_t{1} << 18;

enum class State { Unresolved, Resolving, Done, Failed };

struct Scope;

struct Symbol {
  model::DeclKind kind = model::DeclKind::Constant;
  std::string name;
  std::uint32_t name_offset = 0;
  const void* decl = nullptr;  // ast::ConstDecl, EnumDecl, FlagsDecl or StructDecl by kind
  std::size_t index = 0;       // into the package container of `kind`
  State state = State::Unresolved;
  Scope* scope = nullptr;
};

// One checked file: its package, its symbols, the scopes it imports.
struct Scope {
  const SourceFile* source = nullptr;
  const ast::File* ast = nullptr;
  model::Package* package = nullptr;
  std::deque<Symbol> symbols;
  std::map<std::string, Symbol*> by_name;
  std::vector<Scope*> imports;
};

// The value of `e` nearest `name` (edit distance at most 2), or "" when none is that near.
std::string nearest_enumerator(const model::Enum& e, const std::string& name);

template <typename T, typename Variant>
const T* get_if(const Variant& variant) {
  return std::get_if<T>(&variant.get());
}

// Min and max bits, plus the max when `check` directives write nothing.
struct Cost {
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  std::uint64_t max_without_checks = 0;
};

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b);
std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b);
Cost operator+(const Cost& a, const Cost& b);
// Struct::storage_bytes of a struct whose fields are checked (the structs it contains first); `aligns`
// maps the structs checked so far to their alignment, and `align_out` receives this one's.
std::uint64_t struct_storage_bytes(const model::Struct& s,
                                   const std::map<const model::Struct*, std::uint64_t>& aligns,
                                   std::uint64_t& align_out);

// A number literal with a fraction or an exponent (`0.5`, `1e3`), not an integer or a hex literal.
bool is_float_literal(const std::string& text);
// A literal as a message quotes it: whole up to 64 characters, else its first 40 and its length, so a
// multi-megabyte literal cannot make a multi-megabyte message.
std::string shown_literal(const std::string& text);

// A decimal literal's raw fixed-point value, literal x 2^fraction_bits, computed exactly from its digits
// (never through a double): kExact with `raw` when that is a whole number within -2^127 .. 2^127 - 1,
// kNotExact when it is not a whole number, kTooLarge when it is past 128 bits. `negative` applies the
// literal's signs.
enum class FixedRaw { kExact, kNotExact, kTooLarge };
FixedRaw decimal_fixed_raw(const std::string& literal, bool negative, int fraction_bits, Int& raw);

std::string to_string(Int value);
Int storage_min(model::IntStorage storage);
Int storage_max(model::IntStorage storage);
std::string storage_name(model::IntStorage storage);
// The smallest storage holding [min, max]; signed when min < 0 or `want_signed`.
model::IntStorage smallest_storage(Int min, Int max, bool want_signed);
// int8 .. uint64 by name.
std::optional<model::IntStorage> storage_by_name(const std::string& name);

// Worst-case bits of the changed-element positions and elements of a sparse array of `size` elements
// whose elements take at most `element_max` bits (count excluded). Exact.
std::uint64_t sparse_max_bits(std::uint32_t size, std::uint64_t element_max);

class Checker {
 public:
  Checker(Diagnostics& diagnostics, model::Schema& schema) : diagnostics_(diagnostics), schema_(schema) {}

  // Checks one parsed file whose imports are already checked. Returns its scope (for importers).
  Scope* check_file(const LoadedFile& file, const std::vector<Scope*>& imports);

 private:
  // check.cpp
  void error(const Scope& scope, std::uint32_t offset, std::string message);
  void error_span(const Scope& scope, std::uint32_t offset, std::uint32_t length, std::string message);
  void note(const Scope& scope, std::uint32_t offset, std::string message);
  std::string line_of(const Scope& scope, std::uint32_t offset) const;
  model::Doc doc_at(const Scope& scope, std::uint32_t offset) const;
  bool check_package_decl(Scope& scope);
  void declare(Scope& scope);
  void check_nested_package_names(Scope& scope);
  void check_option(Scope& scope, const ast::OptionDecl& option, std::map<std::string, std::uint32_t>& seen);
  bool resolve(Symbol& symbol, const Scope* from, std::uint32_t at);
  bool resolve_constant(Symbol& symbol);
  bool resolve_enum(Symbol& symbol);
  bool resolve_flags(Symbol& symbol);
  bool enum_headroom(Scope& scope, const ast::EnumDecl& decl, const std::optional<model::IntStorage>& declared,
                     model::Enum& e);
  void finish_package(Scope& scope);
  void order_definitions(Scope& scope);

  // check_order.cpp
  std::vector<std::pair<const ast::TypeExpr*, Symbol*>> struct_dependencies(Symbol& symbol);
  void resolve_structs_in_dependency_order(Scope& scope);

  // check_expr.cpp
  Symbol* find_symbol(const ast::QualifiedName& name, std::size_t parts, Scope& scope, const char* what);
  std::optional<Int> eval_int(const ast::Expr& expr, Scope& scope);
  std::optional<Int> eval_unary(const ast::Unary& unary, Scope& scope);
  std::optional<Int> eval_name(const ast::QualifiedName& name, Scope& scope);
  // An integer expression that must fit int64 (`what` names it in the error).
  std::optional<std::int64_t> eval_int64(const ast::Expr& expr, Scope& scope, const std::string& what);
  // A range bound or default: like eval_int64, but up to 2^64 - 1 when `may_be_unsigned` (a uint or
  // uintN field; constants stay int64).
  std::optional<Int> eval_bound(const ast::Expr& expr, Scope& scope, const std::string& what, bool may_be_unsigned);
  // A float literal (with signs) or an integer expression.
  std::optional<double> eval_number(const ast::Expr& expr, Scope& scope);
  // The constant an expression evaluated to `value` names when it is exactly one constant's name (no
  // sign, no operator), else nullptr: back ends print the name instead of the number.
  const model::Constant* named_constant(const ast::Expr& expr, std::int64_t value, Scope& scope);

  // check_types.cpp
  std::optional<Int> fixed_point_default(const ast::Expr& expr, Scope& scope,
                                         const model::FixedPointType& fixed);
  std::optional<model::Type> resolve_type(const ast::TypeExpr& type, Scope& scope);
  std::optional<model::Type> builtin_type(const ast::TypeExpr& type, const std::string& name, Scope& scope);
  bool integer_type(const ast::TypeExpr& type, const std::string& name, Scope& scope, model::Type& out);
  bool int128_range_type(const ast::TypeExpr& type, const std::string& name, Scope& scope, model::Type& out);
  // The shape of an integer range `name<min .. max>` (type.args present): no width beside it, both bounds,
  // no parameters after them. Reports the first problem and returns false.
  bool integer_range_shape(const ast::TypeExpr& type, const std::string& name, Scope& scope);
  bool compressed_float_type(const ast::TypeExpr& type, Scope& scope, model::Type& out);
  bool fixed_point_type(const ast::TypeExpr& type, Scope& scope, model::Type& out);
  bool string_type(const ast::TypeExpr& type, const std::string& name, Scope& scope, model::Type& out);
  bool byte_block_type(const ast::TypeExpr& type, const std::string& name, Scope& scope, model::Type& out);
  std::optional<model::Value> default_value(const ast::DefaultValue& value, const model::Type& type,
                                            Scope& scope);

  // check_struct.cpp
  struct StructBuild;
  bool resolve_struct(Symbol& symbol);
  bool check_items(StructBuild& build, const std::vector<ast::Item>& items, std::vector<model::Item>& out,
                   Cost& cost);
  bool check_field(StructBuild& build, const ast::Field& field, model::Item& out, Cost& cost);
  bool check_condition(StructBuild& build, const ast::Condition& condition, model::Condition& out);
  bool check_wire_item(StructBuild& build, const ast::WireItem& wire, model::Item& out);
  void check_companion_names(StructBuild& build);

  Diagnostics& diagnostics_;
  model::Schema& schema_;
  // What an overflowing constant expression's error advises: a constant is int64, while a 128-bit
  // field's bound or default may use the checker's whole arithmetic (AdviceScope sets that while one is
  // evaluated; a constant it names is evaluated under the constant's own advice).
  static constexpr const char* kConstantAdvice = "keep constants within 64 bits";
  static constexpr const char* kWideAdvice = "write a 128-bit bound or default within -2^127 .. 2^127 - 1";
  const char* overflow_advice_ = kConstantAdvice;
  struct AdviceScope {
    AdviceScope(Checker& checker, const char* advice) : checker_(checker), saved_(checker.overflow_advice_) {
      checker.overflow_advice_ = advice;
    }
    ~AdviceScope() { checker_.overflow_advice_ = saved_; }
    AdviceScope(const AdviceScope&) = delete;
    AdviceScope& operator=(const AdviceScope&) = delete;
    Checker& checker_;
    const char* saved_;
  };
  std::deque<Scope> scopes_;
  std::map<std::string, const Scope*> packages_by_name_;
  std::map<std::string, const Scope*> files_by_stem_;
  std::vector<Symbol*> resolving_;              // the resolution stack, for cycle reports
  std::set<const ast::TypeExpr*> cycle_edges_;  // struct references that close a reported cycle
  std::map<const model::Struct*, std::uint64_t> struct_aligns_;  // C++ alignment of each checked struct
};

}  // namespace idlc::detail

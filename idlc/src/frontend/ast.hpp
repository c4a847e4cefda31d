// Syntax tree of one .net schema file, as the parser hands it to the checker: unresolved names,
// unevaluated expressions, nothing checked. Every node that diagnostics point at derives from Positioned
// and carries the byte offset of its first character in the source text (line and column are computed
// only when a diagnostic is printed).
//
// Standard library types only: the grammar's own attribute types (Boost.Spirit X3 needs Boost's optional
// and x3::variant) stay inside frontend/parser_def.hpp, and parser.cpp converts them to these at the
// frontend's boundary. The checker turns all of it into model.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace idlc::ast {

struct Positioned {
  std::uint32_t offset = 0;  // byte offset of the node's first character
};

// A node of a recursive type (an expression in parentheses, an if block in a body), owned and copied
// deeply like a value. Never empty.
template <typename T>
class Box {
 public:
  explicit Box(T value) : node_(std::make_unique<T>(std::move(value))) {}
  Box(const Box& other) : node_(std::make_unique<T>(*other.node_)) {}
  Box(Box&&) noexcept = default;
  Box& operator=(const Box& other) {
    if (this != &other) node_ = std::make_unique<T>(*other.node_);
    return *this;
  }
  Box& operator=(Box&&) noexcept = default;
  ~Box() = default;

  const T& get() const { return *node_; }
  T& get() { return *node_; }

 private:
  std::unique_ptr<T> node_;
};

// One of several node types; get() is the std::variant.
template <typename... T>
struct OneOf {
  std::variant<T...> value;
  const std::variant<T...>& get() const { return value; }
  std::variant<T...>& get() { return value; }
};

// A name as written: letters, digits and '_', not starting with a digit, not a keyword.
struct Identifier : Positioned, std::string {
  using std::string::string;
  Identifier() = default;
};

// `a.b.c`: a possibly qualified name (package prefix, or Enum.member / Enum.count).
struct QualifiedName : Positioned, std::vector<Identifier> {};

// The raw text of a number: `42`, `0x2A`, `1_000`, `0.01`, `1e-3`.
struct NumberLiteral : Positioned, std::string {
  using std::string::string;
  NumberLiteral() = default;
};

// `true` or `false`.
struct BoolLiteral : Positioned, std::string {
  using std::string::string;
  BoolLiteral() = default;
};

// The raw text of a string literal including its quotes; escapes are decoded by the checker.
struct StringLiteral : Positioned, std::string {
  using std::string::string;
  StringLiteral() = default;
};

struct Expr;

// A literal, a name, or a parenthesized expression.
struct Primary : OneOf<NumberLiteral, BoolLiteral, QualifiedName, Box<Expr>> {};

// Prefix signs (`-`, `+`, any number of them) applied to a primary.
struct Unary : Positioned {
  std::string signs;
  Primary operand;
};

struct Operation : Positioned {
  char op = '+';  // one of + - * / %
  Unary operand;
};

// `first op operand op operand ...` as written; the checker applies precedence (* / % before + -,
// left to right within a level).
struct Expr : Positioned {
  Unary first;
  std::vector<Operation> rest;
};

// `key value` inside type arguments: `res 0.01`, `frac 8`.
struct TypeParam : Positioned {
  Identifier key;
  Expr value;
};

// `<first>`, `<first .. last>`, `<first .. last, key value, ...>`.
struct TypeArgs : Positioned {
  Expr first;
  std::optional<Expr> last;
  std::vector<TypeParam> params;
};

// `name`, `name<args>`, `name:width`, `name[length]` (a fixed-length byte block: `bytes[16]`).
struct TypeExpr : Positioned {
  QualifiedName name;
  std::optional<TypeArgs> args;
  std::optional<Expr> width;
  std::optional<Expr> block_length;
};

// `[size]` or `[min .. max]` after a field name.
struct Dims : Positioned {
  Expr first;
  std::optional<Expr> last;
};

struct DefaultValue : OneOf<Expr, StringLiteral> {};

struct Field : Positioned {
  bool sparse = false;  // `sparse` prefix
  TypeExpr type;
  Identifier name;
  std::optional<Dims> dims;
  bool optional = false;  // `?` suffix
  std::optional<DefaultValue> default_value;
};

// `align;` or `check;` (the text is the keyword).
struct Directive : Positioned, std::string {
  using std::string::string;
  Directive() = default;
};

// `== value` or `!= value` in a condition.
struct Comparison : Positioned {
  std::string op;
  QualifiedName value;
};

// `subject`, `!subject`, `subject == value`, `subject != value`.
struct Condition : Positioned {
  bool negated = false;
  QualifiedName subject;
  std::optional<Comparison> comparison;
};

// `const(value, bits);` or `reserved(bits);` in a struct body: bits on the wire that hold a fixed value
// and belong to no field. The checker checks the arity (const: two arguments; reserved: one).
struct WireItem : Positioned {
  std::string keyword;         // "const" or "reserved"
  Expr first;                  // const: the value; reserved: the bit count
  std::optional<Expr> second;  // const: the bit count
};

struct IfBlock;

struct Item : OneOf<Field, Directive, Box<IfBlock>, WireItem> {};

// `if (condition) { items } else { items }`; `else if` is an else side holding one IfBlock.
struct IfBlock : Positioned {
  Condition condition;
  std::vector<Item> then_items;
  std::vector<Item> else_items;
};

struct PackageDecl : Positioned, std::vector<Identifier> {};

struct ImportDecl : Positioned, std::string {  // the path literal, quotes included
  using std::string::string;
  ImportDecl() = default;
};

struct OptionDecl : Positioned {
  Identifier key;
  Expr value;
};

struct ConstDecl : Positioned {
  Identifier name;
  Expr value;
};

struct Enumerator : Positioned {
  Identifier name;
  std::optional<Expr> value;
};

struct EnumDecl : Positioned {
  Identifier name;
  std::optional<Identifier> storage;  // `: uint8`
  std::optional<Expr> wire_max;       // `max 15`: headroom, a wire range wider than the values
  std::vector<Enumerator> items;
};

struct FlagsDecl : Positioned {
  Identifier name;
  std::vector<Identifier> items;
};

struct StructDecl : Positioned {
  bool is_delta = false;  // `delta message X { ... }`: the delta form is generated
  bool is_message = false;
  Identifier name;
  bool has_block = false;      // `message X block { ... }`: the message carries a block of bytes
  std::optional<Expr> budget;  // `message X budget 1200 { ... }`
  std::vector<Item> items;
};

struct Declaration : OneOf<PackageDecl, ImportDecl, OptionDecl, ConstDecl, EnumDecl, FlagsDecl, StructDecl> {
};

struct File {
  std::vector<Declaration> declarations;  // source order
  // Doc comment blocks keyed by the offset of the token they document (the first token after the
  // block, skipping whitespace and ordinary comments).
  std::map<std::uint32_t, std::vector<std::string>> docs;
};

}  // namespace idlc::ast

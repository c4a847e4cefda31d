// Syntax tree of one .net schema file, as the parser produces it: unresolved names, unevaluated
// expressions, nothing checked. Every node that diagnostics point at derives from Positioned and carries
// the byte offset of its first character in the source text (line and column are computed only when a
// diagnostic is printed).
//
// The parser fills these types directly through Boost.Spirit X3 attributes, which is why they use
// boost::optional and x3::variant (X3 in Boost 1.74 does not propagate into std::optional/std::variant)
// and why nodes that hold only one value derive from that value's container type instead of wrapping it
// (X3 cannot fill a Fusion-adapted struct of one member). The checker turns all of it into model.hpp.
#pragma once

#include <boost/optional.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace idlc::ast {

namespace x3 = boost::spirit::x3;

struct Positioned {
  std::uint32_t offset = 0;  // byte offset of the node's first character
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

struct Primary : x3::variant<NumberLiteral, BoolLiteral, QualifiedName, x3::forward_ast<Expr>> {
  using base_type::base_type;
  using base_type::operator=;
};

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
  boost::optional<Expr> last;
  std::vector<TypeParam> params;
};

// `name`, `name<args>`, `name:width`, `name[length]` (a fixed-length byte block: `bytes[16]`).
struct TypeExpr : Positioned {
  QualifiedName name;
  boost::optional<TypeArgs> args;
  boost::optional<Expr> width;
  boost::optional<Expr> block_length;
};

// `[size]` or `[min .. max]` after a field name.
struct Dims : Positioned {
  Expr first;
  boost::optional<Expr> last;
};

struct DefaultValue : x3::variant<Expr, StringLiteral> {
  using base_type::base_type;
  using base_type::operator=;
};

struct Field : Positioned {
  bool sparse = false;  // `sparse` prefix
  TypeExpr type;
  Identifier name;
  boost::optional<Dims> dims;
  bool optional = false;  // `?` suffix
  boost::optional<DefaultValue> default_value;
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
  boost::optional<Comparison> comparison;
};

// `const(value, bits);` or `reserved(bits);` in a struct body: bits on the wire that hold a fixed value
// and belong to no field. The checker checks the arity (const: two arguments; reserved: one).
struct WireItem : Positioned {
  std::string keyword;           // "const" or "reserved"
  Expr first;                    // const: the value; reserved: the bit count
  boost::optional<Expr> second;  // const: the bit count
};

struct IfBlock;

struct Item : x3::variant<Field, Directive, x3::forward_ast<IfBlock>, WireItem> {
  using base_type::base_type;
  using base_type::operator=;
};

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
  boost::optional<Expr> value;
};

struct EnumDecl : Positioned {
  Identifier name;
  boost::optional<Identifier> storage;  // `: uint8`
  boost::optional<Expr> wire_max;       // `max 15`: headroom, a wire range wider than the values
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
  bool has_block = false;        // `message X block { ... }`: the message carries a block of bytes
  boost::optional<Expr> budget;  // `message X budget 1200 { ... }`
  std::vector<Item> items;
};

struct Declaration
    : x3::variant<PackageDecl, ImportDecl, OptionDecl, ConstDecl, EnumDecl, FlagsDecl, StructDecl> {
  using base_type::base_type;
  using base_type::operator=;
};

struct File {
  std::vector<Declaration> declarations;  // source order
  // Doc comment blocks keyed by the offset of the token they document (the first token after the
  // block, skipping whitespace and ordinary comments).
  std::map<std::uint32_t, std::vector<std::string>> docs;
};

}  // namespace idlc::ast

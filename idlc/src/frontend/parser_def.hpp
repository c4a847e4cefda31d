// The .net grammar in Boost.Spirit X3. Included only by parser.cpp (one translation unit pays the
// compile time). Structure follows the X3 examples: the attribute types (tree::) and their Fusion
// adaptations, one rule per
// construct, rule-ID classes that record source offsets (on_success) and expectation failures
// (on_error). `>` follows every token that commits to a construct, so a failure names what was
// expected at that point. Character sets are spelled out rather than taken from X3's classifiers,
// which assert on bytes above 0x7f.
#pragma once

#include <boost/fusion/include/adapt_struct.hpp>
#include <boost/optional.hpp>
#include <boost/spirit/home/x3.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>
#include <cstdint>
#include <string>
#include <type_traits>

#include "frontend/ast.hpp"

// The grammar's attribute types: what X3 fills while parsing. X3 in Boost 1.74 does not propagate into
// std::optional/std::variant, so these hold boost::optional and x3::variant, and nodes that hold only one
// value derive from that value's container type instead of wrapping it (X3 cannot fill a Fusion-adapted
// struct of one member). parser.cpp converts them to ast.hpp (standard types only) before the checker
// sees them; leaf nodes without Boost types are ast.hpp's own.
namespace idlc::parser::tree {

namespace x3 = boost::spirit::x3;
using ast::BoolLiteral;
using ast::Comparison;
using ast::Directive;
using ast::FlagsDecl;
using ast::Identifier;
using ast::ImportDecl;
using ast::NumberLiteral;
using ast::PackageDecl;
using ast::Positioned;
using ast::QualifiedName;
using ast::StringLiteral;

struct Expr;

struct Primary : x3::variant<NumberLiteral, BoolLiteral, QualifiedName, x3::forward_ast<Expr>> {
  using base_type::base_type;
  using base_type::operator=;
};

struct Unary : Positioned {
  std::string signs;
  Primary operand;
};

struct Operation : Positioned {
  char op = '+';
  Unary operand;
};

struct Expr : Positioned {
  Unary first;
  std::vector<Operation> rest;
};

struct TypeParam : Positioned {
  Identifier key;
  Expr value;
};

struct TypeArgs : Positioned {
  Expr first;
  boost::optional<Expr> last;
  std::vector<TypeParam> params;
};

struct TypeExpr : Positioned {
  QualifiedName name;
  boost::optional<TypeArgs> args;
  boost::optional<Expr> width;
  boost::optional<Expr> block_length;
};

struct Dims : Positioned {
  Expr first;
  boost::optional<Expr> last;
};

struct DefaultValue : x3::variant<Expr, StringLiteral> {
  using base_type::base_type;
  using base_type::operator=;
};

struct Field : Positioned {
  bool sparse = false;
  TypeExpr type;
  Identifier name;
  boost::optional<Dims> dims;
  bool optional = false;
  boost::optional<DefaultValue> default_value;
};

struct Condition : Positioned {
  bool negated = false;
  QualifiedName subject;
  boost::optional<Comparison> comparison;
};

struct WireItem : Positioned {
  std::string keyword;
  Expr first;
  boost::optional<Expr> second;
};

struct IfBlock;

struct Item : x3::variant<Field, Directive, x3::forward_ast<IfBlock>, WireItem> {
  using base_type::base_type;
  using base_type::operator=;
};

struct IfBlock : Positioned {
  Condition condition;
  std::vector<Item> then_items;
  std::vector<Item> else_items;
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
  boost::optional<Identifier> storage;
  boost::optional<Expr> wire_max;
  std::vector<Enumerator> items;
};

struct StructDecl : Positioned {
  bool is_delta = false;
  bool is_message = false;
  Identifier name;
  bool has_block = false;
  boost::optional<Expr> budget;
  std::vector<Item> items;
};

struct Declaration
    : x3::variant<PackageDecl, ImportDecl, OptionDecl, ConstDecl, EnumDecl, FlagsDecl, StructDecl> {
  using base_type::base_type;
  using base_type::operator=;
};

}  // namespace idlc::parser::tree

BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::Unary, signs, operand)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::Operation, op, operand)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::Expr, first, rest)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::TypeParam, key, value)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::TypeArgs, first, last, params)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::TypeExpr, name, args, width, block_length)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::Dims, first, last)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::Field, sparse, type, name, dims, optional, default_value)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::WireItem, keyword, first, second)
BOOST_FUSION_ADAPT_STRUCT(idlc::ast::Comparison, op, value)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::Condition, negated, subject, comparison)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::IfBlock, condition, then_items, else_items)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::OptionDecl, key, value)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::ConstDecl, name, value)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::Enumerator, name, value)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::EnumDecl, name, storage, wire_max, items)
BOOST_FUSION_ADAPT_STRUCT(idlc::ast::FlagsDecl, name, items)
BOOST_FUSION_ADAPT_STRUCT(idlc::parser::tree::StructDecl, is_delta, is_message, name, has_block, budget, items)

namespace idlc::parser {

namespace x3 = boost::spirit::x3;

// Per-parse state reachable from every rule through the context (x3::with).
struct ParseState {
  const char* begin = nullptr;
  bool failed = false;  // an expectation failed inside the current declaration
  std::uint32_t fail_offset = 0;
  std::string expected;  // X3's description of what was expected there
};

struct state_tag;

// Every rule records the offset of its first token in Positioned attributes. One template with
// `if constexpr` (an overload for a base class would lose to X3's own catch-all).
struct annotate_position {
  template <typename Iterator, typename Attribute, typename Context>
  void on_success(const Iterator& first, const Iterator& /*last*/, Attribute& attribute,
                  const Context& context) const {
    if constexpr (std::is_base_of_v<ast::Positioned, Attribute>) {
      const ParseState* state = x3::get<state_tag>(context);
      attribute.offset = static_cast<std::uint32_t>(first - state->begin);
    }
  }
};

// The rule that a failed expectation unwinds to: remember where and what, and fail the declaration.
struct report_expectation : annotate_position {
  template <typename Iterator, typename Exception, typename Context>
  x3::error_handler_result on_error(Iterator& /*first*/, const Iterator& /*last*/, const Exception& failure,
                                    const Context& context) const {
    ParseState* state = x3::get<state_tag>(context);
    if (!state->failed) {
      state->failed = true;
      state->fail_offset = static_cast<std::uint32_t>(failure.where() - state->begin);
      state->expected = failure.which();
    }
    return x3::error_handler_result::fail;
  }
};

namespace grammar {

using x3::lexeme;
using x3::lit;

const auto ident_start = x3::char_("a-zA-Z_");
const auto ident_char = x3::char_("a-zA-Z0-9_");
const auto word_end = !ident_char;

// A keyword matches only as a whole word.
inline auto kw(const char* word) {
  return lexeme[lit(word) >> word_end];
}

const auto kw_package = kw("package");
const auto kw_import = kw("import");
const auto kw_option = kw("option");
const auto kw_const = kw("const");
const auto kw_enum = kw("enum");
const auto kw_flags = kw("flags");
const auto kw_struct = kw("struct");
const auto kw_message = kw("message");
const auto kw_if = kw("if");
const auto kw_else = kw("else");
const auto kw_align = kw("align");
const auto kw_check = kw("check");
const auto kw_sparse = kw("sparse");
const auto kw_true = kw("true");
const auto kw_false = kw("false");
// Contextual: keywords only right after a message name (`message M block budget 64 { ... }`).
const auto kw_budget = kw("budget");
const auto kw_block = kw("block");
// Contextual: a keyword only between an enum's name (or storage) and its `{`.
const auto kw_enum_max = kw("max");
// Contextual: a keyword only right before `message` or `struct` at file level.
const auto kw_delta = kw("delta");

// The words no name can take. Every other keyword is contextual (docs/schema-language.md, "Keywords"):
// `package import option flags message align check sparse` (and `block budget res frac reserved max`) are
// keywords only where a construct begins with them, and names everywhere else; these are C++ keywords,
// which no declared name could take anyway.
const auto keyword = lexeme[(lit("const") | lit("enum") | lit("struct") | lit("if") | lit("else") |
                             lit("true") | lit("false")) >>
                            word_end];

// Whitespace, `// line` and `/* block */` comments (`///` doc comments included: the lexical pass
// collects those separately).
const auto skipper = x3::char_(" \t\r\n\f\v") | (lit("//") >> *(x3::char_ - '\n')) |
                     (lit("/*") >> *(x3::char_ - lit("*/")) >> lit("*/"));

struct identifier_class : annotate_position {};
struct field_name_class : annotate_position {};
struct qualified_name_class : annotate_position {};
struct number_class : annotate_position {};
struct bool_literal_class : annotate_position {};
struct string_literal_class : annotate_position {};
struct primary_class : annotate_position {};
struct paren_expr_class : annotate_position {};
struct unary_class : annotate_position {};
struct operation_class : annotate_position {};
struct expr_class : annotate_position {};
struct type_param_class : annotate_position {};
struct type_args_class : annotate_position {};
struct type_expr_class : annotate_position {};
struct dims_class : annotate_position {};
struct default_value_class : annotate_position {};
struct field_class : annotate_position {};
struct directive_class : annotate_position {};
struct wire_item_class : annotate_position {};
struct comparison_class : annotate_position {};
struct condition_class : annotate_position {};
struct if_block_class : annotate_position {};
struct item_class : annotate_position {};
struct block_class : annotate_position {};
struct block_end_class : annotate_position {};
struct list_end_class : annotate_position {};
struct package_decl_class : annotate_position {};
struct import_decl_class : annotate_position {};
struct option_decl_class : annotate_position {};
struct const_decl_class : annotate_position {};
struct enumerator_class : annotate_position {};
struct enum_decl_class : annotate_position {};
struct flags_decl_class : annotate_position {};
struct struct_decl_class : annotate_position {};
struct declaration_class : report_expectation {};

// Rule names are what "expected ..." messages say.
const x3::rule<identifier_class, ast::Identifier> identifier = "a name";
const x3::rule<field_name_class, ast::Identifier> field_name = "a field name";
const x3::rule<qualified_name_class, ast::QualifiedName> qualified_name = "a name";
const x3::rule<number_class, ast::NumberLiteral> number = "a number";
const x3::rule<bool_literal_class, ast::BoolLiteral> bool_literal = "true or false";
const x3::rule<string_literal_class, ast::StringLiteral> string_literal = "a string literal";
const x3::rule<primary_class, tree::Primary> primary = "a number, a name or '('";
const x3::rule<paren_expr_class, tree::Expr> paren_expr = "'('";
const x3::rule<unary_class, tree::Unary> unary = "an expression";
const x3::rule<operation_class, tree::Operation> operation = "an operator";
const x3::rule<expr_class, tree::Expr> expr = "an expression";
const x3::rule<type_param_class, tree::TypeParam> type_param = "a type parameter such as `res 0.01`";
const x3::rule<type_args_class, tree::TypeArgs> type_args = "'<'";
const x3::rule<type_expr_class, tree::TypeExpr> type_expr = "a type";
const x3::rule<dims_class, tree::Dims> dims = "'['";
const x3::rule<default_value_class, tree::DefaultValue> default_value = "a default value";
const x3::rule<field_class, tree::Field> field = "a field";
const x3::rule<directive_class, ast::Directive> directive = "a directive";
const x3::rule<wire_item_class, tree::WireItem> wire_item = "`const(value, bits);` or `reserved(bits);`";
const x3::rule<comparison_class, ast::Comparison> comparison = "'==' or '!='";
const x3::rule<condition_class, tree::Condition> condition =
    "a condition (a bool field, `!field` or `field == Value`)";
const x3::rule<if_block_class, tree::IfBlock> if_block = "an if block";
const x3::rule<item_class, tree::Item> item = "a field";
const x3::rule<block_class, std::vector<tree::Item>> block = "'{'";
const x3::rule<block_end_class> block_end = "a field, `if`, `align`, `check`, `const(`, `reserved(` or '}'";
const x3::rule<list_end_class> list_end = "',' or '}'";
const x3::rule<package_decl_class, ast::PackageDecl> package_decl = "a package declaration";
const x3::rule<import_decl_class, ast::ImportDecl> import_decl = "an import";
const x3::rule<option_decl_class, tree::OptionDecl> option_decl = "an option";
const x3::rule<const_decl_class, tree::ConstDecl> const_decl = "a constant";
const x3::rule<enumerator_class, tree::Enumerator> enumerator = "an enumerator";
const x3::rule<enum_decl_class, tree::EnumDecl> enum_decl = "an enum";
const x3::rule<flags_decl_class, ast::FlagsDecl> flags_decl = "a flag set";
const x3::rule<struct_decl_class, tree::StructDecl> struct_decl = "a struct or message";
const x3::rule<declaration_class, tree::Declaration> declaration = "a declaration";

const auto identifier_def = lexeme[!keyword >> ident_start >> *ident_char];
const auto field_name_def = identifier;
const auto qualified_name_def = identifier % '.';

const auto digits = x3::char_("0-9") >> *x3::char_("0-9_");
const auto hex_number = x3::char_('0') >> x3::char_("xX") >> +x3::char_("0-9a-fA-F_");
const auto decimal_number = digits >> -(x3::char_('.') >> digits) >>
                            -(x3::char_("eE") >> -x3::char_("+-") >> digits);
const auto number_def = x3::raw[lexeme[(hex_number | decimal_number) >> word_end]];
const auto bool_literal_def = x3::raw[kw_true | kw_false];
const auto string_literal_def =
    x3::raw[lexeme['"' >> *((lit('\\') >> (x3::char_ - '\n')) | (x3::char_ - '"' - '\\' - '\n')) >> '"']];

const auto primary_def = number | bool_literal | qualified_name | paren_expr;
const auto paren_expr_def = '(' > expr > ')';
const auto unary_def = *x3::char_("-+") >> primary;
const auto operation_def = x3::char_("-+*/%") > unary;
const auto expr_def = unary >> *operation;

const auto type_param_def = identifier > expr;
const auto type_args_def = '<' > expr > -(lit("..") > expr) > *(',' > type_param) > '>';
const auto type_expr_def = qualified_name >> -type_args >> -(':' > expr) >> -('[' > expr > ']');
const auto dims_def = '[' > expr > -(lit("..") > expr) > ']';
const auto default_value_def = string_literal | expr;

// A field's type may be named like a contextual keyword (`message m;`), but not when the words ahead read
// as a declaration (`message Next {` after a struct whose '}' is missing): then the struct's missing '}'
// is reported, not a malformed field.
const auto declaration_ahead = (kw_message >> identifier >> (lit('{') | kw_block | kw_budget)) |
                               (kw_flags >> identifier >> lit('{'));
const auto field_def = (x3::matches[kw_sparse] >> !declaration_ahead >> type_expr) > field_name > -dims > x3::matches['?'] >
                       -('=' > default_value) > ';';
const auto directive_def = x3::raw[kw_align | kw_check];
const auto comparison_def = (x3::string("==") | x3::string("!=")) > qualified_name;
const auto condition_def = x3::matches['!'] >> qualified_name >> -comparison;
const auto if_block_def = kw_if > '(' > condition > ')' > block >
                          -(kw_else > ((&kw_if >> x3::repeat(1)[item]) | block));
// `reserved` is contextual: followed by '(' it is reserved bits, otherwise a name (`reserved r;` is a
// field of a type named reserved).
const auto wire_item_def = (lexeme[(x3::string("const") | x3::string("reserved")) >> word_end] >> '(') > expr >
                           -(',' > expr) > ')' > ';';
const auto item_def = if_block | (directive > ';') | wire_item | field;
const auto block_def = '{' > *item > block_end;
const auto block_end_def = lit('}');
const auto list_end_def = lit('}');

const auto package_decl_def = kw_package > (identifier % '.') > ';';
const auto import_decl_def = kw_import > string_literal > ';';
const auto option_decl_def = kw_option > identifier > '=' > expr > ';';
const auto const_decl_def = kw_const > identifier > '=' > expr > ';';
const auto enumerator_def = identifier >> -('=' > expr);
const auto enum_decl_def = kw_enum > identifier > -(':' > identifier) > -(kw_enum_max > expr) > '{' > -(enumerator % ',') >
                           -lit(',') > list_end;
const auto flags_decl_def = kw_flags > identifier > '{' > -(identifier % ',') > -lit(',') > list_end;
const auto struct_decl_def = (x3::matches[kw_delta >> &(kw_message | kw_struct)] >>
                              ((kw_message >> x3::attr(true)) | (kw_struct >> x3::attr(false)))) > identifier >
                             x3::matches[kw_block] > -(kw_budget > expr) > block;
const auto declaration_def =
    package_decl | import_decl | option_decl | const_decl | enum_decl | flags_decl | struct_decl;

BOOST_SPIRIT_DEFINE(identifier, field_name, qualified_name, number, bool_literal, string_literal, primary,
                    paren_expr, unary, operation, expr, type_param, type_args, type_expr, dims, default_value,
                    field, directive, wire_item, comparison, condition, if_block, item, block, block_end, list_end,
                    package_decl, import_decl, option_decl, const_decl, enumerator, enum_decl, flags_decl,
                    struct_decl, declaration)

}  // namespace grammar

}  // namespace idlc::parser

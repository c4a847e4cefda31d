// The parse driver: runs the X3 grammar one declaration at a time, turns failures into diagnostics and
// recovers at the next declaration keyword, so every syntax error of a file is reported in one run.
#include "frontend/parser.hpp"

#include <algorithm>
#include <cctype>
#include <type_traits>
#include <utility>
#include <vector>

#include "frontend/lexical.hpp"
#include "frontend/names.hpp"
#include "frontend/parser_def.hpp"

namespace idlc {

namespace {

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string word_at(const std::string& text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size() && is_word_char(text[end])) ++end;
  return text.substr(at, end - at);
}

// True when a declaration starts at `at`. `message` and `flags` are contextual (a field may have a type
// or a name spelt so), so they count only when a name and what follows a declaration's name come next
// (`message M {`, `message M block`, `message M budget`, `flags F {`); the other declaration keywords
// always do.
bool is_declaration_keyword(const std::string& text, std::size_t at, std::size_t end) {
  static const char* const kKeywords[] = {"package", "import", "option", "const",
                                          "enum",    "flags",  "struct", "message"};
  if (at > 0 && is_word_char(text[at - 1])) return false;
  std::size_t word_end = at;
  while (word_end < end && is_word_char(text[word_end])) ++word_end;
  const std::string word = text.substr(at, word_end - at);
  bool keyword = false;
  for (const char* candidate : kKeywords) keyword = keyword || word == candidate;
  if (!keyword) return false;
  if (word != "message" && word != "flags") return true;
  const std::uint32_t name = next_token_offset(text, static_cast<std::uint32_t>(word_end));
  if (name >= text.size() || !is_word_char(text[name])) return false;
  const std::uint32_t after =
      next_token_offset(text, name + static_cast<std::uint32_t>(word_at(text, name).size()));
  if (after >= text.size()) return false;
  if (text[after] == '{') return true;
  const std::string next = word_at(text, after);
  return word == "message" && (next == "block" || next == "budget");
}

// The offset of the first declaration keyword at or after `from` (outside comments and string
// literals), or the end of the text.
std::size_t recovery_point(const std::string& text, std::size_t from) {
  const std::size_t n = text.size();
  std::size_t i = from;
  // Never resume in the middle of a word.
  while (i > 0 && i < n && is_word_char(text[i - 1]) && is_word_char(text[i])) ++i;
  while (i < n) {
    char c = text[i];
    if (text.compare(i, 2, "//") == 0) {
      while (i < n && text[i] != '\n') ++i;
    } else if (text.compare(i, 2, "/*") == 0) {
      std::size_t close = text.find("*/", i + 2);
      i = close == std::string::npos ? n : close + 2;
    } else if (c == '"') {
      ++i;
      while (i < n && text[i] != '"' && text[i] != '\n') i += (text[i] == '\\' && i + 1 < n) ? 2 : 1;
      if (i < n) ++i;
    } else if (is_word_char(c)) {
      if (is_declaration_keyword(text, i, n)) return i;
      while (i < n && is_word_char(text[i])) ++i;
    } else {
      ++i;
    }
  }
  return n;
}

// X3 describes literals as '"..."'; diagnostics quote every token with single quotes.
std::string describe_expected(const std::string& which) {
  if (which.size() >= 2 && which.front() == '"' && which.back() == '"') {
    return "'" + which.substr(1, which.size() - 2) + "'";
  }
  return which;
}

std::string describe_found(const std::string& text, std::uint32_t offset) {
  std::uint32_t length = token_length(text, offset);
  if (length == 0) return "the end of the file";
  if (length > 40) length = 40;
  std::string token;
  for (std::uint32_t i = 0; i < length; ++i) {
    char c = text[offset + i];
    token += (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) ? '?' : c;
  }
  return "'" + token + "'";
}

// The end of the last token that starts at or after `from` and before `before`, or `from` when there is
// none.
std::uint32_t previous_token_end(const std::string& text, std::uint32_t from, std::uint32_t before) {
  std::uint32_t end = from;
  std::uint32_t position = from;
  while (true) {
    std::uint32_t token = next_token_offset(text, position);
    if (token >= before || token >= text.size()) break;
    std::uint32_t length = std::max<std::uint32_t>(token_length(text, token), 1);
    end = token + length;
    position = end;
  }
  return end;
}

// The innermost '{' opened at or after `from` and not closed before `before`, if any.
std::optional<std::uint32_t> unclosed_brace(const std::string& text, std::uint32_t from,
                                            std::uint32_t before) {
  std::vector<std::uint32_t> open;
  std::uint32_t position = from;
  while (true) {
    std::uint32_t token = next_token_offset(text, position);
    if (token >= before || token >= text.size()) break;
    if (text[token] == '{') open.push_back(token);
    if (text[token] == '}' && !open.empty()) open.pop_back();
    position = token + std::max<std::uint32_t>(token_length(text, token), 1);
  }
  if (open.empty()) return std::nullopt;
  return open.back();
}

// A declaration keyword within two edits of `word`, for "did you mean".
std::string close_keyword(const std::string& word) {
  static const char* const kKeywords[] = {"package", "import", "option", "const",
                                          "enum",    "flags",  "struct", "message"};
  if (word.size() > 16) return {};
  for (const char* keyword : kKeywords) {
    if (edit_distance(word, keyword, 2) <= 2 && word.size() >= 3) return keyword;
  }
  return {};
}

// The grammar's tree (boost::optional, x3::variant) converted to ast.hpp's standard types: the frontend's
// boundary, so no Boost type reaches the checker. Recursion (parenthesized expressions, nested ifs) is
// bounded by the grammar's own nesting limits, which the parse has already enforced.
namespace convert {

namespace tree = parser::tree;

ast::Expr expr(const tree::Expr& in);
std::vector<ast::Item> items(const std::vector<tree::Item>& in);

template <typename Out, typename In, typename F>
std::optional<Out> optional(const boost::optional<In>& in, F convert) {
  if (!in) return std::nullopt;
  return convert(*in);
}

std::optional<ast::Expr> optional_expr(const boost::optional<tree::Expr>& in) {
  return optional<ast::Expr>(in, [](const tree::Expr& e) { return expr(e); });
}

ast::Primary primary(const tree::Primary& in) {
  ast::Primary out{boost::apply_visitor(
      [](const auto& node) -> decltype(ast::Primary::value) {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<T, boost::spirit::x3::forward_ast<tree::Expr>>) {
          return ast::Box<ast::Expr>(expr(node.get()));
        } else {
          return node;
        }
      },
      in.get())};
  return out;
}

ast::Unary unary(const tree::Unary& in) {
  ast::Unary out;
  out.offset = in.offset;
  out.signs = in.signs;
  out.operand = primary(in.operand);
  return out;
}

ast::Expr expr(const tree::Expr& in) {
  ast::Expr out;
  out.offset = in.offset;
  out.first = unary(in.first);
  for (const tree::Operation& operation : in.rest) {
    ast::Operation& o = out.rest.emplace_back();
    o.offset = operation.offset;
    o.op = operation.op;
    o.operand = unary(operation.operand);
  }
  return out;
}

ast::TypeExpr type_expr(const tree::TypeExpr& in) {
  ast::TypeExpr out;
  out.offset = in.offset;
  out.name = in.name;
  out.args = optional<ast::TypeArgs>(in.args, [](const tree::TypeArgs& args) {
    ast::TypeArgs a;
    a.offset = args.offset;
    a.first = expr(args.first);
    a.last = optional_expr(args.last);
    for (const tree::TypeParam& param : args.params) {
      ast::TypeParam& p = a.params.emplace_back();
      p.offset = param.offset;
      p.key = param.key;
      p.value = expr(param.value);
    }
    return a;
  });
  out.width = optional_expr(in.width);
  out.block_length = optional_expr(in.block_length);
  return out;
}

ast::Field field(const tree::Field& in) {
  ast::Field out;
  out.offset = in.offset;
  out.sparse = in.sparse;
  out.type = type_expr(in.type);
  out.name = in.name;
  out.dims = optional<ast::Dims>(in.dims, [](const tree::Dims& dims) {
    ast::Dims d;
    d.offset = dims.offset;
    d.first = expr(dims.first);
    d.last = optional_expr(dims.last);
    return d;
  });
  out.optional = in.optional;
  out.default_value = optional<ast::DefaultValue>(in.default_value, [](const tree::DefaultValue& value) {
    if (const auto* e = boost::get<tree::Expr>(&value.get())) return ast::DefaultValue{expr(*e)};
    return ast::DefaultValue{boost::get<ast::StringLiteral>(value.get())};
  });
  return out;
}

ast::IfBlock if_block(const tree::IfBlock& in) {
  ast::IfBlock out;
  out.offset = in.offset;
  out.condition.offset = in.condition.offset;
  out.condition.negated = in.condition.negated;
  out.condition.subject = in.condition.subject;
  if (in.condition.comparison) out.condition.comparison = *in.condition.comparison;
  out.then_items = items(in.then_items);
  out.else_items = items(in.else_items);
  return out;
}

std::vector<ast::Item> items(const std::vector<tree::Item>& in) {
  std::vector<ast::Item> out;
  out.reserve(in.size());
  for (const tree::Item& item : in) {
    out.push_back(boost::apply_visitor(
        [](const auto& node) -> ast::Item {
          using T = std::decay_t<decltype(node)>;
          if constexpr (std::is_same_v<T, tree::Field>) {
            return {field(node)};
          } else if constexpr (std::is_same_v<T, ast::Directive>) {
            return {node};
          } else if constexpr (std::is_same_v<T, tree::WireItem>) {
            ast::WireItem w;
            w.offset = node.offset;
            w.keyword = node.keyword;
            w.first = expr(node.first);
            w.second = optional_expr(node.second);
            return {std::move(w)};
          } else {
            return {ast::Box<ast::IfBlock>(if_block(node.get()))};
          }
        },
        item.get()));
  }
  return out;
}

ast::Declaration declaration(const tree::Declaration& in) {
  return boost::apply_visitor(
      [](const auto& node) -> ast::Declaration {
        using T = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<T, ast::PackageDecl> || std::is_same_v<T, ast::ImportDecl> ||
                      std::is_same_v<T, ast::FlagsDecl>) {
          return {node};
        } else if constexpr (std::is_same_v<T, tree::OptionDecl>) {
          ast::OptionDecl o;
          o.offset = node.offset;
          o.key = node.key;
          o.value = expr(node.value);
          return {std::move(o)};
        } else if constexpr (std::is_same_v<T, tree::ConstDecl>) {
          ast::ConstDecl c;
          c.offset = node.offset;
          c.name = node.name;
          c.value = expr(node.value);
          return {std::move(c)};
        } else if constexpr (std::is_same_v<T, tree::EnumDecl>) {
          ast::EnumDecl e;
          e.offset = node.offset;
          e.name = node.name;
          if (node.storage) e.storage = *node.storage;
          e.wire_max = optional_expr(node.wire_max);
          for (const tree::Enumerator& item : node.items) {
            ast::Enumerator& en = e.items.emplace_back();
            en.offset = item.offset;
            en.name = item.name;
            en.value = optional_expr(item.value);
          }
          return {std::move(e)};
        } else {
          ast::StructDecl s;
          s.offset = node.offset;
          s.is_delta = node.is_delta;
          s.is_message = node.is_message;
          s.name = node.name;
          s.has_block = node.has_block;
          s.budget = optional_expr(node.budget);
          s.items = items(node.items);
          return {std::move(s)};
        }
      },
      in.get());
}

}  // namespace convert

}  // namespace

std::optional<ast::File> parse(const SourceFile& file, Diagnostics& diagnostics) {
  namespace x3 = boost::spirit::x3;
  LexicalScan scan = scan_source(file, diagnostics);
  if (!scan.ok) return std::nullopt;

  const std::string& text = file.text;
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  parser::ParseState state;
  state.begin = begin;
  const auto declaration = x3::with<parser::state_tag>(&state)[parser::grammar::declaration];

  ast::File result;
  result.docs = std::move(scan.docs);
  bool had_error = false;
  std::size_t position = 0;
  while (true) {
    position = next_token_offset(text, static_cast<std::uint32_t>(position));
    if (position >= text.size()) break;
    // A lone unterminated block comment is the only thing next_token_offset stops at without a token;
    // the lexical pass has rejected those already.
    const char* it = begin + position;
    state.failed = false;
    parser::tree::Declaration declaration_node;
    bool ok = x3::phrase_parse(it, end, declaration, parser::grammar::skipper, declaration_node);
    if (ok) {
      result.declarations.push_back(convert::declaration(declaration_node));
      position = static_cast<std::size_t>(it - begin);
      continue;
    }
    had_error = true;
    std::uint32_t where;
    std::string message;
    std::optional<std::uint32_t> open_brace;
    std::optional<FixIt> fixit;  // what a "did you mean" means, for editors
    if (state.failed) {
      where = next_token_offset(text, state.fail_offset);
      const std::string expected = describe_expected(state.expected);
      const std::string found = describe_found(text, where);
      message = "expected " + expected + ", found " + found;
      const auto start = static_cast<std::uint32_t>(position);
      if (expected == "';'") {
        // The ';' belongs right after the previous token, usually on the line before the one found.
        std::uint32_t after = previous_token_end(text, start, where);
        if (after < where) {
          std::uint32_t previous = start;
          for (std::uint32_t t = next_token_offset(text, start); t < after;
               t = next_token_offset(text, t + std::max<std::uint32_t>(token_length(text, t), 1))) {
            previous = t;
          }
          message = "expected ';' after '" + text.substr(previous, after - previous) + "', found " + found;
          where = after;
        }
      } else if (expected == "'{'" && text.compare(where, 5, "block") == 0 &&
                 token_length(text, where) == 5) {
        message += ": `block` comes right after the message name: message Name block budget N { ... }";
      } else if (expected == "an expression" && where >= 2 && where < text.size() && text[where] == '.' &&
                 text[where - 1] == '.' && text[where - 2] == '.') {
        message += ": a range has two dots: <min .. max>";
        fixit = FixIt{where, 1, ""};
      } else if (expected == "a type parameter such as `res 0.01`" && where < text.size() &&
                 (std::isdigit(static_cast<unsigned char>(text[where])) != 0 || text[where] == '-')) {
        message += ": a range is written <min .. max>, not <min, max>";
      } else if (expected == "a name" &&
                 (text.compare(where, 4, "true") == 0 || text.compare(where, 5, "false") == 0)) {
        // `if (alive == true)`: the subject is the identifier before the == or !=.
        std::size_t at = where;
        while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
        if (at >= 2 && (text.compare(at - 2, 2, "==") == 0 || text.compare(at - 2, 2, "!=") == 0)) {
          at -= 2;
          while (at > 0 && (text[at - 1] == ' ' || text[at - 1] == '\t')) --at;
          std::size_t start = at;
          while (start > 0 && is_word_char(text[start - 1])) --start;
          const std::string subject = text.substr(start, at - start);
          if (!subject.empty()) {
            message += ": test a bool field as `if (" + subject + ")` or `if (!" + subject + ")`";
          }
        }
      } else if (expected == "')'" && where < text.size() && text[where] == '=' &&
                 (where + 1 >= text.size() || text[where + 1] != '=')) {
        message += ": did you mean '=='? (a condition compares with == or !=)";
        fixit = FixIt{where, 1, "=="};
      }
      if (expected.find("'}'") != std::string::npos &&
          (where >= text.size() || is_declaration_keyword(text, where, text.size()))) {
        open_brace = unclosed_brace(text, start, where);
      }
    } else {
      where = static_cast<std::uint32_t>(position);
      message =
          "expected a declaration (package, import, option, const, enum, flags, struct or message), found " +
          describe_found(text, where);
      const std::string word = text.substr(where, token_length(text, where));
      if (std::string keyword = close_keyword(word); !keyword.empty() && is_word_char(word[0])) {
        message += ": did you mean '" + keyword + "'?";
        fixit = FixIt{where, static_cast<std::uint32_t>(word.size()), keyword};
      } else if (word == ";") {
        std::uint32_t after = where;
        while (after > 0 && (text[after - 1] == ' ' || text[after - 1] == '\t')) --after;
        if (after > 0 && text[after - 1] == '}') {
          message =
              "unexpected ';' after '}': a declaration ends at its closing '}' (no ';' as in C++): remove it";
          fixit = FixIt{where, 1, ""};
        }
      }
    }
    diagnostics.error(file, where, token_length(text, where), std::move(message));
    if (fixit) diagnostics.fix(fixit->offset, fixit->length, std::move(fixit->replacement));
    if (open_brace) diagnostics.note(file, *open_brace, 1, "this '{' is not closed: add the missing '}'");
    position = recovery_point(text, std::max<std::size_t>(where, position + 1));
  }
  if (had_error) return std::nullopt;
  return result;
}

}  // namespace idlc

// Constant expressions and name lookup.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>
#include <utility>

#include "check/checker.hpp"
#include "frontend/lexical.hpp"
#include "frontend/names.hpp"

namespace idlc::detail {

namespace {

constexpr Int kInt64Min = std::numeric_limits<std::int64_t>::min();

// Parses a decimal or 0x hex literal with '_' separators. False when it exceeds 127 bits.
bool parse_integer_literal(const std::string& text, Int& value) {
  const Int limit = std::numeric_limits<Int>::max();
  int base = 10;
  std::size_t i = 0;
  if (text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    i = 2;
  }
  value = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '_') continue;
    int digit = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10;
    if (value > (limit - digit) / base) return false;
    value = value * base + digit;
  }
  return true;
}

std::string without_separators(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c != '_') out += c;
  }
  return out;
}

// `digits` (decimal, no leading zero, not zero) divided by a small `divisor` in place; false (digits
// unchanged) when the division leaves a remainder.
bool divide_exactly(std::string& digits, unsigned divisor) {
  std::string quotient;
  unsigned remainder = 0;
  for (char c : digits) {
    remainder = remainder * 10 + static_cast<unsigned>(c - '0');
    const unsigned q = remainder / divisor;
    remainder %= divisor;
    if (!quotient.empty() || q != 0) quotient += static_cast<char>('0' + q);
  }
  if (remainder != 0) return false;
  digits = std::move(quotient);
  return true;
}

// `digits` (decimal) times 2^shift as an unsigned 128-bit magnitude; false when it passes 2^128 - 1.
bool magnitude_of(const std::string& digits, int shift, unsigned __int128& out) {
  unsigned __int128 value = 0;
  for (char c : digits) {
    if (__builtin_mul_overflow(value, 10u, &value) ||
        __builtin_add_overflow(value, static_cast<unsigned>(c - '0'), &value)) {
      return false;
    }
  }
  if (shift > 0 && value != 0 && value > (~static_cast<unsigned __int128>(0) >> shift)) return false;
  out = value << shift;
  return true;
}

}  // namespace

bool is_float_literal(const std::string& text) {
  if (text.size() > 1 && (text[1] == 'x' || text[1] == 'X')) return false;
  return text.find_first_of(".eE") != std::string::npos;
}

std::string shown_literal(const std::string& text) {
  if (text.size() <= 64) return text;
  return text.substr(0, 40) + "... (" + std::to_string(text.size()) + " characters)";
}

FixedRaw decimal_fixed_raw(const std::string& literal, bool negative, int fraction_bits, Int& raw) {
  // literal = digits x 10^exponent, read off the text: the digits of both parts, the exponent less the
  // fraction's length, plus the trailing zeros dropped. Those two move it by at most the literal's length,
  // so the written exponent saturates at that length + 1000: a saturated one still ends at least 1000 from
  // zero, past any that changes the answer below (past 40 digits, or past frac 126), and the sum stays
  // far inside 64 bits.
  const auto cap = static_cast<std::int64_t>(literal.size()) + 1000;
  std::string digits;
  std::int64_t exponent = 0;
  std::int64_t fraction_digits = 0;
  bool point = false;
  std::size_t i = 0;
  for (; i < literal.size() && literal[i] != 'e' && literal[i] != 'E'; ++i) {
    const char c = literal[i];
    if (c == '.') {
      point = true;
    } else if (c >= '0' && c <= '9') {
      digits += c;
      if (point) ++fraction_digits;
    }
  }
  if (i < literal.size()) {
    bool exponent_negative = false;
    for (++i; i < literal.size(); ++i) {
      const char c = literal[i];
      if (c == '-') exponent_negative = true;
      if (c >= '0' && c <= '9') exponent = std::min<std::int64_t>(exponent * 10 + (c - '0'), cap);
    }
    if (exponent_negative) exponent = -exponent;
  }
  exponent -= fraction_digits;
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (digits.empty()) {
    raw = 0;
    return FixedRaw::kExact;
  }
  while (digits.back() == '0') {
    digits.pop_back();
    ++exponent;
  }
  // raw = digits x 10^exponent x 2^F = digits x 5^exponent x 2^(exponent + F).
  int shift = fraction_bits;
  if (exponent >= 0) {
    if (static_cast<std::int64_t>(digits.size()) + exponent > 40) return FixedRaw::kTooLarge;
    digits.append(static_cast<std::size_t>(exponent), '0');
  } else {
    // 10^k (k = -exponent) must divide digits x 2^F. With k > F that needs 2^(k - F) and 5^k, so 10, to
    // divide digits, whose last digit is not 0: never. So k <= F <= 126, and 5^k must divide digits; past
    // k + 40 digits the value is at least 10^40, past 128 bits. Both bounds keep the work at most 126
    // divisions of at most 166 digits, whatever the literal's length.
    const std::int64_t k = -exponent;
    if (k > fraction_bits) return FixedRaw::kNotExact;
    if (static_cast<std::int64_t>(digits.size()) > k + 40) return FixedRaw::kTooLarge;
    for (std::int64_t n = 0; n < k; ++n) {
      if (!divide_exactly(digits, 5)) return FixedRaw::kNotExact;
    }
    shift = fraction_bits - static_cast<int>(k);
  }
  unsigned __int128 magnitude = 0;
  if (!magnitude_of(digits, shift, magnitude)) return FixedRaw::kTooLarge;
  const unsigned __int128 limit = (static_cast<unsigned __int128>(1) << 127) - (negative ? 0 : 1);
  if (magnitude > limit) return FixedRaw::kTooLarge;
  raw = static_cast<Int>(negative ? ~magnitude + 1 : magnitude);  // two's complement: -2^127 included
  return FixedRaw::kExact;
}

// ---------------------------------------------------------------------------------------------------
// Numeric helpers shared by the checker

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<std::uint64_t>::max() : r;
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<std::uint64_t>::max() : r;
}

Cost operator+(const Cost& a, const Cost& b) {
  return Cost{saturating_add(a.min, b.min), saturating_add(a.max, b.max),
              saturating_add(a.max_without_checks, b.max_without_checks)};
}

std::string to_string(Int value) {
  if (value == 0) return "0";
  bool negative = value < 0;
  std::string digits;
  while (value != 0) {
    int digit = static_cast<int>(value % 10);
    digits += static_cast<char>('0' + (negative ? -digit : digit));
    value /= 10;
  }
  if (negative) digits += '-';
  return std::string(digits.rbegin(), digits.rend());
}

Int storage_min(model::IntStorage storage) {
  return storage.is_signed ? -(Int(1) << (storage.bits - 1)) : 0;
}

Int storage_max(model::IntStorage storage) {
  return storage.is_signed ? (Int(1) << (storage.bits - 1)) - 1 : (Int(1) << storage.bits) - 1;
}

std::string storage_name(model::IntStorage storage) {
  return (storage.is_signed ? "int" : "uint") + std::to_string(storage.bits);
}

model::IntStorage smallest_storage(Int min, Int max, bool want_signed) {
  bool is_signed = want_signed || min < 0;
  for (int bits : {8, 16, 32, 64}) {
    model::IntStorage storage{is_signed, bits};
    if (min >= storage_min(storage) && max <= storage_max(storage)) return storage;
  }
  return model::IntStorage{is_signed, 64};
}

std::optional<model::IntStorage> storage_by_name(const std::string& name) {
  for (bool is_signed : {true, false}) {
    for (int bits : {8, 16, 32, 64}) {
      model::IntStorage storage{is_signed, bits};
      if (name == storage_name(storage)) return storage;
    }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------------
// Name lookup

Symbol* Checker::find_symbol(const ast::QualifiedName& name, std::size_t parts, Scope& scope,
                             const char* what) {
  const ast::Identifier& last = name[parts - 1];
  if (parts == 1) {
    if (auto it = scope.by_name.find(last); it != scope.by_name.end()) return it->second;
    Symbol* found = nullptr;
    const Scope* found_in = nullptr;
    for (Scope* imported : scope.imports) {
      auto it = imported->by_name.find(last);
      if (it == imported->by_name.end()) continue;
      if (found != nullptr) {
        if (what != nullptr) {
          error(scope, last.offset,
                "'" + last + "' is declared by both package " + found_in->package->name + " and package " +
                    imported->package->name + ": qualify it, e.g. " + imported->package->name + "." + last);
        }
        return nullptr;
      }
      found = it->second;
      found_in = imported;
    }
    if (found == nullptr && what != nullptr) {
      std::string message = "unknown " + std::string(what) + " '" + last + "'";
      std::string fix;  // the suggestion, as a fix-it
      // Suggest a close name when the search is cheap.
      if (last.size() <= 64 && scope.symbols.size() <= 4096) {
        // Short names are close to too many others: one edit for up to four characters.
        const std::size_t limit = last.size() <= 4 ? 1 : 2;
        std::size_t best = limit + 1;
        std::string suggestion;
        auto consider = [&](const std::string& candidate) {
          std::size_t d = edit_distance(last, candidate, limit);
          if (d < best) {
            best = d;
            suggestion = candidate;
          }
        };
        // Built-in type names first, then this package's declarations (an exact tie keeps the first).
        if (std::string_view(what) == "type") {
          for (const char* builtin :
               {"bool", "int", "uint", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "int128", "uint128", "float", "double", "fixed", "string", "bytes"}) {
            consider(builtin);
          }
        }
        for (const Symbol& symbol : scope.symbols) consider(symbol.name);
        for (const Scope* imported : scope.imports) {
          if (imported->symbols.size() > 4096) continue;
          for (const Symbol& symbol : imported->symbols) consider(symbol.name);
        }
        if (!suggestion.empty()) message += ": did you mean '" + suggestion + "'?";
        fix = suggestion;
      }
      if (message.back() != '?')
        message += ": declare it, import the file that declares it, or fix the spelling";
      error(scope, last.offset, std::move(message));
      if (!fix.empty()) diagnostics_.fix(last.offset, static_cast<std::uint32_t>(last.size()), fix);
    }
    return found;
  }
  std::string package;
  for (std::size_t i = 0; i + 1 < parts; ++i) package += (i ? "." : "") + name[i];
  Scope* target = nullptr;
  if (package == scope.package->name) target = &scope;
  for (Scope* imported : scope.imports) {
    if (imported->package->name == package) target = imported;
  }
  if (target == nullptr) {
    if (what != nullptr) {
      error(scope, name.offset,
            "unknown package '" + package + "' in '" + package + "." + last +
                "': import the file that declares it (only directly imported packages are visible)");
    }
    return nullptr;
  }
  if (auto it = target->by_name.find(last); it != target->by_name.end()) return it->second;
  if (what != nullptr) {
    error(scope, last.offset, "package " + package + " has no " + what + " '" + last + "'");
  }
  return nullptr;
}

// ---------------------------------------------------------------------------------------------------
// Evaluation

std::optional<Int> Checker::eval_name(const ast::QualifiedName& name, Scope& scope) {
  if (name.size() >= 2) {
    // Enum.Value, Enum.count, Flags.Flag, Flags.count (the owner possibly package-qualified).
    Symbol* owner = find_symbol(name, name.size() - 1, scope, nullptr);
    if (owner != nullptr) {
      const ast::Identifier& member = name.back();
      if (owner->kind != model::DeclKind::Enum && owner->kind != model::DeclKind::Flags) {
        error(scope, member.offset,
              "'" + owner->name + "' is not an enum or flag set, so it has no member '" + member + "'");
        return std::nullopt;
      }
      if (!resolve(*owner, &scope, name.offset)) return std::nullopt;
      const model::Package& package = *owner->scope->package;
      if (owner->kind == model::DeclKind::Enum) {
        const model::Enum& e = package.enums[owner->index];
        if (member == "count") return static_cast<Int>(e.items.size());
        for (const auto& item : e.items) {
          if (item.name == member) return item.value;
        }
      } else {
        const model::Flags& f = package.flags[owner->index];
        if (member == "count") return static_cast<Int>(f.items.size());
        for (const auto& item : f.items) {
          if (item.name == member) return Int(1) << item.bit;
        }
      }
      error(scope, member.offset,
            "'" + owner->name + "' has no value '" + member + "' (its members are its values and `count`)");
      return std::nullopt;
    }
  }
  Symbol* symbol = find_symbol(name, name.size(), scope, "constant");
  if (symbol == nullptr) return std::nullopt;
  if (symbol->kind != model::DeclKind::Constant) {
    std::string hint = symbol->kind == model::DeclKind::Enum || symbol->kind == model::DeclKind::Flags
                           ? ": use " + symbol->name + ".count for its number of values"
                           : "";
    error(scope, name.back().offset, "'" + symbol->name + "' is a type, not a constant" + hint);
    return std::nullopt;
  }
  if (!resolve(*symbol, &scope, name.back().offset)) return std::nullopt;
  return symbol->scope->package->constants[symbol->index].value;
}

std::optional<Int> Checker::eval_unary(const ast::Unary& unary, Scope& scope) {
  std::optional<Int> value;
  const ast::Primary& primary = unary.operand;
  if (const auto* number = get_if<ast::NumberLiteral>(primary)) {
    if (is_float_literal(*number)) {
      error(scope, number->offset,
            "expected an integer, found the floating-point number " + shown_literal(*number));
      return std::nullopt;
    }
    Int parsed;
    if (!parse_integer_literal(*number, parsed)) {
      error(scope, number->offset,
            "the number " + shown_literal(*number) +
                " is too large: integer literals are limited to 2^127 - 1 "
                "(170141183460469231731687303715884105727)");
      return std::nullopt;
    }
    value = parsed;
  } else if (const auto* boolean = get_if<ast::BoolLiteral>(primary)) {
    error(scope, boolean->offset, "expected an integer, found " + *boolean);
    return std::nullopt;
  } else if (const auto* name = get_if<ast::QualifiedName>(primary)) {
    value = eval_name(*name, scope);
  } else if (const auto* nested = get_if<ast::Box<ast::Expr>>(primary)) {
    value = eval_int(nested->get(), scope);
  }
  if (!value) return std::nullopt;
  // Signs apply innermost first.
  for (auto it = unary.signs.rbegin(); it != unary.signs.rend(); ++it) {
    if (*it == '-') {
      if (*value == std::numeric_limits<Int>::min()) {
        error(scope, unary.offset, "this negation overflows");
        return std::nullopt;
      }
      *value = -*value;
    }
  }
  return value;
}

std::optional<Int> Checker::eval_int(const ast::Expr& expr, Scope& scope) {
  // Two precedence levels, left to right: `sum` holds the finished additive part, `term` the running
  // multiplicative one.
  std::optional<Int> first = eval_unary(expr.first, scope);
  if (!first) return std::nullopt;
  Int sum = 0;
  char add_op = '+';
  Int term = *first;
  auto apply = [&](char op, Int a, Int b, std::uint32_t at) -> std::optional<Int> {
    Int r = 0;
    bool overflow = false;
    switch (op) {
      case '+':
        overflow = __builtin_add_overflow(a, b, &r);
        break;
      case '-':
        overflow = __builtin_sub_overflow(a, b, &r);
        break;
      case '*':
        overflow = __builtin_mul_overflow(a, b, &r);
        break;
      case '/':
      case '%':
        if (b == 0) {
          error(scope, at,
                std::string(op == '/' ? "division" : "remainder") +
                    " by zero in a constant expression: the divisor is 0");
          return std::nullopt;
        }
        if (a == std::numeric_limits<Int>::min() && b == -1) {
          overflow = true;
        } else {
          r = op == '/' ? a / b : a % b;
        }
        break;
      default:
        break;
    }
    if (overflow) {
      error(scope, at,
            "this constant expression overflows (" + to_string(a) + " " + op + " " + to_string(b) +
                " exceeds 128-bit arithmetic): " + overflow_advice_);
      return std::nullopt;
    }
    return r;
  };
  for (const ast::Operation& operation : expr.rest) {
    std::optional<Int> rhs = eval_unary(operation.operand, scope);
    if (!rhs) return std::nullopt;
    if (operation.op == '*' || operation.op == '/' || operation.op == '%') {
      std::optional<Int> r = apply(operation.op, term, *rhs, operation.offset);
      if (!r) return std::nullopt;
      term = *r;
    } else {
      std::optional<Int> r = apply(add_op, sum, term, operation.offset);
      if (!r) return std::nullopt;
      sum = *r;
      add_op = operation.op;
      term = *rhs;
    }
  }
  return apply(add_op, sum, term, expr.offset);
}

std::optional<std::int64_t> Checker::eval_int64(const ast::Expr& expr, Scope& scope,
                                                const std::string& what) {
  std::optional<Int> value = eval_int(expr, scope);
  if (!value) return std::nullopt;
  if (*value < kInt64Min || *value > kInt64Max) {
    error(scope, expr.offset,
          what + " is " + to_string(*value) + ", which overflows 64 bits (-9223372036854775808 .. " +
              "9223372036854775807)");
    return std::nullopt;
  }
  return static_cast<std::int64_t>(*value);
}

std::optional<Int> Checker::eval_bound(const ast::Expr& expr, Scope& scope, const std::string& what,
                                       bool may_be_unsigned) {
  if (!may_be_unsigned) {
    std::optional<std::int64_t> value = eval_int64(expr, scope, what);
    if (!value) return std::nullopt;
    return Int{*value};
  }
  std::optional<Int> value = eval_int(expr, scope);
  if (!value) return std::nullopt;
  const Int top = static_cast<Int>(std::numeric_limits<std::uint64_t>::max());
  if (*value < kInt64Min || *value > top) {
    error(scope, expr.offset,
          what + " is " + to_string(*value) + ", which overflows 64 bits (-9223372036854775808 .. " +
              "18446744073709551615 for an unsigned type)");
    return std::nullopt;
  }
  return value;
}

std::optional<double> Checker::eval_number(const ast::Expr& expr, Scope& scope) {
  if (expr.rest.empty()) {
    if (const auto* number = get_if<ast::NumberLiteral>(expr.first.operand)) {
      if (is_float_literal(*number)) {
        std::string text = without_separators(*number);
        double value = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc::result_out_of_range && end == text.data() + text.size()) {
          // Out of double's range one way or the other: strtod tells which (0 or a denormal below, HUGE_VAL
          // above).
          const double rounded = std::strtod(text.c_str(), nullptr);
          error(scope, number->offset,
                std::fabs(rounded) < 1
                    ? "the number " + shown_literal(*number) +
                          " underflows: it is nearer zero than any 64-bit float (the smallest is about "
                          "4.9e-324): "
                          "write 0 or a larger value"
                    : "the number " + shown_literal(*number) +
                          " overflows: the largest 64-bit float is about 1.8e308");
          return std::nullopt;
        }
        if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
          error(scope, number->offset,
                "the number " + shown_literal(*number) + " is not a finite floating-point value");
          return std::nullopt;
        }
        for (char sign : expr.first.signs) {
          if (sign == '-') value = -value;
        }
        return value;
      }
    }
  }
  std::optional<std::int64_t> value = eval_int64(expr, scope, "this value");
  if (!value) return std::nullopt;
  return static_cast<double>(*value);
}

}  // namespace idlc::detail

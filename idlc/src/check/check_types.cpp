// Field types: built-in types with their parameters, references to declared types, default values.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "bitwire/serialize/serialize.hpp"
#include "bitwire/serialize/utf8.hpp"
#include "check/checker.hpp"
#include "frontend/loader.hpp"
#include "frontend/names.hpp"

namespace idlc::detail {

namespace {

bool is_integer_name(const std::string& name) {
  return name == "int" || name == "uint" || storage_by_name(name).has_value();
}

// The range text used in messages: "0 .. 255".
std::string range_text(Int min, Int max) {
  return to_string(min) + " .. " + to_string(max);
}

// Three significant digits, for magnitudes.
std::string approximate(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

// The shortest decimal spelling that reads back as `value` (a double).
std::string format_number(double value) {
  char buffer[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

// The shortest decimal spelling that reads back as `value` in float32.
std::string shortest_float(float value) {
  char buffer[64];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, static_cast<double>(value));
    if (std::strtof(buffer, nullptr) == value) break;
  }
  return buffer;
}

// The wire's quantization of a compressed float: the runtime's own formula (bitwire/serialize/serialize.hpp).
std::uint32_t quantize(float value, const model::CompressedFloatType& c) {
  return bitwire::quantize_compressed_float(value, bitwire::compressed_float_params(c.min, c.max, c.resolution));
}

float dequantize(std::uint32_t integer, const model::CompressedFloatType& c) {
  return bitwire::dequantize_compressed_float(integer, bitwire::compressed_float_params(c.min, c.max, c.resolution));
}

}  // namespace

std::optional<model::Type> Checker::resolve_type(const ast::TypeExpr& type, Scope& scope) {
  if (type.name.size() == 1 && is_builtin_type_name(type.name.front())) {
    return builtin_type(type, type.name.front(), scope);
  }
  Symbol* symbol = find_symbol(type.name, type.name.size(), scope, "type");
  if (symbol == nullptr) return std::nullopt;
  if (symbol->kind == model::DeclKind::Constant) {
    error(scope, type.name.back().offset,
          "'" + symbol->name +
              "' is a constant, not a type: a field needs a built-in type, enum, flag set or struct");
    return std::nullopt;
  }
  if (type.args || type.width || type.block_length) {
    error(scope, type.args ? type.args->offset : type.width ? type.width->offset : type.block_length->offset,
          "'" + symbol->name + "' takes no parameters: only built-in types have ranges, widths or lengths");
    return std::nullopt;
  }
  if (cycle_edges_.count(&type) != 0) return std::nullopt;  // the cycle is reported already
  if (!resolve(*symbol, &scope, type.name.back().offset)) return std::nullopt;
  const model::Package& package = *symbol->scope->package;
  model::Type out;
  switch (symbol->kind) {
    case model::DeclKind::Enum: {
      out.kind = model::TypeKind::Enum;
      out.enumeration = &package.enums[symbol->index];
      auto bits = static_cast<std::uint64_t>(out.enumeration->bits);
      out.cost = {bits, bits};
      break;
    }
    case model::DeclKind::Flags: {
      out.kind = model::TypeKind::Flags;
      out.flags = &package.flags[symbol->index];
      auto bits = static_cast<std::uint64_t>(out.flags->bits);
      out.cost = {bits, bits};
      break;
    }
    case model::DeclKind::Struct:
      out.kind = model::TypeKind::Struct;
      out.structure = &package.structs[symbol->index];
      out.cost = out.structure->cost;
      break;
    case model::DeclKind::Constant:
      break;
  }
  return out;
}

std::optional<model::Type> Checker::builtin_type(const ast::TypeExpr& type, const std::string& name,
                                                 Scope& scope) {
  model::Type out;
  if (type.block_length) {
    if (!byte_block_type(type, name, scope, out)) return std::nullopt;
    return out;
  }
  if (is_integer_name(name)) {
    if (!integer_type(type, name, scope, out)) return std::nullopt;
    return out;
  }
  if (name == "float" && type.args) {
    if (type.width) {
      error(scope, type.width->offset, "a compressed float has no bit width: its resolution sets the bits");
      return std::nullopt;
    }
    if (!compressed_float_type(type, scope, out)) return std::nullopt;
    return out;
  }
  if (name == "fixed") {
    if (!fixed_point_type(type, scope, out)) return std::nullopt;
    return out;
  }
  if (name == "string" || name == "bytes") {
    if (!string_type(type, name, scope, out)) return std::nullopt;
    return out;
  }
  if ((name == "int128" || name == "uint128") && type.args) {
    if (!int128_range_type(type, name, scope, out)) return std::nullopt;
    return out;
  }
  // The rest take no parameters.
  if (type.args || type.width) {
    std::string hint = name == "double" ? ": to compress, use float<min .. max, res R>" : "";
    error(scope, type.args ? type.args->offset : type.width->offset,
          "'" + name + "' takes no parameters" + hint);
    return std::nullopt;
  }
  if (name == "bool") {
    out.kind = model::TypeKind::Bool;
    out.cost = {1, 1};
  } else if (name == "float") {
    out.kind = model::TypeKind::Float;
    out.cost = {32, 32};
  } else if (name == "double") {
    out.kind = model::TypeKind::Double;
    out.cost = {64, 64};
  } else if (name == "int128" || name == "uint128") {
    out.kind = model::TypeKind::Int128;
    out.int128_signed = name == "int128";
    out.int128 = model::Int128Type{};
    out.cost = {128, 128};
  } else {
    error(scope, type.offset, "'" + name + "' is not a field type");
    return std::nullopt;
  }
  return out;
}

// intN / uintN (raw), intN<min .. max> / int<min .. max> (ranged), intN:W / int:W (explicit width).
bool Checker::integer_type(const ast::TypeExpr& type, const std::string& name, Scope& scope,
                           model::Type& out) {
  out.kind = model::TypeKind::Integer;
  model::IntegerType& integer = out.integer;
  std::optional<model::IntStorage> declared = storage_by_name(name);
  const bool is_signed = declared ? declared->is_signed : name == "int";
  if (type.args && type.width) return integer_range_shape(type, name, scope);  // reports the pair, false
  if (type.width) {
    std::optional<std::int64_t> width = eval_int64(*type.width, scope, "the width");
    if (!width) return false;
    int limit = declared ? declared->bits : 64;
    if (*width < 1 || *width > limit) {
      error(scope, type.width->offset,
            declared ? "a width of " + std::to_string(*width) + " bits does not fit " + name + ": use 1 .. " +
                           std::to_string(limit) + " bits, or a wider storage type"
                     : "a bit width must be 1 .. 64, found " + std::to_string(*width));
      return false;
    }
    integer.encoding = model::IntEncoding::Raw;
    integer.bits = static_cast<int>(*width);
    integer.storage =
        declared ? *declared
                 : smallest_storage(is_signed ? -(Int(1) << (integer.bits - 1)) : 0,
                                    (Int(1) << (is_signed ? integer.bits - 1 : integer.bits)) - 1, is_signed);
  } else if (type.args) {
    const ast::TypeArgs& args = *type.args;
    if (!integer_range_shape(type, name, scope)) return false;
    // Bounds are exact up to 2^64 - 1: a uint64 range may reach the top of its storage.
    const bool may_be_unsigned = !is_signed;
    std::optional<Int> min = eval_bound(args.first, scope, "the range minimum", may_be_unsigned);
    std::optional<Int> max = eval_bound(*args.last, scope, "the range maximum", may_be_unsigned);
    if (!min || !max) return false;
    if (*min > *max) {
      error(scope, args.first.offset,
            "the range minimum " + to_string(*min) + " is greater than its maximum " +
                to_string(*max) + ": write <min .. max>");
      return false;
    }
    if (name == "uint" && *min < 0) {
      error(scope, args.first.offset,
            "uint cannot hold the negative minimum " + to_string(*min) + ": use int<min .. max>");
      return false;
    }
    if (declared && (*min < storage_min(*declared) || *max > storage_max(*declared))) {
      model::IntStorage wider = smallest_storage(*min, *max, declared->is_signed);
      error(scope, args.first.offset,
            "range " + range_text(*min, *max) + " does not fit " + name + " (" +
                range_text(storage_min(*declared), storage_max(*declared)) + "): widen the storage (e.g. " +
                storage_name(wider) + ") or narrow the range");
      return false;
    }
    integer.encoding = model::IntEncoding::Ranged;
    integer.storage = declared ? *declared : smallest_storage(*min, *max, is_signed);
    // Unsigned storage keeps the bounds bit for bit (model.hpp): exact up to 2^64 - 1.
    integer.min = static_cast<std::int64_t>(static_cast<std::uint64_t>(*min));
    integer.max = static_cast<std::int64_t>(static_cast<std::uint64_t>(*max));
    integer.bits = model::bits_required(integer.min, integer.max);
  } else {
    if (!declared) {
      error(scope, type.offset,
            "'" + name + "' needs a range or a width: " + name + "<0 .. 100> or " + name + ":12 (or use " +
                name + "8 .. " + name + "64 for raw widths)");
      return false;
    }
    integer.encoding = model::IntEncoding::Raw;
    integer.bits = declared->bits;
    integer.storage = *declared;
  }
  auto bits = static_cast<std::uint64_t>(integer.bits);
  out.cost = {bits, bits};
  return true;
}

bool Checker::integer_range_shape(const ast::TypeExpr& type, const std::string& name, Scope& scope) {
  const ast::TypeArgs& args = *type.args;
  if (type.width) {
    error(scope, type.width->offset,
          "an integer has either a range <min .. max> or a width :bits, not both: keep the one you mean");
    return false;
  }
  if (!args.last) {
    error(scope, args.first.offset,
          "an integer range needs both bounds: " + name + "<min .. max>, e.g. " + name + "<0 .. 100>");
    return false;
  }
  if (!args.params.empty()) {
    error(scope, args.params.front().offset, "an integer range takes no parameters after its bounds");
    return false;
  }
  return true;
}

// int128<min .. max> / uint128<min .. max>: a ranged 128-bit integer. The bounds are evaluated exactly
// (the checker's 128-bit arithmetic) and may lie anywhere in it; the storage stays the declared one.
bool Checker::int128_range_type(const ast::TypeExpr& type, const std::string& name, Scope& scope,
                                model::Type& out) {
  const ast::TypeArgs& args = *type.args;
  if (!integer_range_shape(type, name, scope)) return false;
  const AdviceScope advice(*this, kWideAdvice);
  std::optional<Int> min = eval_int(args.first, scope);
  std::optional<Int> max = eval_int(*args.last, scope);
  if (!min || !max) return false;
  if (*min > *max) {
    error(scope, args.first.offset,
          "the range minimum " + to_string(*min) + " is greater than its maximum " + to_string(*max) +
              ": write <min .. max>");
    return false;
  }
  const bool is_signed = name == "int128";
  if (!is_signed && *min < 0) {
    error(scope, args.first.offset,
          "range " + range_text(*min, *max) +
              " does not fit uint128 (bounds 0 .. 2^127 - 1, the checker's arithmetic): use int128<min .. "
              "max>");
    return false;
  }
  out.kind = model::TypeKind::Int128;
  out.int128_signed = is_signed;
  out.int128.ranged = true;
  out.int128.min = *min;
  out.int128.max = *max;
  // The runtime's own rule, max - min in the unsigned domain (it may exceed 2^127 - 1).
  out.int128.bits = bitwire::bits_required<bitwire::int128_t>(*min, *max);
  auto bits = static_cast<std::uint64_t>(out.int128.bits);
  out.cost = {bits, bits};
  return true;
}

// float<min .. max, res R>
bool Checker::compressed_float_type(const ast::TypeExpr& type, Scope& scope, model::Type& out) {
  const ast::TypeArgs& args = *type.args;
  if (!args.last) {
    error(scope, args.first.offset,
          "a compressed float needs a range and a resolution: float<min .. max, res 0.01>");
    return false;
  }
  const ast::Expr* resolution = nullptr;
  for (const ast::TypeParam& param : args.params) {
    if (param.key != "res") {
      error(scope, param.key.offset, "unknown float parameter '" + param.key + "': the parameter is `res`");
      return false;
    }
    if (resolution != nullptr) {
      error(scope, param.key.offset, "the resolution is given twice");
      return false;
    }
    resolution = &param.value;
  }
  if (resolution == nullptr) {
    error(scope, args.last->offset,
          "a compressed float needs a resolution: float<min .. max, res 0.01>; for raw 32 bits write float");
    return false;
  }
  std::optional<double> min = eval_number(args.first, scope);
  std::optional<double> max = eval_number(*args.last, scope);
  std::optional<double> res = eval_number(*resolution, scope);
  if (!min || !max || !res) return false;
  const auto fmin = static_cast<float>(*min);
  const auto fmax = static_cast<float>(*max);
  const auto fres = static_cast<float>(*res);
  const std::pair<const ast::Expr*, float> parts[] = {
      {&args.first, fmin}, {&*args.last, fmax}, {resolution, fres}};
  for (const auto& [expr, value] : parts) {
    if (!std::isfinite(value)) {
      error(scope, expr->offset,
            "this value is not finite as a 32-bit float (|x| < 3.4e38): compressed float "
            "parameters must be finite");
      return false;
    }
  }
  if (!(fmin < fmax)) {
    error(scope, args.first.offset,
          "a compressed float's minimum must be below its maximum: write float<min .. max, res R> with min < "
          "max");
    return false;
  }
  if (!(fres > 0)) {
    error(scope, resolution->offset, "a compressed float's resolution must be positive, e.g. res 0.01");
    return false;
  }
  // The wire computation, in float32 exactly as the runtime does it.
  const float delta = fmax - fmin;
  if (!std::isfinite(delta)) {
    error(scope, args.first.offset, "max - min overflows a 32-bit float: narrow the range");
    return false;
  }
  if (fres < std::numeric_limits<float>::min()) {
    error(scope, resolution->offset,
          "this resolution is a denormal 32-bit float (below " +
              format_number(std::numeric_limits<float>::min()) +
              "), which is not a usable constant in generated code: use a coarser resolution");
    return false;
  }
  float values = delta / fres;
  if (!(values >= 1.0f)) values = 1.0f;
  if (!(values <= bitwire::kMaxCompressedFloatSteps)) {
    error(scope, resolution->offset,
          "this range and resolution make about " +
              approximate(static_cast<double>(delta) / static_cast<double>(fres)) +
              " steps; a compressed float has at most " +
              std::to_string(static_cast<std::uint64_t>(bitwire::kMaxCompressedFloatSteps)) +
              " (32 bits), so the resolution could not be delivered: coarsen the resolution or narrow the "
              "range");
    return false;
  }
  const bitwire::CompressedFloatParams params = bitwire::compressed_float_params(fmin, fmax, fres);
  out.kind = model::TypeKind::CompressedFloat;
  out.compressed = model::CompressedFloatType{fmin, fmax, fres, params.max_integer, params.bits};
  auto bits = static_cast<std::uint64_t>(out.compressed.bits);
  out.cost = {bits, bits};
  return true;
}

// fixed<min .. max, frac F>: whole-unit bounds, F fractional bits.
bool Checker::fixed_point_type(const ast::TypeExpr& type, Scope& scope, model::Type& out) {
  if (type.width || !type.args || !type.args->last) {
    error(scope, type.width ? type.width->offset : type.offset,
          "a fixed-point type is written fixed<min .. max, frac F>: whole-unit bounds and F fractional bits");
    return false;
  }
  const ast::TypeArgs& args = *type.args;
  const ast::Expr* frac = nullptr;
  for (const ast::TypeParam& param : args.params) {
    if (param.key != "frac" || frac != nullptr) {
      error(scope, param.key.offset,
            param.key != "frac" ? "unknown fixed-point parameter '" + param.key + "': the parameter is `frac`"
                                : "the fraction bits are given twice");
      return false;
    }
    frac = &param.value;
  }
  if (frac == nullptr) {
    error(scope, args.last->offset, "a fixed-point type needs its fraction bits: fixed<min .. max, frac 8>");
    return false;
  }
  std::optional<std::int64_t> min = eval_int64(args.first, scope, "the fixed-point minimum");
  std::optional<std::int64_t> max = eval_int64(*args.last, scope, "the fixed-point maximum");
  std::optional<std::int64_t> fraction = eval_int64(*frac, scope, "the fraction bits");
  if (!min || !max || !fraction) return false;
  if (*fraction < 0 || *fraction > 126) {
    error(scope, frac->offset, "fraction bits must be 0 .. 126, found " + std::to_string(*fraction));
    return false;
  }
  if (*min > *max) {
    error(scope, args.first.offset,
          "the fixed-point minimum " + std::to_string(*min) + " is greater than its maximum " +
              std::to_string(*max));
    return false;
  }
  // The raw bounds, exact in the checker's 128-bit arithmetic (checked: 2^126 times an int64 bound can
  // pass it).
  const Int scale = Int(1) << *fraction;
  Int raw_min = 0;
  Int raw_max = 0;
  if (__builtin_mul_overflow(static_cast<Int>(*min), scale, &raw_min) ||
      __builtin_mul_overflow(static_cast<Int>(*max), scale, &raw_max)) {
    error(scope, args.first.offset,
          "fixed-point bounds " + range_text(*min, *max) + " with " + std::to_string(*fraction) +
              " fraction bits need raw values past 128 bits (-2^127 .. 2^127 - 1): lower frac or narrow the "
              "bounds");
    return false;
  }
  model::FixedPointType& fixed = out.fixed;
  fixed.whole_min = *min;
  fixed.whole_max = *max;
  fixed.fraction_bits = static_cast<int>(*fraction);
  fixed.raw_min = raw_min;
  fixed.raw_max = raw_max;
  // Signed storage when the raw range has a negative end, else unsigned (schema's ufixed, whose raw values
  // may fill uint64's high half); 128 bits when no 8 .. 64-bit type holds the raw range. The runtime's
  // serialize_fixed also needs storage wider than the fraction (F < bits of T): a raw range as small as
  // 0 .. 0 with frac 8 stores in 16 bits, and with frac 64 or more in 128.
  fixed.storage = smallest_storage(raw_min, raw_max, false);
  fixed.wide = raw_min < storage_min(fixed.storage) || raw_max > storage_max(fixed.storage);
  while (!fixed.wide && fixed.storage.bits <= fixed.fraction_bits) {
    if (fixed.storage.bits == 64) {
      fixed.wide = true;
    } else {
      fixed.storage.bits *= 2;
    }
  }
  fixed.bits = bitwire::bits_required<bitwire::int128_t>(raw_min, raw_max);
  out.kind = model::TypeKind::FixedPoint;
  auto bits = static_cast<std::uint64_t>(fixed.bits);
  out.cost = {bits, bits};
  return true;
}

// A fixed-point default as its raw value (value x 2^F), exact or refused, never rounded: an integer
// expression is evaluated in the checker's 128-bit arithmetic and scaled (its bounds check makes the
// product fit), a decimal literal is checked on its own digits (decimal_fixed_raw). A double would round
// 2^53 + 1, and would take 0.1 at frac 126 for the double nearest it.
std::optional<Int> Checker::fixed_point_default(const ast::Expr& expr, Scope& scope,
                                                const model::FixedPointType& fixed) {
  const std::string outside =
      "the default is outside the fixed-point range " + range_text(fixed.whole_min, fixed.whole_max);
  const auto* number = expr.rest.empty() ? get_if<ast::NumberLiteral>(expr.first.operand) : nullptr;
  if (number == nullptr || !is_float_literal(*number)) {
    std::optional<Int> v;
    {
      const AdviceScope advice(*this, kWideAdvice);
      v = eval_int(expr, scope);
    }
    if (!v) return std::nullopt;
    if (*v < fixed.whole_min || *v > fixed.whole_max) {
      error(scope, expr.offset, outside);
      return std::nullopt;
    }
    return *v * (Int(1) << fixed.fraction_bits);
  }
  // The literal's own errors first (past a double's range); the double only words the messages.
  std::optional<double> v = eval_number(expr, scope);
  if (!v) return std::nullopt;
  const bool negative = std::count(expr.first.signs.begin(), expr.first.signs.end(), '-') % 2 == 1;
  Int raw = 0;
  switch (decimal_fixed_raw(*number, negative, fixed.fraction_bits, raw)) {
    case FixedRaw::kExact:
      if (raw >= fixed.raw_min && raw <= fixed.raw_max) return raw;
      break;
    case FixedRaw::kTooLarge:
      break;
    case FixedRaw::kNotExact: {
      if (*v < static_cast<double>(fixed.whole_min) || *v > static_cast<double>(fixed.whole_max)) break;
      const std::string step = "2^-" + std::to_string(fixed.fraction_bits);
      // The neighbours as doubles, when a double tells them apart from the value.
      const double scaled = std::ldexp(*v, fixed.fraction_bits);
      const double below = std::ldexp(std::floor(scaled), -fixed.fraction_bits);
      const double above = std::ldexp(std::ceil(scaled), -fixed.fraction_bits);
      const bool printable = below < *v && *v < above;
      error(scope, expr.offset,
            "the default " + std::string(negative ? "-" : "") + shown_literal(*number) +
                " is not a multiple of " + step + ", so the field cannot hold it exactly: " +
                (printable ? "the nearest values are " + format_number(below) + " and " + format_number(above)
                           : "its nearest values lie within " + step + " of it; write one of them exactly"));
      return std::nullopt;
    }
  }
  error(scope, expr.offset, outside);
  return std::nullopt;
}

// string<N> / bytes<N>: up to N bytes, length-prefixed, byte-aligned payload.
bool Checker::string_type(const ast::TypeExpr& type, const std::string& name, Scope& scope,
                          model::Type& out) {
  if (type.width || !type.args || type.args->last || !type.args->params.empty()) {
    error(scope,
          type.width  ? type.width->offset
          : type.args ? type.args->offset
                      : type.offset,
          name + " takes exactly one parameter, its maximum length in bytes: " + name + "<32>");
    return false;
  }
  std::optional<std::int64_t> length = eval_int64(type.args->first, scope, "the maximum length");
  if (!length) return false;
  const std::uint32_t limit = name == "string" ? model::kMaxStringLength : model::kMaxBytesLength;
  if (*length < 1 || *length > static_cast<std::int64_t>(limit)) {
    error(scope, type.args->first.offset,
          "the maximum length of " + name + " must be 1 .. " + std::to_string(limit) + ", found " +
              std::to_string(*length));
    return false;
  }
  out.kind = name == "string" ? model::TypeKind::String : model::TypeKind::Bytes;
  out.max_length = static_cast<std::uint32_t>(*length);
  out.max_length_constant = named_constant(type.args->first, *length, scope);
  out.length_bits = model::bits_required(0, *length);
  auto length_bits = static_cast<std::uint64_t>(out.length_bits);
  // length, then align (up to 7 bits) and up to N bytes.
  out.cost = {length_bits, length_bits + 7 + 8 * static_cast<std::uint64_t>(*length)};
  return true;
}

// bytes[N]: exactly N bytes, no length on the wire.
bool Checker::byte_block_type(const ast::TypeExpr& type, const std::string& name, Scope& scope, model::Type& out) {
  if (name != "bytes") {
    error(scope, type.block_length->offset,
          "only bytes takes a fixed length in brackets (bytes[16]); for an array of " + name +
              " put the size after the field name: " + name + " values[N]");
    return false;
  }
  if (type.args || type.width) {
    error(scope, type.args ? type.args->offset : type.width->offset,
          "bytes[N] is a block of exactly N bytes and takes nothing else: write bytes[N] alone (bytes<N> is the "
          "variable-length form)");
    return false;
  }
  std::optional<std::int64_t> length = eval_int64(*type.block_length, scope, "the block length");
  if (!length) return false;
  if (*length < 1 || *length > static_cast<std::int64_t>(model::kMaxByteBlockLength)) {
    error(scope, type.block_length->offset,
          "the length of a byte block bytes[N] must be 1 .. " + std::to_string(model::kMaxByteBlockLength) +
              ", found " + std::to_string(*length) + " (use bytes<N> for a variable length up to " +
              std::to_string(model::kMaxBytesLength) + ")");
    return false;
  }
  out.kind = model::TypeKind::ByteBlock;
  out.max_length = static_cast<std::uint32_t>(*length);
  out.max_length_constant = named_constant(*type.block_length, *length, scope);
  // align (up to 7 bits), then exactly N bytes.
  const auto bits = 8 * static_cast<std::uint64_t>(*length);
  out.cost = {bits, bits + 7};
  return true;
}

std::optional<model::Value> Checker::default_value(const ast::DefaultValue& value, const model::Type& type,
                                                   Scope& scope) {
  if (type.kind == model::TypeKind::ByteBlock) {
    const std::uint32_t at = value.get().index() == 0 ? std::get<ast::Expr>(value.get()).offset
                                                      : std::get<ast::StringLiteral>(value.get()).offset;
    error(scope, at, "a byte block bytes[N] has no default: a new object holds N zero bytes");
    return std::nullopt;
  }
  model::Value out;
  if (const auto* literal = get_if<ast::StringLiteral>(value)) {
    if (type.kind != model::TypeKind::String && type.kind != model::TypeKind::Bytes) {
      error(scope, literal->offset, "a string literal is a default only for string and bytes fields");
      return std::nullopt;
    }
    std::size_t error_at = 0;
    std::string problem;
    std::optional<std::string> text = decode_string_literal(*literal, error_at, problem);
    if (!text) {
      error(scope, literal->offset + static_cast<std::uint32_t>(error_at), problem);
      return std::nullopt;
    }
    if (text->size() > type.max_length) {
      error(scope, literal->offset,
            "this default is " + std::to_string(text->size()) + " bytes long, over the field's maximum of " +
                std::to_string(type.max_length) + ": shorten it or raise the maximum length");
      return std::nullopt;
    }
    const auto* bytes = reinterpret_cast<const unsigned char*>(text->data());
    if (type.kind == model::TypeKind::String && bitwire::check_utf8(bytes, text->size()) != bitwire::Utf8Status::kValid) {
      error(scope, literal->offset,
            "a string default must be UTF-8 without NUL characters (use bytes for binary data)");
      return std::nullopt;
    }
    out.kind = model::Value::Kind::String;
    out.text = std::move(*text);
    return out;
  }
  const ast::Expr& expr = std::get<ast::Expr>(value.get());
  const bool sole = expr.rest.empty();
  switch (type.kind) {
    case model::TypeKind::Bool: {
      const auto* literal =
          sole && expr.first.signs.empty() ? get_if<ast::BoolLiteral>(expr.first.operand) : nullptr;
      if (literal == nullptr) {
        error(scope, expr.offset, "a bool default is true or false");
        return std::nullopt;
      }
      out.kind = model::Value::Kind::Bool;
      out.boolean = *literal == "true";
      return out;
    }
    case model::TypeKind::Int128: {
      // Exact in the checker's 128-bit arithmetic: a default past 64 bits is a literal or an expression.
      std::optional<Int> v;
      {
        const AdviceScope advice(*this, kWideAdvice);
        v = eval_int(expr, scope);
      }
      if (!v) return std::nullopt;
      const model::Int128Type& wide = type.int128;
      const Int lo = wide.ranged ? wide.min : type.int128_signed ? std::numeric_limits<Int>::min() : 0;
      const Int hi = wide.ranged ? wide.max : std::numeric_limits<Int>::max();
      if (*v < lo || *v > hi) {
        // A raw field's limit is what a default can be written as: the checker's arithmetic ends at
        // 2^127 - 1 although a uint128 holds up to 2^128 - 1.
        error(scope, expr.offset,
              wide.ranged ? "the default " + to_string(*v) + " is outside the field's range " +
                                range_text(lo, hi) + ": change the default or widen the range"
                          : "the default " + to_string(*v) + " is outside what a " +
                                (type.int128_signed ? "int128" : "uint128") + " default is written as, " +
                                (type.int128_signed ? "-2^127" : "0") +
                                " .. 2^127 - 1 (the checker's arithmetic): change the default");
        return std::nullopt;
      }
      out.kind = model::Value::Kind::Integer;
      out.wide = *v;
      return out;
    }
    case model::TypeKind::Integer: {
      const bool unsigned_storage = !type.integer.storage.is_signed;
      std::optional<Int> v = eval_bound(expr, scope, "the default", unsigned_storage);
      if (!v) return std::nullopt;
      Int lo = std::numeric_limits<std::int64_t>::min();
      Int hi = std::numeric_limits<std::int64_t>::max();
      const model::IntegerType& integer = type.integer;
      if (integer.encoding == model::IntEncoding::Ranged) {
        lo = model::integer_value(integer.min, unsigned_storage);
        hi = model::integer_value(integer.max, unsigned_storage);
      } else if (integer.storage.is_signed) {
        lo = -(Int(1) << (integer.bits - 1)), hi = (Int(1) << (integer.bits - 1)) - 1;
      } else {
        lo = 0, hi = (Int(1) << integer.bits) - 1;
      }
      if (*v < lo || *v > hi) {
        error(scope, expr.offset,
              "the default " + to_string(*v) + " is outside the field's range " + range_text(lo, hi) +
                  ": change the default or widen the range");
        return std::nullopt;
      }
      out.kind = model::Value::Kind::Integer;
      out.integer = static_cast<std::int64_t>(static_cast<std::uint64_t>(*v));  // bit for bit (model.hpp)
      return out;
    }
    case model::TypeKind::FixedPoint: {
      std::optional<Int> raw = fixed_point_default(expr, scope, type.fixed);
      if (!raw) return std::nullopt;
      out.kind = model::Value::Kind::Integer;
      if (type.fixed.wide) {
        out.wide = *raw;
      } else {
        out.integer = static_cast<std::int64_t>(static_cast<std::uint64_t>(*raw));  // bit for bit
      }
      return out;
    }
    case model::TypeKind::Float:
    case model::TypeKind::Double:
    case model::TypeKind::CompressedFloat: {
      std::optional<double> v = eval_number(expr, scope);
      if (!v) return std::nullopt;
      out.kind = model::Value::Kind::Float;
      out.number = *v;
      if (type.kind == model::TypeKind::Double) return out;
      const auto f = static_cast<float>(*v);
      if (!std::isfinite(f)) {
        error(scope, expr.offset, "the default does not fit a 32-bit float");
        return std::nullopt;
      }
      if (type.kind == model::TypeKind::CompressedFloat &&
          (f < type.compressed.min || f > type.compressed.max)) {
        error(scope, expr.offset, "the default is outside the compressed float's range");
        return std::nullopt;
      }
      if (type.kind == model::TypeKind::Float && std::strtod(shortest_float(f).c_str(), nullptr) != *v) {
        const float below = std::nextafter(f, -std::numeric_limits<float>::infinity());
        const float above = std::nextafter(f, std::numeric_limits<float>::infinity());
        const float lower = static_cast<double>(f) < *v ? f : below;
        const float upper = static_cast<double>(f) < *v ? above : f;
        error(scope, expr.offset,
              "the default " + format_number(*v) +
                  " is not a 32-bit float value, so the field cannot hold it " +
                  "exactly: the nearest values are " + shortest_float(lower) + " and " +
                  shortest_float(upper));
        return std::nullopt;
      }
      if (type.kind == model::TypeKind::CompressedFloat) {
        const model::CompressedFloatType& c = type.compressed;
        const std::uint32_t step = quantize(f, c);
        const float quantum = dequantize(step, c);
        // Within an eighth of a step (or the float32 rounding of the wire arithmetic) is on the step.
        const double delta = static_cast<double>(c.max) - static_cast<double>(c.min);
        const double tolerance = std::max(static_cast<double>(c.resolution) / 8, std::ldexp(delta, -21));
        if (std::fabs(static_cast<double>(quantum) - static_cast<double>(f)) > tolerance) {
          const bool low = quantum < f;
          const float lower = low ? quantum : dequantize(step == 0 ? 0 : step - 1, c);
          const float upper = low ? dequantize(step == c.max_int ? step : step + 1, c) : quantum;
          error(scope, expr.offset,
                "the default " + format_number(*v) +
                    " lies between two steps of the compressed float, so it " +
                    "would change when sent: the nearest values it can hold are " + shortest_float(lower) +
                    " and " + shortest_float(upper));
          return std::nullopt;
        }
      }
      out.number = f;
      return out;
    }
    case model::TypeKind::Enum: {
      const auto* name =
          sole && expr.first.signs.empty() ? get_if<ast::QualifiedName>(expr.first.operand) : nullptr;
      const model::Enum& e = *type.enumeration;
      if (name != nullptr && name->size() > 1) {
        // Enum.Value: the prefix must name this enum.
        Symbol* owner = find_symbol(*name, name->size() - 1, scope, "enum");
        if (owner == nullptr) return std::nullopt;
        if (owner->kind != model::DeclKind::Enum || &owner->scope->package->enums[owner->index] != &e) {
          error(scope, name->offset,
                "the default of an enum " + e.name + " field must be one of " + e.name + "'s values");
          return std::nullopt;
        }
      }
      if (name != nullptr) {
        for (std::size_t i = 0; i < e.items.size(); ++i) {
          if (e.items[i].name == name->back()) {
            out.kind = model::Value::Kind::Enumerator;
            out.enumerator = i;
            return out;
          }
        }
      }
      const std::string suggestion = name != nullptr ? nearest_enumerator(e, name->back()) : std::string();
      error(scope, expr.offset,
            "the default of an enum " + e.name + " field is one of its values, e.g. " + e.name + "." +
                e.items.front().name + (suggestion.empty() ? "" : ": did you mean '" + suggestion + "'?"));
      if (!suggestion.empty()) {
        diagnostics_.fix(name->back().offset, static_cast<std::uint32_t>(name->back().size()), suggestion);
      }
      return std::nullopt;
    }
    default:
      error(scope, expr.offset, "this field type has no default values");
      return std::nullopt;
  }
}

}  // namespace idlc::detail

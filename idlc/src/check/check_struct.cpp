// Struct and message bodies: fields, array shapes, `if` conditions, directives, bit costs.
#include <array>
#include <limits>
#include <set>

#include "check/checker.hpp"
#include "frontend/lexical.hpp"
#include "check/model_build.hpp"
#include "check/model_delta.hpp"
#include "frontend/names.hpp"

namespace idlc::detail {

namespace {

// int_relative cost ladder: {smallest gap of a step, bits written for any gap of that step}.
constexpr std::array<std::pair<std::uint32_t, std::uint64_t>, 7> kRelativeSteps = {
    {{1, 1}, {2, 2 + 3}, {7, 3 + 5}, {24, 4 + 9}, {281, 5 + 13}, {4378, 6 + 17}, {69915, 6 + 32}}};

// best[n]: the most bits of positions + elements that a set of changed elements can take when the
// positions p_1 < p_2 < ... lie in 1..n (each gap costs its ladder step plus `element` bits).
// Smallest gaps per step are the only ones worth taking: a larger gap in the same step costs the same
// bits and leaves less room.
std::vector<std::uint64_t> sparse_table(std::uint64_t element) {
  std::vector<std::uint64_t> best(model::kMaxArraySize + 1, 0);
  for (std::size_t n = 1; n < best.size(); ++n) {
    std::uint64_t b = best[n - 1];
    for (const auto& [gap, bits] : kRelativeSteps) {
      if (gap > n) break;
      b = std::max(b, bits + element + best[n - gap]);
    }
    best[n] = b;
  }
  return best;
}

}  // namespace

std::uint64_t sparse_max_bits(std::uint32_t size, std::uint64_t element_max) {
  // With elements of 3 bits or more, every gap d satisfies cost(d) + E <= d * (1 + E), so sending every
  // element (all gaps 1) is the worst case. Below that, a small exact table per element size.
  if (element_max >= 3) return saturating_mul(size, saturating_add(element_max, 1));
  static const std::array<std::vector<std::uint64_t>, 3> tables = {sparse_table(0), sparse_table(1),
                                                                   sparse_table(2)};
  return tables[element_max][std::min<std::uint32_t>(size, model::kMaxArraySize)];
}

const model::Constant* Checker::named_constant(const ast::Expr& expr, std::int64_t value, Scope& scope) {
  if (!expr.first.signs.empty() || !expr.rest.empty()) return nullptr;
  const auto* name = get_if<ast::QualifiedName>(expr.first.operand);
  if (name == nullptr || name->empty()) return nullptr;
  // A plain or package-qualified constant; `Enum.count` and enumerators are not constants.
  Symbol* symbol = find_symbol(*name, name->size(), scope, nullptr);
  if (symbol == nullptr || symbol->kind != model::DeclKind::Constant || symbol->state != State::Done) return nullptr;
  const model::Constant& constant = symbol->scope->package->constants[symbol->index];
  return constant.value == value ? &constant : nullptr;
}

struct Checker::StructBuild {
  Scope& scope;
  model::Struct& model;
  std::map<std::string, std::uint32_t> declared;     // every field name so far -> offset (both sides of ifs)
  std::map<std::string, std::size_t> field_by_name;  // every checked field so far -> index
  std::map<std::string, std::size_t> visible;        // fields read before this point on every path
  std::set<std::string> all_names;                   // every field name of the body, for messages
  std::set<std::string> failed;                      // fields whose errors are reported already
};

namespace {

struct Storage {
  std::uint64_t size = 0;
  std::uint64_t align = 1;
};

std::uint64_t align_up(std::uint64_t value, std::uint64_t align) {
  return saturating_add(value, align - 1) / align * align;
}

Storage int_storage(const model::IntStorage& storage) {
  auto bytes = static_cast<std::uint64_t>(storage.bits / 8);
  return {bytes, bytes};
}

// The C++ storage of one element of `type` as the generated code declares it (members, FixedString,
// FixedVector, std::array), with padding as on the common 64-bit ABIs.
Storage element_storage(const model::Type& type,
                        const std::map<const model::Struct*, std::uint64_t>& aligns) {
  switch (type.kind) {
    case model::TypeKind::Bool:
      return {1, 1};
    case model::TypeKind::Integer:
      return int_storage(type.integer.storage);
    case model::TypeKind::Float:
    case model::TypeKind::CompressedFloat:
      return {4, 4};
    case model::TypeKind::Double:
      return {8, 8};
    case model::TypeKind::FixedPoint:
      return type.fixed.wide ? Storage{16, 16} : int_storage(type.fixed.storage);
    case model::TypeKind::Int128:
      return {16, 16};
    case model::TypeKind::String:
      return {static_cast<std::uint64_t>(type.max_length) + 1, 1};
    case model::TypeKind::Bytes:
      return {align_up(type.max_length, 8) + 8, 8};
    case model::TypeKind::ByteBlock:
      return {type.max_length, 1};
    case model::TypeKind::Enum:
      return int_storage(type.enumeration->storage);
    case model::TypeKind::Flags:
      return int_storage(type.flags->storage);
    case model::TypeKind::Struct: {
      auto it = aligns.find(type.structure);
      return {type.structure->storage_bytes, it == aligns.end() ? 8 : it->second};
    }
  }
  return {0, 1};
}

}  // namespace

// The storage of the generated struct: every field of both sides of every if is a member. `aligns`
// holds the alignment of every struct checked so far (a nested struct not in it counts as 8-aligned, the
// largest); the struct's own alignment is returned in `align_out`.
std::uint64_t struct_storage_bytes(const model::Struct& s,
                                   const std::map<const model::Struct*, std::uint64_t>& aligns,
                                   std::uint64_t& align_out) {
  std::uint64_t offset = 0;
  std::uint64_t align = 1;
  auto add = [&](Storage member) {
    offset = saturating_add(align_up(offset, member.align), member.size);
    align = std::max(align, member.align);
  };
  for (const model::Field& field : s.fields) {
    Storage element = element_storage(field.type, aligns);
    const std::uint64_t stride = align_up(element.size, element.align);
    switch (field.shape) {
      case model::Shape::Scalar:
        add(element);
        break;
      case model::Shape::FixedArray:
        add({saturating_mul(stride, field.array_max), element.align});
        break;
      case model::Shape::VariableArray:
        add({saturating_add(align_up(saturating_mul(stride, field.array_max), 8), 8),
             std::max<std::uint64_t>(element.align, 8)});
        break;
      case model::Shape::SparseArray:
        add({saturating_mul(stride, field.array_max), element.align});
        add({field.array_max, 1});  // the changed flags
        break;
    }
    if (field.optional) add({1, 1});
  }
  align_out = align;
  return std::max<std::uint64_t>(align_up(offset, align), 1);
}

bool Checker::resolve_struct(Symbol& symbol) {
  Scope& scope = *symbol.scope;
  const auto& decl = *static_cast<const ast::StructDecl*>(symbol.decl);
  model::Struct& s = scope.package->structs[symbol.index];
  StructBuild build{scope, s, {}, {}, {}, {}, {}};
  std::vector<const std::vector<ast::Item>*> pending{&decl.items};
  while (!pending.empty()) {
    const std::vector<ast::Item>* items = pending.back();
    pending.pop_back();
    for (const ast::Item& item : *items) {
      if (const auto* field = get_if<ast::Field>(item)) build.all_names.insert(field->name);
      if (const auto* block = get_if<ast::Box<ast::IfBlock>>(item)) {
        pending.push_back(&block->get().then_items);
        pending.push_back(&block->get().else_items);
      }
    }
  }
  bool ok = true;
  if (decl.has_block) {
    if (!decl.is_message) {
      const std::string& text = scope.source->text;
      error(scope, next_token_offset(text, decl.name.offset + static_cast<std::uint32_t>(decl.name.size())),
            "only a message carries a block: make " + decl.name + " a message or drop `block`");
      ok = false;
    } else {
      s.has_block = true;
    }
  }
  if (decl.budget) {
    if (!decl.is_message) {
      error(scope, decl.budget->offset,
            "only a message has a packet budget: make it a message or drop the budget");
      ok = false;
    } else if (std::optional<std::int64_t> budget = eval_int64(*decl.budget, scope, "the budget")) {
      if (*budget < 1 || static_cast<std::uint64_t>(*budget) > model::kMaxStructBits / 8) {
        error(scope, decl.budget->offset,
              "a packet budget is a byte count from 1 to " + std::to_string(model::kMaxStructBits / 8) +
                  ", found " + std::to_string(*budget));
        ok = false;
      } else {
        s.budget_bytes = static_cast<std::uint64_t>(*budget);
      }
    } else {
      ok = false;
    }
  }
  Cost cost;
  if (!check_items(build, decl.items, s.body, cost)) ok = false;
  check_companion_names(build);
  if (!ok) return false;
  if (cost.max > model::kMaxStructBits) {
    error(scope, decl.name.offset,
          symbol.name + " can take up to " + std::to_string(cost.max) +
              " bits; a struct or message is limited to " + std::to_string(model::kMaxStructBits) +
              " bits: shrink its arrays, strings or bytes");
    return false;
  }
  s.storage_bytes = struct_storage_bytes(s, struct_aligns_, struct_aligns_[&s]);
  if (s.storage_bytes > kMaxStorageBytes) {
    error(
        scope, decl.name.offset,
        symbol.name + " needs " + std::to_string(s.storage_bytes) +
            " bytes of C++ storage (every field of both sides of every if is a member), over the limit of " +
            std::to_string(kMaxStorageBytes) +
            " bytes: move the fields the sides of an if share out of it, or shrink arrays and strings");
    return false;
  }
  s.struct_members = 0;
  for (const model::Field& field : s.fields) {
    if (field.type.kind == model::TypeKind::Struct)
      s.struct_members += 1 + field.type.structure->struct_members;
  }
  if (s.struct_members > kMaxStructMembers) {
    error(scope, decl.name.offset,
          symbol.name + " holds " + std::to_string(s.struct_members) +
              " members of struct type counted through its nested structs, over the limit of " +
              std::to_string(kMaxStructMembers) +
              " (C++ compilers initialise each one): use an array of a struct instead of repeating fields of "
              "it");
    return false;
  }
  s.cost = {cost.min, cost.max};
  s.max_bits_without_checks = cost.max_without_checks;
  s.max_bytes = (cost.max + 7) / 8;
  model::complete_struct(s);
  model::complete_delta(s);
  return true;
}

bool Checker::check_items(StructBuild& build, const std::vector<ast::Item>& items,
                          std::vector<model::Item>& out, Cost& cost) {
  bool ok = true;
  for (const ast::Item& item : items) {
    model::Item& result = out.emplace_back();
    if (const auto* field = get_if<ast::Field>(item)) {
      result.kind = model::ItemKind::Field;
      result.source_offset = field->offset;
      Cost field_cost;
      if (!check_field(build, *field, result, field_cost)) {
        build.failed.insert(field->name);
        out.pop_back();
        ok = false;
        continue;
      }
      cost = cost + field_cost;
    } else if (const auto* directive = get_if<ast::Directive>(item)) {
      result.source_offset = directive->offset;
      if (*directive == "align") {
        result.kind = model::ItemKind::Align;
        result.cost = {0, 7};
        cost = cost + Cost{0, 7, 7};
      } else {
        result.kind = model::ItemKind::Check;
        result.cost = {model::kCheckMarkerBits, model::kCheckMarkerBits + 7};
        cost = cost + Cost{model::kCheckMarkerBits, model::kCheckMarkerBits + 7, 0};
        build.model.has_checks = true;
      }
    } else if (const auto* wire = get_if<ast::WireItem>(item)) {
      result.source_offset = wire->offset;
      if (!check_wire_item(build, *wire, result)) {
        out.pop_back();
        ok = false;
        continue;
      }
      cost = cost + Cost{result.cost.min, result.cost.max, result.cost.max};
    } else if (const auto* wrapped = get_if<ast::Box<ast::IfBlock>>(item)) {
      const ast::IfBlock& block = wrapped->get();
      result.kind = model::ItemKind::If;
      result.source_offset = block.offset;
      if (!check_condition(build, block.condition, result.condition)) ok = false;
      // Each side sees the fields before the if plus its own; none of them is visible after it.
      const auto visible_before = build.visible;
      Cost then_cost;
      Cost else_cost;
      if (!check_items(build, block.then_items, result.then_items, then_cost)) ok = false;
      build.visible = visible_before;
      if (!check_items(build, block.else_items, result.else_items, else_cost)) ok = false;
      build.visible = visible_before;
      Cost branch{std::min(then_cost.min, else_cost.min), std::max(then_cost.max, else_cost.max),
                  std::max(then_cost.max_without_checks, else_cost.max_without_checks)};
      result.cost = {branch.min, branch.max};
      cost = cost + branch;
    }
  }
  return ok;
}

bool Checker::check_field(StructBuild& build, const ast::Field& field, model::Item& out, Cost& cost) {
  Scope& scope = build.scope;
  bool ok = true;
  const std::string& name = field.name;
  if (std::string problem = name_problem(name, NameContext::Field); !problem.empty()) {
    error(scope, field.name.offset, problem);
    ok = false;
  } else if (auto it = scope.by_name.find(name); it != scope.by_name.end()) {
    error(scope, field.name.offset,
          "field '" + name + "' has the name of a declaration of this package (" +
              line_of(scope, it->second->name_offset) +
              "), which the C++ member would hide: rename the field");
    note(scope, it->second->name_offset, "declared here");
    ok = false;
  }
  if (auto it = build.declared.find(name); it != build.declared.end()) {
    std::uint32_t first = it->second;
    error(scope, field.name.offset,
          build.model.name + " already has a field named '" + name + "' (" + line_of(scope, first) +
              "): names are unique within a struct, across both sides of every if: rename one");
    note(scope, first, "first declared here");
    ok = false;
  } else {
    build.declared.emplace(name, field.name.offset);
  }

  model::Field result;
  result.name = name;
  result.doc = doc_at(scope, field.offset);
  result.source_offset = field.name.offset;
  result.optional = field.optional;

  std::optional<model::Type> type = resolve_type(field.type, scope);
  if (!type) return false;
  result.type = *type;

  // Array shape.
  if (field.sparse && !field.dims) {
    error(scope, field.name.offset, "a sparse field needs its array size: sparse T " + name + "[N];");
    return false;
  }
  if (field.dims) {
    const ast::Dims& dims = *field.dims;
    auto bound = [&](const ast::Expr& expr, const char* what,
                     std::int64_t lowest) -> std::optional<std::uint32_t> {
      std::optional<std::int64_t> v = eval_int64(expr, scope, what);
      if (!v) return std::nullopt;
      if (*v < lowest || *v > static_cast<std::int64_t>(model::kMaxArraySize)) {
        error(scope, expr.offset,
              std::string(what) + " must be " + std::to_string(lowest) + " .. " +
                  std::to_string(model::kMaxArraySize) + ", found " + std::to_string(*v));
        return std::nullopt;
      }
      return static_cast<std::uint32_t>(*v);
    };
    if (!dims.last) {
      std::optional<std::uint32_t> size = bound(dims.first, "an array size", 1);
      if (!size) return false;
      result.shape = field.sparse ? model::Shape::SparseArray : model::Shape::FixedArray;
      result.array_min = result.array_max = *size;
      result.array_min_constant = result.array_max_constant = named_constant(dims.first, *size, scope);
      if (field.sparse) result.count_bits = model::bits_required(0, *size);
    } else {
      if (field.sparse) {
        error(scope, dims.offset, "a sparse array has a fixed size: sparse T " + name + "[N];");
        return false;
      }
      std::optional<std::uint32_t> min = bound(dims.first, "an array's minimum count", 0);
      std::optional<std::uint32_t> max = bound(*dims.last, "an array's maximum count", 1);
      if (!min || !max) return false;
      if (*min > *max) {
        error(scope, dims.first.offset,
              "the array's minimum count " + std::to_string(*min) + " is greater than its maximum " +
                  std::to_string(*max) + ": write [min .. max]");
        return false;
      }
      result.shape = model::Shape::VariableArray;
      result.array_min = *min;
      result.array_max = *max;
      result.array_min_constant = named_constant(dims.first, *min, scope);
      result.array_max_constant = named_constant(*dims.last, *max, scope);
      result.count_bits = model::bits_required(*min, *max);
    }
  }

  if (field.default_value) {
    if (result.shape != model::Shape::Scalar || result.optional ||
        result.type.kind == model::TypeKind::Struct || result.type.kind == model::TypeKind::Flags) {
      const auto* expr = get_if<ast::Expr>(*field.default_value);
      error(scope, expr ? expr->offset : std::get<ast::StringLiteral>(field.default_value->get()).offset,
            "default values are for single, non-optional fields of built-in, enum or string types");
      return false;
    }
    std::optional<model::Value> value = default_value(*field.default_value, result.type, scope);
    if (!value) return false;
    result.default_value = std::move(*value);
  }

  // Cost of the whole field.
  const model::Type& element = result.type;
  const std::uint64_t element_max_nc =
      element.kind == model::TypeKind::Struct ? element.structure->max_bits_without_checks : element.cost.max;
  Cost c;
  const auto count_bits = static_cast<std::uint64_t>(result.count_bits);
  switch (result.shape) {
    case model::Shape::Scalar:
      c = {element.cost.min, element.cost.max, element_max_nc};
      break;
    case model::Shape::FixedArray:
      c = {saturating_mul(result.array_max, element.cost.min),
           saturating_mul(result.array_max, element.cost.max),
           saturating_mul(result.array_max, element_max_nc)};
      break;
    case model::Shape::VariableArray:
      c = {saturating_add(count_bits, saturating_mul(result.array_min, element.cost.min)),
           saturating_add(count_bits, saturating_mul(result.array_max, element.cost.max)),
           saturating_add(count_bits, saturating_mul(result.array_max, element_max_nc))};
      break;
    case model::Shape::SparseArray:
      c = {count_bits, saturating_add(count_bits, sparse_max_bits(result.array_max, element.cost.max)),
           saturating_add(count_bits, sparse_max_bits(result.array_max, element_max_nc))};
      break;
  }
  if (result.optional) c = {1, saturating_add(c.max, 1), saturating_add(c.max_without_checks, 1)};
  result.cost = {c.min, c.max};
  cost = c;

  // Check markers anywhere inside make this struct's size depend on whether checks are enabled.
  if (element.kind == model::TypeKind::Struct && element.structure->has_checks) build.model.has_checks = true;
  const std::size_t index = build.model.fields.size();
  build.model.fields.push_back(std::move(result));
  build.field_by_name.emplace(name, index);
  build.visible.emplace(name, index);
  out.field = index;
  out.cost = build.model.fields[index].cost;
  return ok;
}

bool Checker::check_condition(StructBuild& build, const ast::Condition& condition, model::Condition& out) {
  Scope& scope = build.scope;
  const ast::QualifiedName& subject = condition.subject;
  if (subject.size() != 1) {
    error(scope, subject.offset,
          "a condition tests a field of this struct by its plain name, e.g. if (on_ground)");
    return false;
  }
  const std::string& name = subject.front();
  auto visible = build.visible.find(name);
  if (visible == build.visible.end()) {
    if (build.failed.count(name) != 0 && build.field_by_name.count(name) == 0) return false;  // reported
    if (build.declared.count(name) != 0) {
      error(scope, subject.offset,
            "'" + name +
                "' is declared inside another if block, so it is not read on every path before this "
                "condition: test a field declared outside that block");
    } else if (build.all_names.count(name) != 0) {
      error(scope, subject.offset,
            "'" + name +
                "' is declared after this if, but a condition can only test a field read before it: "
                "move the field above the if");
    } else {
      std::string suggestion;
      std::size_t best = name.size() <= 2 ? 2 : 3;
      for (const auto& [candidate, index] : build.visible) {
        const model::Field& field = build.model.fields[index];
        if (field.shape != model::Shape::Scalar || field.optional ||
            (field.type.kind != model::TypeKind::Bool && field.type.kind != model::TypeKind::Enum)) {
          continue;
        }
        std::size_t d = edit_distance(name, candidate, best - 1);
        if (d < best) best = d, suggestion = candidate;
      }
      error(scope, subject.offset,
            suggestion.empty()
                ? "a condition can only test a bool or enum field declared earlier in " + build.model.name +
                      "; '" + name + "' is not one: declare the field above the if"
                : "'" + name + "' is not a field of " + build.model.name +
                      " read before this if: did you mean '" + suggestion + "'?");
      if (!suggestion.empty())
        diagnostics_.fix(subject.offset, static_cast<std::uint32_t>(name.size()), suggestion);
    }
    return false;
  }
  const model::Field& field = build.model.fields[visible->second];
  out.subject = visible->second;
  const bool is_bool = field.type.kind == model::TypeKind::Bool;
  const bool is_enum = field.type.kind == model::TypeKind::Enum;
  if (field.shape != model::Shape::Scalar || field.optional || (!is_bool && !is_enum)) {
    error(scope, subject.offset,
          "'" + name + "' cannot be a condition: an if tests a single, non-optional bool or enum field");
    return false;
  }
  if (is_bool) {
    if (condition.comparison) {
      error(scope, condition.comparison->offset,
            "'" + name + "' is a bool: test it as if (" + name + ") or if (!" + name + ")");
      return false;
    }
    out.test = condition.negated ? model::Condition::Test::IsFalse : model::Condition::Test::IsTrue;
    return true;
  }
  const model::Enum& e = *field.type.enumeration;
  if (condition.negated || !condition.comparison) {
    error(scope, subject.offset,
          "'" + name + "' is an enum: compare it with one of its values, e.g. if (" + name + " == " + e.name +
              "." + e.items.front().name + ")");
    return false;
  }
  const ast::Comparison& comparison = *condition.comparison;
  const ast::QualifiedName& value = comparison.value;
  if (value.size() > 1) {
    Symbol* owner = find_symbol(value, value.size() - 1, scope, "enum");
    if (owner == nullptr) return false;
    if (owner->kind != model::DeclKind::Enum || &owner->scope->package->enums[owner->index] != &e) {
      error(scope, value.offset, "'" + name + "' is a " + e.name + ": compare it with a value of " + e.name);
      return false;
    }
  }
  for (std::size_t i = 0; i < e.items.size(); ++i) {
    if (e.items[i].name == value.back()) {
      out.test = comparison.op == "==" ? model::Condition::Test::Equals : model::Condition::Test::NotEquals;
      out.enumerator = i;
      return true;
    }
  }
  std::string values;
  for (std::size_t i = 0; i < e.items.size() && i < 8; ++i) values += (i ? ", " : "") + e.items[i].name;
  if (e.items.size() > 8) values += ", ...";
  const std::string suggestion = nearest_enumerator(e, value.back());
  error(scope, value.back().offset,
        suggestion.empty() ? "'" + value.back() + "' is not a value of " + e.name + ": use one of " + values
                           : "'" + value.back() + "' is not a value of " + e.name + ": did you mean '" +
                                 suggestion + "'? (the values: " + values + ")");
  if (!suggestion.empty()) {
    diagnostics_.fix(value.back().offset, static_cast<std::uint32_t>(value.back().size()), suggestion);
  }
  return false;
}

// `const(value, bits);` and `reserved(bits);`: fixed bits that belong to no field.
bool Checker::check_wire_item(StructBuild& build, const ast::WireItem& wire, model::Item& out) {
  Scope& scope = build.scope;
  const bool is_constant = wire.keyword == "const";
  if (is_constant && !wire.second) {
    error(scope, wire.offset,
          "a wire constant is `const(value, bits);`: add its width in bits, e.g. const(0xAB, 8)");
    return false;
  }
  if (!is_constant && wire.second) {
    error(scope, wire.second->offset,
          "reserved bits are `reserved(bits);` with one argument, their width: for a fixed nonzero value "
          "write const(value, bits)");
    return false;
  }
  const ast::Expr& width = is_constant ? *wire.second : wire.first;
  std::optional<std::int64_t> bits =
      eval_int64(width, scope, is_constant ? "a wire constant's width" : "the reserved width");
  if (!bits) return false;
  if (*bits < 1 || *bits > 64) {
    error(scope, width.offset,
          std::string(is_constant ? "a wire constant takes" : "reserved bits take") + " 1 .. 64 bits, found " +
              std::to_string(*bits) + (is_constant || *bits < 1 ? "" : ": write several reserved items for more"));
    return false;
  }
  out.bits = static_cast<int>(*bits);
  out.cost = {static_cast<std::uint64_t>(*bits), static_cast<std::uint64_t>(*bits)};
  if (!is_constant) {
    out.kind = model::ItemKind::Reserved;
    return true;
  }
  std::optional<Int> value = eval_int(wire.first, scope);
  if (!value) return false;
  const Int limit = Int(1) << *bits;
  if (*value < 0 || *value >= limit) {
    error(scope, wire.first.offset,
          "the wire constant " + to_string(*value) + " does not fit " + std::to_string(*bits) + " bits (0 .. " +
              to_string(limit - 1) + "): widen it or change the value");
    return false;
  }
  out.kind = model::ItemKind::Constant;
  out.constant = static_cast<std::uint64_t>(*value);
  return true;
}

// The emitter may add members next to a field (has_x for optional x, x_count for a variable array,
// x_changed for a sparse array); no other field may take those names, and no declaration of the package
// (inside the struct the unqualified name would find the member).
void Checker::check_companion_names(StructBuild& build) {
  for (const model::Field& field : build.model.fields) {
    std::vector<std::pair<std::string, const char*>> companions;  // the name, and why it is generated
    if (field.optional) companions.emplace_back(model::presence_member_name(field.name), "is optional");
    if (field.shape == model::Shape::VariableArray)
      companions.emplace_back(model::count_member_name(field.name), "is a variable array");
    if (field.shape == model::Shape::SparseArray)
      companions.emplace_back(model::changed_member_name(field.name), "is a sparse array");
    for (const auto& [companion, why] : companions) {
      if (auto declared = build.scope.by_name.find(companion); declared != build.scope.by_name.end()) {
        const Symbol& symbol = *declared->second;
        const char* kind = "constant";
        if (symbol.kind == model::DeclKind::Enum) kind = "enum";
        if (symbol.kind == model::DeclKind::Flags) kind = "flag set";
        if (symbol.kind == model::DeclKind::Struct) {
          kind = static_cast<const ast::StructDecl*>(symbol.decl)->is_message ? "message" : "struct";
        }
        error(build.scope, field.source_offset,
              "field '" + field.name + "' " + why + ", so its struct " + build.model.name +
                  " has a member '" + companion + "', which would hide the " + kind + " '" + companion +
                  "' (" + line_of(build.scope, symbol.name_offset) +
                  ") inside the struct: rename one of them");
        note(build.scope, symbol.name_offset, "declared here");
      }
      auto it = build.field_by_name.find(companion);
      if (it == build.field_by_name.end()) continue;
      const model::Field& other = build.model.fields[it->second];
      error(build.scope, other.source_offset,
            "field '" + other.name + "' collides with the member generated for field '" + field.name +
                "': rename one of them");
    }
  }
}

}  // namespace idlc::detail

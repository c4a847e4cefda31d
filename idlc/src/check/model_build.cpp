#include "check/model_build.hpp"

#include <algorithm>
#include <utility>

namespace idlc::model {

namespace {

// The implicit initial value of one element of `type`: nullopt where zero (or false, or empty) is valid.
std::optional<Value> implicit_element(const Type& type) {
  const auto nearest_zero = [](std::int64_t min, std::int64_t max) { return min > 0 ? min : max; };
  Value value;
  switch (type.kind) {
    case TypeKind::Integer: {
      const bool is_unsigned = !type.integer.storage.is_signed;
      const __int128 min = integer_value(type.integer.min, is_unsigned);
      const __int128 max = integer_value(type.integer.max, is_unsigned);
      if (type.integer.encoding != IntEncoding::Ranged || (min <= 0 && max >= 0)) return std::nullopt;
      value.kind = Value::Kind::Integer;
      value.integer = min > 0 ? type.integer.min : type.integer.max;  // the stored bits of the nearer bound
      return value;
    }
    case TypeKind::FixedPoint:
      if (type.fixed.raw_min <= 0 && type.fixed.raw_max >= 0) return std::nullopt;
      value.kind = Value::Kind::Integer;
      value.integer = nearest_zero(type.fixed.raw_min, type.fixed.raw_max);
      return value;
    case TypeKind::Enum:
      if (type.enumeration->items.front().value == 0) return std::nullopt;
      value.kind = Value::Kind::Enumerator;
      value.enumerator = 0;
      return value;
    default: return std::nullopt;
  }
}

Initial initial_of(const Field& field) {
  Initial initial;
  if (field.default_value && field.shape == Shape::Scalar) {
    initial.element = field.default_value;
  } else {
    initial.element = implicit_element(field.type);
  }
  // A count range that excludes zero starts at its minimum, so a new object is writable.
  if (field.shape == Shape::VariableArray) initial.count = field.array_min;
  return initial;
}

std::vector<Run> runs_of(const std::vector<Item>& items) {
  std::vector<Run> runs;
  bool open = false;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Item& item = items[i];
    // A constant or reserved item is a fixed-width read with its own check, like a ranged field.
    const bool fixed_item = item.kind == ItemKind::Constant || item.kind == ItemKind::Reserved;
    if (!(item.kind == ItemKind::Field || fixed_item) || item.cost.min != item.cost.max) {
      open = false;
      continue;
    }
    if (!open) runs.emplace_back();
    open = true;
    Run& run = runs.back();
    run.members.push_back({i, run.bits, item.cost.max});
    run.bits += item.cost.max;
  }
  return runs;
}

}  // namespace

void complete_struct(Struct& s) {
  for (Field& field : s.fields) field.initial = initial_of(field);
  s.runs = runs_of(s.body);
  // Every If, with whether it is outermost; an explicit stack instead of recursion.
  std::vector<std::pair<Item*, bool>> pending;
  for (Item& item : s.body) {
    if (item.kind == ItemKind::If) pending.emplace_back(&item, true);
  }
  while (!pending.empty()) {
    auto [item, outermost] = pending.back();
    pending.pop_back();
    item->then_runs = runs_of(item->then_items);
    item->else_runs = runs_of(item->else_items);
    item->resets.clear();
    for (std::vector<Item>* side : {&item->then_items, &item->else_items}) {
      for (Item& inner : *side) {
        if (inner.kind == ItemKind::If) pending.emplace_back(&inner, false);
      }
    }
    if (!outermost) continue;
    // Every field of both sides, nested ifs included, in declaration order.
    std::vector<const std::vector<Item>*> sides{&item->then_items, &item->else_items};
    while (!sides.empty()) {
      const std::vector<Item>* side = sides.back();
      sides.pop_back();
      for (const Item& inner : *side) {
        if (inner.kind == ItemKind::Field) item->resets.push_back(inner.field);
        if (inner.kind == ItemKind::If) {
          sides.push_back(&inner.then_items);
          sides.push_back(&inner.else_items);
        }
      }
    }
    std::sort(item->resets.begin(), item->resets.end());
  }
}

void complete_package(Package& package) {
  package.message_type_storage = IntStorage{false, package.messages.size() <= 256 ? 8 : 16};
  package.depends_on_checks = false;
  for (const Struct& s : package.structs) package.depends_on_checks = package.depends_on_checks || s.has_checks;
}

}  // namespace idlc::model

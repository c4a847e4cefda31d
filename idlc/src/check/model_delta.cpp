#include "check/model_delta.hpp"

#include <algorithm>

#include "check/checker.hpp"

namespace idlc::model {

namespace {

using idlc::detail::saturating_add;
using idlc::detail::saturating_mul;
using idlc::detail::sparse_max_bits;

// Bits with check markers counted, and the max when `check` writes nothing.
struct Bits {
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  std::uint64_t max_nc = 0;
};

Bits operator+(const Bits& a, const Bits& b) {
  return {saturating_add(a.min, b.min), saturating_add(a.max, b.max), saturating_add(a.max_nc, b.max_nc)};
}

Bits of(const BitRange& range) {
  return {range.min, range.max, range.max};
}

Bits either(const Bits& a, const Bits& b) {
  return {std::min(a.min, b.min), std::max(a.max, b.max), std::max(a.max_nc, b.max_nc)};
}

// A changed element of `type`, after its changed bit (or position).
Bits element_change(const Type& type, const Package* package) {
  if (type.kind == TypeKind::Bool) return {0, 0, 0};  // a change of a bool is its flip
  if (delta_nested(type, package)) return of(type.structure->delta_changes);
  const int bits = delta_relative_bits(type);
  if (bits != 0) {
    // The selector, then the smallest window or the whole value.
    const auto selector = static_cast<std::uint64_t>(bitwire::kDeltaSelectorBits);
    const std::uint64_t whole =
        selector + std::max<std::uint64_t>(type.cost.max, static_cast<std::uint64_t>(bits));
    return {selector + static_cast<std::uint64_t>(bitwire::delta_window_bits(bits, 0)), whole, whole};
  }
  return of(type.cost);
}

// One scalar value against its baseline: its changed bit and, when changed, the change.
Bits element_delta(const Type& type, const Package* package) {
  const Bits change = element_change(type, package);
  return {1, 1 + change.max, 1 + change.max_nc};
}

// The field without its presence bit.
Bits shape_delta(const Field& field, const Package* package) {
  const Type& type = field.type;
  switch (field.shape) {
    case Shape::Scalar:
      return element_delta(type, package);
    case Shape::FixedArray: {
      // int(changed, 0, N), then per changed element its position as in a sparse array and the change.
      const auto count = static_cast<std::uint64_t>(bits_required(0, field.array_max));
      const Bits change = element_change(type, package);
      return {count, saturating_add(count, sparse_max_bits(field.array_max, change.max)),
              saturating_add(count, sparse_max_bits(field.array_max, change.max_nc))};
    }
    case Shape::VariableArray: {
      // bool(same count) [int(count)], int(changed, 0, m) over the m shared elements, positions and
      // changes, then the appended elements whole. Bound: every element costs at most a gap of 1 and
      // the larger of a change and a whole element.
      const auto count = static_cast<std::uint64_t>(field.count_bits);
      const auto changed = static_cast<std::uint64_t>(bits_required(0, field.array_max));
      const Bits change = element_change(type, package);
      const std::uint64_t each = std::max(change.max, type.cost.max);
      const std::uint64_t each_nc = std::max(change.max_nc, type.cost.max);
      return {1, saturating_add(1 + count + changed, sparse_max_bits(field.array_max, each)),
              saturating_add(1 + count + changed, sparse_max_bits(field.array_max, each_nc))};
    }
    case Shape::SparseArray:
      break;  // refused by mark_delta_forms
  }
  return of(field.cost);
}

Bits field_delta(const Field& field, const Package* package) {
  const Bits shape = shape_delta(field, package);
  if (!field.optional) return shape;
  // bool(present); present: the delta when the baseline has the field, else the whole field.
  const std::uint64_t whole = field.cost.max - 1;
  return {1, 1 + std::max(shape.max, whole), 1 + std::max(shape.max_nc, whole)};
}

Bits whole_items(const std::vector<Item>& items) {
  Bits sum;
  for (const Item& item : items) sum = sum + of(item.cost);
  return sum;
}

Bits items_delta(const Struct& s, const std::vector<Item>& items) {
  Bits sum;
  for (const Item& item : items) {
    switch (item.kind) {
      case ItemKind::Field:
        sum = sum + field_delta(s.fields[item.field], s.package);
        break;
      case ItemKind::Align:
        sum = sum + Bits{0, 7, 7};
        break;
      case ItemKind::Check:
        sum = sum + Bits{kCheckMarkerBits, kCheckMarkerBits + 7, 0};
        break;
      case ItemKind::Constant:
      case ItemKind::Reserved:
        sum = sum + of(item.cost);
        break;
      case ItemKind::If: {
        // The baseline took the same side: the side's delta; another side: the side whole.
        const Bits then_side = either(items_delta(s, item.then_items), whole_items(item.then_items));
        const Bits else_side = either(items_delta(s, item.else_items), whole_items(item.else_items));
        sum = sum + either(then_side, else_side);
        break;
      }
    }
  }
  return sum;
}

}  // namespace

void complete_delta(Struct& s) {
  const Bits changes = items_delta(s, s.body);
  s.delta_changes = {changes.min, changes.max};
  s.delta_cost = {1, saturating_add(1, changes.max)};
  s.delta_max_bits_without_checks = saturating_add(1, changes.max_nc);
}

std::vector<std::pair<std::uint32_t, std::string>> mark_delta_forms(Package& package) {
  std::vector<std::pair<std::uint32_t, std::string>> problems;
  std::vector<Struct*> pending;
  for (Struct& s : package.structs) {
    if (s.delta && !s.delta_form) {
      s.delta_form = true;
      pending.push_back(&s);
    }
  }
  while (!pending.empty()) {
    Struct& s = *pending.back();
    pending.pop_back();
    for (const Field& field : s.fields) {
      if (field.shape == Shape::SparseArray) {
        problems.emplace_back(field.source_offset,
                              "a sparse array cannot be part of a delta form (" + s.name +
                                  " is sent as a delta): make it a plain array, whose delta already sends "
                                  "only the changed elements");
      }
      if (delta_nested(field.type, &package) && !field.type.structure->delta_form) {
        // A struct of this package: the package is ours to complete, the pointer is const by type only.
        auto* nested = const_cast<Struct*>(field.type.structure);
        nested->delta_form = true;
        pending.push_back(nested);
      }
    }
    if (s.delta_cost.max > kMaxStructBits) {
      problems.emplace_back(s.source_offset,
                            s.name + "'s delta form can take up to " + std::to_string(s.delta_cost.max) +
                                " bits; a struct or message is limited to " + std::to_string(kMaxStructBits) +
                                " bits: shrink its arrays, strings or bytes");
    }
  }
  return problems;
}

}  // namespace idlc::model
